//! The one entry point that grades a submission, used by the CLI and the HTTP service alike: it
//! dispatches to the exercise's grader and applies the report size limit to whatever comes back.

use crate::exercise::Exercise;
pub use crate::exercise::{Compiler, GradeError, GradeOptions};
use crate::report::Report;
use crate::submission::Submission;

/// Grades `submission` against `exercise`. A submission that cannot be graded (bad module,
/// malformed answer) yields a report with `verdict = rejected`, never an error.
///
/// Every report a caller stores, serves or posts comes from here, so this is where the report size
/// is a hard limit: a report over [`crate::limits::REPORT_BYTES_MAX`] is shrunk and says so
/// ([`crate::report::limit_size`]). Only a replay, which prints the whole run on a terminal and
/// is never stored, keeps everything it recorded.
pub fn grade(
    exercise: &Exercise,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Report, GradeError> {
    let mut report = exercise.grader.grade(exercise, submission, options)?;
    if options.replay.is_none() {
        crate::report::limit_size(&mut report, crate::limits::REPORT_BYTES_MAX);
    }
    Ok(report)
}

/// The grader's own set-up for `submission` ([`crate::exercise::Grader::prepare`]): a worker
/// process does it before it tells its parent that the submission's time starts.
pub fn prepare(exercise: &Exercise, submission: &Submission) {
    exercise.grader.prepare(exercise, submission);
}
