# expect-fail: crash-points
# No dedup: the record is remembered in `verarbeitet`, but counted whether it was there or not
# ("the log keeps the offset, it will not deliver a record twice"). The log delivers at least once:
# after a crash between the COMMIT and the commit the record comes again and counts twice.
import log


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    with con:
        neu = con.execute(
            "INSERT OR IGNORE INTO verarbeitet (partition, offset) VALUES (?, ?)", (partition, offset)
        ).rowcount == 1
        con.execute(
            "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
            (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
        )
    log.commit_offset(partition, offset + 1)
    return neu
