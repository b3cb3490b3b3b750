# expect-fail: lost-ack
# No dedup row: a crash after the COMMIT and before the ack brings the message again, and the
# redelivery debits a second time (the receipt's key only saves the mail).
import mail


def verarbeite(con, msg):
    gebuehr = msg["body"]
    with con:
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (gebuehr["betrag"], gebuehr["konto"]))
        mail.send_mail(key=str(msg["id"]), to=gebuehr["email"],
                       body="Monatsgebühr von %d abgebucht." % gebuehr["betrag"])
        return True
