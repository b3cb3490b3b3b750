# expect-fail: crash-points
#
# A mutant in Python: a wrong solution that must fail the check declared above (`pruefstein check`
# proves it). The id and the credit are committed in two transactions: a crash between them leaves
# the id remembered and the credit lost, and the redelivery is taken for a duplicate.
import sqlite3


def verarbeite(con, msg):
    with con:
        try:
            con.execute("INSERT INTO verarbeitet (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
    with con:
        con.execute("UPDATE konten SET saldo = saldo + ? WHERE konto = ?",
                    (msg["body"]["betrag"], msg["body"]["konto"]))
    return True
