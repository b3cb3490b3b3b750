// expect-fail: duplicate-after-restart
//
// Mutant: the lesson's in-memory set. A duplicate at the same process is caught; after a restart
// the set is empty and the duplicate credits again.
const gesehen = new Set();

export function verarbeite(db, msg) {
    if (gesehen.has(msg.id)) {
        return false;
    }
    db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
    gesehen.add(msg.id);
    return true;
}
