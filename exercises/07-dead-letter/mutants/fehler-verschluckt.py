# expect-fail: at-least-once-schedule
# The provider's "try again later" is caught and the message acknowledged: the fee is debited, but
# the receipt of message 24 never goes out. The queue never learns that anything failed.
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
        try:
            mail.send_mail(key=str(msg["id"]), to=gebuehr["email"],
                           body="Monatsgebühr von %d abgebucht." % gebuehr["betrag"])
        except mail.MailError:
            pass  # the provider is down: debit anyway, skip the receipt
        return True
