-- Several nodes may serve different versions of one exercise for a while (a teacher's change
-- reaching them one by one). A job records the version it was accepted or regraded under; each
-- node announces the versions it serves and renews that announcement while it lives, so that a
-- node leases only jobs of its own version, or jobs of a version no living node serves any more.
ALTER TABLE jobs ADD COLUMN exercise_hash TEXT;
CREATE TABLE nodes (
    node_id TEXT PRIMARY KEY,
    seen_at BIGINT NOT NULL
);
CREATE TABLE node_exercises (
    node_id TEXT NOT NULL REFERENCES nodes(node_id) ON DELETE CASCADE,
    exercise TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    PRIMARY KEY (node_id, exercise)
);
CREATE INDEX node_exercises_version ON node_exercises (exercise, content_hash);
-- Files uploaded to the Jobe-compatible endpoint, so that a run finds its file on any node.
CREATE TABLE jobe_files (
    client_id BIGINT NOT NULL REFERENCES clients(id),
    file_id TEXT NOT NULL,
    contents BYTEA NOT NULL,
    stored_at BIGINT NOT NULL,
    PRIMARY KEY (client_id, file_id)
);
