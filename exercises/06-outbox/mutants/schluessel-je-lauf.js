// expect-fail: invariant einmal-beim-empfaenger
// A new key for every attempt (the relay's run, as a fresh UUID per send would be) instead of the
// event id: after a crash between `publish` and the marking, the restarted relay sends the event
// again under another key, and the receiver, which deduplicates by key, processes it twice.
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
        publish({ topic: "abbuchungen", key: `${ereignis}-${auftrag.lauf}`, payload: JSON.stringify(nutzlast) });
        db.prepare("UPDATE outbox SET gesendet = 1 WHERE nr = ?").run(zeile.nr);
    }
}
