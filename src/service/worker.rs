//! Grading threads: each leases its share of the due jobs when it is free (at most
//! [`JOB_LEASE_BATCH_MAX`], one round trip to the store), grades them in order, and stores each
//! result, its webhook event and the job's completion in one transaction. While it grades, the
//! thread renews the lease of the job and of those it holds (a heartbeat), so a job is never graded
//! twice because its lease ran out.
//!
//! Grading happens in a worker process per thread (`--isolation process`, the default, see
//! [`crate::isolation`]): the thread kills a worker that passes the submission's deadline plus
//! [`WORKER_KILL_MARGIN_MS`](crate::limits::WORKER_KILL_MARGIN_MS), or sees it die at its memory
//! or CPU limit, starts a new one, and records the reason; a submission that takes its worker down
//! [`WORKER_KILLS_PER_SUBMISSION_MAX`] times fails for good with that reason. With `--isolation
//! thread` the thread grades in the server's own process. A job whose thread died is leased again
//! when its lease expires; after [`JOB_ATTEMPTS_MAX`] leases it fails with a stated reason instead
//! of being retried forever.
//! A job whose exercise cannot be loaded right now waits and is tried again later (see
//! [`EXERCISE_UNAVAILABLE_GRACE_MS`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::clock;
use super::metrics::VersionMismatch;
use super::shared::{Finished, Shared};
use super::slot::{Graded, Slot};
use super::store::{JobOutcome, LeasedJob, Millis, NewEvent, ResultRecord, Status, SubmissionRecord};
use crate::exercise::Exercise;
use crate::grade::{GradeError, GradeOptions};
use crate::limits::{
    EXERCISE_UNAVAILABLE_GRACE_MS, EXERCISE_UNAVAILABLE_RETRY_MAX_MS, EXERCISE_UNAVAILABLE_RETRY_MS,
    JOB_ATTEMPTS_MAX, JOB_HELD_WAIT_MS_MAX, JOB_LEASE_BATCH_MAX, JOB_LEASE_RENEWALS_PER_LEASE,
    VERSION_MISMATCH_DEFER_MS, WORKER_KILLS_PER_SUBMISSION_MAX,
};

/// How often an idle worker looks for expired leases without being woken.
const IDLE_POLL: Duration = Duration::from_millis(500);

pub(crate) fn start(shared: &Arc<Shared>) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    if shared.config.isolation == super::config::Isolation::Process {
        warm_module_cache(shared.config.module_cache_dir())?;
    }
    let kills = Arc::new(Kills::default());
    (0..shared.config.workers)
        .map(|n| {
            let shared = shared.clone();
            let kills = kills.clone();
            std::thread::Builder::new().name(format!("grader-{n}")).spawn(move || run(shared, &kills))
        })
        .collect()
}

/// How often each submission has taken its worker process down (overrun, crash) or met a fault of
/// the grader's own, across threads.
#[derive(Default)]
struct Kills(Mutex<HashMap<i64, u32>>);

impl Kills {
    fn count(&self, id: i64) -> u32 {
        let mut kills = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let count = kills.entry(id).or_default();
        *count += 1;
        *count
    }

    fn forget(&self, id: i64) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }
}

/// Compiles the interpreter guests into the module cache in a process of their own, beside the
/// start: the grading processes then read them from the cache instead of compiling them, so that
/// their peak memory is their grading's, and the first source submission after an upgrade does not
/// wait for a compile. A failure is logged: the grading processes then compile what they need.
fn warm_module_cache(dir: std::path::PathBuf) -> std::io::Result<()> {
    let program = std::env::current_exe().unwrap_or_else(|_| "pruefstein".into());
    let spec = crate::isolation::pool::WorkerSpec { program, env: Vec::new(), module_cache: Some(dir) };
    std::thread::Builder::new().name("warm-modules".into()).spawn(move || {
        let started = std::time::Instant::now();
        match crate::isolation::pool::warm(&spec) {
            Ok(status) if status.success() => {
                tracing::info!(event = "module_cache_warmed", ms = started.elapsed().as_millis() as u64);
            }
            Ok(status) => tracing::warn!(event = "module_cache_warm_failed", status = %status),
            Err(error) => tracing::warn!(event = "module_cache_warm_failed", error = %error),
        }
    })?;
    Ok(())
}

fn run(shared: Arc<Shared>, kills: &Kills) {
    let mut slot = Slot::new(shared.config.isolation, shared.config.module_cache_dir());
    let mut held = Held::default();
    let beat = lease_beat(&shared);
    loop {
        let seen = shared.work.generation();
        if !shared.accepting.load(Ordering::SeqCst) {
            held.give_back(&shared);
            return;
        }
        held.renew_due(&shared, beat);
        if let Some(job) = held.next() {
            process(&shared, &mut slot, kills, job, &mut held);
            shared.grading_progressed();
            continue;
        }
        // A dry run grades in this pool too, between this thread's jobs.
        if let Some(task) = shared.dry_runs.take() {
            let graded = slot.grade(&task.exercise, &task.submission, &task.options, beat, &mut || {});
            task.answer(graded.into_outcome());
            continue;
        }
        // This thread's share of the due jobs, in one round trip; it grades them in order.
        let leased = shared.store.lease_jobs(
            JOB_LEASE_BATCH_MAX,
            shared.config.workers,
            shared.config.job_lease_ms,
            clock::now_ms(),
        );
        match leased {
            Ok(jobs) if !jobs.is_empty() => {
                shared.metrics.job_leases.inc();
                held.take(jobs);
            }
            Ok(_) => {
                shared.grading_progressed();
                shared.work.wait(seen, IDLE_POLL);
            }
            Err(e) => {
                tracing::error!(event = "lease_failed", error = %e);
                shared.work.wait(seen, Duration::from_secs(1));
            }
        }
    }
}

/// How often a grading thread renews the leases it holds.
fn lease_beat(shared: &Shared) -> Duration {
    Duration::from_millis((shared.config.job_lease_ms / JOB_LEASE_RENEWALS_PER_LEASE).max(1))
}

/// The jobs a grading thread has leased and not begun yet, in lease order, each with when its
/// lease was taken or last renewed. Their leases are renewed with the job being graded (the
/// heartbeat) and before the next one begins, so a held job's lease never runs out under a live
/// thread. They are given back without counting an attempt at shutdown, and when the grading in
/// front of them takes longer than [`JOB_HELD_WAIT_MS_MAX`] (a free thread takes them then).
#[derive(Default)]
struct Held {
    jobs: std::collections::VecDeque<(LeasedJob, Instant)>,
}

impl Held {
    fn take(&mut self, jobs: Vec<LeasedJob>) {
        let now = Instant::now();
        self.jobs.extend(jobs.into_iter().map(|job| (job, now)));
    }

    fn next(&mut self) -> Option<LeasedJob> {
        self.jobs.pop_front().map(|(job, _)| job)
    }

    fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Renews the lease of every held job not renewed within `beat` (all of them for a zero
    /// `beat`). A job that another grader has leased since (its lease had run out) is dropped: its
    /// attempt is no longer this thread's.
    fn renew_due(&mut self, shared: &Shared, beat: Duration) {
        self.jobs.retain_mut(|(job, renewed)| {
            if renewed.elapsed() < beat {
                return true;
            }
            match renew_lease(shared, job.submission_id, job.attempt) {
                Renewal::Renewed => {
                    *renewed = Instant::now();
                    true
                }
                Renewal::Lost => false,
                // Kept: if the lease runs out, its completion is refused (fenced by the attempt).
                Renewal::Failed => true,
            }
        });
    }

    /// Gives every held job back, its attempt not counted (it was never begun): at shutdown, and
    /// when they have waited [`JOB_HELD_WAIT_MS_MAX`] behind a grading.
    fn give_back(&mut self, shared: &Shared) {
        while let Some(job) = self.next() {
            if let Err(e) = shared.store.release_job(&job, false) {
                tracing::error!(event = "release_failed", error = %e);
            }
        }
    }
}

/// How renewing a lease went.
enum Renewal {
    Renewed,
    /// Another grader holds the job now (its lease had run out); logged.
    Lost,
    /// The store could not be asked; logged.
    Failed,
}

/// Renews the lease of attempt `attempt` of job `id` for another `job_lease_ms`.
fn renew_lease(shared: &Shared, id: i64, attempt: u32) -> Renewal {
    match shared.store.renew_lease(id, attempt, shared.config.job_lease_ms, clock::now_ms()) {
        Ok(true) => Renewal::Renewed,
        Ok(false) => {
            tracing::warn!(event = "lease_lost", submission = %crate::service::public_id::of(id));
            Renewal::Lost
        }
        Err(e) => {
            tracing::error!(event = "renew_failed", error = %e);
            Renewal::Failed
        }
    }
}

/// Grades one leased job and hands its outcome to the store: decides what becomes of it, logs
/// that, and completes the job with its event.
fn process(shared: &Arc<Shared>, slot: &mut Slot, kills: &Kills, job: LeasedJob, held: &mut Held) {
    // Every event while this submission is graded carries it, its exercise and its attempt.
    let span = tracing::info_span!(
        "grade",
        submission = %crate::service::public_id::of(job.submission_id),
        exercise = %job.exercise,
        attempt = job.attempt,
    );
    let _grading = span.enter();
    let started = Instant::now();
    let Some(outcome) = decide(shared, slot, kills, &job, held, started) else {
        // The job was given back or deferred: another attempt decides.
        return;
    };
    forget_unavailable(job.submission_id);
    kills.forget(job.submission_id);
    let seconds = started.elapsed().as_secs_f64();
    log_outcome(&job, &outcome, seconds);
    complete(shared, job, outcome, seconds);
}

/// What becomes of `job`: failed after too many attempts, waiting for its exercise, or graded.
/// None: the job was given back (or deferred) and another attempt decides.
fn decide(
    shared: &Arc<Shared>,
    slot: &mut Slot,
    kills: &Kills,
    job: &LeasedJob,
    held: &mut Held,
    started: Instant,
) -> Option<JobOutcome> {
    if job.attempt > JOB_ATTEMPTS_MAX {
        return Some(JobOutcome::Failed {
            reason: format!(
                "grading was started {} times and never finished (job_attempts_max = {JOB_ATTEMPTS_MAX})",
                job.attempt - 1
            ),
        });
    }
    let Some(exercise) = shared.catalogue.get(&job.exercise) else {
        let reason =
            format!("the exercise {} is not served (its folder is missing or does not load)", job.exercise);
        return exercise_unavailable(shared, job, reason);
    };
    if !version_may_grade(shared, job, &exercise) {
        return None;
    }
    let graded = grade_with_heartbeat(shared, slot, job, &exercise, held, started);
    outcome_of(shared, slot, kills, job, &exercise, graded, started)
}

/// Grades `job` in the slot, renewing its lease (and the held jobs') on every heartbeat and giving
/// the held jobs back once they have waited long enough.
fn grade_with_heartbeat(
    shared: &Arc<Shared>,
    slot: &mut Slot,
    job: &LeasedJob,
    exercise: &Exercise,
    held: &mut Held,
    started: Instant,
) -> Graded {
    let options = GradeOptions {
        learner: Some(job.learner.clone()),
        course_secret: shared.course_secret.clone(),
        compiler: shared.config.compiler,
        replay: None,
    };
    let renew_every = lease_beat(shared);
    let held_wait = Duration::from_millis(JOB_HELD_WAIT_MS_MAX);
    // While jobs are held, the heartbeat also comes when they have waited long enough.
    let beat = if held.is_empty() { renew_every } else { renew_every.min(held_wait) };
    let (id, attempt) = (job.submission_id, job.attempt);
    let mut renewed = Instant::now();
    let mut heartbeat = || {
        if !held.is_empty() && started.elapsed() >= held_wait {
            tracing::info!(event = "held_given_back", jobs = held.jobs.len());
            held.give_back(shared);
            shared.work.notify();
        }
        if renewed.elapsed() >= renew_every {
            renew_lease(shared, id, attempt);
            held.renew_due(shared, Duration::ZERO);
            renewed = Instant::now();
        }
    };
    slot.grade(exercise, &job.submission, &options, beat, &mut heartbeat)
}

/// The outcome a grading makes: a result, a failure, or (None) the job given back to be graded
/// again by a new worker process or after a repair of its exercise.
fn outcome_of(
    shared: &Shared,
    slot: &mut Slot,
    kills: &Kills,
    job: &LeasedJob,
    exercise: &Exercise,
    graded: Graded,
    started: Instant,
) -> Option<JobOutcome> {
    match graded {
        Graded::Done(Ok(report)) => Some(JobOutcome::Graded {
            verdict: report.verdict.name().to_string(),
            points: report.score.points,
            max_points: report.score.max,
            report: serde_json::to_string(&report).unwrap_or_default(),
            grade_ms: started.elapsed().as_millis() as u64,
            exercise_hash: exercise.content_hash().to_string(),
            grader_version: exercise.grader_version(),
        }),
        Graded::Done(Err(GradeError::Exercise { slug, message })) => {
            // A teacher may repair it (the reload serves the repaired folder): wait.
            exercise_unavailable(shared, job, format!("the exercise {slug} is broken: {message}"))
        }
        Graded::Done(Err(GradeError::Internal(message))) => {
            // The grading process's own fault, never the student's verdict: a new worker
            // process (dropping this one kills it) tries again; if it persists, the job fails.
            if let Slot::Process(process) = slot {
                process.worker = None;
            }
            let reason = format!("the grader failed on its side, not the submission's: {message}");
            retry_elsewhere(shared, kills, job, "grader_fault", reason)
        }
        Graded::Done(Err(e)) => Some(JobOutcome::Failed { reason: e.to_string() }),
        // Perhaps the machine, not the submission: grade it once more (counted).
        Graded::WorkerLost(failure) => {
            retry_elsewhere(shared, kills, job, "worker_lost", failure.reason_line())
        }
        Graded::Panicked => {
            // A panic is a bug in Prüfstein: try again (counted) until attempts run out.
            tracing::error!(event = "grading_panicked", submission = %crate::service::public_id::of(job.submission_id));
            if let Err(e) = shared.store.release_job(job, true) {
                tracing::error!(event = "release_failed", error = %e);
            }
            shared.work.notify();
            None
        }
    }
}

/// One line in the log for a decided job.
fn log_outcome(job: &LeasedJob, outcome: &JobOutcome, seconds: f64) {
    let ms = format!("{:.1}", seconds * 1e3);
    let public = crate::service::public_id::of(job.submission_id);
    match outcome {
        JobOutcome::Graded { verdict, .. } => tracing::info!(
            event = "graded",
            submission = %public,
            exercise = %job.exercise,
            verdict = %verdict,
            ms = %ms,
            attempt = job.attempt,
        ),
        JobOutcome::Failed { reason } => tracing::warn!(
            event = "not_graded",
            submission = %public,
            exercise = %job.exercise,
            reason = %reason,
            attempt = job.attempt,
        ),
    }
}

/// Hands the outcome to the store with its event; once it is committed, counts it, answers the
/// requests waiting for it and wakes the webhook senders.
fn complete(shared: &Arc<Shared>, job: LeasedJob, outcome: JobOutcome, seconds: f64) {
    let now = clock::now_ms();
    // A result version has one event: its webhook, or (made from a launched LTI page) its score.
    // A regrade's event is sent only if the verdict or the points changed (the store decides, in
    // the transaction that writes the result).
    let event = match &job.callback_url {
        Some(url) => Some(NewEvent {
            event_id: version_event_id(job.submission_id, job.version),
            url: url.clone(),
            payload: event_payload(shared, &job, &outcome, now),
        }),
        None => super::lti::ags::score_event(&shared.lti_context(), &job, &outcome, now),
    };
    let id = job.submission_id;
    let has_event = event.is_some();
    // What the store will hold once this commits, for the requests waiting on it.
    let finished = finished_record(&job, &outcome, now);
    let verdict = match &outcome {
        JobOutcome::Graded { verdict, .. } => Some(verdict.clone()),
        JobOutcome::Failed { .. } => None,
    };
    let after = shared.clone();
    // The completion commits with the next group; the worker goes on meanwhile. Until it is
    // committed the lease holds the job, so a crash in between only means grading it again.
    shared.store.complete_job(
        job,
        outcome,
        event,
        now,
        Box::new(move |stored| match stored {
            Ok(stored) => {
                if stored {
                    match &verdict {
                        Some(verdict) => {
                            after.metrics.verdict(verdict);
                            after.metrics.observe_grade(seconds);
                        }
                        None => {
                            after.metrics.grading_failed.inc();
                        }
                    }
                }
                after.waiters.finished(id, stored.then_some(finished));
                if has_event {
                    after.outbox.notify();
                }
            }
            // The lease stays; it expires and the job is graded again (the same result).
            Err(e) => {
                tracing::error!(event = "complete_failed", submission = %crate::service::public_id::of(id), error = %e)
            }
        }),
    );
}

/// Gives `job` back (its attempt counted) for a new worker process, unless it has met `event` (a
/// lost worker or a fault of the grader's own) [`WORKER_KILLS_PER_SUBMISSION_MAX`] times: then it
/// fails with `reason`.
fn retry_elsewhere(
    shared: &Shared,
    kills: &Kills,
    job: &LeasedJob,
    event: &str,
    reason: String,
) -> Option<JobOutcome> {
    let count = kills.count(job.submission_id);
    let submission = crate::service::public_id::of(job.submission_id);
    tracing::warn!(event, submission = %submission, exercise = %job.exercise, reason = %reason, count);
    if count >= WORKER_KILLS_PER_SUBMISSION_MAX {
        return Some(JobOutcome::Failed { reason });
    }
    if let Err(e) = shared.store.release_job(job, true) {
        tracing::error!(event = "release_failed", error = %e);
    }
    shared.work.notify();
    None
}

/// Per waiting submission: when its exercise was first found unloadable, and how often it has
/// waited since. Kept in memory: after a restart a waiting submission gets its grace period again.
static UNAVAILABLE: Mutex<BTreeMap<i64, (Millis, u32)>> = Mutex::new(BTreeMap::new());

/// The submission's state as [`Store::complete_job`](super::store::Store::complete_job) stores it
/// for `outcome`: status, attempts and result, as a read of the submission would return them.
/// Whether this node may grade `job` with the version of its exercise it serves. A job records
/// the version it was accepted under (see [`super::versions`]); the lease gives a node only jobs of
/// its own versions or of versions no living node serves. A job of another version that a living
/// node serves reaches this node only while its announcement lags behind a reload: it announces
/// now and leaves the job for [`VERSION_MISMATCH_DEFER_MS`], uncounted, so that two nodes never
/// grade one exercise two ways. A job whose version no living node serves is graded by this one's
/// (it would wait forever otherwise); the result records the version graded.
fn version_may_grade(shared: &Shared, job: &LeasedJob, exercise: &Exercise) -> bool {
    let Some(recorded) = job.exercise_hash.as_deref() else { return true };
    let served = exercise.content_hash();
    if recorded == served {
        return true;
    }
    let (recorded, served) = (super::versions::short(recorded), super::versions::short(served));
    if !job.recorded_version_served {
        tracing::info!(
            event = "graded_under_served_version",
            recorded,
            served,
            "no living node serves the version the job was accepted under"
        );
        shared.metrics.version_mismatch(VersionMismatch::Graded);
        return true;
    }
    tracing::warn!(event = "left_to_its_version", recorded, served, "another node serves the job's version");
    shared.metrics.version_mismatch(VersionMismatch::Left);
    let _ = super::versions::announce(shared);
    let until = clock::now_ms() + VERSION_MISMATCH_DEFER_MS as i64;
    if let Err(e) = shared.store.defer_job(job, until, false) {
        tracing::error!(event = "defer_failed", error = %e);
    }
    shared.work.notify();
    false
}

fn finished_record(job: &LeasedJob, outcome: &JobOutcome, now: Millis) -> Finished {
    let (status, result) = outcome.record(job.version, now);
    Finished { status, attempts: job.attempt, result }
}

fn forget_unavailable(submission_id: i64) {
    UNAVAILABLE.lock().unwrap_or_else(|p| p.into_inner()).remove(&submission_id);
}

/// The exercise of `job` cannot be loaded right now (its folder is being edited, is broken, or was
/// missing at start): the job waits and is tried again, after [`EXERCISE_UNAVAILABLE_RETRY_MS`],
/// doubling up to [`EXERCISE_UNAVAILABLE_RETRY_MAX_MS`]. Within [`EXERCISE_UNAVAILABLE_GRACE_MS`]
/// a wait is not an attempt; after it, waits count, and the last attempt fails with `reason`
/// (returned). None: the job waits.
fn exercise_unavailable(shared: &Shared, job: &LeasedJob, reason: String) -> Option<JobOutcome> {
    let now = clock::now_ms();
    let (first, waits) = {
        let mut unavailable = UNAVAILABLE.lock().unwrap_or_else(|p| p.into_inner());
        let entry = unavailable.entry(job.submission_id).or_insert((now, 0));
        entry.1 += 1;
        *entry
    };
    let counted = now.saturating_sub(first) >= EXERCISE_UNAVAILABLE_GRACE_MS as i64;
    if counted && job.attempt >= JOB_ATTEMPTS_MAX {
        return Some(JobOutcome::Failed {
            reason: format!(
                "{reason}; it could not be loaded for {} minutes (exercise_unavailable_grace_ms) \
                 and then {JOB_ATTEMPTS_MAX} more times (job_attempts_max)",
                EXERCISE_UNAVAILABLE_GRACE_MS / 60_000
            ),
        });
    }
    let delay = EXERCISE_UNAVAILABLE_RETRY_MS
        .saturating_mul(1u64 << (waits - 1).min(32))
        .min(EXERCISE_UNAVAILABLE_RETRY_MAX_MS);
    if let Err(e) = shared.store.defer_job(job, now + delay as i64, counted) {
        // The lease runs out and the job is tried again later all the same.
        tracing::error!(event = "defer_failed", error = %e);
    }
    tracing::warn!(
        event = "exercise_unavailable",
        submission = %crate::service::public_id::of(job.submission_id),
        exercise = %job.exercise,
        reason = %reason,
        retry_ms = delay,
        counted,
    );
    None
}

/// The one event of a submission: its id is derived from the submission, so it is the same on
/// every attempt, after a redelivery, and if the job was graded twice.
pub(crate) fn event_id(submission_id: i64) -> String {
    format!("evt_{}", crate::service::public_id::of(submission_id))
}

/// The event of a result version: the first result's is [`event_id`], a regrade's adds its version
/// (`evt_sub_12_v2`), so that each version's event is sent once.
pub(crate) fn version_event_id(submission_id: i64, version: u32) -> String {
    if version <= 1 { event_id(submission_id) } else { format!("{}_v{version}", event_id(submission_id)) }
}

/// The webhook body: the event type and the submission as `GET /api/v1/submissions/{id}` shows it.
fn event_payload(shared: &Shared, job: &LeasedJob, outcome: &JobOutcome, now: i64) -> String {
    let (status, result) = match outcome {
        JobOutcome::Graded {
            verdict,
            points,
            max_points,
            report,
            grade_ms,
            exercise_hash,
            grader_version,
        } => (
            Status::Graded,
            ResultRecord {
                version: job.version,
                exercise_hash: Some(exercise_hash.clone()),
                grader_version: Some(grader_version.clone()),
                verdict: Some(verdict.clone()),
                points: Some(*points),
                max_points: Some(*max_points),
                report: Some(report.clone()),
                failure: None,
                finished_at: now,
                grade_ms: Some(*grade_ms),
            },
        ),
        JobOutcome::Failed { reason } => (
            Status::Failed,
            ResultRecord {
                version: job.version,
                exercise_hash: None,
                grader_version: None,
                verdict: None,
                points: None,
                max_points: None,
                report: None,
                failure: Some(reason.clone()),
                finished_at: now,
                grade_ms: None,
            },
        ),
    };
    let record = SubmissionRecord {
        id: job.submission_id,
        client_id: job.client_id,
        exercise: job.exercise.clone(),
        learner: job.learner.clone(),
        kind: match job.submission {
            crate::submission::Submission::Answer(_) => "answer".into(),
            crate::submission::Submission::Module(_) => "module".into(),
            crate::submission::Submission::Source { language, .. } => language.name().into(),
        },
        sha256: job.sha256.clone(),
        callback_url: job.callback_url.clone(),
        metadata: job.metadata.clone(),
        idempotency_key: job.idempotency_key.clone(),
        request_hash: String::new(),
        created_at: job.created_at,
        status,
        attempts: job.attempt,
        result: Some(result),
    };
    let kind = match (status, job.regrade) {
        (Status::Graded, false) => "submission.graded",
        (_, false) => "submission.failed",
        (Status::Graded, true) => "submission.regraded",
        (_, true) => "submission.regrade_failed",
    };
    serde_json::json!({
        "type": kind,
        "event_id": version_event_id(job.submission_id, job.version),
        "timestamp": clock::rfc3339(now),
        "data": super::http::views::submission_view(shared, &record),
    })
    .to_string()
}
