# expect-fail: at-least-once-schedule
# The debit is committed on its own, outside the transaction of the id and the receipt: every
# attempt that fails afterwards (the provider's "try again later") has debited already, and the
# redelivery debits again. Ben pays message 24's fee three times, or the third debit fails.
import sqlite3
import mail


def verarbeite(con, msg):
    gebuehr = msg["body"]
    if con.execute("SELECT 1 FROM erledigt WHERE msg_id = ?", (msg["id"],)).fetchone() is not None:
        return False
    con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                (gebuehr["betrag"], gebuehr["konto"]))
    con.commit()
    with con:
        con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        mail.send_mail(key=str(msg["id"]), to=gebuehr["email"],
                       body="Monatsgebühr von %d abgebucht." % gebuehr["betrag"])
        return True
