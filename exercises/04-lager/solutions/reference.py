# The reference solution of exercise 4 in Python: one transaction records the reservation and
# takes the items; a duplicate reservation is the dedup key's IntegrityError.
import sqlite3


class UnknownArticle(Exception):
    pass


def verarbeite(con, msg):
    with con:
        try:
            con.execute("INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)",
                        (msg["id"], msg["body"]["artikel"], msg["body"]["menge"]))
        except sqlite3.IntegrityError:
            return False
        cur = con.execute("UPDATE lager SET bestand = bestand - ? WHERE artikel = ?",
                          (msg["body"]["menge"], msg["body"]["artikel"]))
        if cur.rowcount != 1:
            raise UnknownArticle(msg["body"]["artikel"])
        return True
