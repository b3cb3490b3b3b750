// expect-fail: crash-points
//
// Mutant: takes the items and records the reservation as two statements, each committed by itself.
// A crash between them leaves the stock reduced without a reservation: the redelivery takes the
// items again.

export function verarbeite(db, msg) {
    const { artikel, menge } = msg.body;
    try {
        db.prepare("UPDATE lager SET bestand = bestand - ? WHERE artikel = ?").run(menge, artikel);
        db.prepare("INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)").run(msg.id, artikel, menge);
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
