// expect-fail: fresh-message
//
// Mutant: opens a transaction, writes both rows and never commits; the open transaction is rolled
// back when verarbeite returns, so nothing is ever credited.

export function verarbeite(db, msg) {
    db.exec("BEGIN");
    try {
        db.prepare("INSERT INTO gesehen (msg_id) VALUES (?)").run(msg.id);
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
    return true;
}
