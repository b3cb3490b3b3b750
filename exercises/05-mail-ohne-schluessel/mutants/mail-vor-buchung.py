# expect-fail: constraint-violation
# The mail inside the transaction but before the debit: a payment the CHECK refuses still confirms
# itself.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
        mail.send_mail(to=buchung["email"], body="Abbuchung von %d bestätigt." % buchung["betrag"])
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        return True
