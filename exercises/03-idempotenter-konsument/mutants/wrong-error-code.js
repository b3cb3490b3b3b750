// expect-fail: duplicate-same-instance
//
// Mutant: takes the duplicate for an error of its own: it compares `e.code` with the primary code
// "SQLITE_CONSTRAINT", which better-sqlite3 and this guest never set (they name the extended code,
// "SQLITE_CONSTRAINT_PRIMARYKEY"), so a redelivery throws instead of being acknowledged.

export function verarbeite(db, msg) {
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO gesehen (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT") {
            return false;
        }
        throw error;
    }
    return true;
}
