# expect-fail: duplicate-same-instance
# No dedup table ("the log keeps the offset, it will not deliver a record twice"): the log delivers
# at least once, and after a crash between the COMMIT and the commit the record counts twice.
import log


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    with con:
        con.execute(
            "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
            (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
        )
    log.commit_offset(partition, offset + 1)
    return True
