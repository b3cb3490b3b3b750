# expect-fail: duplicate-same-instance
#
# A wrong consumer: INSERT OR IGNORE never reports a known id, so a duplicate is credited again.
REMEMBER = "INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)"
CREDIT = "UPDATE punkte SET stand = stand + ? WHERE kunde = ?"


def verarbeite(con, msg):
    body = msg["body"]
    with con:
        con.execute(REMEMBER, (msg["id"],))
        con.execute(CREDIT, (body["punkte"], body["kunde"]))
    return True
