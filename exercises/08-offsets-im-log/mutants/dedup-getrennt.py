# expect-fail: crash-points
# The dedup row in a transaction of its own after the count: a crash in between leaves the record
# counted but not remembered, the log delivers it again, and it counts twice.
import log


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    schon = con.execute(
        "SELECT count(*) FROM verarbeitet WHERE partition = ? AND offset = ?", (partition, offset)
    ).fetchone()[0]
    if not schon:
        with con:
            con.execute(
                "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
                (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
            )
        with con:
            con.execute("INSERT INTO verarbeitet (partition, offset) VALUES (?, ?)", (partition, offset))
    log.commit_offset(partition, offset + 1)
    return not schon
