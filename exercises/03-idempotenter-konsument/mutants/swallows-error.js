// expect-fail: constraint-violation
//
// Mutant: when the credit fails (CHECK stand <= 1000) the transaction is rolled back correctly, but
// the error is swallowed and false returned, as if the message were a duplicate: the queue acks it
// and the message is lost.

export function verarbeite(db, msg) {
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO gesehen (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
        })();
        return true;
    } catch {
        return false;
    }
}
