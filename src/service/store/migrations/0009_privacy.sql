-- Learners' data kept only as long as allowed, exported and erased on request.
--
-- `gone_submissions`: the ids of submissions erased on request or deleted by the retention sweep,
-- so that their report links answer 410 Gone rather than 404 (ids are never reused). Nothing of
-- the submission is kept but its id and when it went.
CREATE TABLE gone_submissions (
    submission_id INTEGER PRIMARY KEY,
    gone_at INTEGER NOT NULL
);
-- What teachers and the operator did with learners' data (export, erase, regrade, analytics
-- reads) and what the retention sweep deleted: who (`actor`: a client's name or `operator`), when,
-- which client's data, what (`subject`: an exercise slug, or a learner's keyed hash, never a
-- learner's id in clear) and how many rows per table (`counts`, a JSON object).
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    client_id INTEGER,
    action TEXT NOT NULL CHECK (action IN ('export', 'erase', 'regrade', 'analytics', 'retention')),
    subject TEXT NOT NULL,
    counts TEXT NOT NULL
);
CREATE INDEX audit_log_subject ON audit_log (action, subject);
-- A learner's submissions of every exercise, and the rows the retention sweep takes by age.
CREATE INDEX submissions_learner_any ON submissions (learner, client_id, id);
CREATE INDEX submissions_age ON submissions (created_at, id);
CREATE INDEX outbox_age ON outbox (created_at);
-- An erasure and the sweep delete a submission's events by its id.
CREATE INDEX outbox_submission ON outbox (submission_id);
CREATE INDEX jobe_files_age ON jobe_files (stored_at);
CREATE INDEX lti_contexts_age ON lti_contexts (created_at);
CREATE INDEX lti_contexts_subject ON lti_contexts (platform_id, subject);
