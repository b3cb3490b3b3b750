# expect-fail: duplicate-after-restart
# The offset is kept in a variable of the process only: a restarted process has forgotten it and
# counts the redelivered record again.
GELESEN = {}


def verarbeite(con, msg):
    partition, offset = msg["partition"], msg["offset"]
    if offset < GELESEN.get(partition, 40):
        return False
    with con:
        con.execute(
            "INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
            (partition, offset, msg["body"]["kunde"], msg["body"]["betrag"]),
        )
    GELESEN[partition] = offset + 1
    return True
