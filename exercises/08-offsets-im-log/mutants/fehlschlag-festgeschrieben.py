# expect-fail: constraint-violation
# When a record fails, the offset past it is committed anyway ("move on, it will not work next
# time either"): the record is skipped for good, and the log's offset runs ahead of what was
# processed.
import log


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    try:
        with con:
            neu = con.execute(
                "INSERT OR IGNORE INTO verarbeitet (partition, offset) VALUES (?, ?)", (partition, offset)
            ).rowcount == 1
            if neu:
                con.execute(
                    "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
                    (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
                )
    finally:
        log.commit_offset(partition, offset + 1)
    return neu
