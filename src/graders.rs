//! The grader kinds this program has: the one list of them, and loading an exercise folder with
//! them. Adding a kind means a module that implements [`crate::exercise::Grader`] and one line here.

use std::path::Path;

use crate::exercise::{Exercise, ExerciseError, FolderSnapshot, GraderEntry, LoadedExercises};

/// Every grader kind, as the exercise loader knows them.
pub(crate) const KINDS: &[GraderEntry] = &[crate::consumer::GRADER, crate::prediction::grader::GRADER];

/// Loads and validates the exercise in `dir` with every grader kind (see [`Exercise::load_with`]).
pub fn load(dir: &Path) -> Result<Exercise, ExerciseError> {
    Exercise::load_with(dir, KINDS)
}

/// Builds the exercise from `snapshot` alone, a version another process has loaded and sent:
/// nothing is read from the disk, and `dir` only names the folder in messages and reports.
pub(crate) fn load_snapshot(dir: &Path, snapshot: FolderSnapshot) -> Result<Exercise, ExerciseError> {
    Exercise::load_snapshot_with(dir, snapshot, KINDS)
}

/// Loads every exercise folder directly below `root` (folders without `exercise.toml` are
/// skipped), sorted by folder name. Each folder gets its own result, so one broken exercise
/// does not hide the others.
pub fn load_all(root: &Path) -> Result<LoadedExercises, ExerciseError> {
    Exercise::load_all_with(root, KINDS)
}

/// Compiles every interpreter guest that grades source submissions through this process's module
/// cache ([`crate::consumer::interpreter::compile_all`]); the errors, one per language that failed.
pub(crate) fn compile_interpreters() -> Vec<String> {
    crate::consumer::interpreter::compile_all()
}
