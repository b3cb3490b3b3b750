-- The first schema: settings, clients, submissions with their idempotency keys, the open jobs,
-- results and the webhook outbox.
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE clients (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,
    webhook_secret TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    client_id INTEGER NOT NULL REFERENCES clients(id),
    exercise TEXT NOT NULL,
    learner TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('answer', 'module')),
    payload BLOB NOT NULL,
    sha256 TEXT NOT NULL,
    callback_url TEXT,
    metadata TEXT,
    idempotency_key TEXT,
    request_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX submissions_idempotency_key ON submissions (client_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX submissions_created ON submissions (created_at) WHERE idempotency_key IS NOT NULL;
-- Open jobs only: a job's row is deleted when its result is written.
CREATE TABLE jobs (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    leased INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_until INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE results (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    status TEXT NOT NULL CHECK (status IN ('graded', 'failed')),
    verdict TEXT,
    points INTEGER,
    max_points INTEGER,
    report TEXT,
    failure TEXT,
    attempts INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    grade_ms INTEGER
);
CREATE TABLE outbox (
    event_id TEXT PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    client_id INTEGER NOT NULL REFERENCES clients(id),
    url TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_dead ON outbox (client_id, created_at) WHERE state = 'dead';
