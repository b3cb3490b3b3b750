// expect-fail: crash-points
// Commits `offset + 1` to the log first and processes the record after it: a crash in between
// leaves the log past the record, and it is never delivered again.
import { commitOffset } from "log";

export function verarbeite(db, msg) {
    const { partition, offset } = msg;
    commitOffset(partition, offset + 1);
    let neu = false;
    db.transaction(() => {
        const { changes } = db
            .prepare("INSERT OR IGNORE INTO verarbeitet (partition, offset) VALUES (?, ?)")
            .run(partition, offset);
        if (changes === 0) {
            return;
        }
        db.prepare("INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)")
            .run(partition, offset, msg.body.kunde, msg.body.betrag);
        neu = true;
    })();
    return neu;
}
