# expect-fail: at-least-once-schedule
# The consumer counts attempts itself, in a global variable, and gives up after the third: it
# acknowledges the message so that it stops coming. The poison message never reaches the dead
# letter queue, and message 24 (two transient failures) is given up at its third receive, the one
# that would have worked. After a restart the count starts again from zero.
import sqlite3
import mail

versuche = {}


def verarbeite(con, msg):
    n = versuche.get(msg["id"], 0) + 1
    versuche[msg["id"]] = n
    if n >= 3:
        return False  # enough: acknowledge and forget it
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
