# expect-fail: crash-points
# The dedup row is committed in a transaction of its own, before the booking: a crash in between
# leaves the id remembered and the payment never booked.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
    with con:
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        mail.send_mail(key=str(msg["id"]), to=buchung["email"],
                       body="Abbuchung von %d bestätigt." % buchung["betrag"])
        return True
