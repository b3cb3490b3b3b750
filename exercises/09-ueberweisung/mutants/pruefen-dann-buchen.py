# expect-fail: concurrent-duplicate
#
# Mutant: asks whether the id is known, then books outside that question's transaction. Two
# consumers that receive the same message at once both hear "not yet" and both transfer.
def verarbeite(con, msg):
    ueberweisung = msg["body"]
    if con.execute("SELECT 1 FROM erledigt WHERE msg_id = ?", (msg["id"],)).fetchone():
        return False
    with con:
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["von"]))
        con.execute("UPDATE konten SET saldo = saldo + ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["an"]))
        con.execute("INSERT OR IGNORE INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
    return True
