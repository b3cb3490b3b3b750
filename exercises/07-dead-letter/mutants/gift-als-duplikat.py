# expect-fail: constraint-violation
# Every IntegrityError is taken for a duplicate, the CHECK (saldo >= 0) of Cem's empty account too:
# the poison message is acknowledged as "already processed" and vanishes instead of reaching the
# dead letter queue, where someone would look at it.
import sqlite3
import mail


def verarbeite(con, msg):
    gebuehr = msg["body"]
    try:
        with con:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
            con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                        (gebuehr["betrag"], gebuehr["konto"]))
            mail.send_mail(key=str(msg["id"]), to=gebuehr["email"],
                           body="Monatsgebühr von %d abgebucht." % gebuehr["betrag"])
            return True
    except sqlite3.IntegrityError:
        return False
