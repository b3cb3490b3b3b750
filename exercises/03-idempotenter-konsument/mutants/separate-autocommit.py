# expect-fail: crash-points
#
# Mutant: commits the remembered id before the credit (two transactions). A crash between the two
# commits leaves the id remembered and the points never credited.
import sqlite3


def verarbeite(con, msg):
    try:
        con.execute("INSERT INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
        con.commit()
    except sqlite3.IntegrityError:
        return False
    with con:
        con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                    (msg["body"]["punkte"], msg["body"]["kunde"]))
    return True
