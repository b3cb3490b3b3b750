// Exercise 8b in JavaScript, as a learner writes it with Node's node:sqlite: the record counted and
// remembered in one transaction, `offset + 1` committed to the log after the COMMIT, also for a
// record counted before.
import { commitOffset } from "log";

export function verarbeite(db, msg) {
    const { partition, offset } = msg;
    let neu = false;
    db.transaction(() => {
        const { changes } = db
            .prepare("INSERT OR IGNORE INTO verarbeitet (partition, offset) VALUES (?, ?)")
            .run(partition, offset);
        if (changes === 0) {
            return; // counted before: the log delivered it again
        }
        db.prepare("INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)")
            .run(partition, offset, msg.body.kunde, msg.body.betrag);
        neu = true;
    })();
    commitOffset(partition, offset + 1);
    return neu;
}
