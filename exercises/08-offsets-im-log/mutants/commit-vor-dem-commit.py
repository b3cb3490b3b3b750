# expect-fail: crash-points
# The offset is committed to the log inside the transaction, before its COMMIT ("then both are
# done together"): the log does not wait for the COMMIT. A crash in between rolls the count back
# while the log already stands past the record, and it is never delivered again.
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
        log.commit_offset(partition, offset + 1)
    return neu
