-- The student's page lists a learner's submissions for one exercise, newest first.
CREATE INDEX submissions_learner ON submissions (client_id, exercise, learner, id);
-- LTI 1.3: the platforms (learning management systems) the operator registered, each with an API
-- client of its own that its learners' submissions and its score events belong to.
CREATE TABLE lti_platforms (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    auth_url TEXT NOT NULL,
    token_url TEXT NOT NULL,
    jwks_url TEXT NOT NULL,
    deployment_id TEXT,
    api_client_id INTEGER NOT NULL REFERENCES clients(id),
    created_at INTEGER NOT NULL,
    UNIQUE (issuer, client_id)
);
-- OIDC login initiations waiting for their launch: one use each, until they expire.
CREATE TABLE lti_states (
    state TEXT PRIMARY KEY,
    nonce TEXT NOT NULL,
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    expires_at INTEGER NOT NULL
);
CREATE INDEX lti_states_expiry ON lti_states (expires_at);
-- What a resource-link launch established: a learner (the platform's subject) on an exercise, and
-- the line item (empty: none) that receives the scores of the submissions made from that page.
CREATE TABLE lti_contexts (
    id INTEGER PRIMARY KEY,
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    subject TEXT NOT NULL,
    exercise TEXT NOT NULL,
    lineitem TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (platform_id, subject, exercise, lineitem)
);
