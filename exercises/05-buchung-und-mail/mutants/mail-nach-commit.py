# expect-fail: crash-points
# The mail only after the COMMIT: a crash between the COMMIT and send_mail loses it, and the
# redelivery is a duplicate that sends nothing.
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
    mail.send_mail(key=str(msg["id"]), to=buchung["email"],
                   body="Abbuchung von %d bestätigt." % buchung["betrag"])
    return True
