// Exercise 7 in JavaScript, as a learner writes it with Node's node:sqlite: the remembered id and
// the debit in one transaction, the receipt sent inside it before the COMMIT with the message id as
// its idempotency key; every error but the duplicate flies on, and the queue redelivers or, after
// three receives, moves the message to the dead letter queue.
import { sendMail } from "mail";

export function verarbeite(db, msg) {
    const gebuehr = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO erledigt (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE konten SET saldo = saldo - ? WHERE konto = ?").run(gebuehr.betrag, gebuehr.konto);
            // "409, try again later" throws KeyInFlight: the transaction rolls back, the queue redelivers.
            sendMail({ key: String(msg.id), to: gebuehr.email, body: `Monatsgebühr von ${gebuehr.betrag} abgebucht.` });
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false; // processed before: ack without effect
        }
        throw error;
    }
    return true;
}
