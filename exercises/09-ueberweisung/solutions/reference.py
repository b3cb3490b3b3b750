# The reference solution of exercise 9: the id, the debit and the credit in one transaction
# (`with con:` commits at the end of the block and rolls back on an exception).
import sqlite3


def verarbeite(con, msg):
    ueberweisung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False  # seen before: already booked
        # A balance below zero raises IntegrityError (CHECK): the block rolls back, the id too.
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["von"]))
        con.execute("UPDATE konten SET saldo = saldo + ? WHERE konto = ?",
                    (ueberweisung["betrag"], ueberweisung["an"]))
        return True
