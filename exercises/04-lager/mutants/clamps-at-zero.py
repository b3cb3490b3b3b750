# expect-fail: constraint-violation
#
# Mutant: keeps the stock from going below zero by clamping it instead of refusing the order: an
# order larger than the stock is "reserved" and acked although the items are not there.
import sqlite3


def verarbeite(con, msg):
    with con:
        try:
            con.execute("INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)",
                        (msg["id"], msg["body"]["artikel"], msg["body"]["menge"]))
        except sqlite3.IntegrityError:
            return False
        con.execute("UPDATE lager SET bestand = max(bestand - ?, 0) WHERE artikel = ?",
                    (msg["body"]["menge"], msg["body"]["artikel"]))
        return True
