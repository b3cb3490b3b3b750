// Exercise 8 in JavaScript, as a learner writes it with Node's node:sqlite: the committed offset
// (`offset + 1`, the next record to read) and the effect in one transaction.
const GRUPPE = "statistik";

export function verarbeite(db, msg) {
    const { partition, offset } = msg;
    let verarbeitet = false;
    db.transaction(() => {
        // Move the offset on unless it is past the record already (read before).
        const { changes } = db
            .prepare("UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ? AND naechster <= ?")
            .run(offset + 1, GRUPPE, partition, offset);
        if (changes === 0) {
            return;
        }
        db.prepare("INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)")
            .run(partition, offset, msg.body.kunde, msg.body.betrag);
        verarbeitet = true;
    })();
    return verarbeitet;
}
