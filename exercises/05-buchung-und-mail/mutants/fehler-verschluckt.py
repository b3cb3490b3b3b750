# expect-fail: constraint-violation
# Every error is caught and the message acknowledged: a payment that cannot be booked is lost.
import sqlite3
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    try:
        with con:
            try:
                con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
            except sqlite3.IntegrityError:
                return False
            con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                        (buchung["betrag"], buchung["konto"]))
            mail.send_mail(key=str(msg["id"]), to=buchung["email"],
                           body="Abbuchung von %d bestätigt." % buchung["betrag"])
    except Exception:
        pass
    return True
