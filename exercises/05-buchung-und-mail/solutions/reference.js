// Exercise 5 in JavaScript, as a learner writes it with Node's node:sqlite: the remembered id and
// the debit in one transaction, the confirmation sent inside it, before the COMMIT, with the message
// id as its idempotency key.
import { sendMail } from "mail";

export function verarbeite(db, msg) {
    const buchung = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO erledigt (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE konten SET saldo = saldo - ? WHERE konto = ?").run(buchung.betrag, buchung.konto);
            // A crash after this call and before the COMMIT rolls the booking back; the redelivery
            // sends again under the same key, and the provider replays the first result.
            sendMail({ key: String(msg.id), to: buchung.email, body: `Abbuchung von ${buchung.betrag} bestätigt.` });
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false; // booked before: no second booking, no second mail
        }
        throw error;
    }
    return true;
}
