// Solution: INSERT OR IGNORE and the statement's `changes` instead of catching the duplicate's
// error.

export function verarbeite(db, msg) {
    return db.transaction(() => {
        const remembered = db.prepare("INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)").run(msg.id);
        if (remembered.changes === 0) {
            return false;
        }
        db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
        return true;
    })();
}
