# expect-fail: duplicate-same-instance
#
# Mutant: books every delivery and remembers nothing; a duplicate transfers the amount again.
def verarbeite(con, msg):
    ueberweisung = msg["body"]
    with con:
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["von"]))
        con.execute("UPDATE konten SET saldo = saldo + ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["an"]))
    return True
