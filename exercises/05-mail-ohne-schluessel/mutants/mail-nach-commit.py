# expect-fail: invariant jede-buchung-hat-ihre-mail
# The mail only after the COMMIT: at most once, but a crash between the COMMIT and send_mail loses
# it for good; the redelivery is a duplicate.
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
    mail.send_mail(to=buchung["email"], body="Abbuchung von %d bestätigt." % buchung["betrag"])
    return True
