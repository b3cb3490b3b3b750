-- An event being sent: its next attempt time is the sender's lease. At start, every lease is one
-- of a dead process and is given back at once.
ALTER TABLE outbox ADD COLUMN leased INTEGER NOT NULL DEFAULT 0;
