# expect-fail: fresh-message
# Commits the offset after every second record only, to save calls: the first record's offset is
# never committed, and the log delivers it again after every restart.
import log

GEZAEHLT = [0]


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
    GEZAEHLT[0] += 1
    if GEZAEHLT[0] % 2 == 0:
        log.commit_offset(partition, offset + 1)
    return neu
