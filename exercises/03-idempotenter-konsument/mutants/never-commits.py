# expect-fail: fresh-message
#
# Mutant: writes both rows but never commits; the open transaction is rolled back when verarbeite
# returns, so nothing is ever credited.
import sqlite3


def verarbeite(con, msg):
    try:
        con.execute("INSERT INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
    except sqlite3.IntegrityError:
        return False
    con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                (msg["body"]["punkte"], msg["body"]["kunde"]))
    return True
