// expect-fail: crash-points
//
// A mutant in TypeScript: a wrong solution that must fail the check declared above (`pruefstein
// check` proves it). The id and the credit are two statements, each committed by itself: a crash
// between them leaves the id remembered and the credit lost, and the redelivery is taken for a
// duplicate.
import type { DatabaseSync } from "node:sqlite";

export function verarbeite(db: DatabaseSync, msg: { id: number; body: { konto: string; betrag: number } }): boolean {
    try {
        db.prepare("INSERT INTO verarbeitet (msg_id) VALUES (?)").run(msg.id);
    } catch (error) {
        if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    db.prepare("UPDATE konten SET saldo = saldo + ? WHERE konto = ?").run(msg.body.betrag, msg.body.konto);
    return true;
}
