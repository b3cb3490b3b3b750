# expect-fail: fresh-message
# Commits `offset`, the record just processed, instead of `offset + 1`, the next one to read: the
# log never moves past the record and delivers it again after every restart.
import log


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    with con:
        neu = con.execute(
            "INSERT OR IGNORE INTO verarbeitet (partition, offset) VALUES (?, ?)", (partition, offset)
        ).rowcount == 1
        if neu:
            con.execute(
                "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
                (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
            )
    log.commit_offset(partition, offset)
    return neu
