# expect-fail: duplicate-same-instance
#
# Mutant: records the reservation with INSERT OR IGNORE, which never reports a duplicate, and takes
# the items from stock every time: a redelivered order is reserved twice.


def verarbeite(con, msg):
    with con:
        con.execute("INSERT OR IGNORE INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)",
                    (msg["id"], msg["body"]["artikel"], msg["body"]["menge"]))
        con.execute("UPDATE lager SET bestand = bestand - ? WHERE artikel = ?",
                    (msg["body"]["menge"], msg["body"]["artikel"]))
    return True
