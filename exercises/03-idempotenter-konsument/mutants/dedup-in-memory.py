# expect-fail: duplicate-after-restart
#
# Mutant: the lesson's in-memory set. A duplicate at the same process is caught; after a restart
# the set is empty and the duplicate credits again.
gesehen = set()


def verarbeite(con, msg):
    if msg["id"] in gesehen:
        return False
    with con:
        con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                    (msg["body"]["punkte"], msg["body"]["kunde"]))
    gesehen.add(msg["id"])
    return True
