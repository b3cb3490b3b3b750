# expect-fail: constraint-violation
#
# Mutant: when the credit fails (CHECK stand <= 1000) the transaction is rolled back correctly,
# but the error is swallowed and False returned, as if the message were a duplicate: the queue acks
# it and the message is lost.
import sqlite3


def verarbeite(con, msg):
    try:
        with con:
            try:
                con.execute("INSERT INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
            except sqlite3.IntegrityError:
                return False
            con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                        (msg["body"]["punkte"], msg["body"]["kunde"]))
            return True
    except sqlite3.Error:
        return False
