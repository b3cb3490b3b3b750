//! The one entry point that grades a submission, used by the CLI and the HTTP service alike.

use crate::exercise::{Exercise, ExerciseKind};
use crate::report::Report;
use crate::submission::Submission;

/// Which wasm compiler runs consumer modules. Winch compiles small fresh modules faster, and every
/// submission is fresh code; Cranelift generates faster code. See BENCHMARKS.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compiler {
    #[default]
    Winch,
    Cranelift,
}

impl std::str::FromStr for Compiler {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "winch" => Ok(Compiler::Winch),
            "cranelift" => Ok(Compiler::Cranelift),
            other => Err(format!("unknown compiler {other:?}: use \"winch\" or \"cranelift\"")),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct GradeOptions {
    /// The learner whose variant is graded (prediction exercises with parameters).
    pub learner: Option<String>,
    /// The course secret that, with the learner id, derives a learner's variant.
    pub course_secret: String,
    pub compiler: Compiler,
    /// A replay token from an earlier report: re-run exactly that run (consumer harness).
    pub replay: Option<String>,
}

/// A problem on the teacher's side that prevents grading (the student is not at fault).
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    #[error("the exercise {slug} is broken: {message}")]
    Exercise { slug: String, message: String },
    #[error("cannot replay: {0}")]
    Replay(String),
    #[error("internal error while grading: {0}")]
    Internal(String),
}

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
    let mut report = match &exercise.kind {
        ExerciseKind::Consumer(consumer) => crate::consumer::grade(exercise, consumer, submission, options)?,
        ExerciseKind::Prediction(prediction) => {
            crate::prediction::grade(exercise, prediction, submission, options)?
        }
    };
    if options.replay.is_none() {
        crate::report::limit_size(&mut report, crate::limits::REPORT_BYTES_MAX);
    }
    Ok(report)
}
