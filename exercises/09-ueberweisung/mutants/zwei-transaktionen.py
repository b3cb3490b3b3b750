# expect-fail: crash-points
#
# Mutant: debits in one transaction and credits with the id in a second one. A crash between them
# destroys money: the debit is durable, and the redelivery debits again.
import sqlite3


def verarbeite(con, msg):
    ueberweisung = msg["body"]
    if con.execute("SELECT 1 FROM erledigt WHERE msg_id = ?", (msg["id"],)).fetchone():
        return False
    with con:
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["von"]))
    with con:
        con.execute("UPDATE konten SET saldo = saldo + ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["an"]))
        con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
    return True
