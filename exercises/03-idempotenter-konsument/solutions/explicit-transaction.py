# Solution: the same transaction written out: commit on success, rollback and re-raise on any other
# error, rollback and False on a duplicate id.
import sqlite3


def verarbeite(con, msg):
    try:
        con.execute("INSERT INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
    except sqlite3.IntegrityError:
        con.rollback()
        return False
    try:
        con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                    (msg["body"]["punkte"], msg["body"]["kunde"]))
    except sqlite3.Error:
        con.rollback()
        raise
    con.commit()
    return True
