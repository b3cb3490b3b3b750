-- Points cannot go below zero; each redemption is a voucher, keyed by the message that bought it.
CREATE TABLE punkte (
    kunde TEXT PRIMARY KEY,
    stand INTEGER NOT NULL CHECK (stand >= 0)
);

CREATE TABLE gutscheine (
    nachricht INTEGER PRIMARY KEY,
    kunde TEXT NOT NULL,
    punkte INTEGER NOT NULL
);

INSERT INTO punkte (kunde, stand) VALUES ('anna', 100), ('ben', 20);
