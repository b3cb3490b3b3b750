//! What a grading process comes back with when it does not come back with a report: why it did
//! not answer ([`WorkerFailure`], in words a student reads), and what the CLI prints ([`Printed`]).

use std::process::ExitStatus;

use crate::limits::{WORKER_ADDRESS_SPACE_BYTES, WORKER_CPU_SECONDS_PER_SUBMISSION, WORKER_KILL_MARGIN_MS};
use crate::text::Text;

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
    pub(crate) fn reason_line(&self) -> String {
        let reason = self.reason();
        format!("{} / {}", reason.de, reason.en)
    }
}

/// A process status in words (`killed by signal 9 (SIGKILL)`, `exit status 70`).
pub(crate) fn describe(status: ExitStatus) -> String {
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
pub(crate) struct Printed {
    pub output: String,
    pub exit_code: i32,
}
