// expect-fail: crash-points
//
// A wrong consumer: the credit and the id are two statements, each committed by itself (Node's
// autocommit). A crash between them credits the redelivery a second time.

export function verarbeite(db, msg) {
    const seen = db.prepare("SELECT count(*) AS n FROM gesehen WHERE msg_id = ?").get(msg.id);
    if (seen.n > 0) {
        return false;
    }
    db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
    db.prepare("INSERT INTO gesehen (msg_id) VALUES (?)").run(msg.id);
    return true;
}
