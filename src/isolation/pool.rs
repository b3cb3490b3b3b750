//! The parent's side of a worker process: starting it (with its scratch directory and parent-death
//! signal), sending a grade request, waiting for the answer no longer than the submission's
//! deadline plus [`WORKER_KILL_MARGIN_MS`], and killing it when it overruns or reading its death
//! when it dies. A [`WorkerProcess`] is driven by one thread; the service runs one per grading slot.

use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::protocol::{
    GradeRequest, Response, WireOptions, WireSnapshot, WireSubmission, grade_error, read_message,
    write_message,
};
use super::worker::PARENT_ENV;
use crate::exercise::Exercise;
use crate::grade::{GradeError, GradeOptions};
use crate::limits::{WORKER_ADDRESS_SPACE_BYTES, WORKER_CPU_SECONDS_PER_SUBMISSION, WORKER_KILL_MARGIN_MS};
use crate::report::Report;
use crate::submission::Submission;
use crate::text::Text;

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

/// Why a worker process did not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerFailure {
    /// It was still grading at the deadline plus the margin, and was killed.
    Overran { limit_ms: u64 },
    /// It ended without answering: killed by the kernel at a limit, or crashed.
    Died { status: String },
    /// It could not be started or spoke nonsense (a bug, or the machine is out of processes).
    Broken(String),
}

impl WorkerFailure {
    /// The reason a student reads, in both languages, naming the limit.
    pub fn reason(&self) -> Text {
        match self {
            WorkerFailure::Overran { limit_ms } => Text {
                de: format!(
                    "Die Bewertung hat ihr Zeitlimit überschritten (wall_ms_per_submission = {limit_ms} ms \
                     und {WORKER_KILL_MARGIN_MS} ms Spielraum) und wurde abgebrochen."
                ),
                en: format!(
                    "Grading exceeded its time limit (wall_ms_per_submission = {limit_ms} ms plus a \
                     margin of {WORKER_KILL_MARGIN_MS} ms) and was stopped."
                ),
            },
            WorkerFailure::Died { status } => Text {
                de: format!(
                    "Der Bewertungsprozess hat sein Speicher- oder CPU-Limit überschritten oder ist \
                     abgestürzt ({status}; worker_address_space_bytes = {WORKER_ADDRESS_SPACE_BYTES}, \
                     worker_cpu_seconds_per_submission = {WORKER_CPU_SECONDS_PER_SUBMISSION})."
                ),
                en: format!(
                    "The grading process exceeded its memory or CPU limit, or crashed ({status}; \
                     worker_address_space_bytes = {WORKER_ADDRESS_SPACE_BYTES}, \
                     worker_cpu_seconds_per_submission = {WORKER_CPU_SECONDS_PER_SUBMISSION})."
                ),
            },
            WorkerFailure::Broken(message) => Text {
                de: format!("Der Bewertungsprozess ist ausgefallen: {message}"),
                en: format!("The grading process failed: {message}"),
            },
        }
    }

    /// Both languages in one line, German first (for a stored failure reason).
    pub fn reason_line(&self) -> String {
        let reason = self.reason();
        format!("{} / {}", reason.de, reason.en)
    }
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

impl WorkerProcess {
    /// Starts the worker.
    pub fn spawn(spec: &WorkerSpec) -> std::io::Result<WorkerProcess> {
        let mut command = Command::new(&spec.program);
        command
            .arg("grade-worker")
            .args(
                spec.module_cache
                    .iter()
                    .flat_map(|dir| [std::ffi::OsStr::new("--module-cache"), dir.as_os_str()]),
            )
            .env(PARENT_ENV, std::process::id().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (key, value) in &spec.env {
            command.env(key, value);
        }
        {
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
        }
        let mut child = command.spawn()?;
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

    /// Grades in the worker. Waits at most the exercise's `wall_ms_per_submission` plus
    /// [`WORKER_KILL_MARGIN_MS`]; calls `heartbeat` every `beat` while it waits. On a failure the
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
        let deadline = Instant::now() + Duration::from_millis(limit_ms + WORKER_KILL_MARGIN_MS);
        let mut request = GradeRequest {
            exercise_id: exercise.source.id.clone(),
            exercise: None,
            submission: WireSubmission::from_submission(submission),
            options: WireOptions::from_options(options),
        };
        loop {
            self.send(&request)?;
            match self.wait(deadline, limit_ms, beat, heartbeat)? {
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

/// A process status in words (`killed by signal 9 (SIGKILL)`, `exit status 70`).
pub(super) fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => {
            let name = match signal {
                libc::SIGKILL => "SIGKILL",
                libc::SIGXCPU => "SIGXCPU, CPU limit",
                libc::SIGABRT => "SIGABRT, often memory exhausted",
                libc::SIGSEGV => "SIGSEGV",
                libc::SIGBUS => "SIGBUS",
                _ => "signal",
            };
            format!("killed by signal {signal} ({name})")
        }
        _ => "ended".into(),
    }
}

/// What the CLI prints for a graded submission, and the exit code it ends with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printed {
    pub output: String,
    pub exit_code: i32,
}

/// One submission graded in a process of its own, which then ends: the CLI's `grade`. The same
/// isolation as the service's, for one run: a child forked from this process when it may fork
/// ([`super::fork`]), else a worker process started from `program`. `print` turns the report into
/// what the caller prints: a forked child does that itself and hands over only its output, so the
/// report is serialized once.
pub fn grade_once(
    program: &Path,
    exercise: &Exercise,
    submission: &Submission,
    options: &GradeOptions,
    module_cache: Option<PathBuf>,
    print: &dyn Fn(&Report) -> Printed,
) -> Result<Result<Printed, GradeError>, WorkerFailure> {
    if let Some(graded) =
        super::fork::grade_forked(exercise, submission, options, module_cache.as_deref(), print)
    {
        return graded;
    }
    let spec = WorkerSpec { program: program.to_path_buf(), env: Vec::new(), module_cache };
    let mut worker = WorkerProcess::spawn(&spec)
        .map_err(|e| WorkerFailure::Broken(format!("cannot start a grading process: {e}")))?;
    let graded = worker.grade(exercise, submission, options, Duration::from_secs(3600), &mut || {})?;
    Ok(graded.map(|report| print(&report)))
}

/// The environment variable that places `pruefstein grade`'s module cache: a directory, or `off`
/// for none. Without it: `$XDG_CACHE_HOME/pruefstein/modules`, else `~/.cache/pruefstein/modules`.
pub const MODULE_CACHE_ENV: &str = "PRUEFSTEIN_MODULE_CACHE";

/// Where `pruefstein grade` keeps compiled reference solutions and interpreters between runs
/// ([`MODULE_CACHE_ENV`]); none when it is `off` or no home is known.
pub fn grade_module_cache() -> Option<PathBuf> {
    match std::env::var_os(MODULE_CACHE_ENV) {
        Some(value) if value.is_empty() || value == "off" => None,
        Some(value) => Some(PathBuf::from(value)),
        None => crate::sandbox::module_cache::user_cache_dir(),
    }
}
