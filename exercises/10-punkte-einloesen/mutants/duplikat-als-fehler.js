// expect-fail: duplicate-same-instance
//
// Mutant: treats a duplicate as an error instead of "already processed": the key's PRIMARY KEY
// error is thrown on, so the queue delivers the already redeemed message again and again.

export function verarbeite(db, msg) {
    const { kunde, punkte } = msg.body;
    db.transaction(() => {
        db.prepare("INSERT INTO gutscheine (nachricht, kunde, punkte) VALUES (?, ?, ?)").run(msg.id, kunde, punkte);
        db.prepare("UPDATE punkte SET stand = stand - ? WHERE kunde = ?").run(punkte, kunde);
    })();
    return true;
}
