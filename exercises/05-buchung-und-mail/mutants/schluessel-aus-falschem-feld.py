# expect-fail: same-body-new-id
# The idempotency key is the account, not the message id: a second, real payment of the same
# account gets the first one's replayed result, and no mail.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        mail.send_mail(key=buchung["konto"], to=buchung["email"],
                       body="Abbuchung von %d bestätigt." % buchung["betrag"])
        return True
