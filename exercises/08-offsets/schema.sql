-- A statistics service reads the event log `bestellungen` as the consumer group `statistik`: one
-- row in `posten` per order it counted. The offsets of its group live in its own database, in
-- `offsets`, so that the effect and the offset can be one transaction. The group `rechnung`
-- (billing) reads the same log and keeps its offsets here too (fan-out: each group reads every
-- record). Every partition begins at offset 40 (older records are gone); `rechnung` has read one
-- record further than `statistik` in each of them.
CREATE TABLE posten (
    partition INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    kunde TEXT NOT NULL,
    betrag INTEGER NOT NULL CHECK (betrag > 0)
);

CREATE TABLE offsets (
    gruppe TEXT NOT NULL,
    partition INTEGER NOT NULL,
    naechster INTEGER NOT NULL,
    PRIMARY KEY (gruppe, partition)
);

INSERT INTO offsets (gruppe, partition, naechster) VALUES
    ('statistik', 0, 40), ('statistik', 1, 40), ('statistik', 2, 40), ('statistik', 3, 40), ('statistik', 4, 40),
    ('rechnung', 0, 41), ('rechnung', 1, 41), ('rechnung', 2, 41), ('rechnung', 3, 41), ('rechnung', 4, 41);
