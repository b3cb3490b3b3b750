# expect-fail: invariant keine-veroeffentlichung-ohne-buchung
# The event published directly in verarbeite, inside the transaction, before the COMMIT: no outbox,
# no relay. A crash after `publish` and before the COMMIT leaves an event of a booking that never
# committed (the classic dual write).
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
        nutzlast = {"ereignis": msg["id"], "konto": zahlung["konto"], "betrag": zahlung["betrag"]}
        broker.publish(topic="abbuchungen", key=str(msg["id"]), payload=json.dumps(nutzlast))
        return True


def weiterleiten(con, auftrag):
    return True  # nothing in the outbox: verarbeite published already
