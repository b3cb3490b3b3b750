// expect-fail: duplicate-same-instance
//
// Mutant: no deduplication at all: every delivery credits the points again.

export function verarbeite(db, msg) {
    db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
    return true;
}
