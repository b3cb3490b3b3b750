-- Treuepunkte-Service (lesson, exercise 3): points per customer with an upper limit, and the
-- dedup table of processed message ids.
CREATE TABLE punkte (
    kunde TEXT PRIMARY KEY,
    stand INTEGER NOT NULL CHECK (stand <= 1000)
);

CREATE TABLE gesehen (
    msg_id INTEGER PRIMARY KEY
);

INSERT INTO punkte (kunde, stand) VALUES ('anna', 100), ('ben', 400), ('cem', 990);
