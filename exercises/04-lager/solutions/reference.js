// The reference solution of exercise 4 in JavaScript: one transaction records the reservation and
// takes the items; a duplicate reservation is the dedup key's PRIMARY KEY error, an unknown article
// an error of its own.

export function verarbeite(db, msg) {
    const { artikel, menge } = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO reservierungen (nachricht, artikel, menge) VALUES (?, ?, ?)").run(msg.id, artikel, menge);
            const taken = db.prepare("UPDATE lager SET bestand = bestand - ? WHERE artikel = ?").run(menge, artikel);
            if (taken.changes !== 1) {
                throw new Error(`unknown article ${artikel}`);
            }
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}
