// expect-fail: crash-points
//
// Mutant: takes the points and records the voucher as two statements, each committed by itself. A
// crash between them loses the points without a voucher: the redelivery takes them again.

export function verarbeite(db, msg) {
    const { kunde, punkte } = msg.body;
    try {
        db.prepare("UPDATE punkte SET stand = stand - ? WHERE kunde = ?").run(punkte, kunde);
        db.prepare("INSERT INTO gutscheine (nachricht, kunde, punkte) VALUES (?, ?, ?)").run(msg.id, kunde, punkte);
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
