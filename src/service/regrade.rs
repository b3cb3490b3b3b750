//! Regrading an exercise after a teacher fixed it: the latest submission of every learner (or of
//! the learners and verdict a filter names) is graded again against the version of the exercise
//! loaded now.
//!
//! A regrade queues ordinary leased jobs (`jobs.regrade = 1`), so it survives a crash like any
//! grading: a job whose worker died is leased again when its lease runs out. It is idempotent: a
//! submission has at most one open job (the job's key is the submission), so asking twice queues
//! once, and a submission whose first grading is still open is left to it. The worker writes the
//! outcome as the next result version, never over an earlier one, and the store adds a webhook
//! event in the same transaction only when the verdict or the points changed.
//!
//! A dry run grades the same submissions at once and reports which verdicts or points would change;
//! it writes nothing. In the service it grades in the worker pool (the grading threads and their
//! worker processes, [`DryRuns`]), so that dry runs never grade more at once than `--workers`;
//! `pruefstein regrade` grades in a worker process of its own, or in this thread with `--isolation
//! thread`.

use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::sync::{Arc, mpsc};
use utoipa::ToSchema;

use crate::exercise::Exercise;
use crate::grade::{GradeOptions, grade};
use crate::isolation::pool::{WorkerProcess, WorkerSpec};
use crate::limits::{REGRADE_DRY_RUN_MAX, REGRADE_LEARNERS_MAX, REGRADE_SUBMISSIONS_MAX};
use crate::report::Report;
use crate::service::config::Isolation;
use crate::service::dryruns::DryRunTask;
use crate::service::learner::Learner;
use crate::service::shared::Shared;
use crate::service::store::{RegradeFilter, Store, StoreError};
use crate::submission::Submission;
use crate::text::Text;

/// Why a regrade was not done.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RegradeError {
    /// The request is malformed (a bad filter): nothing was done.
    #[error("{}", .0.en)]
    BadFilter(Text),
    /// More submissions match than one regrade (or dry run) takes: nothing was done.
    #[error("{}", .0.en)]
    TooMany(Text),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Checks a request's filter: known verdict, at most [`REGRADE_LEARNERS_MAX`] learners, each one
/// keeping the rule of [`Learner`].
pub(crate) fn filter(request: &RegradeRequest) -> Result<RegradeFilter, RegradeError> {
    let bad = |en: String, de: String| RegradeError::BadFilter(Text { de, en });
    if let Some(verdict) = &request.verdict {
        crate::report::Verdict::check_name(verdict).map_err(RegradeError::BadFilter)?;
    }
    let learners = request.learners.clone().unwrap_or_default();
    if learners.len() > REGRADE_LEARNERS_MAX {
        return Err(bad(
            format!("A regrade names at most {REGRADE_LEARNERS_MAX} learners (regrade_learners_max)."),
            format!(
                "Eine Neubewertung nennt höchstens {REGRADE_LEARNERS_MAX} Lernende (regrade_learners_max)."
            ),
        ));
    }
    let learners = learners
        .iter()
        .map(|raw| Learner::parse(raw).map(Learner::into_string))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| RegradeError::BadFilter(e.text()))?;
    Ok(RegradeFilter { learners, verdict: request.verdict.clone() })
}

/// Grades submissions for a dry run: in the service's worker pool, or (`pruefstein regrade`) in one
/// worker process started on first use and kept for the whole run, or in this thread.
pub(crate) enum DryRunGrader {
    Pool { shared: Arc<Shared>, exercise: Arc<Exercise> },
    Own { isolation: Isolation, program: std::path::PathBuf, worker: Option<WorkerProcess> },
}

impl DryRunGrader {
    pub(crate) fn new(isolation: Isolation) -> DryRunGrader {
        let program = std::env::current_exe().unwrap_or_else(|_| "pruefstein".into());
        DryRunGrader::Own { isolation, program, worker: None }
    }

    /// Grades `exercise` in the worker pool of the service `shared`.
    pub(crate) fn in_pool(shared: Arc<Shared>, exercise: Arc<Exercise>) -> DryRunGrader {
        DryRunGrader::Pool { shared, exercise }
    }

    /// The report, or why the submission could not be graded.
    pub(crate) fn grade(
        &mut self,
        exercise: &Exercise,
        submission: &Submission,
        options: &GradeOptions,
    ) -> Result<Report, String> {
        let (isolation, program, worker) = match self {
            DryRunGrader::Pool { shared, exercise } => {
                return in_pool(shared, exercise.clone(), submission, options);
            }
            DryRunGrader::Own { isolation, program, worker } => (*isolation, program, worker),
        };
        if isolation == Isolation::Thread {
            return grade(exercise, submission, options).map_err(|e| e.to_string());
        }
        if worker.is_none() {
            let spec = WorkerSpec { program: program.clone(), env: Vec::new(), module_cache: None };
            *worker = Some(
                WorkerProcess::spawn(&spec).map_err(|e| format!("cannot start a grading process: {e}"))?,
            );
        }
        let Some(process) = worker.as_mut() else { return Err("no grading process".into()) };
        match process.grade(exercise, submission, options, std::time::Duration::from_secs(3600), &mut || {}) {
            Ok(graded) => graded.map_err(|e| e.to_string()),
            Err(failure) => {
                *worker = None;
                Err(failure.reason_line())
            }
        }
    }
}

/// Queues one grading for the pool and waits for a grading thread to do it; gives up when the
/// service shuts down (its grading threads stop taking work).
fn in_pool(
    shared: &Shared,
    exercise: Arc<Exercise>,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Report, String> {
    let (answer, outcome) = mpsc::channel();
    let task = DryRunTask::new(exercise, submission.clone(), options.clone(), answer);
    shared.dry_runs.push(task);
    shared.work.notify();
    loop {
        match outcome.recv_timeout(std::time::Duration::from_secs(1)) {
            Ok(outcome) => return outcome,
            Err(mpsc::RecvTimeoutError::Timeout) if shared.accepting.load(Ordering::SeqCst) => {}
            Err(_) => return Err("the service is shutting down; the dry run stopped".into()),
        }
    }
}

/// Regrades (or, with `dry_run`, grades and compares) the latest submissions of `exercise`
/// selected by `filter`. `course_secret` and `compiler` are the service's.
pub(crate) fn regrade(
    store: &dyn Store,
    exercise: &Exercise,
    filter: &RegradeFilter,
    dry_run: bool,
    options: &GradeOptions,
    grader: &mut DryRunGrader,
) -> Result<RegradeSummary, RegradeError> {
    let limit = if dry_run { REGRADE_DRY_RUN_MAX } else { REGRADE_SUBMISSIONS_MAX };
    let selected = store.latest_submissions(&exercise.slug, filter, limit)?;
    if selected.len() > limit {
        let name = if dry_run { "regrade_dry_run_max" } else { "regrade_submissions_max" };
        return Err(RegradeError::TooMany(Text {
            en: format!(
                "More than {limit} submissions match ({name}): narrow the regrade by learners or verdict."
            ),
            de: format!(
                "Mehr als {limit} Abgaben passen ({name}): die Neubewertung nach Lernenden oder Urteil eingrenzen."
            ),
        }));
    }
    let mut summary = RegradeSummary {
        exercise: exercise.slug.clone(),
        exercise_hash: exercise.content_hash().to_string(),
        dry_run,
        selected: selected.len(),
        queued: Vec::new(),
        already_open: Vec::new(),
        would_change: None,
        changes: Vec::new(),
        not_graded: Vec::new(),
    };
    if !dry_run {
        let ids: Vec<i64> = selected.iter().map(|s| s.id).collect();
        // Graded by this version of the exercise while a living node serves it.
        let queued = store.queue_regrades(&ids, Some(exercise.content_hash()))?;
        summary.queued = queued.queued.into_iter().map(crate::service::public_id::of).collect();
        summary.already_open = queued.already_open.into_iter().map(crate::service::public_id::of).collect();
        return Ok(summary);
    }
    for record in &selected {
        let Some(submission) = store.submission_payload(record.id)? else { continue };
        let options = GradeOptions { learner: Some(record.learner.clone()), ..options.clone() };
        let old = Outcome {
            verdict: record.result.as_ref().and_then(|r| r.verdict.clone()),
            points: record.result.as_ref().and_then(|r| r.points),
        };
        match grader.grade(exercise, &submission, &options) {
            Ok(report) => {
                let new = Outcome {
                    verdict: Some(report.verdict.name().to_string()),
                    points: Some(report.score.points),
                };
                if new != old {
                    summary.changes.push(RegradeChange {
                        submission_id: crate::service::public_id::of(record.id),
                        learner: record.learner.clone(),
                        old,
                        new,
                    });
                }
            }
            Err(reason) => summary
                .not_graded
                .push(NotGraded { submission_id: crate::service::public_id::of(record.id), reason }),
        }
    }
    summary.would_change = Some(summary.changes.len());
    Ok(summary)
}

/// `pruefstein regrade`: the same regrade on the data directory and exercises folder of `config`,
/// without a server. Queued jobs are graded by the server that runs on that data directory (now or
/// when it next starts).
pub(crate) fn run_offline(
    config: &crate::service::config::Config,
    slug: &str,
    request: &RegradeRequest,
) -> anyhow::Result<RegradeSummary> {
    use anyhow::Context;
    let catalogue = crate::service::catalogue::Catalogue::load(&config.exercises, &config.graders)?;
    let exercise = catalogue.get(slug).with_context(|| {
        format!(
            "there is no exercise {slug:?} in {} (known: {})",
            config.exercises.display(),
            catalogue.slugs().join(", ")
        )
    })?;
    let store = crate::service::shared::open_store(config)?;
    let course_secret = crate::service::secrets::resolve_course(store.as_ref(), config, false)?;
    let filter = filter(request).map_err(|e| anyhow::anyhow!("{e}"))?;
    let options = GradeOptions { learner: None, course_secret, compiler: config.compiler, replay: None };
    let mut grader = DryRunGrader::new(config.isolation);
    let summary = regrade(store.as_ref(), &exercise, &filter, request.dry_run, &options, &mut grader)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    store.flush()?;
    Ok(summary)
}

/// A regrade's summary as text for the command line.
pub(crate) fn render_summary(summary: &RegradeSummary) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let hash = summary.exercise_hash.get(..12).unwrap_or(&summary.exercise_hash);
    let _ = writeln!(
        out,
        "exercise {} (version {hash}): {} submissions selected",
        summary.exercise, summary.selected
    );
    if summary.dry_run {
        let _ = writeln!(out, "dry run: {} would change, nothing written", summary.changes.len());
        let show = |o: &Outcome| {
            format!(
                "{} {}",
                o.verdict.as_deref().unwrap_or("-"),
                o.points.map_or("-".to_string(), |p| p.to_string())
            )
        };
        for change in &summary.changes {
            let _ = writeln!(
                out,
                "  {} ({}): {} -> {}",
                change.submission_id,
                change.learner,
                show(&change.old),
                show(&change.new)
            );
        }
        for failed in &summary.not_graded {
            let _ = writeln!(out, "  {} not graded: {}", failed.submission_id, failed.reason);
        }
    } else {
        let _ = writeln!(
            out,
            "queued {} regrades; {} had an open job already",
            summary.queued.len(),
            summary.already_open.len()
        );
    }
    out
}

/// The body of `POST /api/v1/exercises/{slug}/regrade` (every field optional; an empty body
/// regrades the latest submission of every learner).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegradeRequest {
    /// Only these learners.
    #[serde(default)]
    pub learners: Option<Vec<String>>,
    /// Only submissions whose latest verdict is this one: `passed`, `failed` or `rejected`.
    #[serde(default)]
    pub verdict: Option<String>,
    /// Grade now and report what would change, without writing anything.
    #[serde(default)]
    pub dry_run: bool,
}

/// A verdict and points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub(crate) struct Outcome {
    /// `passed`, `failed` or `rejected`; absent when it could not be graded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
}

/// A submission whose verdict or points a dry run would change.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RegradeChange {
    pub submission_id: String,
    pub learner: String,
    pub old: Outcome,
    pub new: Outcome,
}

/// What a regrade did, or (dry run) would do.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RegradeSummary {
    pub exercise: String,
    /// The exercise version regraded against (the one loaded now).
    pub exercise_hash: String,
    pub dry_run: bool,
    /// Submissions selected: the latest of each learner, filtered.
    pub selected: usize,
    /// Regrade jobs queued now (not in a dry run).
    pub queued: Vec<String>,
    /// Submissions that had an open job already: nothing queued for them.
    pub already_open: Vec<String>,
    /// Dry run: how many verdicts or points would change, and which.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_change: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<RegradeChange>,
    /// Dry run: submissions that could not be graded, with the reason.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_graded: Vec<NotGraded>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct NotGraded {
    pub submission_id: String,
    pub reason: String,
}
