# expect-fail: crash-points
#
# Mutant: takes the items and records the reservation in two transactions. A crash between them
# leaves the stock reduced without a reservation: the redelivery takes the items again.
import sqlite3


def verarbeite(con, msg):
    try:
        with con:
            con.execute("UPDATE lager SET bestand = bestand - ? WHERE artikel = ?",
                        (msg["body"]["menge"], msg["body"]["artikel"]))
        with con:
            con.execute("INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)",
                        (msg["id"], msg["body"]["artikel"], msg["body"]["menge"]))
    except sqlite3.IntegrityError:
        return False
    return True
