# expect-fail: crash-points
#
# Mutant: records the reservation in a transaction of its own, then takes the items in a second
# one; when taking fails it deletes the reservation again. A crash after the first commit leaves a
# reservation whose items were never taken: the redelivery takes it for a duplicate.
import sqlite3


def verarbeite(con, msg):
    try:
        with con:
            con.execute("INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)",
                        (msg["id"], msg["body"]["artikel"], msg["body"]["menge"]))
    except sqlite3.IntegrityError:
        return False
    try:
        with con:
            cur = con.execute("UPDATE lager SET bestand = bestand - ? WHERE artikel = ?",
                              (msg["body"]["menge"], msg["body"]["artikel"]))
            if cur.rowcount != 1:
                raise ValueError("unknown article")
    except Exception:
        with con:
            con.execute("DELETE FROM reservierungen WHERE nachricht = ?", (msg["id"],))
        raise
    return True
