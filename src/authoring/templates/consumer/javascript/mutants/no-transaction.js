// expect-fail: crash-points
//
// A mutant in JavaScript: a wrong solution that must fail the check declared above (`pruefstein
// check` proves it). The id and the credit are two statements, each committed by itself: a crash
// between them leaves the id remembered and the credit lost, and the redelivery is taken for a
// duplicate.

export function verarbeite(db, msg) {
    try {
        db.prepare("INSERT INTO verarbeitet (msg_id) VALUES (?)").run(msg.id);
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    db.prepare("UPDATE konten SET saldo = saldo + ? WHERE konto = ?").run(msg.body.betrag, msg.body.konto);
    return true;
}
