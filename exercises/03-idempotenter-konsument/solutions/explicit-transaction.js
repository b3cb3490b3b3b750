// Solution: the same transaction written out with BEGIN, COMMIT and ROLLBACK: rollback and false on
// a duplicate id, rollback and rethrow on any other error.

export function verarbeite(db, msg) {
    db.exec("BEGIN");
    try {
        db.prepare("INSERT INTO gesehen (msg_id) VALUES (?)").run(msg.id);
    } catch (error) {
        db.exec("ROLLBACK");
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    try {
        db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
    } catch (error) {
        db.exec("ROLLBACK");
        throw error;
    }
    db.exec("COMMIT");
    return true;
}
