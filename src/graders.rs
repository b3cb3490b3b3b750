//! The grader kinds this program has: the one list of them, and loading an exercise folder with
//! them. Adding a kind means a module that implements [`crate::exercise::Grader`] and one line here.

use std::path::Path;

use crate::exercise::{Exercise, ExerciseError, FolderSnapshot, GraderEntry, LoadedExercises};

/// Every grader kind, as the exercise loader knows them.
pub const KINDS: &[GraderEntry] = &[crate::consumer::GRADER, crate::prediction::GRADER];

impl Exercise {
    /// Loads and validates the exercise in `dir`. The folder is read whole before and after (see
    /// [`Exercise::source`]); a folder that changed in between is an error (it is being written:
    /// loading it again after the change is over gives a consistent version).
    pub fn load(dir: &Path) -> Result<Exercise, ExerciseError> {
        Exercise::load_with(dir, KINDS)
    }

    /// Loads the exercise that `snapshot` was written to in `dir` by this process
    /// ([`FolderSnapshot::write_below`]): a private copy nobody else writes, so the folder is not
    /// read back to take its identity again; the snapshot is the version.
    pub fn load_private_copy(dir: &Path, snapshot: FolderSnapshot) -> Result<Exercise, ExerciseError> {
        let mut exercise = Exercise::load_files(dir, KINDS)?;
        exercise.source = std::sync::Arc::new(snapshot);
        Ok(exercise)
    }

    /// Loads every exercise folder directly below `root` (folders without `exercise.toml` are
    /// skipped), sorted by folder name. Each folder gets its own result, so one broken exercise
    /// does not hide the others.
    pub fn load_all(root: &Path) -> Result<LoadedExercises, ExerciseError> {
        Exercise::load_all_with(root, KINDS)
    }
}
