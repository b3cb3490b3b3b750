# expect-fail: constraint-violation
#
# Mutant: a refused debit is caught and the id is remembered anyway, as if the transfer had been
# booked: the message is acked without its effect.
import sqlite3


def verarbeite(con, msg):
    ueberweisung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False
        try:
            con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                        (ueberweisung["betrag"], ueberweisung["von"]))
            con.execute("UPDATE konten SET saldo = saldo + ? WHERE konto = ?",
                        (ueberweisung["betrag"], ueberweisung["an"]))
        except sqlite3.IntegrityError:
            pass
        return True
