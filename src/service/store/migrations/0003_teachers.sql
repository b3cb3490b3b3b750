-- Teachers see their course: result versions, regrades and teacher clients.
--
-- `results` keeps each submission's first result (version 1); a regrade writes version 2, 3, … to
-- `result_versions` and never changes an earlier one. `latest_results` is the latest version of
-- each submission, what the API shows. Both record the exercise version graded (the SHA-256 of its
-- folder snapshot) and the grader version.
ALTER TABLE results ADD COLUMN exercise_hash TEXT;
ALTER TABLE results ADD COLUMN grader_version TEXT;
CREATE TABLE result_versions (
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    version INTEGER NOT NULL CHECK (version >= 2),
    status TEXT NOT NULL CHECK (status IN ('graded', 'failed')),
    verdict TEXT,
    points INTEGER,
    max_points INTEGER,
    report TEXT,
    failure TEXT,
    attempts INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    grade_ms INTEGER,
    exercise_hash TEXT,
    grader_version TEXT,
    PRIMARY KEY (submission_id, version)
);
CREATE VIEW latest_results AS
    SELECT r.submission_id, 1 AS version, r.status, r.verdict, r.points, r.max_points, r.report,
           r.failure, r.attempts, r.finished_at, r.grade_ms, r.exercise_hash, r.grader_version
    FROM results r
    WHERE NOT EXISTS (SELECT 1 FROM result_versions v WHERE v.submission_id = r.submission_id)
    UNION ALL
    SELECT v.submission_id, v.version, v.status, v.verdict, v.points, v.max_points, v.report,
           v.failure, v.attempts, v.finished_at, v.grade_ms, v.exercise_hash, v.grader_version
    FROM result_versions v
    WHERE v.version = (SELECT max(w.version) FROM result_versions w WHERE w.submission_id = v.submission_id);
-- A regrade is an ordinary job of a submission that has a result. The job's primary key is the
-- submission, so a submission has at most one open job: asking twice queues once.
ALTER TABLE jobs ADD COLUMN regrade INTEGER NOT NULL DEFAULT 0;
-- A teacher client may also regrade and read a course's analytics.
ALTER TABLE clients ADD COLUMN teacher INTEGER NOT NULL DEFAULT 0;
-- Listings: a client's submissions in id order, an exercise's submissions by learner.
CREATE INDEX submissions_client ON submissions (client_id, id);
CREATE INDEX submissions_exercise ON submissions (exercise, client_id, learner, id);
