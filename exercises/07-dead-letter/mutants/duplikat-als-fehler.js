// expect-fail: duplicate-same-instance
// Every error flies on, the duplicate's too: after a crash after the COMMIT, before the ack, the
// processed message comes again, fails every time and drifts to the dead letter queue.
import { sendMail } from "mail";

export function verarbeite(db, msg) {
    const gebuehr = msg.body;
    db.transaction(() => {
        db.prepare("INSERT INTO erledigt (msg_id) VALUES (?)").run(msg.id);
        db.prepare("UPDATE konten SET saldo = saldo - ? WHERE konto = ?").run(gebuehr.betrag, gebuehr.konto);
        sendMail({ key: String(msg.id), to: gebuehr.email, body: `Monatsgebühr von ${gebuehr.betrag} abgebucht.` });
    })();
    return true;
}
