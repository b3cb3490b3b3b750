// expect-fail: concurrent-duplicate
//
// Mutant in TypeScript: asks whether the id is known, then writes in a transaction of its own. Two
// processes with the same message both ask before either writes: both credit.
import type { DatabaseSync } from "node:sqlite";

export function verarbeite(db: DatabaseSync, msg: { id: number; body: { kunde: string; punkte: number } }): boolean {
    const known = db.prepare("SELECT count(*) AS n FROM gesehen WHERE msg_id = ?").get(msg.id) as { n: number };
    if (known.n > 0) {
        return false;
    }
    db.transaction(() => {
        db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(msg.body.punkte, msg.body.kunde);
        db.prepare("INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?)").run(msg.id);
    })();
    return true;
}
