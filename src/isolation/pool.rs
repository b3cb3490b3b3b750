//! The parent's side of a worker process: starting it (with its scratch directory and parent-death
//! signal), sending a grade request, waiting for the answer no longer than the submission's
//! deadline plus [`WORKER_KILL_MARGIN_MS`] from the moment the worker says its set-up is done
//! ([`WORKER_SETUP_MS_MAX`] before that), and killing it when it overruns or reading its death
//! when it dies. A [`WorkerProcess`] is driven by one thread; the service runs one per grading slot.

use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::outcome::{WorkerFailure, describe};
use super::protocol::{
    GradeRequest, Response, WireOptions, WireSnapshot, WireSubmission, grade_error, has_setup, read_message,
    write_message,
};
use super::worker::PARENT_ENV;
use crate::exercise::Exercise;
use crate::grade::{GradeError, GradeOptions};
use crate::limits::{WORKER_KILL_MARGIN_MS, WORKER_SETUP_MS_MAX};
use crate::report::Report;
use crate::submission::Submission;

/// How to start a worker process.
#[derive(Debug, Clone)]
pub struct WorkerSpec {
    /// The `pruefstein` binary (the running one, or `CARGO_BIN_EXE_pruefstein` in tests).
    pub program: PathBuf,
    /// Extra environment (the tests' fault-injection switch).
    pub env: Vec<(String, String)>,
    /// Where the worker keeps compiled reference solutions and interpreters between processes
    /// (`sandbox::module_cache`); none: it compiles them in each process.
    pub module_cache: Option<PathBuf>,
}

/// A running worker process.
pub struct WorkerProcess {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    responses: Receiver<std::io::Result<Response>>,
    reader: Option<std::thread::JoinHandle<()>>,
    /// Gradings answered so far.
    graded: u64,
}

/// The worker process's command line as `spec` says: its module cache, its parent, its extra
/// environment, death with this process.
fn worker_command(spec: &WorkerSpec) -> Command {
    let mut command = Command::new(&spec.program);
    command
        .arg("grade-worker")
        .args(
            spec.module_cache
                .iter()
                .flat_map(|dir| [std::ffi::OsStr::new("--module-cache"), dir.as_os_str()]),
        )
        .env(PARENT_ENV, std::process::id().to_string())
        .stderr(Stdio::inherit());
    for (key, value) in &spec.env {
        command.env(key, value);
    }
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only prctl, an async-signal-safe system call, runs.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// Runs a worker process that compiles the interpreter guests into `spec`'s module cache and exits
/// (`grade-worker --warm`), under the limits of any grading process; waits for it.
pub fn warm(spec: &WorkerSpec) -> std::io::Result<std::process::ExitStatus> {
    worker_command(spec).arg("--warm").stdin(Stdio::null()).stdout(Stdio::null()).status()
}

impl WorkerProcess {
    /// Starts the worker.
    pub fn spawn(spec: &WorkerSpec) -> std::io::Result<WorkerProcess> {
        let mut child = worker_command(spec).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("the worker's pipes are missing"));
        };
        let (sender, responses) = std::sync::mpsc::channel();
        let reader = std::thread::Builder::new().name("worker-reader".into()).spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                match read_message::<Response>(&mut stdout) {
                    Ok(Some(response)) => {
                        if sender.send(Ok(response)).is_err() {
                            return;
                        }
                    }
                    // End of stream: the worker is gone; dropping the sender says so.
                    Ok(None) => return,
                    Err(error) => {
                        let _ = sender.send(Err(error));
                        return;
                    }
                }
            }
        });
        let reader = match reader {
            Ok(reader) => reader,
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(error);
            }
        };
        Ok(WorkerProcess {
            child,
            stdin: Some(BufWriter::new(stdin)),
            responses,
            reader: Some(reader),
            graded: 0,
        })
    }

    /// The worker's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Gradings this worker has answered.
    pub fn graded(&self) -> u64 {
        self.graded
    }

    /// Grades in the worker. Waits at most [`WORKER_SETUP_MS_MAX`] for the worker's set-up (it says
    /// `Ready`), then the exercise's `wall_ms_per_submission` plus [`WORKER_KILL_MARGIN_MS`]; calls
    /// `heartbeat` every `beat` while it waits. On a failure the
    /// worker is dead (or killed): drop this value and start a new one.
    pub fn grade(
        &mut self,
        exercise: &Exercise,
        submission: &Submission,
        options: &GradeOptions,
        beat: Duration,
        heartbeat: &mut dyn FnMut(),
    ) -> Result<Result<Report, GradeError>, WorkerFailure> {
        let limit_ms = exercise.limits.wall_ms_per_submission;
        // A submission with set-up: until the worker says it is ready, the set-up has its own
        // allowance; from then on (and from the start for any other) the submission's time and
        // the margin.
        let mut ready = !has_setup(submission);
        let submission_ms = limit_ms + WORKER_KILL_MARGIN_MS;
        let mut deadline =
            Instant::now() + Duration::from_millis(if ready { submission_ms } else { WORKER_SETUP_MS_MAX });
        let mut request = GradeRequest {
            exercise_id: exercise.source.id.clone(),
            exercise: None,
            submission: WireSubmission::from_submission(submission),
            options: WireOptions::from_options(options),
        };
        loop {
            self.send(&request)?;
            let response = loop {
                match self.wait(deadline, limit_ms, beat, heartbeat) {
                    Ok(Response::Ready) if !ready => {
                        ready = true;
                        deadline = Instant::now() + Duration::from_millis(submission_ms);
                    }
                    Ok(response) => break response,
                    // Killed during its set-up: the grader's fault, never the submission's.
                    Err(WorkerFailure::Overran { .. }) if !ready => {
                        return Err(WorkerFailure::Broken(format!(
                            "the worker's set-up (the exercise loaded, an interpreter compiled or waited \
                             for) took longer than {WORKER_SETUP_MS_MAX} ms"
                        )));
                    }
                    Err(failure) => return Err(failure),
                }
            };
            match response {
                Response::Graded(report) => {
                    self.graded += 1;
                    return Ok(Ok(*report));
                }
                Response::Error { kind, slug, message } => {
                    self.graded += 1;
                    return Ok(Err(grade_error(kind, slug, message)));
                }
                Response::NeedExercise if request.exercise.is_none() => {
                    request.exercise = Some(WireSnapshot::from_snapshot(&exercise.source));
                }
                Response::NeedExercise => {
                    return Err(WorkerFailure::Broken("the worker refused the exercise's files".into()));
                }
                Response::Ready => {
                    return Err(WorkerFailure::Broken("the worker said it was ready out of turn".into()));
                }
            }
        }
    }

    fn send(&mut self, request: &GradeRequest) -> Result<(), WorkerFailure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(WorkerFailure::Broken("the worker's input is closed".into()));
        };
        if let Err(error) = write_message(stdin, request) {
            // A worker that died before reading: its status says why.
            return Err(match self.child.try_wait() {
                Ok(Some(status)) => WorkerFailure::Died { status: describe(status) },
                _ => WorkerFailure::Broken(format!("cannot send the submission to the worker: {error}")),
            });
        }
        Ok(())
    }

    fn wait(
        &mut self,
        deadline: Instant,
        limit_ms: u64,
        beat: Duration,
        heartbeat: &mut dyn FnMut(),
    ) -> Result<Response, WorkerFailure> {
        loop {
            let now = Instant::now();
            if now >= deadline {
                self.kill();
                return Err(WorkerFailure::Overran { limit_ms });
            }
            match self.responses.recv_timeout((deadline - now).min(beat)) {
                Ok(Ok(response)) => return Ok(response),
                Ok(Err(error)) => {
                    self.kill();
                    return Err(WorkerFailure::Broken(format!("the worker's answer is unreadable: {error}")));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if Instant::now() < deadline {
                        heartbeat();
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().map(describe).unwrap_or_else(|e| e.to_string());
                    return Err(WorkerFailure::Died { status });
                }
            }
        }
    }

    /// Kills the worker (SIGKILL) and reaps it.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for WorkerProcess {
    /// Closes the worker's input (it ends by itself when idle), kills it in case it does not, reaps
    /// it.
    fn drop(&mut self) {
        drop(self.stdin.take());
        self.kill();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}
