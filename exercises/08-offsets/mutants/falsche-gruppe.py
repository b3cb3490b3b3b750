# expect-fail: fresh-message
# Copied from the billing service: the group id is `rechnung`, where a group of its own was meant
# (fan-out). The statistics then share billing's offsets and skip every record billing has read.
GRUPPE = "rechnung"


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    with con:
        weiter = con.execute(
            "UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ? AND naechster <= ?",
            (offset + 1, GRUPPE, partition, offset),
        ).rowcount
        if weiter == 0:
            return False
        con.execute(
            "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
            (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
        )
        return True
