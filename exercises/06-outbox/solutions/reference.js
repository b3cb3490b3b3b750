// Exercise 6 in JavaScript, as a learner writes it with Node's node:sqlite: the booking, the
// remembered id and the event in the outbox in one transaction; the relay publishes the unsent
// events in the order the bookings committed, under their event id, and marks each sent after.
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
        const zeile = db.prepare("SELECT nr FROM outbox WHERE gesendet = 0 ORDER BY nr LIMIT 1").get();
        if (zeile === undefined) {
            return true;
        }
        const ereignis = spalte(db, "ereignis", zeile.nr);
        const nutzlast = { ereignis, konto: spalte(db, "konto", zeile.nr), betrag: spalte(db, "betrag", zeile.nr) };
        // A crash after this call and before the marking sends the event again after the restart,
        // under the same key: the receiver recognises the duplicate.
        publish({ topic: "abbuchungen", key: String(ereignis), payload: JSON.stringify(nutzlast) });
        db.prepare("UPDATE outbox SET gesendet = 1 WHERE nr = ?").run(zeile.nr);
    }
}
