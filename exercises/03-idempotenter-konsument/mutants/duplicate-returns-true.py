# expect-fail: duplicate-same-instance
#
# Mutant: recognises the duplicate and changes nothing, but returns True (processed) instead of
# False.
import sqlite3


def verarbeite(con, msg):
    with con:
        try:
            con.execute("INSERT INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return True
        con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                    (msg["body"]["punkte"], msg["body"]["kunde"]))
        return True
