//! The interface every grader kind implements, and its vocabulary.
//!
//! A grader kind (consumer, prediction, ...) reads its own section of `exercise.toml` into a value
//! that implements [`Grader`]; the loaded [`Exercise`] holds it and dispatches to it: grading, the
//! soundness check, the statement a learner reads, what kind of submission it takes. The core
//! (`exercise`, `report`, `grade`, `limits`, `text`, `submission`) knows this interface and no
//! grader; the list of kinds is in `crate::graders`.

use std::any::Any;

use super::{Exercise, ExerciseError, Soundness};
use crate::limits::Limits;
use crate::report::{GraderKind, Report};
use crate::submission::{Submission, SubmissionKind};
use crate::text::Lang;

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

/// A statement that cannot be rendered for a learner (a teacher's problem: the template or the
/// parameters).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StatementError(pub String);

/// The part of a loaded exercise that belongs to its grader kind. Immutable once loaded and shared
/// between threads; a grader caches what it compiles (reference module, scenario script) inside it.
pub trait Grader: Any + std::fmt::Debug + Send + Sync {
    /// Which kind this is (named in reports and in `exercise.toml`).
    fn kind(&self) -> GraderKind;

    /// The kind of submission this exercise grades.
    /// The languages whose source a learner may submit instead of a module (none by default).
    fn languages(&self) -> Vec<crate::submission::Language> {
        Vec::new()
    }

    fn submission_kind(&self) -> SubmissionKind;

    /// The grader's own set-up for `submission`, done before the submission's time starts (a
    /// source submission's interpreter compiled, read from the module cache or waited for).
    /// Grading does what was not done here, so calling it is never required; its failures come
    /// again, and are reported, while grading.
    fn prepare(&self, _exercise: &Exercise, _submission: &Submission) {}

    /// Grades `submission`. A submission that cannot be graded yields a report with
    /// `verdict = rejected`; an error means the exercise (or the replay token) is at fault.
    fn grade(
        &self,
        exercise: &Exercise,
        submission: &Submission,
        options: &GradeOptions,
    ) -> Result<Report, GradeError>;

    /// Proves the exercise sound: the reference passes, every mutant fails the check it declares,
    /// plus the validations of this kind.
    fn check(&self, exercise: &Exercise) -> Soundness;

    /// The statement a learner reads; as written unless the kind has per-learner variants.
    fn statement(
        &self,
        exercise: &Exercise,
        _learner: Option<&str>,
        _course_secret: &str,
        lang: Lang,
    ) -> Result<String, StatementError> {
        Ok(exercise.statement.get(lang).to_string())
    }

    /// An example of a well-formed answer, for kinds that take answers as text.
    fn answer_example(&self) -> Option<&str> {
        None
    }

    /// The parameters that differ between learners' variants, with their values for `learner`
    /// (course analytics group wrong answers by them); empty for kinds without variants.
    fn variant_parameters(
        &self,
        _exercise: &Exercise,
        _learner: &str,
        _course_secret: &str,
    ) -> Vec<(String, i64)> {
        Vec::new()
    }

    /// The mistake each kind of wrong solution makes, in one line, by its file name without the
    /// extension (course analytics group submissions by it); empty for kinds without any.
    fn mutant_descriptions(&self) -> std::collections::BTreeMap<String, crate::text::Text> {
        std::collections::BTreeMap::new()
    }

    /// A normalised fingerprint of a submission for similarity hints to teachers: a set of hashes
    /// that renaming and changed constants do not change. None for kinds without one, or for a
    /// submission that cannot be read.
    fn fingerprint(&self, _submission: &Submission) -> Option<Vec<u64>> {
        None
    }
}

/// What a grader kind's loader is given: the folder, its own section of `exercise.toml`, and the
/// common keys it may need.
pub struct GraderSection<'a> {
    /// The folder's files as they are loaded: read these, never the disk (`files.dir` names the
    /// folder in messages and in the paths `pruefstein check` reads later).
    pub files: super::FolderFiles<'a>,
    pub table: toml::Table,
    pub limits: &'a Limits,
    pub points: u32,
}

/// A grader kind as the loader knows it: its name and how it reads its section.
#[derive(Clone, Copy)]
pub struct GraderEntry {
    pub kind: GraderKind,
    pub load: fn(GraderSection<'_>) -> Result<Box<dyn Grader>, ExerciseError>,
}
