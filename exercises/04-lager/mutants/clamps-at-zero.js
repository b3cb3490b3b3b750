// expect-fail: constraint-violation
//
// Mutant: keeps the stock from going below zero by clamping it instead of refusing the order: an
// order larger than the stock is "reserved" and acked although the items are not there.

export function verarbeite(db, msg) {
    const { artikel, menge } = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)").run(msg.id, artikel, menge);
            db.prepare("UPDATE lager SET bestand = max(bestand - ?, 0) WHERE artikel = ?").run(menge, artikel);
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
