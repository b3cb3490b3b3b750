# The reference solution of exercise 5: the remembered id and the debit in one transaction, the
# confirmation sent inside it, before the COMMIT, with the message id as its idempotency key.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False  # booked before: no second booking, no second mail
        # Below zero raises IntegrityError (CHECK): the block rolls back, the id too, no mail.
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        # A crash after this call and before the COMMIT rolls the booking back; the redelivery
        # sends again under the same key, and the provider replays the first result.
        mail.send_mail(key=str(msg["id"]), to=buchung["email"],
                       body="Abbuchung von %d bestätigt." % buchung["betrag"])
        return True
