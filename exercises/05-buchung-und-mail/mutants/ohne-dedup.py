# expect-fail: duplicate-same-instance
# No dedup row: every delivery books again (the provider's key keeps the mail single, not the money).
import mail


def verarbeite(con, msg):
    buchung = msg["body"]
    with con:
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (buchung["betrag"], buchung["konto"]))
        mail.send_mail(key=str(msg["id"]), to=buchung["email"],
                       body="Abbuchung von %d bestätigt." % buchung["betrag"])
        return True
