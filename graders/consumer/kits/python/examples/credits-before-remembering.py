# expect-fail: crash-points
#
# A wrong consumer: the credit is committed first, the id in a second transaction. A crash between
# the two commits keeps the credit but forgets the id: the redelivery credits a second time.
import sqlite3

REMEMBER = "INSERT INTO gesehen (msg_id) VALUES (?)"
CREDIT = "UPDATE punkte SET stand = stand + ? WHERE kunde = ?"


def verarbeite(con, msg):
    body = msg["body"]
    if con.execute("SELECT count(*) FROM gesehen WHERE msg_id = ?", (msg["id"],)).fetchone()[0]:
        return False
    with con:
        con.execute(CREDIT, (body["punkte"], body["kunde"]))
    with con:
        try:
            con.execute(REMEMBER, (msg["id"],))
        except sqlite3.IntegrityError:
            return False
    return True
