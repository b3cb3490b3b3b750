# expect-fail: duplicate-same-instance
# A duplicate is reported as an error: the IntegrityError of the dedup row flies on. After a crash
# after the COMMIT, before the ack, the processed message comes again, fails every time and drifts
# to the dead letter queue although its work is done.
import mail


def verarbeite(con, msg):
    gebuehr = msg["body"]
    with con:
        con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (gebuehr["betrag"], gebuehr["konto"]))
        mail.send_mail(key=str(msg["id"]), to=gebuehr["email"],
                       body="Monatsgebühr von %d abgebucht." % gebuehr["betrag"])
        return True
