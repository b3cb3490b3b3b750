// A correct solution in TypeScript, written against Node's node:sqlite: the id and the credit are
// written in one transaction (db.transaction: COMMIT when the function returns, ROLLBACK when it
// throws). The types are stripped in the sandbox, then it runs as JavaScript. `pruefstein check`
// proves that it passes every check.
import type { DatabaseSync } from "node:sqlite";

interface Nachricht {
    id: number;
    body: { konto: string; betrag: number };
}

export function verarbeite(db: DatabaseSync, msg: Nachricht): boolean {
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO verarbeitet (msg_id) VALUES (?)").run(msg.id);
            // A balance above the limit fails a CHECK: the transaction rolls back, the id too.
            db.prepare("UPDATE konten SET saldo = saldo + ? WHERE konto = ?").run(msg.body.betrag, msg.body.konto);
        })();
        return true;
    } catch (error) {
        if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false; // seen before: already processed
        }
        throw error;
    }
}
