//! Where a grading thread of the service ([`super::worker`]) grades: its worker process
//! (`--isolation process`, started at once and replaced when it is killed, dies or fails on its
//! own side), or a helper thread of the server's own process (`--isolation thread`) while the
//! grading thread keeps the lease alive.

use std::path::PathBuf;
use std::time::Duration;

use super::config::Isolation;
use crate::exercise::Exercise;
use crate::grade::{GradeError, GradeOptions, grade};
use crate::isolation::outcome::WorkerFailure;
use crate::isolation::pool::{WorkerProcess, WorkerSpec};
use crate::report::Report;
use crate::submission::Submission;

/// Where one grading thread grades: its worker process, or its own thread.
pub(crate) enum Slot {
    Thread,
    Process(Box<ProcessSlot>),
}

pub(crate) struct ProcessSlot {
    spec: WorkerSpec,
    pub worker: Option<WorkerProcess>,
}

/// How a grading in a slot ended.
pub(crate) enum Graded {
    Done(Result<Box<Report>, GradeError>),
    /// The worker process was killed or died; a new one is started.
    WorkerLost(WorkerFailure),
    /// The in-process grading panicked (a bug in Prüfstein).
    Panicked,
}

impl Slot {
    /// A slot as `isolation` says; its worker processes keep compiled modules in `module_cache`.
    pub(crate) fn new(isolation: Isolation, module_cache: PathBuf) -> Slot {
        match isolation {
            Isolation::Thread => Slot::Thread,
            Isolation::Process => {
                let program = std::env::current_exe().unwrap_or_else(|_| "pruefstein".into());
                let spec = WorkerSpec { program, env: Vec::new(), module_cache: Some(module_cache) };
                let mut slot = Slot::Process(Box::new(ProcessSlot { spec, worker: None }));
                // Started now, so that the first submission does not wait for it; a failure is
                // logged and tried again at the first submission.
                let _ = slot.ensure_worker();
                slot
            }
        }
    }

    /// Starts the slot's worker process if it has none.
    fn ensure_worker(&mut self) -> Result<(), WorkerFailure> {
        let Slot::Process(process) = self else { return Ok(()) };
        let ProcessSlot { spec, worker } = &mut **process;
        if worker.is_none() {
            match WorkerProcess::spawn(spec) {
                Ok(started) => *worker = Some(started),
                Err(e) => {
                    tracing::error!(event = "worker_start_failed", error = %e);
                    return Err(WorkerFailure::Broken(format!("cannot start a grading process: {e}")));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn grade(
        &mut self,
        exercise: &Exercise,
        submission: &Submission,
        options: &GradeOptions,
        beat: Duration,
        heartbeat: &mut dyn FnMut(),
    ) -> Graded {
        if let Err(failure) = self.ensure_worker() {
            return Graded::WorkerLost(failure);
        }
        match self {
            Slot::Thread => grade_in_thread(exercise, submission, options, beat, heartbeat),
            Slot::Process(slot) => {
                let worker = &mut slot.worker;
                let Some(process) = worker.as_mut() else {
                    return Graded::WorkerLost(WorkerFailure::Broken("no grading process".into()));
                };
                match process.grade(exercise, submission, options, beat, heartbeat) {
                    Ok(result) => Graded::Done(result.map(Box::new)),
                    Err(failure) => {
                        // Dropping the worker kills and reaps it.
                        *worker = None;
                        let _ = self.ensure_worker();
                        Graded::WorkerLost(failure)
                    }
                }
            }
        }
    }
}

impl Graded {
    /// The report, or why there is none, for a dry run.
    pub(crate) fn into_outcome(self) -> Result<Report, String> {
        match self {
            Graded::Done(result) => result.map(|report| *report).map_err(|e| e.to_string()),
            Graded::WorkerLost(failure) => Err(failure.reason_line()),
            Graded::Panicked => Err("the grading panicked (a bug in Prüfstein)".into()),
        }
    }
}

/// Grades on a helper thread of this process while this thread keeps the lease alive.
fn grade_in_thread(
    exercise: &Exercise,
    submission: &Submission,
    options: &GradeOptions,
    beat: Duration,
    heartbeat: &mut dyn FnMut(),
) -> Graded {
    std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("grading".into()).spawn_scoped(scope, move || {
            let graded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                grade(exercise, submission, options)
            }));
            let _ = sender.send(graded);
        });
        if let Err(e) = spawned {
            return Graded::Done(Err(GradeError::Internal(format!("cannot start a grading thread: {e}"))));
        }
        loop {
            match receiver.recv_timeout(beat) {
                Ok(Ok(result)) => return Graded::Done(result.map(Box::new)),
                Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Graded::Panicked,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => heartbeat(),
            }
        }
    })
}
