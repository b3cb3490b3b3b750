// Solution in JavaScript, as a learner writes it with Node's node:sqlite: the remembered id and the
// credit in one transaction (db.transaction commits when the function returns and rolls back when
// it throws); a duplicate id is the PRIMARY KEY's error.

export function verarbeite(db, msg) {
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO gesehen (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
