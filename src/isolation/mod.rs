//! Grading in worker processes: the last line of isolation from the operating system. A worker is
//! the same binary (`pruefstein grade-worker`, hidden from `--help`) with operating-system limits of
//! its own (address space, CPU time per submission, open files, no core dumps, no new privileges,
//! death with its parent); it writes no file. The parent sends
//! length-prefixed JSON requests on its stdin (the exercise version by content identity, with its
//! files the first time; the submission; the grade options) and reads the report on its stdout. A
//! worker keeps loaded exercise versions and compiled engines across submissions.
//!
//! The CLI's `grade` forks its grading process instead ([`fork`]): the same limits, deadline and
//! kill, without starting the binary again or sending the exercise it has already loaded.
//!
//! Files: [`protocol`] (messages and framing), [`worker`] (the process side, free of actix and
//! tokio), [`pool`] (the parent's side: start, deadline, kill, restart), [`fork`] (the CLI's
//! one-submission child), [`once`] (the CLI's `grade`: forked, else one worker process),
//! [`outcome`] (why a process did not answer, in words a student reads).

// Forking, starting a worker and limiting its own process call the operating system (libc).
#[allow(unsafe_code)]
pub(crate) mod fork;
pub(crate) mod once;
pub mod outcome;
#[allow(unsafe_code)]
pub mod pool;
pub(crate) mod protocol;
#[allow(unsafe_code)]
pub mod worker;
