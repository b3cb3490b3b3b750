//! The worker process (`pruefstein grade-worker`, hidden): applies its operating-system limits,
//! then answers grade requests from stdin on stdout until stdin closes, keeping loaded exercise
//! versions and compiled engines between submissions. It writes no file: an exercise version is
//! built from the files sent, in memory, and run databases live in memory too. It knows
//! nothing of HTTP, actix or tokio: the service (or the CLI) drives it through [`super::pool`].

use std::collections::HashMap;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::protocol::{GradeRequest, Response, has_setup, read_message, write_message};
use crate::exercise::Exercise;
use crate::grade::{GradeError, grade, prepare};
use crate::limits::{
    WORKER_ADDRESS_SPACE_BYTES, WORKER_CPU_SECONDS_PER_SUBMISSION, WORKER_EXERCISES_KEPT,
    WORKER_OPEN_FILES_MAX,
};

/// The environment variable that makes a worker honour fault-injection submissions (an answer
/// `pruefstein-test-fault:hang|memory|crash`). Only the project's own tests set it; without it such
/// an answer is graded like any other.
pub const FAULT_INJECTION_ENV: &str = "PRUEFSTEIN_TEST_WORKER_FAULTS";
/// The environment variable holding the process id of the worker's parent.
pub(crate) const PARENT_ENV: &str = "PRUEFSTEIN_WORKER_PARENT";
/// The prefix of a fault-injection answer.
pub const FAULT_PREFIX: &str = "pruefstein-test-fault:";

/// Runs the worker until stdin closes; returns the exit code. With `module_cache`, trusted modules
/// are compiled through the cache there (a cache that cannot be opened is said, and done without).
/// With `warm`, it compiles the interpreter guests into that cache and exits instead.
pub(crate) fn run(module_cache: Option<&Path>, warm: bool) -> i32 {
    // The parent may have ended before this process asked to die with it.
    let parent = std::env::var(PARENT_ENV).ok().and_then(|pid| pid.parse::<libc::pid_t>().ok());
    if let Err(error) = become_grading_process(parent, module_cache, "pruefstein grade-worker") {
        to_stderr(format_args!("pruefstein grade-worker: cannot apply the process limits: {error}"));
        return 70;
    }
    if warm { warm_interpreters() } else { serve() }
}

/// Compiles every interpreter guest through this process's module cache; 0 when all are there.
fn warm_interpreters() -> i32 {
    let errors = crate::graders::compile_interpreters();
    for error in &errors {
        to_stderr(format_args!("pruefstein grade-worker --warm: {error}"));
    }
    if errors.is_empty() { 0 } else { 70 }
}

fn serve() -> i32 {
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    let faults = std::env::var_os(FAULT_INJECTION_ENV).is_some();
    let mut exercises: HashMap<String, Arc<Exercise>> = HashMap::new();
    loop {
        let request: GradeRequest = match read_message(&mut input) {
            Ok(Some(request)) => request,
            Ok(None) => return 0,
            Err(error) => {
                to_stderr(format_args!("pruefstein grade-worker: {error}"));
                return 65;
            }
        };
        let mut ready = || write_message(&mut output, &Response::Ready);
        let response = match answer(request, &mut exercises, faults, &mut ready) {
            Ok(response) => response,
            Err(error) => {
                to_stderr(format_args!("pruefstein grade-worker: {error}"));
                return 74;
            }
        };
        if let Err(error) = write_message(&mut output, &response) {
            to_stderr(format_args!("pruefstein grade-worker: {error}"));
            return 74;
        }
    }
}

/// The answer to `request`. Before grading a submission that has set-up ([`has_setup`]), the
/// grader's own set-up is done and `ready` tells the parent that the submission's time starts; an
/// error is that message not written.
fn answer(
    request: GradeRequest,
    exercises: &mut HashMap<String, Arc<Exercise>>,
    faults: bool,
    ready: &mut dyn FnMut() -> std::io::Result<()>,
) -> std::io::Result<Response> {
    let exercise = match exercises.get(&request.exercise_id) {
        Some(exercise) => exercise.clone(),
        None => {
            let Some(wire) = request.exercise else { return Ok(Response::NeedExercise) };
            match load_version(wire) {
                Ok(exercise) if exercise.source.id == request.exercise_id => {
                    if exercises.len() >= WORKER_EXERCISES_KEPT {
                        exercises.clear();
                    }
                    let exercise = Arc::new(exercise);
                    exercises.insert(request.exercise_id.clone(), exercise.clone());
                    exercise
                }
                Ok(_) => {
                    return Ok(Response::from_result(Err(GradeError::Internal(
                        "the exercise version sent is not the one named".into(),
                    ))));
                }
                Err(error) => return Ok(Response::from_result(Err(error))),
            }
        }
    };
    let submission = match request.submission.into_submission() {
        Ok(submission) => submission,
        Err(error) => return Ok(Response::from_result(Err(GradeError::Internal(error)))),
    };
    if let Err(error) = allow_cpu_for_one_submission() {
        return Ok(Response::from_result(Err(GradeError::Internal(format!(
            "cannot set the CPU limit: {error}"
        )))));
    }
    if has_setup(&submission) {
        prepare(&exercise, &submission);
        ready()?;
    }
    if faults {
        inject_fault(&submission);
    }
    let options = request.options.into_options();
    Ok(Response::from_result(grade(&exercise, &submission, &options)))
}

/// Builds an exercise version from the files sent, in memory: nothing is written or read back.
fn load_version(wire: super::protocol::WireSnapshot) -> Result<Exercise, GradeError> {
    let snapshot = wire.into_snapshot().map_err(GradeError::Internal)?;
    // Messages and reports name the folder as the service does; the worker has no copy of it.
    let dir = PathBuf::from(&snapshot.folder);
    let folder = snapshot.folder.clone();
    crate::graders::load_snapshot(&dir, snapshot)
        .map_err(|e| GradeError::Exercise { slug: folder, message: e.to_string() })
}

/// The faults a test may ask a worker for, as an answer: never returns when one is asked. A
/// source file may also ask, in a line `pruefstein-test-fault:memory-image:N` (or `:all`), that
/// this process's kernel refuse a module's memory image N times (`sandbox::image`).
pub(super) fn inject_fault(submission: &crate::submission::Submission) {
    if let crate::submission::Submission::Source { text, .. } = submission {
        let asked = text.lines().find_map(|l| l.split_once(&format!("{FAULT_PREFIX}memory-image:")));
        if let Some((_, times)) = asked {
            crate::sandbox::image::inject_refusals(times.trim().parse().unwrap_or(u32::MAX));
        }
        return;
    }
    let crate::submission::Submission::Answer(answer) = submission else { return };
    let Some(fault) = answer.strip_prefix(FAULT_PREFIX) else { return };
    match fault.trim() {
        // A grading that never ends and never uses the CPU (a deadlock): only the kill ends it.
        "hang" => loop {
            std::thread::park();
        },
        // A grading that allocates until the address-space limit stops it. Each block is written
        // to (its first page), so no allocation is optimised away; filling every page as well
        // would only make the test as slow as the machine is loaded.
        "memory" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                let mut block: Vec<u8> = Vec::with_capacity(64 * 1024 * 1024);
                block.extend_from_slice(&[1u8; 4096]);
                hoard.push(std::hint::black_box(block));
            }
        }
        "crash" => std::process::abort(),
        _ => {}
    }
}

/// Makes this process one that grades untrusted submissions, as a started worker or a forked child
/// of the CLI alike: its limits ([`limit_grading_process`]), then the module cache in `module_cache`
/// (one that cannot be opened is said, prefixed with `who`, and done without).
pub(super) fn become_grading_process(
    parent: Option<libc::pid_t>,
    module_cache: Option<&Path>,
    who: &str,
) -> std::io::Result<()> {
    limit_grading_process(parent)?;
    if let Some(dir) = module_cache
        && let Err(error) = crate::sandbox::module_cache::enable(dir)
    {
        to_stderr(format_args!("{who}: {error}; compiling without the module cache"));
    }
    Ok(())
}

/// Applies the operating-system limits of a process that grades untrusted submissions: address
/// space, open files, no core dumps, no new privileges, death with its parent, and SQLite's
/// process-wide heap cap (`sandbox::limit_grading_process`: this process only grades); the CPU limit
/// is set per submission ([`allow_cpu_for_one_submission`]). `parent`: the process that must still be
/// this one's parent (see [`set_parent_death_signal`]).
pub(crate) fn limit_grading_process(parent: Option<libc::pid_t>) -> std::io::Result<()> {
    crate::sandbox::limit_grading_process();
    set_limit(libc::RLIMIT_AS, WORKER_ADDRESS_SPACE_BYTES)?;
    set_limit(libc::RLIMIT_NOFILE, WORKER_OPEN_FILES_MAX)?;
    set_limit(libc::RLIMIT_CORE, 0)?;
    // SAFETY: prctl with integer arguments only.
    let done = unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    if done != 0 {
        return Err(std::io::Error::last_os_error());
    }
    set_parent_death_signal(parent)?;
    allow_cpu_for_one_submission()
}

/// Makes the kernel kill this process when the thread that started it ends (the service's grading
/// thread, or the CLI); also checks that `parent`, when given, is still this process's parent: it
/// may have ended before the signal was asked for.
pub(crate) fn set_parent_death_signal(parent: Option<libc::pid_t>) -> std::io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    let done = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    if done != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: getppid has no preconditions.
    if let Some(expected) = parent
        && unsafe { libc::getppid() } != expected
    {
        return Err(std::io::Error::other("the process that started this worker has already ended"));
    }
    Ok(())
}

/// Sets the soft and hard value of a limit (lowering only: a limit already lower stays).
fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let mut current = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct passed.
    if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let value = value.min(current.rlim_max);
    let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
    // SAFETY: setrlimit reads the struct passed.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Raises the soft CPU limit to the CPU time used so far plus one submission's allowance: the
/// kernel stops a grading that spins past it (SIGXCPU), whatever the service thread does.
pub(crate) fn allow_cpu_for_one_submission() -> std::io::Result<()> {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct passed.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let used = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1).max(0) as u64;
    let limit =
        libc::rlimit { rlim_cur: used + WORKER_CPU_SECONDS_PER_SUBMISSION, rlim_max: libc::RLIM_INFINITY };
    let mut current = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_CPU, &mut current) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let limit = libc::rlimit { rlim_cur: limit.rlim_cur.min(current.rlim_max), rlim_max: current.rlim_max };
    // SAFETY: setrlimit reads the struct passed.
    if unsafe { libc::setrlimit(libc::RLIMIT_CPU, &limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Writes a line to standard error and ignores a failure: a grading process's standard error is the
/// service's, which may be a closed pipe, where `eprintln!` would panic and take the process down.
pub(crate) fn to_stderr(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
