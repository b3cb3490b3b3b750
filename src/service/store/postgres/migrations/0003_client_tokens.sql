-- Tokens of a client besides its current API token (`clients.token_hash`): the API token a rotation
-- replaced, accepted until its grace period ends (`expires_at`), and keys accepted by the
-- Jobe-compatible endpoint only (`scope = 'jobe'`, short enough for CodeRunner's key field).
CREATE TABLE client_tokens (
    token_hash TEXT PRIMARY KEY,
    client_id BIGINT NOT NULL REFERENCES clients(id),
    scope TEXT NOT NULL CHECK (scope IN ('api', 'jobe')),
    created_at BIGINT NOT NULL,
    expires_at BIGINT
);
CREATE INDEX client_tokens_client ON client_tokens (client_id);
