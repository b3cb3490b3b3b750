# The lesson's own code, exactly as the lesson prints it ("Queues und Idempotenz", exercise 3).
import sqlite3


def verarbeite(con, msg):
    with con:
        try:
            con.execute("INSERT INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
        con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                    (msg["body"]["punkte"], msg["body"]["kunde"]))
        return True
