# The reference solution of exercise 8b: the log keeps the group's offsets, so the offset can never
# be in the transaction of the effect. The record is counted and remembered in `verarbeitet` in one
# transaction; `offset + 1` is committed to the log after the COMMIT, for a record counted before
# too. A crash between the COMMIT and the commit brings the record again: it is recognised and
# only its offset committed (at least once delivered, exactly once counted).
import log


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    with con:
        neu = con.execute(
            "INSERT OR IGNORE INTO verarbeitet (partition, offset) VALUES (?, ?)", (partition, offset)
        ).rowcount == 1
        if neu:
            # betrag <= 0 raises IntegrityError (CHECK): the block rolls back, no offset is committed.
            con.execute(
                "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
                (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
            )
    log.commit_offset(partition, offset + 1)
    return neu
