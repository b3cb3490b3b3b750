//! Exercise folders: what a teacher writes under `exercises/<slug>/` (see `exercises/README.md`).
//!
//! This module reads the part every exercise shares (`exercise.toml`'s common keys, the statement in
//! German and English, the limits) and hands the grader's own section (`[consumer]`, `[prediction]`)
//! to that grader's loader. A loaded [`Exercise`] is immutable and shared between threads; graders
//! cache their compiled artefacts (reference module, scenario script) inside it.

use std::path::{Path, PathBuf};

use serde::Deserialize;

mod grader;
mod snapshot;
mod soundness;
mod words;

pub use grader::{Compiler, GradeError, GradeOptions, Grader, GraderEntry, GraderSection, StatementError};
pub use snapshot::{FolderSnapshot, RACY_STAMP_MARGIN, SnapshotError, Stamps};
pub use soundness::{Soundness, SoundnessRow};

use crate::limits::Limits;
use crate::text::Text;

/// File name of an exercise's description.
pub(crate) const EXERCISE_FILE: &str = "exercise.toml";

pub use crate::report::GraderKind;

#[derive(Debug)]
pub struct Exercise {
    pub dir: PathBuf,
    pub slug: String,
    pub title: Text,
    /// Points for a full solution.
    pub points: u32,
    pub limits: Limits,
    /// The statement as written (a template for exercises with learner variants).
    pub statement: Text,
    /// The part that belongs to the grader kind named in `exercise.toml`.
    pub grader: Box<dyn Grader>,
    /// The folder's files as they were when this version was loaded, with their identity: a worker
    /// process grades this version, whatever the folder holds by then.
    pub source: std::sync::Arc<FolderSnapshot>,
}

impl Exercise {
    /// The folder as a student's checkout has it, for the replay commands in reports:
    /// `exercises/<folder name>`, never the grader's own path, so a report is the same on every machine.
    pub(crate) fn replay_dir(&self) -> String {
        let folder = self.dir.file_name().map(|n| n.to_string_lossy().into_owned());
        format!("exercises/{}", folder.unwrap_or_else(|| self.slug.clone()))
    }

    /// The grader kind of this exercise.
    pub fn grader_kind(&self) -> GraderKind {
        self.grader.kind()
    }

    /// The version of the exercise that grades: the SHA-256 of its folder snapshot. Every result
    /// records it, so a teacher sees which version of a fixed exercise graded a submission.
    pub fn content_hash(&self) -> &str {
        &self.source.id
    }

    /// The grader that grades this exercise and its program version, as results record it
    /// (`consumer@0.1.0`): with the content hash it names what produced a verdict.
    pub(crate) fn grader_version(&self) -> String {
        format!("{}@{}", self.grader_kind().name(), env!("CARGO_PKG_VERSION"))
    }

    /// The grader's part as its concrete type, for code of that grader kind (and its tests);
    /// `None` for an exercise of another kind.
    pub fn grader_as<G: Grader>(&self) -> Option<&G> {
        let any: &dyn std::any::Any = self.grader.as_ref();
        any.downcast_ref::<G>()
    }

    /// Loads and validates the exercise in `dir`, whose grader kind must be one of `kinds`
    /// (`crate::graders::load` passes every kind the program has). The folder is
    /// read whole once and the exercise built from those bytes (see [`Exercise::source`]); a folder
    /// that changed while it was read is an error (it is being written: loading it again after the
    /// change is over gives a consistent version).
    pub fn load_with(dir: &Path, kinds: &[GraderEntry]) -> Result<Exercise, ExerciseError> {
        let snapshot_error = |e| match e {
            SnapshotError::Io { path, source } => ExerciseError::Io { path, source },
            SnapshotError::TooLarge { path, message } => ExerciseError::Invalid { path, message },
        };
        let (snapshot, stamps) = FolderSnapshot::read_stamped(dir).map_err(snapshot_error)?;
        let loaded = Exercise::load_snapshot_with(dir, snapshot, kinds);
        let unchanged = match &loaded {
            Ok(exercise) => stamps.unchanged(dir, &exercise.source).map_err(snapshot_error)?,
            // A broken folder is reported as it is; if it was being written, the next load sees it.
            Err(_) => true,
        };
        if !unchanged {
            return Err(ExerciseError::Invalid {
                path: dir.to_path_buf(),
                message: "the folder changed while it was read; it is read again once it is quiet".into(),
            });
        }
        loaded
    }

    /// Builds the exercise from `snapshot` alone, read from the folder `dir` names (which messages
    /// and reports name; nothing is read from it).
    pub(crate) fn load_snapshot_with(
        dir: &Path,
        snapshot: FolderSnapshot,
        kinds: &[GraderEntry],
    ) -> Result<Exercise, ExerciseError> {
        let files = FolderFiles { dir, snapshot: &snapshot };
        let toml_path = files.path(EXERCISE_FILE);
        let source = files.read_text(EXERCISE_FILE)?;
        let file: ExerciseFile = toml::from_str(source).map_err(|e| toml_error(&toml_path, source, &e))?;
        if !is_slug(&file.slug) {
            return Err(files.error_at_key(
                &[&["slug"]],
                format!(
                    "slug {:?} must be lowercase letters, digits and '-' (1 to 64 characters)",
                    file.slug
                ),
            ));
        }
        file.limits.validate().map_err(|m| files.error_at_key(&[&["limits"]], m))?;
        let statement = Text {
            de: files.read_text("statement.de.md")?.to_string(),
            en: files.read_text("statement.en.md")?.to_string(),
        };
        for (file, text) in [("statement.de.md", &statement.de), ("statement.en.md", &statement.en)] {
            if text.trim().is_empty() {
                return Err(ExerciseError::At {
                    path: files.path(file),
                    line: 1,
                    column: 1,
                    message: "the statement is empty; students read it before they start (German in \
                              statement.de.md, English in statement.en.md)"
                        .into(),
                });
            }
        }
        let kind = file.grader;
        let section = match kind {
            GraderKind::Consumer => file.consumer,
            GraderKind::Prediction => file.prediction,
        };
        let section = section.ok_or_else(|| {
            files.error_at_key(&[&["grader"]], format!("grader = \"{0}\" needs a [{0}] section", kind.name()))
        })?;
        let entry = kinds.iter().find(|entry| entry.kind == kind).ok_or_else(|| {
            files.error_at_key(&[&["grader"]], format!("this program has no grader {:?}", kind.name()))
        })?;
        let grader =
            (entry.load)(GraderSection { files, table: section, limits: &file.limits, points: file.points })?;
        // The list of kinds and each kind's own `kind()` name the same thing twice; they must agree.
        assert_eq!(grader.kind(), kind, "the loader of {:?} made a grader of another kind", kind.name());
        Ok(Exercise {
            dir: dir.to_path_buf(),
            slug: file.slug,
            title: file.title,
            points: file.points,
            limits: file.limits,
            statement,
            grader,
            source: std::sync::Arc::new(snapshot),
        })
    }

    /// Loads every exercise folder directly below `root` (folders without `exercise.toml` are
    /// skipped), sorted by folder name. Each folder gets its own result, so one broken exercise
    /// does not hide the others.
    pub(crate) fn load_all_with(
        root: &Path,
        kinds: &[GraderEntry],
    ) -> Result<LoadedExercises, ExerciseError> {
        let entries = std::fs::read_dir(root)
            .map_err(|source| ExerciseError::Io { path: root.to_path_buf(), source })?;
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.join(EXERCISE_FILE).is_file())
            .collect();
        dirs.sort();
        let mut loaded: LoadedExercises = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let mut exercise = Exercise::load_with(&dir, kinds);
            // Two folders of one slug: the first (by folder name) is the exercise, the second an
            // error at its slug, never one of them served silently.
            if let Ok(this) = &exercise
                && let Some((first, _)) =
                    loaded.iter().find(|(_, other)| other.as_ref().is_ok_and(|o| o.slug == this.slug))
            {
                exercise = Err(error_at_key(
                    &dir,
                    &[&["slug"]],
                    format!(
                        "slug {:?} is already the slug of the folder {}; each exercise needs a slug of its own \
                         (its folder's name)",
                        this.slug,
                        first.display()
                    ),
                ));
            }
            loaded.push((dir, exercise));
        }
        Ok(loaded)
    }
}

/// Every exercise folder below a root, each with its own load result.
pub(crate) type LoadedExercises = Vec<(PathBuf, Result<Exercise, ExerciseError>)>;

/// The common keys of `exercise.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExerciseFile {
    slug: String,
    grader: GraderKind,
    title: Text,
    #[serde(default = "default_points")]
    points: u32,
    #[serde(default)]
    limits: Limits,
    consumer: Option<toml::Table>,
    prediction: Option<toml::Table>,
}

fn default_points() -> u32 {
    10
}

/// True if `s` may be an exercise's slug: lowercase ASCII letters, digits and `-`, 1 to 64 characters.
pub(crate) fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The files of an exercise folder as its loaders read them: from the snapshot being loaded, so
/// that what is loaded is what the snapshot's identity names. Paths are relative to the folder, with
/// `/`; `dir` names the folder in messages.
#[derive(Debug, Clone, Copy)]
pub struct FolderFiles<'a> {
    pub dir: &'a Path,
    pub snapshot: &'a FolderSnapshot,
}

impl<'a> FolderFiles<'a> {
    /// Where `relative` is in the folder, for messages.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    /// The bytes of the file at `relative` (`./` and empty components allowed, `..` not).
    pub(crate) fn bytes(&self, relative: &str) -> std::io::Result<&'a [u8]> {
        let mut parts = Vec::new();
        for part in relative.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "the path leaves the exercise folder",
                    ));
                }
                part => parts.push(part),
            }
        }
        self.snapshot.file(&parts.join("/")).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file in the exercise folder (hidden files and symbolic links are not part of it)",
            )
        })
    }

    /// The file at `relative` as UTF-8 text.
    pub(crate) fn text(&self, relative: &str) -> std::io::Result<&'a str> {
        std::str::from_utf8(self.bytes(relative)?)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not UTF-8 text: {e}")))
    }

    /// [`FolderFiles::text`], with the file's path in the error.
    pub(crate) fn read_text(&self, relative: &str) -> Result<&'a str, ExerciseError> {
        self.text(relative).map_err(|source| ExerciseError::Io { path: self.path(relative), source })
    }

    /// An error at a key of `exercise.toml` (see [`error_at_key`]), located in the snapshot's copy.
    pub(crate) fn error_at_key(&self, candidates: &[&[&str]], message: String) -> ExerciseError {
        error_at_key_in(self.path(EXERCISE_FILE), self.text(EXERCISE_FILE).ok(), candidates, message)
    }
}

/// Parses a grader's section of `exercise.toml` into its own type. A problem is reported with the line
/// and column in `exercise.toml` where it is.
pub(crate) fn parse_section<T: serde::de::DeserializeOwned>(
    files: &FolderFiles<'_>,
    section: toml::Table,
    name: &str,
) -> Result<T, ExerciseError> {
    section.try_into().map_err(|e: toml::de::Error| {
        let path = files.path(EXERCISE_FILE);
        // The table has lost its positions: parse the file again with them to say where the problem is.
        let located = files.text(EXERCISE_FILE).ok().and_then(|source| {
            let root = toml::de::DeTable::parse(source).ok()?;
            let (_, value) = root.get_ref().iter().find(|(key, _)| key.get_ref().as_ref() == name)?;
            let error = T::deserialize(toml::de::ValueDeserializer::from(value.clone())).err()?;
            let span = error.span()?;
            let (line, column) = line_column(source, span.start);
            Some(ExerciseError::At {
                path: path.clone(),
                line,
                column,
                message: format!("[{name}]: {}", words::teacher_words(error.message())),
            })
        });
        located.unwrap_or_else(|| ExerciseError::Syntax { path, message: format!("[{name}]: {e}") })
    })
}

/// A TOML error with its line and column, when the parser knows them.
fn toml_error(path: &Path, source: &str, error: &toml::de::Error) -> ExerciseError {
    match error.span() {
        Some(span) => {
            let (line, column) = line_column(source, span.start);
            ExerciseError::At {
                path: path.to_path_buf(),
                line,
                column,
                message: words::teacher_words(error.message()),
            }
        }
        None => ExerciseError::Syntax { path: path.to_path_buf(), message: error.to_string() },
    }
}

/// The 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Where a key of `exercise.toml` is written, as (line, column): `&["consumer", "schema"]`. For a key
/// inside an array of tables, the first table that has it. `None` if the key is not written.
pub(crate) fn key_location(source: &str, keys: &[&str]) -> Option<(usize, usize)> {
    let root = toml::de::DeTable::parse(source).ok()?;
    let mut table = root.get_ref();
    let mut found = None;
    for (depth, key) in keys.iter().enumerate() {
        let (k, value) = table.iter().find(|(k, _)| k.get_ref().as_ref() == *key)?;
        found = Some(k.span().start);
        if depth + 1 == keys.len() {
            break;
        }
        table = match value.get_ref() {
            toml::de::DeValue::Table(t) => t,
            toml::de::DeValue::Array(items) => items.iter().find_map(|i| i.get_ref().as_table())?,
            _ => return None,
        };
    }
    found.map(|offset| line_column(source, offset))
}

/// An error at a key of `exercise.toml` in `dir` on disk: at the first of `candidates` (key paths)
/// that is written there, with its line; without a line if none is.
pub(crate) fn error_at_key(dir: &Path, candidates: &[&[&str]], message: String) -> ExerciseError {
    let path = dir.join(EXERCISE_FILE);
    let source = std::fs::read_to_string(&path).ok();
    error_at_key_in(path, source.as_deref(), candidates, message)
}

fn error_at_key_in(
    path: PathBuf,
    source: Option<&str>,
    candidates: &[&[&str]],
    message: String,
) -> ExerciseError {
    let location = source.and_then(|source| candidates.iter().find_map(|keys| key_location(source, keys)));
    match location {
        Some((line, column)) => ExerciseError::At { path, line, column, message },
        None => ExerciseError::Invalid { path, message },
    }
}

/// What is wrong with an exercise folder; always names the file.
#[derive(Debug, thiserror::Error)]
pub enum ExerciseError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    /// A problem at a known place in a file (1-based line and column).
    #[error("{path}:{line}:{column}: {message}")]
    At { path: PathBuf, line: usize, column: usize, message: String },
    /// A scenario script (or the constraint) that does not compile or fails for the lesson's
    /// variant; `location` is `:line:column` where known, so editors can jump to it.
    #[error("{path}{location}: {message}")]
    Script { path: PathBuf, location: String, message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loader_reads_the_snapshot_inside_the_folder_only() {
        let snapshot = FolderSnapshot {
            id: String::new(),
            folder: "07-x".into(),
            files: vec![("bin".into(), vec![0xff]), ("schema.sql".into(), b"CREATE TABLE t (x);".to_vec())],
        };
        let files = FolderFiles { dir: Path::new("exercises/07-x"), snapshot: &snapshot };
        assert_eq!(files.text("schema.sql").unwrap(), "CREATE TABLE t (x);");
        assert_eq!(files.text("./schema.sql").unwrap(), "CREATE TABLE t (x);");
        let outside = files.bytes("../07-x/schema.sql").unwrap_err();
        assert!(outside.to_string().contains("leaves the exercise folder"), "{outside}");
        let missing = files.read_text("nope.sql").unwrap_err().to_string();
        assert!(
            missing.starts_with("exercises/07-x/nope.sql: no such file in the exercise folder"),
            "{missing}"
        );
        let binary = files.read_text("bin").unwrap_err().to_string();
        assert!(binary.contains("not UTF-8 text"), "{binary}");
    }
}
