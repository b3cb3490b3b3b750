// expect-fail: invariant hoechstens-eine-mail-pro-buchung
// A fresh key for every call (as a random UUID would be): the provider cannot recognise a repeated
// mail. The guest's randomness is seeded alike in every process (grades are reproducible), so a
// freshly started process draws the same first key again; the schedules, where one process draws
// key after key and a redelivery meets the next one, catch it.
import { sendMail } from "mail";

export function verarbeite(db, msg) {
    const buchung = msg.body;
    // Math.random is the guest's seeded one: a fresh key per call, as crypto.randomUUID() would be.
    const key = `${msg.id}-${Math.random().toString(36).slice(2)}`;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO erledigt (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE konten SET saldo = saldo - ? WHERE konto = ?").run(buchung.betrag, buchung.konto);
            sendMail({ key, to: buchung.email, body: `Abbuchung von ${buchung.betrag} bestätigt.` });
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
