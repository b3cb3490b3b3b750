# expect-fail: duplicate-same-instance
# Commits `offset`, the record just processed, instead of `offset + 1`, the next one to read: the
# committed offset still lets the same record through, and a redelivery counts it again.
GRUPPE = "statistik"


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    with con:
        weiter = con.execute(
            "UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ? AND naechster <= ?",
            (offset, GRUPPE, partition, offset),
        ).rowcount
        if weiter == 0:
            return False
        con.execute(
            "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
            (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
        )
        return True
