# expect-fail: invariant jede-buchung-veroeffentlicht
# The relay marks the event sent (and commits) before it publishes: a crash between the marking and
# `publish` loses the event for good, the restarted relay finds nothing to send.
import json
import sqlite3
import broker


def verarbeite(con, msg):
    zahlung = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False  # booked before: no second booking, no second event
        # Below zero raises IntegrityError (CHECK): the block rolls back, the id and the event too.
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (zahlung["betrag"], zahlung["konto"]))
        con.execute("INSERT INTO outbox (ereignis, konto, betrag) VALUES (?, ?, ?)",
                    (msg["id"], zahlung["konto"], zahlung["betrag"]))
        return True


def spalte(con, name, nr):
    return con.execute("SELECT " + name + " FROM outbox WHERE nr = ?", (nr,)).fetchone()[0]


def weiterleiten(con, auftrag):
    while True:
        zeile = con.execute("SELECT nr FROM outbox WHERE gesendet = 0 ORDER BY nr LIMIT 1").fetchone()
        if zeile is None:
            return True  # nothing left to send
        nr = zeile[0]
        ereignis = spalte(con, "ereignis", nr)
        nutzlast = {"ereignis": ereignis, "konto": spalte(con, "konto", nr), "betrag": spalte(con, "betrag", nr)}
        # A crash after this call and before the marking sends the event again after the restart:
        # under the same key, so the receiver recognises the duplicate.
        with con:
            con.execute("UPDATE outbox SET gesendet = 1 WHERE nr = ?", (nr,))
        broker.publish(topic="abbuchungen", key=str(ereignis), payload=json.dumps(nutzlast))
