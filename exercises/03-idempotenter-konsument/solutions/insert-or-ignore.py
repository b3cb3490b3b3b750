# Solution: INSERT OR IGNORE and rowcount instead of catching IntegrityError.


def verarbeite(con, msg):
    with con:
        cur = con.execute("INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)", (msg["id"],))
        if cur.rowcount == 0:
            return False
        con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                    (msg["body"]["punkte"], msg["body"]["kunde"]))
    return True
