//! [`Store`], the service's durable state behind one trait (every method one transaction), and
//! the [`Notice`] a shared store sends the nodes that listen.

use std::sync::Arc;

use super::privacy::{AuditEntry, LearnerData, LearnerFound, LearnerScope, RowCounts};
use super::records::{
    ClientRecord, Delivery, Intake, JobOutcome, LeasedJob, LtiContext, LtiState, Millis, NewEvent,
    NewPlatform, NewSubmission, OutboxEvent, PlatformRecord, RegradeFilter, RegradesQueued, ResultRecord,
    Stats, StoreError, SubmissionFilter, SubmissionRecord, TokenScope, VersionCensus,
};
use crate::submission::Submission;

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
    /// The context of a launch: found (its time renewed to `now`: the retention sweep counts a
    /// launch record's age from its last launch), or created.
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

    // ---- Learners' data: export, erasure, retention, the audit log ----
    /// Everything stored of the learner in `scope`: each submission with its bytes and every
    /// result version with its report, and the LTI launch contexts that name the learner. When
    /// nothing is stored: `Erased` if an erasure of the same learner (key) in scope is recorded,
    /// else `Unknown`.
    fn learner_data(&self, scope: &LearnerScope) -> Result<LearnerFound<LearnerData>, StoreError>;
    /// Deletes everything stored of the learner in `scope` (its submissions with their jobs,
    /// results, result versions and outbox events, and its LTI launch contexts), records the
    /// submissions' ids as gone and `audit` with the rows deleted per table, in one transaction.
    /// A job completed after it stores nothing. When nothing is stored, nothing changes: `Erased`
    /// or `Unknown` as [`Store::learner_data`] says.
    fn erase_learner(
        &self,
        scope: &LearnerScope,
        audit: &AuditEntry,
        now: Millis,
    ) -> Result<LearnerFound<RowCounts>, StoreError>;
    /// Whether the submission `id` was erased or deleted by the retention sweep.
    fn submission_gone(&self, id: i64) -> Result<bool, StoreError>;
    fn record_audit(&self, entry: &AuditEntry) -> Result<(), StoreError>;
    /// The audit log's entries with an id above `after`, oldest first, at most `limit`.
    fn audit_log(&self, after: i64, limit: usize) -> Result<Vec<AuditEntry>, StoreError>;
    /// One batch of the retention sweep, one short transaction: at most `batch` submissions
    /// created before `before` whose job is not open (with their results, versions and events),
    /// and at most `batch` each of outbox events, uploaded Jobe files and LTI launch contexts
    /// older than that. The rows deleted per table; the caller repeats while a count is `batch`.
    fn sweep_retention(&self, before: Millis, batch: usize, now: Millis) -> Result<RowCounts, StoreError>;

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
