//! The CLI's grading process, forked instead of started: `pruefstein grade` has loaded the exercise
//! and read the submission, then forks. The child becomes a grading process as a started worker does
//! ([`super::worker::become_grading_process`]: the same limits), grades what it already holds and
//! writes into a pipe what the CLI prints (or the [`Response`] of a grading that failed). The parent
//! waits no longer than the submission's deadline plus [`WORKER_KILL_MARGIN_MS`], kills the child
//! when it overruns and reads its death when it dies, exactly as it would a started worker
//! ([`super::pool::WorkerProcess`]).
//!
//! What forking saves is what starting the binary again costs for one submission: loading and
//! relocating a large program, sending the exercise's files over a pipe and building the exercise a
//! second time (BENCHMARKS.md, "The CLI forks its grading process").
//! The child also renders the report itself, so it is serialized once, not once for the pipe and
//! again for the terminal.
//!
//! Only a process with a single thread may fork and then run arbitrary code in the child: the child
//! has only the forking thread, and a lock another thread held at the fork would stay locked in it
//! forever. [`grade_forked`] checks that first and declines in any other process; the CLI then
//! starts a worker process ([`super::pool::grade_once`]).

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::outcome::{Printed, WorkerFailure, describe};
use super::protocol::{Response, grade_error, read_message, write_message};
use super::worker::{FAULT_INJECTION_ENV, become_grading_process, inject_fault, to_stderr};
use crate::exercise::Exercise;
use crate::grade::{GradeError, GradeOptions, grade};
use crate::limits::{WORKER_KILL_MARGIN_MS, WORKER_MESSAGE_BYTES_MAX};
use crate::report::Report;
use crate::submission::Submission;

/// The first byte of a child's message: what the CLI prints follows (exit code and length as
/// 4-byte little-endian integers, then the output), or a failed grading's [`Response`] (framed as
/// the worker's messages).
const PRINTED: u8 = b'P';
const FAILED: u8 = b'E';
/// The bytes before a printed output: tag, exit code, length.
const PRINTED_HEADER_BYTES: usize = 9;

/// Exit codes of a forked grading child that could not answer (sysexits' values, as the worker's).
const CHILD_EXIT_SOFTWARE: i32 = 70;
const CHILD_EXIT_IO: i32 = 74;

/// Grades in a child forked from this process, or `None` when this process has more than one
/// thread and must not fork (see the module's documentation).
pub(crate) fn grade_forked(
    exercise: &Exercise,
    submission: &Submission,
    options: &GradeOptions,
    module_cache: Option<&std::path::Path>,
    print: &dyn Fn(&Report) -> Printed,
) -> Option<Result<Result<Printed, GradeError>, WorkerFailure>> {
    if !single_threaded() {
        return None;
    }
    let deadline_ms = exercise.limits.wall_ms_per_submission + WORKER_KILL_MARGIN_MS;
    let deadline = Instant::now() + Duration::from_millis(deadline_ms);
    let (read_end, write_end) = match pipe() {
        Ok(ends) => ends,
        Err(error) => return Some(Err(WorkerFailure::Broken(format!("cannot create a pipe: {error}")))),
    };
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: this process has a single thread (checked above), so the child holds every lock the
    // parent held and runs nothing another thread left half done; it ends with `_exit` and never
    // returns into the caller's code.
    match unsafe { libc::fork() } {
        -1 => Some(Err(WorkerFailure::Broken(format!(
            "cannot start a grading process: {}",
            std::io::Error::last_os_error()
        )))),
        0 => {
            drop(read_end);
            let code = child(parent, exercise, submission, options, module_cache, print, write_end);
            // SAFETY: ends the child at once: no destructor, exit handler or buffer flush of the
            // parent's state runs twice.
            unsafe { libc::_exit(code) }
        }
        pid => {
            drop(write_end);
            Some(wait_for_child(pid, read_end, deadline, exercise.limits.wall_ms_per_submission))
        }
    }
}

/// True if this process runs exactly one thread (`/proc/self/task` has one entry).
fn single_threaded() -> bool {
    match std::fs::read_dir("/proc/self/task") {
        Ok(tasks) => tasks.take(2).count() == 1,
        Err(_) => false,
    }
}

/// A pipe whose ends are closed on exec.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two file descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The child: limits itself as a worker, grades, writes what is printed; returns its exit code.
/// A panic is caught here: unwinding past the fork would run the caller's code in the child.
fn child(
    parent: libc::pid_t,
    exercise: &Exercise,
    submission: &Submission,
    options: &GradeOptions,
    module_cache: Option<&std::path::Path>,
    print: &dyn Fn(&Report) -> Printed,
    output: OwnedFd,
) -> i32 {
    let graded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if let Err(error) = become_grading_process(Some(parent), module_cache, "pruefstein") {
            to_stderr(format_args!("pruefstein: cannot apply the grading process limits: {error}"));
            return CHILD_EXIT_SOFTWARE;
        }
        if std::env::var_os(FAULT_INJECTION_ENV).is_some() {
            inject_fault(submission);
        }
        let message = match grade(exercise, submission, options) {
            Ok(report) => printed_message(&print(&report)),
            Err(error) => failed_message(Response::from_result(Err(error))),
        };
        let mut output = std::fs::File::from(output);
        match message.and_then(|bytes| output.write_all(&bytes)).and_then(|()| output.flush()) {
            Ok(()) => 0,
            Err(error) => {
                to_stderr(format_args!("pruefstein: cannot hand the report over: {error}"));
                CHILD_EXIT_IO
            }
        }
    }));
    graded.unwrap_or(CHILD_EXIT_SOFTWARE)
}

/// The message of a graded submission: [`PRINTED`], exit code, length, output.
fn printed_message(printed: &Printed) -> std::io::Result<Vec<u8>> {
    let length = u32::try_from(printed.output.len())
        .ok()
        .filter(|&length| length as usize <= WORKER_MESSAGE_BYTES_MAX)
        .ok_or_else(|| {
            std::io::Error::other(format!(
                "the output is longer than worker_message_bytes_max ({WORKER_MESSAGE_BYTES_MAX})"
            ))
        })?;
    let mut bytes = Vec::with_capacity(PRINTED_HEADER_BYTES + printed.output.len());
    bytes.push(PRINTED);
    bytes.extend_from_slice(&printed.exit_code.to_le_bytes());
    bytes.extend_from_slice(&length.to_le_bytes());
    bytes.extend_from_slice(printed.output.as_bytes());
    Ok(bytes)
}

/// The message of a grading that failed: [`FAILED`], then the framed [`Response`].
fn failed_message(response: Response) -> std::io::Result<Vec<u8>> {
    let mut bytes = vec![FAILED];
    write_message(&mut bytes, &response)?;
    Ok(bytes)
}

/// The printed output in a child's message, when the message is whole.
fn parse_printed(bytes: &[u8]) -> Option<Printed> {
    let header = bytes.get(..PRINTED_HEADER_BYTES)?;
    let exit_code = i32::from_le_bytes(header[1..5].try_into().ok()?);
    let length = u32::from_le_bytes(header[5..9].try_into().ok()?) as usize;
    let output = bytes.get(PRINTED_HEADER_BYTES..)?;
    if output.len() != length {
        return None;
    }
    Some(Printed { output: String::from_utf8(output.to_vec()).ok()?, exit_code })
}

/// The parent: reads the child's one message until `deadline`, kills the child when it is still
/// running then, and reaps it in every case.
fn wait_for_child(
    pid: libc::pid_t,
    output: OwnedFd,
    deadline: Instant,
    limit_ms: u64,
) -> Result<Result<Printed, GradeError>, WorkerFailure> {
    let read = read_until(output, deadline);
    if !matches!(read, Ok(ChildOutput::Ended(_))) {
        // SAFETY: kill(2) of our own child, which is not reaped yet (its pid is still ours).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let status = reap(pid);
    let bytes = match read {
        Ok(ChildOutput::Ended(bytes)) => bytes,
        Ok(ChildOutput::Overran) => return Err(WorkerFailure::Overran { limit_ms }),
        Ok(ChildOutput::TooLong) => {
            return Err(WorkerFailure::Broken(format!(
                "the grading process wrote more than worker_message_bytes_max ({WORKER_MESSAGE_BYTES_MAX})"
            )));
        }
        Err(error) => return Err(WorkerFailure::Broken(format!("cannot read the grading process: {error}"))),
    };
    let died =
        || WorkerFailure::Died { status: status.map(describe).unwrap_or_else(|error| error.to_string()) };
    match bytes.split_first() {
        // A message cut short is no message: the child died before it answered.
        Some((&PRINTED, _)) => parse_printed(&bytes).map(Ok).ok_or_else(died),
        Some((&FAILED, mut framed)) => match read_message::<Response>(&mut framed) {
            Ok(Some(Response::Error { kind, slug, message })) => Ok(Err(grade_error(kind, slug, message))),
            Ok(Some(Response::Graded(_) | Response::NeedExercise | Response::Ready)) => {
                Err(WorkerFailure::Broken("the grading process answered out of turn".into()))
            }
            Ok(None) | Err(_) => Err(died()),
        },
        // Nothing: the child died before it answered.
        _ => Err(died()),
    }
}

/// What reading the child's output gave.
enum ChildOutput {
    /// The child closed its end (it ended): everything it wrote.
    Ended(Vec<u8>),
    /// The deadline passed first.
    Overran,
    /// It wrote more than one message may be long.
    TooLong,
}

/// Reads `output` to its end, waiting no longer than `deadline`.
fn read_until(output: OwnedFd, deadline: Instant) -> std::io::Result<ChildOutput> {
    use std::os::fd::AsRawFd;
    let mut file = std::fs::File::from(output);
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ok(ChildOutput::Overran);
        }
        let wait_ms = (deadline - now).as_millis().clamp(1, libc::c_int::MAX as u128) as libc::c_int;
        let mut poll = libc::pollfd { fd: file.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: poll reads and writes the one pollfd it is given.
        let ready = unsafe { libc::poll(&mut poll, 1, wait_ms) };
        if ready < 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if ready == 0 {
            continue;
        }
        let n = match file.read(&mut chunk) {
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if n == 0 {
            return Ok(ChildOutput::Ended(bytes));
        }
        if bytes.len() + n > WORKER_MESSAGE_BYTES_MAX + PRINTED_HEADER_BYTES {
            return Ok(ChildOutput::TooLong);
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// Waits for the child to end and returns its status.
fn reap(pid: libc::pid_t) -> std::io::Result<std::process::ExitStatus> {
    use std::os::unix::process::ExitStatusExt;
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: waitpid writes the status of our own child into the int it is given.
        let done = unsafe { libc::waitpid(pid, &mut status, 0) };
        if done == pid {
            return Ok(std::process::ExitStatus::from_raw(status));
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_printed_message_reads_back_whole_and_not_when_cut_short() {
        let printed = Printed { output: "Bestanden ✓\n".into(), exit_code: 1 };
        let bytes = printed_message(&printed).expect("a message");
        assert_eq!(parse_printed(&bytes), Some(printed));
        for cut in 0..bytes.len() {
            assert_eq!(parse_printed(&bytes[..cut]), None, "cut after {cut} bytes");
        }
    }
}
