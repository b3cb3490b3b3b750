//! The service's durable state behind one trait, so that another database (PostgreSQL with
//! `FOR UPDATE SKIP LOCKED` for many stateless nodes) can take SQLite's place: clients and their
//! hashed tokens, submissions with their idempotency keys, the leased job queue, results, and the
//! webhook outbox. Every method is one transaction; times are milliseconds since the Unix epoch and
//! are passed in, so the queue's rules can be tested without a clock (a store that several nodes
//! share measures lease deadlines by the database's clock instead, see [`postgres::LeaseClock`]).
//! [`StoreError`] names no type of a database library; each backend ([`sqlite`], [`postgres`]) maps
//! its errors into it with the operation that failed.
//!
//! A store is opened for one node (a `pruefstein serve` process, named by its node id): the leases it
//! takes record that id, so that a node restarting gives back its own leases and no other node's.

pub mod postgres;
pub mod sqlite;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::submission::Submission;

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

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
    pub fn name(self) -> &'static str {
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
    pub fn name(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Graded => "graded",
            Status::Failed => "failed",
        }
    }

    pub fn is_final(self) -> bool {
        matches!(self, Status::Graded | Status::Failed)
    }

    /// A submission's status from what a backend stores: its result's status (`graded` or
    /// `failed`), if it has a result, and whether its job is leased now. A result decides; without
    /// one, a leased job is running and any other is queued.
    pub fn of(result_status: Option<&str>, leased: bool) -> Status {
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
pub struct ResultColumns<'a> {
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
    pub fn record(&self, version: u32, finished_at: Millis) -> (Status, ResultRecord) {
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
    pub fn columns(&self) -> ResultColumns<'_> {
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

impl EventState {
    pub fn name(self) -> &'static str {
        match self {
            EventState::Pending => "pending",
            EventState::Delivered => "delivered",
            EventState::Dead => "dead",
        }
    }
}

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

/// The service's durable state. Every method is one transaction.
pub trait Store: Send + Sync + 'static {
    fn add_client(
        &self,
        name: &str,
        token_hash: &str,
        webhook_secret: &str,
        now: Millis,
    ) -> Result<ClientRecord, StoreError>;
    fn list_clients(&self) -> Result<Vec<ClientRecord>, StoreError>;
    /// Revokes the client's token; false if there is no such client.
    fn revoke_client(&self, name: &str, now: Millis) -> Result<bool, StoreError>;
    /// The client a token belongs to, if the token may be used for `scope` at `now`: the client's
    /// current API token, an API token a rotation replaced until it expires, or (for the Jobe scope)
    /// a Jobe key. Revoked clients are returned too (the caller says why they are refused).
    fn client_by_token_hash(
        &self,
        token_hash: &str,
        scope: TokenScope,
        now: Millis,
    ) -> Result<Option<ClientRecord>, StoreError>;
    /// Gives an unrevoked client a new API token; the one before stays valid until `old_valid_until`.
    /// False if there is no such client (or it is revoked).
    fn rotate_client_token(
        &self,
        name: &str,
        new_hash: &str,
        old_valid_until: Millis,
        now: Millis,
    ) -> Result<bool, StoreError>;
    /// Adds a further token of `scope` to an unrevoked client (no expiry); false if there is none.
    fn add_client_token(
        &self,
        name: &str,
        token_hash: &str,
        scope: TokenScope,
        now: Millis,
    ) -> Result<bool, StoreError>;
    /// Removes a client: revoked, its tokens deleted, its name free for a new client; its
    /// submissions stay (they keep its id). False if there is no such client.
    fn remove_client(&self, name: &str, now: Millis) -> Result<bool, StoreError>;
    fn client_by_id(&self, id: i64) -> Result<Option<ClientRecord>, StoreError>;

    /// The value of a setting, storing `default` first if there is none (a secret generated once).
    fn setting_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError>;
    /// Stores a setting's value, replacing the one before; `None` removes the setting.
    fn put_setting(&self, key: &str, value: Option<&str>) -> Result<(), StoreError>;

    /// Accepts a submission and queues its job, or finds the earlier one with the same key.
    fn submit(&self, new: &NewSubmission, queue_max: u64, now: Millis) -> Result<Intake, StoreError>;
    fn submission(&self, id: i64) -> Result<Option<SubmissionRecord>, StoreError>;

    /// Leases waiting jobs (or jobs whose lease expired), oldest first, counting an attempt each:
    /// the due jobs divided by `share` (the number of workers), rounded up, at most `max`. The
    /// service's grading threads lease their share when they are free (`max` =
    /// [`JOB_LEASE_BATCH_MAX`](crate::limits::JOB_LEASE_BATCH_MAX), `share` = the threads).
    fn lease_jobs(
        &self,
        max: usize,
        share: usize,
        lease_ms: u64,
        now: Millis,
    ) -> Result<Vec<LeasedJob>, StoreError>;
    /// Renews the lease of a job being graded (the grader's heartbeat): its lease now runs until
    /// `now + lease_ms`. Fenced by the attempt: false, and nothing changes, if the job has been
    /// leased again since (`attempt` is no longer its latest) or is finished.
    fn renew_lease(
        &self,
        submission_id: i64,
        attempt: u32,
        lease_ms: u64,
        now: Millis,
    ) -> Result<bool, StoreError>;
    /// Stores the job's one result, its webhook event and the job's completion together, then calls
    /// `then` with whether a result was stored. If the submission already has a result (graded twice
    /// after a crash), nothing changes and `then` gets false: there is never a second result or a
    /// second event. `then` may run on another thread and must be quick.
    fn complete_job(
        &self,
        job: LeasedJob,
        outcome: JobOutcome,
        event: Option<NewEvent>,
        now: Millis,
        then: Box<dyn FnOnce(Result<bool, StoreError>) + Send>,
    );
    /// Gives a lease back: without counting the attempt (graceful shutdown), or counting it (the
    /// grading panicked: it is tried again at once, until the attempts are used up).
    fn release_job(&self, job: &LeasedJob, count_attempt: bool) -> Result<(), StoreError>;
    /// Gives a lease back and keeps the job out of reach until `until` (its exercise cannot be
    /// loaded right now): the job is queued again, due at `until`, its attempt counted or not.
    fn defer_job(&self, job: &LeasedJob, until: Millis, count_attempt: bool) -> Result<(), StoreError>;
    /// Gives back the leases of jobs and webhook events that this store's node holds: called at
    /// start, when they can only be left by an earlier run of the same node (one process per node
    /// id). Other nodes' leases are never touched: they run out by themselves. Returns how many
    /// were given back.
    fn release_own_leases(&self) -> Result<u64, StoreError>;

    /// Leases up to `limit` events that are due, pushing their next attempt `lease_ms` ahead.
    fn lease_events(&self, limit: usize, lease_ms: u64, now: Millis) -> Result<Vec<OutboxEvent>, StoreError>;
    fn record_delivery(&self, event_id: &str, delivery: &Delivery, now: Millis) -> Result<(), StoreError>;
    fn dead_events(&self, client_id: i64, limit: usize) -> Result<Vec<OutboxEvent>, StoreError>;
    /// Makes a dead event of this client pending again with fresh attempts. None if there is no
    /// such event of this client, Some(false) if it is not dead.
    fn redeliver(&self, client_id: i64, event_id: &str, now: Millis) -> Result<Option<bool>, StoreError>;

    /// Returns once every write handed to the store before this call is committed (writes that
    /// report their outcome later, like [`Store::complete_job`], included). Called at shutdown.
    fn flush(&self) -> Result<(), StoreError>;
    /// Forgets idempotency keys older than `before`.
    fn forget_idempotency_keys(&self, before: Millis) -> Result<u64, StoreError>;
    fn stats(&self) -> Result<Stats, StoreError>;

    // Teachers see their course: teacher clients, result versions, listings, regrades.

    /// Makes a client a teacher or not; false if there is no such client.
    fn set_teacher(&self, name: &str, teacher: bool) -> Result<bool, StoreError>;
    /// A client's submissions matching `filter` with an id above `after`, in id order, at most
    /// `limit` (keyset pagination). Their results are the latest versions, without the report.
    fn list_submissions(
        &self,
        client_id: i64,
        filter: &SubmissionFilter,
        after: i64,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError>;
    /// Every result version of a submission, oldest first, without the reports.
    fn result_versions(&self, submission_id: i64) -> Result<Vec<ResultRecord>, StoreError>;
    /// The latest submission of each learner (of every client) for `exercise` that has a result,
    /// narrowed by `filter`, in id order, at most `limit` + 1 (so that a caller sees that there are
    /// more). Their results are the latest versions, with the report.
    fn latest_submissions(
        &self,
        exercise: &str,
        filter: &RegradeFilter,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError>;
    /// What was submitted: the bytes of a submission.
    fn submission_payload(&self, id: i64) -> Result<Option<Submission>, StoreError>;
    /// Queues a regrade job for each submission that has no open job (one open job per
    /// submission: asking twice queues once). Regrade jobs are leased after first gradings.
    fn queue_regrades(&self, ids: &[i64], exercise_hash: Option<&str>) -> Result<RegradesQueued, StoreError>;
    /// Every submission of `exercise` (of every client) in id order, at most `limit` + 1, with the
    /// latest results and their reports: what a course's analytics are computed from.
    fn exercise_submissions(&self, exercise: &str, limit: usize)
    -> Result<Vec<SubmissionRecord>, StoreError>;
    // ---- The student's page ----
    /// A learner's submissions for one exercise through one client, newest first, at most `limit`.
    fn learner_submissions(
        &self,
        client_id: i64,
        exercise: &str,
        learner: &str,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError>;

    // ---- LTI 1.3 ----
    /// The value of a setting, if there is one (the tool's key pair, generated once).
    fn setting(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Registers a platform with its API client; a conflict if the name or the issuer and client
    /// id are taken.
    fn add_platform(
        &self,
        platform: &NewPlatform,
        api_client_id: i64,
        now: Millis,
    ) -> Result<PlatformRecord, StoreError>;
    fn list_platforms(&self) -> Result<Vec<PlatformRecord>, StoreError>;
    /// Changes a registration's issuer, client id, URLs and deployment (its name and API client
    /// stay); false if there is no platform of that name, a conflict if another one has the issuer
    /// and client id.
    fn update_platform(&self, platform: &NewPlatform) -> Result<bool, StoreError>;
    /// Removes a registration with its pending logins and launch contexts (its learners' pages and
    /// score events end with it), and removes its API client as `remove_client` does; false if
    /// there is none of that name.
    fn remove_platform(&self, name: &str, now: Millis) -> Result<bool, StoreError>;
    /// Keeps a login initiation until `expires_at`, after removing the expired ones and the one
    /// named `evict` (given up for it: see `lti::logins`), in one transaction.
    fn put_lti_state(
        &self,
        state: &str,
        entry: &LtiState,
        expires_at: Millis,
        evict: Option<&str>,
        now: Millis,
    ) -> Result<(), StoreError>;
    /// Takes a login initiation (once: it is removed); none if unknown or expired.
    fn take_lti_state(&self, state: &str, now: Millis) -> Result<Option<LtiState>, StoreError>;
    /// The context of a launch: found, or created.
    fn lti_context(
        &self,
        platform_id: i64,
        subject: &str,
        exercise: &str,
        lineitem: &str,
        now: Millis,
    ) -> Result<LtiContext, StoreError>;
    fn lti_context_by_id(&self, id: i64) -> Result<Option<LtiContext>, StoreError>;
    /// Records the LTI course (the launch's `context` claim id) a launch context was opened from.
    fn set_lti_course(&self, context_id: i64, course: &str) -> Result<(), StoreError>;
    /// The launch contexts last opened from the LTI course `course` of a platform.
    fn lti_course_contexts(&self, platform_id: i64, course: &str) -> Result<Vec<i64>, StoreError>;

    // ---- The Jobe-compatible endpoint ----
    /// Keeps a client's uploaded file (replacing one of the same id), then forgets the client's
    /// oldest files until at most `files_max` of them, of at most `bytes_max` bytes together, are
    /// kept; the new file is never forgotten.
    fn put_jobe_file(
        &self,
        client_id: i64,
        file_id: &str,
        contents: &[u8],
        limits: (usize, u64),
        now: Millis,
    ) -> Result<(), StoreError>;
    /// A client's uploaded file, if it is kept.
    fn jobe_file(&self, client_id: i64, file_id: &str) -> Result<Option<Vec<u8>>, StoreError>;

    // ---- Several nodes ----
    /// Announces that this store's node lives and serves `versions` (exercise slug, content hash),
    /// replacing what it announced before. Renewed every [`NODE_HEARTBEAT_MS`](crate::limits::NODE_HEARTBEAT_MS)
    /// and after every reload; a node not heard of for [`NODE_LIVENESS_MS`](crate::limits::NODE_LIVENESS_MS)
    /// is taken for gone.
    fn announce_node(&self, versions: &[(String, String)], now: Millis) -> Result<(), StoreError>;
    /// Withdraws this node's announcement (it stops): the jobs of versions only it served are left
    /// to the others at once.
    fn withdraw_node(&self) -> Result<(), StoreError>;
    /// The versions living nodes serve, and the versions the open jobs were recorded under.
    fn version_census(&self, now: Millis) -> Result<VersionCensus, StoreError>;
    /// Calls `hear` for what other nodes (and this one) did on a shared store: a job was queued, a
    /// submission finished. Returns at once; `hear` runs on the store's own thread and must be
    /// quick. A store only one process uses has nothing to tell (the default): that process
    /// wakes its own threads. Hearing is a hint that saves waiting: a caller still polls.
    fn listen(&self, hear: Arc<dyn Fn(Notice) + Send + Sync>) -> Result<(), StoreError> {
        let _ = hear;
        Ok(())
    }
}

/// What a shared store tells the nodes that listen ([`Store::listen`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// Jobs were queued (a submission, regrades): a grading thread may lease one.
    JobsQueued,
    /// A submission's result is stored: requests waiting for it may answer.
    Finished(i64),
}
