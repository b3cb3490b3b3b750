# expect-fail: duplicate-same-instance
#
# Mutant: no deduplication at all: every delivery credits the points again.


def verarbeite(con, msg):
    with con:
        con.execute("UPDATE punkte SET stand = stand + ? WHERE kunde = ?",
                    (msg["body"]["punkte"], msg["body"]["kunde"]))
    return True
