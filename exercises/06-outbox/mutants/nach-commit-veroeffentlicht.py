# expect-fail: crash-points
# The event published by verarbeite itself right after the COMMIT, no relay: a crash between the
# COMMIT and `publish` loses the event for good (the redelivery is a duplicate and publishes nothing).
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
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (zahlung["betrag"], zahlung["konto"]))
    nutzlast = {"ereignis": msg["id"], "konto": zahlung["konto"], "betrag": zahlung["betrag"]}
    broker.publish(topic="abbuchungen", key=str(msg["id"]), payload=json.dumps(nutzlast))
    return True


def weiterleiten(con, auftrag):
    return True  # nothing in the outbox: verarbeite published already
