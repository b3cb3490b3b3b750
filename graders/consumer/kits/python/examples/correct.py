# A correct consumer of exercise 3: the id and the credit in one transaction. A known id and a
# credit over the limit both raise IntegrityError; the message tells them apart.
import sqlite3

REMEMBER = "INSERT INTO gesehen (msg_id) VALUES (?)"
CREDIT = "UPDATE punkte SET stand = stand + ? WHERE kunde = ?"


def verarbeite(con, msg):
    body = msg["body"]
    try:
        with con:
            con.execute(REMEMBER, (msg["id"],))
            con.execute(CREDIT, (body["punkte"], body["kunde"]))
    except sqlite3.IntegrityError as error:
        # "UNIQUE constraint failed: gesehen.msg_id": processed before, nothing changed now.
        if "gesehen.msg_id" in str(error):
            return False
        # "CHECK constraint failed: ...": the block rolled back; the message comes again.
        raise
    return True
