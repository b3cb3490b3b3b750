// expect-fail: duplicate-same-instance
//
// A wrong consumer: INSERT OR IGNORE never reports a known id, so a duplicate is credited again.

export function verarbeite(db, msg) {
    db.transaction(() => {
        db.prepare("INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)").run(msg.id);
        db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
    })();
    return true;
}
