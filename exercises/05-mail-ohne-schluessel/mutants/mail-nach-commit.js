// expect-fail: crash-points
// The mail only after the transaction: a crash between the COMMIT and sendMail loses it for good.
import { sendMail } from "mail";

export function verarbeite(db, msg) {
    const buchung = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO erledigt (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE konten SET saldo = saldo - ? WHERE konto = ?").run(buchung.betrag, buchung.konto);
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    sendMail({ to: buchung.email, body: `Abbuchung von ${buchung.betrag} bestätigt.` });
    return true;
}
