// Solution in TypeScript: the JavaScript reference with its types. The types are stripped in the
// sandbox; what runs is JavaScript.
import type { DatabaseSync } from "node:sqlite";

interface Buchung {
    id: number;
    body: { kunde: string; punkte: number };
}

const DUPLICATE = "SQLITE_CONSTRAINT_PRIMARYKEY";

export function verarbeite(db: DatabaseSync, msg: Buchung): boolean {
    const buche = db.transaction((m: Buchung): void => {
        db.prepare("INSERT INTO gesehen (msg_id) VALUES (?)").run(m.id);
        db.prepare("UPDATE punkte SET stand = stand + ? WHERE kunde = ?").run(m.body.punkte, m.body.kunde);
    });
    try {
        buche(msg);
    } catch (error: unknown) {
        if ((error as { code?: string }).code === DUPLICATE) {
            return false;
        }
        throw error;
    }
    return true;
}
