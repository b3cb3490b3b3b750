-- Lagerservice (exercise 4): the stock per article, which must never go below zero, and the
-- reservations made, one per order message: the message id is the dedup key.
CREATE TABLE lager (
    artikel TEXT PRIMARY KEY,
    bestand INTEGER NOT NULL CHECK (bestand >= 0)
);

CREATE TABLE reservierungen (
    nachricht INTEGER PRIMARY KEY,
    artikel TEXT NOT NULL,
    menge INTEGER NOT NULL CHECK (menge > 0)
);

INSERT INTO lager (artikel, bestand) VALUES ('schraube', 200), ('mutter', 15), ('duebel', 5);
