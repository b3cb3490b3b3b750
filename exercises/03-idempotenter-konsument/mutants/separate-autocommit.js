// expect-fail: crash-points
//
// Mutant: two statements without a transaction, each committed by itself (Node's default). A crash
// between them leaves the id remembered and the points never credited.

export function verarbeite(db, msg) {
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
