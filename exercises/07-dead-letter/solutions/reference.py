# The reference solution of exercise 7: the remembered id and the debit in one transaction, the
# receipt sent inside it, before the COMMIT, with the message id as its idempotency key. Every error
# flies on: the block rolls back, the message is not acked, and the queue redelivers it (a provider
# that says "try again later") or, after three receives, moves it to the dead letter queue (a debit
# that can never work). Counting attempts is the queue's business, not the consumer's.
import sqlite3
import mail


def verarbeite(con, msg):
    gebuehr = msg["body"]
    with con:
        try:
            con.execute("INSERT INTO erledigt (msg_id) VALUES (?)", (msg["id"],))
        except sqlite3.IntegrityError:
            return False  # processed before (a crash after the COMMIT, before the ack): ack, no effect
        # Below zero raises IntegrityError (CHECK): the block rolls back, the id too, no receipt.
        con.execute("UPDATE konten SET saldo = saldo - ? WHERE konto = ?",
                    (gebuehr["betrag"], gebuehr["konto"]))
        # "409, try again later" raises mail.KeyInFlight: the block rolls back, the queue redelivers.
        mail.send_mail(key=str(msg["id"]), to=gebuehr["email"],
                       body="Monatsgebühr von %d abgebucht." % gebuehr["betrag"])
        return True
