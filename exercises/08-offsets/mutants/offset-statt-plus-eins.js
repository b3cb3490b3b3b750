// expect-fail: duplicate-same-instance
// Commits `offset` instead of `offset + 1`: the same record gets through again and counts twice.
const GRUPPE = "statistik";

export function verarbeite(db, msg) {
    const { partition, offset } = msg;
    let verarbeitet = false;
    db.transaction(() => {
        const { changes } = db
            .prepare("UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ? AND naechster <= ?")
            .run(offset, GRUPPE, partition, offset);
        if (changes === 0) {
            return;
        }
        db.prepare("INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)")
            .run(partition, offset, msg.body.kunde, msg.body.betrag);
        verarbeitet = true;
    })();
    return verarbeitet;
}
