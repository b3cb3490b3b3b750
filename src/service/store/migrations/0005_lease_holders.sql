-- Several nodes (PostgreSQL) or one (SQLite): a lease records the node that holds it, so that a
-- node restarting gives back its own leases only, never another node's.
ALTER TABLE jobs ADD COLUMN leased_by TEXT;
ALTER TABLE outbox ADD COLUMN leased_by TEXT;
