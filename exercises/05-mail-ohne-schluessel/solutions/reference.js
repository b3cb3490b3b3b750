// Exercise 5 without keys, in JavaScript: the remembered id and the debit in one transaction, the
// confirmation sent inside it, before the COMMIT. Without keys a crash between sendMail and the
// COMMIT means one extra mail: the honest guarantee.
import { sendMail } from "mail";

export function verarbeite(db, msg) {
    const buchung = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO erledigt (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE konten SET saldo = saldo - ? WHERE konto = ?").run(buchung.betrag, buchung.konto);
            sendMail({ to: buchung.email, body: `Abbuchung von ${buchung.betrag} bestätigt.` });
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
