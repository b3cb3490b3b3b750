// expect-fail: invariant reihenfolge-pro-konto
// The relay orders the unsent events by their id (the message id) instead of `nr`, the order in
// which the bookings committed: when the queue delivers out of order, an account's later booking
// reaches the broker first.
import { publish } from "broker";

export function verarbeite(db, msg) {
    const zahlung = msg.body;
    try {
        db.transaction(() => {
            db.prepare("INSERT INTO erledigt (msg_id) VALUES (?)").run(msg.id);
            db.prepare("UPDATE konten SET saldo = saldo - ? WHERE konto = ?").run(zahlung.betrag, zahlung.konto);
            db.prepare("INSERT INTO outbox (ereignis, konto, betrag) VALUES (?, ?, ?)").run(msg.id, zahlung.konto, zahlung.betrag);
        })();
    } catch (error) {
        if (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
            return false;
        }
        throw error;
    }
    return true;
}

function spalte(db, name, nr) {
    return db.prepare(`SELECT ${name} FROM outbox WHERE nr = ?`).get(nr)[name];
}

export function weiterleiten(db, auftrag) {
    for (;;) {
        const zeile = db.prepare("SELECT nr FROM outbox WHERE gesendet = 0 ORDER BY ereignis LIMIT 1").get();
        if (zeile === undefined) {
            return true;
        }
        const ereignis = spalte(db, "ereignis", zeile.nr);
        const nutzlast = { ereignis, konto: spalte(db, "konto", zeile.nr), betrag: spalte(db, "betrag", zeile.nr) };
        publish({ topic: "abbuchungen", key: String(ereignis), payload: JSON.stringify(nutzlast) });
        db.prepare("UPDATE outbox SET gesendet = 1 WHERE nr = ?").run(zeile.nr);
    }
}
