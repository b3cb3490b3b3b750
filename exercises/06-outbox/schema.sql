-- A payment service with an outbox: each message books a debit on an account and, in the same
-- transaction, writes the event "debit booked" into the outbox. A relay publishes the outbox's
-- events to the broker and marks them sent. `nr` is the order in which the bookings committed;
-- `ereignis` is the event's id (the message id), the key under which the receiver deduplicates.
CREATE TABLE konten (
    konto INTEGER PRIMARY KEY,
    saldo INTEGER NOT NULL CHECK (saldo >= 0)
);

CREATE TABLE erledigt (
    msg_id INTEGER PRIMARY KEY
);

CREATE TABLE outbox (
    nr INTEGER PRIMARY KEY,
    ereignis INTEGER NOT NULL UNIQUE,
    konto INTEGER NOT NULL,
    betrag INTEGER NOT NULL,
    gesendet INTEGER NOT NULL DEFAULT 0
);

-- The events still to send, by their id: the relay's lookup. (Without ORDER BY a query for the
-- unsent events reads them in this index's order, the order of the ids, not of the commits.)
CREATE INDEX outbox_offen ON outbox (ereignis) WHERE gesendet = 0;

-- Anna's account 1001, Ben's 1002, Cem's 1003.
INSERT INTO konten (konto, saldo) VALUES (1001, 100), (1002, 50), (1003, 0);
