// The reference solution of exercise 10: one transaction records the voucher (keyed by the
// message's id, the dedup key) and takes the points; a duplicate is the key's PRIMARY KEY error.

export function verarbeite(db, msg) {
    const { kunde, punkte } = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO gutscheine (nachricht, kunde, punkte) VALUES (?, ?, ?)").run(msg.id, kunde, punkte);
            db.prepare("UPDATE punkte SET stand = stand - ? WHERE kunde = ?").run(punkte, kunde);
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
