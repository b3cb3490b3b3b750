// A correct consumer of exercise 3: the id and the credit in one transaction. A known id and a
// credit over the limit both throw; the error's code tells them apart.

const REMEMBER = "INSERT INTO gesehen (msg_id) VALUES (?)";
const CREDIT = "UPDATE punkte SET stand = stand + ? WHERE kunde = ?";

export function verarbeite(db, msg) {
    const { kunde, punkte } = msg.body;
    const processOnce = db.transaction(() => {
        db.prepare(REMEMBER).run(msg.id);
        db.prepare(CREDIT).run(punkte, kunde);
    });
    try {
        processOnce();
    } catch (error) {
        // "UNIQUE constraint failed: gesehen.msg_id": processed before, nothing changed now.
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        // "CHECK constraint failed: ..." (SQLITE_CONSTRAINT_CHECK): rolled back; it comes again.
        throw error;
    }
    return true;
}
