-- A statistics service reads the event log `bestellungen` as the consumer group `statistik`: one
-- row in `posten` per order it counted. This time the log keeps the group's committed offsets
-- itself (`log.commit_offset`), apart from the service's database: a commit can never be in the
-- same transaction as the effect. The service remembers in `verarbeitet` which records it has
-- counted, so that a record the log delivers again is recognised. Every partition begins at
-- offset 40 (older records are gone).
CREATE TABLE posten (
    partition INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    kunde TEXT NOT NULL,
    betrag INTEGER NOT NULL CHECK (betrag > 0)
);

CREATE TABLE verarbeitet (
    partition INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    PRIMARY KEY (partition, offset)
);
