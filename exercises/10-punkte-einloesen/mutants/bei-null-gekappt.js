// expect-fail: constraint-violation
//
// Mutant: never lets the CHECK refuse a redemption; it takes at most what is there and issues the
// voucher anyway, so a customer gets a voucher for points they did not have.

export function verarbeite(db, msg) {
    const { kunde, punkte } = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO gutscheine (nachricht, kunde, punkte) VALUES (?, ?, ?)").run(msg.id, kunde, punkte);
            db.prepare("UPDATE punkte SET stand = MAX(stand - ?, 0) WHERE kunde = ?").run(punkte, kunde);
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
