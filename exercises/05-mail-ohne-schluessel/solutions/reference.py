# The reference solution of exercise 5 without keys: the remembered id and the debit in one
# transaction, the confirmation sent inside it, before the COMMIT. The provider has no idempotency
# keys: a crash after send_mail and before the COMMIT rolls the booking back, the redelivery books
# and sends again. Honestly: every booking has its mail, and at most one extra mail, only after such
# a crash.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False  # booked before: no second booking, no second mail
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        mail.send_mail(to=buchung["email"], body="Abbuchung von %d bestätigt." % buchung["betrag"])
        return True
