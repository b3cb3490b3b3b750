//! The records the store keeps and hands out, independent of the database behind it: clients
//! and their tokens, submissions and results, leased jobs, outbox events, platforms and LTI state,
//! and [`StoreError`].

use crate::submission::Submission;

/// Milliseconds since the Unix epoch.
pub(crate) type Millis = i64;

/// What went wrong in the store, independent of the database behind it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database failed: which operation of the store, and what the database said.
    #[error("database ({operation}): {message}")]
    Database { operation: &'static str, message: String },
    /// The database cannot be reached (refused, timed out, connection lost): which operation, why.
    #[error("database unreachable ({operation}): {message}")]
    Unavailable { operation: &'static str, message: String },
    #[error("the data directory {path}: {message}")]
    DataDir { path: String, message: String },
    #[error("{0}")]
    Conflict(String),
    #[error("the transaction did not commit: {0}")]
    Commit(String),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The database was written by a newer version of Prüfstein: its schema has migrations this
    /// program does not know, so it must not read or write it.
    #[error(
        "the database was written by a newer version of Prüfstein (schema version {found}; this \
         version knows versions up to {known}). Run the newer version again, or restore the backup \
         taken before upgrading (CHANGELOG.md, \"Upgrading\")"
    )]
    NewerSchema { found: usize, known: usize },
}

/// An LMS (or any other caller) that may use `/api/v1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRecord {
    pub id: i64,
    pub name: String,
    /// The key that signs this client's webhooks (Standard Webhooks `whsec_…`).
    pub webhook_secret: String,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
    /// A teacher may also regrade and read a course's analytics (`client add --teacher`).
    pub teacher: bool,
}

/// What a client's token may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenScope {
    /// `/api/v1` and the Jobe-compatible endpoint: a client's API token (the current one, or one a
    /// rotation replaced, within its grace period).
    Api,
    /// The Jobe-compatible endpoint only: an API token, or a Jobe key (`client jobe-key`).
    Jobe,
}

impl TokenScope {
    /// The scope's name in the store.
    pub(crate) fn name(self) -> &'static str {
        match self {
            TokenScope::Api => "api",
            TokenScope::Jobe => "jobe",
        }
    }
}

/// A submission as accepted by intake.
#[derive(Debug, Clone)]
pub struct NewSubmission {
    pub client_id: i64,
    pub exercise: String,
    pub learner: String,
    pub submission: Submission,
    pub callback_url: Option<String>,
    /// A JSON object, stored as text and handed back unchanged.
    pub metadata: Option<String>,
    pub idempotency_key: Option<String>,
    /// SHA-256 of the request's meaning (exercise, learner, submission, callback, metadata): two
    /// requests with the same key must have the same hash.
    pub request_hash: String,
    /// The exercise version (content hash) the accepting node serves: the job is graded by this
    /// version while any living node serves it. None: any version.
    pub exercise_hash: Option<String>,
}

/// What intake did with a submission.
#[derive(Debug, Clone)]
pub enum Intake {
    /// A new submission; its job is queued.
    Created(SubmissionRecord),
    /// The idempotency key was used before with the same request: that submission.
    Existing(SubmissionRecord),
    /// The idempotency key was used before with a different request.
    KeyReused(SubmissionRecord),
    /// The queue holds as many jobs as it may; nothing was stored.
    QueueFull { depth: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Waiting for a worker.
    Queued,
    /// A worker holds its lease.
    Running,
    /// Graded: the result holds a verdict and a report.
    Graded,
    /// Could not be graded after the allowed attempts, or the exercise is broken: see `failure`.
    Failed,
}

impl Status {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Graded => "graded",
            Status::Failed => "failed",
        }
    }

    pub(crate) fn is_final(self) -> bool {
        matches!(self, Status::Graded | Status::Failed)
    }

    /// A submission's status from what a backend stores: its result's status (`graded` or
    /// `failed`), if it has a result, and whether its job is leased now. A result decides; without
    /// one, a leased job is running and any other is queued.
    pub(crate) fn of(result_status: Option<&str>, leased: bool) -> Status {
        match result_status {
            Some("graded") => Status::Graded,
            Some(_) => Status::Failed,
            None if leased => Status::Running,
            None => Status::Queued,
        }
    }
}

#[derive(Debug, Clone)]
pub struct SubmissionRecord {
    pub id: i64,
    pub client_id: i64,
    pub exercise: String,
    pub learner: String,
    /// `answer` or `module`.
    pub kind: String,
    pub sha256: String,
    pub callback_url: Option<String>,
    pub metadata: Option<String>,
    pub idempotency_key: Option<String>,
    pub request_hash: String,
    pub created_at: Millis,
    pub status: Status,
    /// Leases taken so far (grading attempts).
    pub attempts: u32,
    pub result: Option<ResultRecord>,
}

/// A result of a submission: the first grading is version 1, each regrade adds the next version.
#[derive(Debug, Clone)]
pub struct ResultRecord {
    /// 1 for the first grading, 2, 3, … for regrades.
    pub version: u32,
    /// The exercise version graded: the SHA-256 of its folder snapshot (none for results stored
    /// before versions were recorded, or when the exercise could not be loaded).
    pub exercise_hash: Option<String>,
    /// The grader that graded: kind and program version (`consumer@0.1.0`).
    pub grader_version: Option<String>,
    /// `passed`, `failed` or `rejected`; none when grading itself failed.
    pub verdict: Option<String>,
    pub points: Option<u32>,
    pub max_points: Option<u32>,
    /// The report as JSON.
    pub report: Option<String>,
    /// Why the submission could not be graded (status `failed`).
    pub failure: Option<String>,
    pub finished_at: Millis,
    pub grade_ms: Option<u64>,
}

/// A job a worker holds a lease on.
#[derive(Debug, Clone)]
pub struct LeasedJob {
    pub submission_id: i64,
    pub client_id: i64,
    /// 1 for the first lease; a job leased again after a worker died counts up.
    pub attempt: u32,
    pub exercise: String,
    pub learner: String,
    pub submission: Submission,
    pub sha256: String,
    pub callback_url: Option<String>,
    pub metadata: Option<String>,
    pub idempotency_key: Option<String>,
    pub created_at: Millis,
    /// A regrade of a submission that has a result: its outcome is the next result version.
    pub regrade: bool,
    /// The result version this job writes: 1 for a first grading, the latest plus one for a regrade.
    pub version: u32,
    /// The exercise version (content hash) the job was accepted or regraded under; none: any.
    pub exercise_hash: Option<String>,
    /// Whether a living node announces that version. A job is leased by a node that serves its
    /// version or, when no living node does, by any node (else it would wait forever).
    pub recorded_version_served: bool,
}

/// How a job ended.
#[derive(Debug, Clone)]
pub enum JobOutcome {
    Graded {
        verdict: String,
        points: u32,
        max_points: u32,
        report: String,
        grade_ms: u64,
        /// The exercise version graded (its folder snapshot's SHA-256) and the grader's version.
        exercise_hash: String,
        grader_version: String,
    },
    Failed {
        reason: String,
    },
}

/// A job's outcome as the columns of a result row (`results`, `result_versions`), the same on every
/// backend: a failed job has a failure and none of a grade's columns.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResultColumns<'a> {
    pub status: &'static str,
    pub verdict: Option<&'a str>,
    pub points: Option<i64>,
    pub max_points: Option<i64>,
    pub report: Option<&'a str>,
    pub failure: Option<&'a str>,
    pub grade_ms: Option<i64>,
    pub exercise_hash: Option<&'a str>,
    pub grader_version: Option<&'a str>,
}

impl JobOutcome {
    /// The status and the result record this outcome is stored as (result `version`, finished at
    /// `finished_at`): the row of [`JobOutcome::columns`], as a reader gets it back.
    pub(crate) fn record(&self, version: u32, finished_at: Millis) -> (Status, ResultRecord) {
        let c = self.columns();
        let status = if matches!(self, JobOutcome::Graded { .. }) { Status::Graded } else { Status::Failed };
        let record = ResultRecord {
            version,
            exercise_hash: c.exercise_hash.map(str::to_string),
            grader_version: c.grader_version.map(str::to_string),
            verdict: c.verdict.map(str::to_string),
            points: c.points.and_then(|p| u32::try_from(p).ok()),
            max_points: c.max_points.and_then(|p| u32::try_from(p).ok()),
            report: c.report.map(str::to_string),
            failure: c.failure.map(str::to_string),
            finished_at,
            grade_ms: c.grade_ms.and_then(|ms| u64::try_from(ms).ok()),
        };
        (status, record)
    }

    /// The outcome as the columns of its result row.
    pub(crate) fn columns(&self) -> ResultColumns<'_> {
        match self {
            JobOutcome::Graded {
                verdict,
                points,
                max_points,
                report,
                grade_ms,
                exercise_hash,
                grader_version,
            } => ResultColumns {
                status: Status::Graded.name(),
                verdict: Some(verdict),
                points: Some(i64::from(*points)),
                max_points: Some(i64::from(*max_points)),
                report: Some(report),
                failure: None,
                grade_ms: Some(i64::try_from(*grade_ms).unwrap_or(i64::MAX)),
                exercise_hash: Some(exercise_hash),
                grader_version: Some(grader_version),
            },
            JobOutcome::Failed { reason } => ResultColumns {
                status: Status::Failed.name(),
                verdict: None,
                points: None,
                max_points: None,
                report: None,
                failure: Some(reason),
                grade_ms: None,
                exercise_hash: None,
                grader_version: None,
            },
        }
    }
}

/// A webhook event written in the same transaction as the result.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub event_id: String,
    pub url: String,
    pub payload: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventState {
    Pending,
    Delivered,
    Dead,
}

impl EventState {}

#[derive(Debug, Clone)]
pub struct OutboxEvent {
    pub event_id: String,
    pub submission_id: i64,
    pub client_id: i64,
    pub url: String,
    pub payload: String,
    pub state: EventState,
    /// Delivery attempts made so far.
    pub attempts: u32,
    pub next_attempt_at: Millis,
    pub last_error: Option<String>,
    pub created_at: Millis,
}

/// How one delivery attempt ended.
#[derive(Debug, Clone)]
pub enum Delivery {
    Delivered,
    /// Try again at the given time.
    Retry {
        at: Millis,
        error: String,
    },
    /// No more attempts: the event is dead until redelivered by hand.
    Dead {
        error: String,
    },
}

/// Which of a client's submissions `GET /api/v1/submissions` lists (every given field must match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubmissionFilter {
    pub exercise: Option<String>,
    pub learner: Option<String>,
    /// The latest result's verdict (`passed`, `failed`, `rejected`).
    pub verdict: Option<String>,
    /// Created at or after this time.
    pub since: Option<Millis>,
}

/// Which submissions of an exercise a regrade takes: the latest of each learner, narrowed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegradeFilter {
    /// Only these learners (all if empty).
    pub learners: Vec<String>,
    /// Only submissions whose latest verdict is this one.
    pub verdict: Option<String>,
}

/// What queueing regrades did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegradesQueued {
    /// Submissions whose regrade job was queued now.
    pub queued: Vec<i64>,
    /// Submissions that had an open job already (a regrade asked for twice, or a first grading
    /// not finished): nothing was queued for them.
    pub already_open: Vec<i64>,
}

/// An exercise version a living node announces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedVersion {
    pub node: String,
    pub exercise: String,
    pub content_hash: String,
}

/// Open jobs recorded for one exercise version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedJobs {
    pub exercise: String,
    pub content_hash: String,
    pub jobs: u64,
}

/// Which exercise versions the living nodes serve, and which versions the open jobs were recorded
/// under: what `/readyz` compares with the node's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionCensus {
    /// By node, then exercise.
    pub served: Vec<ServedVersion>,
    /// By exercise, then version.
    pub recorded: Vec<RecordedJobs>,
}

/// Counts for `/metrics` and `/readyz`.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub jobs_queued: u64,
    pub jobs_running: u64,
    pub events_pending: u64,
    pub events_dead: u64,
}

/// An LTI 1.3 platform as the operator registered it (`pruefstein platform add`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlatform {
    pub name: String,
    /// The platform's `iss`.
    pub issuer: String,
    /// The tool's client id at the platform (the `aud` of its id tokens).
    pub client_id: String,
    /// OIDC authorisation endpoint (where login initiation redirects).
    pub auth_url: String,
    /// OAuth 2 token endpoint (client-credentials grant for score passback).
    pub token_url: String,
    /// The platform's public keys.
    pub jwks_url: String,
    /// The one deployment accepted; none: any deployment of this platform.
    pub deployment_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformRecord {
    pub id: i64,
    pub platform: NewPlatform,
    /// The API client its learners' submissions and its score events belong to.
    pub api_client_id: i64,
    pub created_at: Millis,
}

/// A login initiation waiting for its launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LtiState {
    pub nonce: String,
    pub platform_id: i64,
}

/// What a resource-link launch established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LtiContext {
    pub id: i64,
    pub platform_id: i64,
    /// The platform's `sub` of the learner.
    pub subject: String,
    pub exercise: String,
    /// The AGS line item that receives scores; empty: none.
    pub lineitem: String,
}
