# A correct solution in Python, written as the lesson writes consumers: `with con:` is one
# transaction (commit when the block ends, rollback on an exception), and the id and the credit
# are written in it together. `pruefstein check` proves that it passes every check.
import sqlite3


def verarbeite(con, msg):
    with con:
        try:
            con.execute("INSERT INTO verarbeitet (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False  # seen before: already processed
        # A balance above the limit raises IntegrityError (CHECK): the block rolls back, the id too.
        con.execute("UPDATE konten SET saldo = saldo + ? WHERE konto = ?",
                    (msg["body"]["betrag"], msg["body"]["konto"]))
        return True
