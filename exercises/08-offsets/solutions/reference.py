# The reference solution of exercise 8: the group's committed offset lives in the consumer's own
# database and is written in the same transaction as the effect, as `offset + 1` (the next record
# to read). A record below the committed offset was processed before.
GRUPPE = "statistik"


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    with con:
        # Move the offset on to `offset + 1` unless it is past the record already. The UPDATE
        # comes first so that a second process with the same record waits for this transaction
        # and then finds the offset moved on.
        weiter = con.execute(
            "UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ? AND naechster <= ?",
            (offset + 1, GRUPPE, partition, offset),
        ).rowcount
        if weiter == 0:
            return False  # read before: the log delivers again what came after the committed offset
        # betrag <= 0 raises IntegrityError (CHECK): the block rolls back, the offset with it.
        con.execute(
            "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
            (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
        )
        return True
