# expect-fail: invariant genau-einmal
# The effect and the offset in two transactions, the offset after it: a crash in between leaves
# the record counted and the offset where it was, so the log delivers it again and it counts twice.
GRUPPE = "statistik"


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    naechster = con.execute(
        "SELECT naechster FROM offsets WHERE gruppe = ? AND partition = ?", (GRUPPE, partition)
    ).fetchone()[0]
    if offset < naechster:
        return False
    with con:
        con.execute(
            "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
            (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
        )
    with con:
        con.execute(
            "UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ?", (offset + 1, GRUPPE, partition)
        )
    return True
