# expect-fail: duplicate-same-instance
# The mail goes out before the dedup check: every duplicate sends another mail, without any crash.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    mail.send_mail(to=buchung["email"], body="Abbuchung von %d bestätigt." % buchung["betrag"])
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        return True
