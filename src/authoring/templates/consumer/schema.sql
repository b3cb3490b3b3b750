-- The tables the consumer may use, with their seed rows; applied to a fresh database for every run.
CREATE TABLE konten (
    konto TEXT PRIMARY KEY,
    saldo INTEGER NOT NULL CHECK (saldo <= 10000)
);

-- The dedup table: ids of the messages already processed.
CREATE TABLE verarbeitet (
    msg_id INTEGER PRIMARY KEY
);

INSERT INTO konten (konto, saldo) VALUES ('anna', 100), ('ben', 9990);
