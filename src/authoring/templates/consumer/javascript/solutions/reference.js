// A correct solution in JavaScript, written against Node's node:sqlite as the lesson's learners
// know it: the id and the credit are written in one transaction (db.transaction: COMMIT when the
// function returns, ROLLBACK when it throws). `pruefstein check` proves that it passes every check.

export function verarbeite(db, msg) {
    const remember = db.prepare("INSERT INTO verarbeitet (msg_id) VALUES (?)");
    const credit = db.prepare("UPDATE konten SET saldo = saldo + ? WHERE konto = ?");
    try {
        db.transaction(() => {
            remember.run(msg.id);
            // A balance above the limit fails a CHECK: the transaction rolls back, the id too.
            credit.run(msg.body.betrag, msg.body.konto);
        })();
        return true;
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false; // seen before: already processed
        }
        throw error;
    }
}
