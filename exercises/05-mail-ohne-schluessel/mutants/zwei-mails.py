# expect-fail: fresh-message
# A reminder after the confirmation: two mails for one booking, without any crash.
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
        mail.send_mail(to=buchung["email"], body="Zur Erinnerung: Abbuchung von %d." % buchung["betrag"])
        return True
