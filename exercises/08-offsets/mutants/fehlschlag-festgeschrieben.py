# expect-fail: constraint-violation
# When a record fails, the offset past it is committed anyway ("move on, it will not work next
# time either"): the record is skipped for good, and the offset runs ahead of what was processed.
import sqlite3

GRUPPE = "statistik"


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    try:
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
    except sqlite3.IntegrityError:
        with con:
            con.execute(
                "UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ?", (offset + 1, GRUPPE, partition)
            )
        raise
