-- A subscription service: each message debits a monthly fee from an account and sends a receipt
-- by mail. Accounts cannot go below zero; the ids of debited messages are remembered in `erledigt`.
CREATE TABLE konten (
    konto TEXT PRIMARY KEY,
    saldo INTEGER NOT NULL CHECK (saldo >= 0)
);

CREATE TABLE erledigt (
    msg_id INTEGER PRIMARY KEY
);

INSERT INTO konten (konto, saldo) VALUES ('anna', 100), ('ben', 50), ('cem', 0);
