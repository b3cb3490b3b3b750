//! The dry runs' share of the service's worker pool: a dry run (`regrade` with `dry_run`) queues
//! each submission it grades here, and a grading thread ([`super::worker`]) that holds no job of
//! its own takes it and grades it in its worker process. So concurrent dry runs never grade more at
//! once than `--workers`, and start no process of their own.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, mpsc};

use crate::exercise::Exercise;
use crate::grade::GradeOptions;
use crate::report::Report;
use crate::submission::Submission;

/// Dry-run gradings waiting for a grading thread of the service ([`super::worker`]), which takes
/// one when it holds no job of its own and grades it in its worker process.
#[derive(Default)]
pub(crate) struct DryRuns(Mutex<VecDeque<DryRunTask>>);

/// One submission of a dry run, and where its outcome goes.
pub(crate) struct DryRunTask {
    pub exercise: Arc<Exercise>,
    pub submission: Submission,
    pub options: GradeOptions,
    answer: mpsc::Sender<Result<Report, String>>,
}

impl DryRuns {
    /// The oldest waiting grading, if any.
    pub(crate) fn take(&self) -> Option<DryRunTask> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).pop_front()
    }

    pub(crate) fn push(&self, task: DryRunTask) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push_back(task);
    }
}

impl DryRunTask {
    pub(crate) fn new(
        exercise: Arc<Exercise>,
        submission: Submission,
        options: GradeOptions,
        answer: mpsc::Sender<Result<Report, String>>,
    ) -> DryRunTask {
        DryRunTask { exercise, submission, options, answer }
    }

    /// Hands the outcome to the dry run waiting for it (which may have given up).
    pub(crate) fn answer(self, outcome: Result<Report, String>) {
        let _ = self.answer.send(outcome);
    }
}
