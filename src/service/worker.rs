//! Grading threads: each leases a job from the store, grades it with [`crate::grade::grade`] (the
//! CLI's grader), and stores the result, the webhook event and the job's completion in one
//! transaction. A job whose worker died is leased again when its lease expires; after
//! [`JOB_ATTEMPTS_MAX`] leases it fails with a stated reason instead of being retried forever.
//! A job whose exercise cannot be loaded right now waits and is tried again later (see
//! [`EXERCISE_UNAVAILABLE_GRACE_MS`]).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::store::{JobOutcome, LeasedJob, Millis, NewEvent, ResultRecord, Status, SubmissionRecord};
use super::{Shared, clock, log};
use crate::grade::{GradeError, GradeOptions, grade};
use crate::limits::{
    EXERCISE_UNAVAILABLE_GRACE_MS, EXERCISE_UNAVAILABLE_RETRY_MAX_MS, EXERCISE_UNAVAILABLE_RETRY_MS,
    JOB_ATTEMPTS_MAX, JOB_LEASE_BATCH_MAX, JOB_LEASE_MS,
};

/// How often an idle worker looks for expired leases without being woken.
const IDLE_POLL: Duration = Duration::from_millis(500);

pub fn start(shared: &Arc<Shared>) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    (0..shared.config.workers)
        .map(|n| {
            let shared = shared.clone();
            std::thread::Builder::new().name(format!("grader-{n}")).spawn(move || run(shared))
        })
        .collect()
}

fn run(shared: Arc<Shared>) {
    loop {
        let seen = shared.work.generation();
        if !shared.accepting.load(Ordering::SeqCst) {
            return;
        }
        let leased = shared.store.lease_jobs(
            JOB_LEASE_BATCH_MAX,
            shared.config.workers,
            JOB_LEASE_MS,
            clock::now_ms(),
        );
        match leased {
            Ok(jobs) if !jobs.is_empty() => {
                let mut jobs = jobs.into_iter();
                for job in jobs.by_ref() {
                    process(&shared, job);
                    if !shared.accepting.load(Ordering::SeqCst) {
                        break;
                    }
                }
                // Shutting down: give the rest back, uncounted.
                for job in jobs {
                    if let Err(e) = shared.store.release_job(&job, false) {
                        log::error("release_failed", &[("error", &e.to_string())]);
                    }
                }
            }
            Ok(_) => shared.work.wait(seen, IDLE_POLL),
            Err(e) => {
                log::error("lease_failed", &[("error", &e.to_string())]);
                shared.work.wait(seen, Duration::from_secs(1));
            }
        }
    }
}

fn process(shared: &Arc<Shared>, job: LeasedJob) {
    let started = Instant::now();
    let outcome = if job.attempt > JOB_ATTEMPTS_MAX {
        JobOutcome::Failed {
            reason: format!(
                "grading was started {} times and never finished (job_attempts_max = {JOB_ATTEMPTS_MAX})",
                job.attempt - 1
            ),
        }
    } else {
        match shared.catalogue.get(&job.exercise) {
            None => {
                let reason = format!(
                    "the exercise {} is not served (its folder is missing or does not load)",
                    job.exercise
                );
                match exercise_unavailable(shared, &job, reason) {
                    Some(failed) => failed,
                    None => return,
                }
            }
            Some(exercise) => {
                let options = GradeOptions {
                    learner: Some(job.learner.clone()),
                    course_secret: shared.config.course_secret.clone(),
                    compiler: shared.config.compiler,
                    replay: None,
                };
                let graded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    grade(&exercise, &job.submission, &options)
                }));
                match graded {
                    Ok(Ok(report)) => JobOutcome::Graded {
                        verdict: verdict_name(report.verdict).to_string(),
                        points: report.score.points,
                        max_points: report.score.max,
                        report: serde_json::to_string(&report).unwrap_or_default(),
                        grade_ms: started.elapsed().as_millis() as u64,
                    },
                    Ok(Err(GradeError::Exercise { slug, message })) => {
                        // A teacher may repair it (the reload serves the repaired folder): wait.
                        let reason = format!("the exercise {slug} is broken: {message}");
                        match exercise_unavailable(shared, &job, reason) {
                            Some(failed) => failed,
                            None => return,
                        }
                    }
                    Ok(Err(e)) => JobOutcome::Failed { reason: e.to_string() },
                    Err(_) => {
                        // A panic is a bug in Prüfstein: try again (counted) until attempts run out.
                        log::error(
                            "grading_panicked",
                            &[("submission", &Shared::public_id(job.submission_id))],
                        );
                        if let Err(e) = shared.store.release_job(&job, true) {
                            log::error("release_failed", &[("error", &e.to_string())]);
                        }
                        shared.work.notify();
                        return;
                    }
                }
            }
        }
    };
    forget_unavailable(job.submission_id);
    let seconds = started.elapsed().as_secs_f64();
    let now = clock::now_ms();
    let ms = format!("{:.1}", seconds * 1e3);
    let public = Shared::public_id(job.submission_id);
    let attempt = job.attempt.to_string();
    match &outcome {
        JobOutcome::Graded { verdict, .. } => log::info(
            "graded",
            &[
                ("submission", &public),
                ("exercise", &job.exercise),
                ("verdict", verdict),
                ("ms", &ms),
                ("attempt", &attempt),
            ],
        ),
        JobOutcome::Failed { reason } => log::warn(
            "not_graded",
            &[
                ("submission", &public),
                ("exercise", &job.exercise),
                ("reason", reason),
                ("attempt", &attempt),
            ],
        ),
    }
    let event = job.callback_url.as_ref().map(|url| NewEvent {
        event_id: event_id(job.submission_id),
        url: url.clone(),
        payload: event_payload(shared, &job, &outcome, now),
    });
    let id = job.submission_id;
    let has_event = event.is_some();
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
                            after.metrics.grading_failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                after.waiters.finished(id);
                if has_event {
                    after.outbox.notify();
                }
            }
            // The lease stays; it expires and the job is graded again (the same result).
            Err(e) => log::error(
                "complete_failed",
                &[("submission", &Shared::public_id(id)), ("error", &e.to_string())],
            ),
        }),
    );
}

/// Per waiting submission: when its exercise was first found unloadable, and how often it has
/// waited since. Kept in memory: after a restart a waiting submission gets its grace period again.
static UNAVAILABLE: Mutex<BTreeMap<i64, (Millis, u32)>> = Mutex::new(BTreeMap::new());

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
        log::error("defer_failed", &[("error", &e.to_string())]);
    }
    log::warn(
        "exercise_unavailable",
        &[
            ("submission", &Shared::public_id(job.submission_id)),
            ("exercise", &job.exercise),
            ("reason", &reason),
            ("retry_ms", &delay.to_string()),
            ("counted", &counted.to_string()),
        ],
    );
    None
}

pub fn verdict_name(verdict: crate::report::Verdict) -> &'static str {
    match verdict {
        crate::report::Verdict::Passed => "passed",
        crate::report::Verdict::Failed => "failed",
        crate::report::Verdict::Rejected => "rejected",
    }
}

/// The one event of a submission: its id is derived from the submission, so it is the same on
/// every attempt, after a redelivery, and if the job was graded twice.
pub fn event_id(submission_id: i64) -> String {
    format!("evt_{}", Shared::public_id(submission_id))
}

/// The webhook body: the event type and the submission as `GET /api/v1/submissions/{id}` shows it.
fn event_payload(shared: &Shared, job: &LeasedJob, outcome: &JobOutcome, now: i64) -> String {
    let (status, result) = match outcome {
        JobOutcome::Graded { verdict, points, max_points, report, grade_ms } => (
            Status::Graded,
            ResultRecord {
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
    let kind = if status == Status::Graded { "submission.graded" } else { "submission.failed" };
    serde_json::json!({
        "type": kind,
        "event_id": event_id(job.submission_id),
        "timestamp": clock::rfc3339(now),
        "data": super::api::submission_view(shared, &record),
    })
    .to_string()
}
