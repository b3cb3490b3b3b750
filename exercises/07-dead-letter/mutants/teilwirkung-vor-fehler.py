# expect-fail: at-least-once-schedule
# The debit and the remembered id are committed before the receipt is sent: when the provider
# answers "try again later", the error flies, but the part already committed stays. The
# redelivery finds the id and returns False: the receipt of message 24 never goes out.
import sqlite3
import mail


def verarbeite(con, msg):
    gebuehr = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (gebuehr["betrag"], gebuehr["konto"]))
    mail.send_mail(key=str(msg["id"]), to=gebuehr["email"],
                   body="Monatsgebühr von %d abgebucht." % gebuehr["betrag"])
    return True
