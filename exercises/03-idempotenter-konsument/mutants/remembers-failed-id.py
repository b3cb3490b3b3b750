# expect-fail: constraint-violation
#
# Mutant: when the credit fails it still commits, so the id is remembered although nothing was
# credited; it passes the error on, but the redelivery is taken for a duplicate.
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
    finally:
        con.commit()
    return True
