# expect-fail: constraint-violation
# The mail goes out first, before the dedup row and the booking: a payment that fails still
# confirms itself.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    mail.send_mail(key=str(msg["id"]), to=buchung["email"],
                   body="Abbuchung von %d bestätigt." % buchung["betrag"])
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        return True
