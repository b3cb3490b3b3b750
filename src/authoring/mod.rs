//! `pruefstein new`: scaffolds an exercise folder that passes `pruefstein check` as generated, for a
//! teacher to change step by step (checking after each step). The templates live in
//! `src/authoring/templates/` and are compiled into the binary.

use std::path::{Path, PathBuf};

use crate::exercise::{EXERCISE_FILE, GraderKind};

/// The placeholder in the templates that becomes the exercise's slug.
const SLUG_PLACEHOLDER: &str = "__SLUG__";

/// The files of a consumer exercise scaffold: (path in the folder, template).
const CONSUMER_FILES: [(&str, &str); 6] = [
    (EXERCISE_FILE, include_str!("templates/consumer/exercise.toml")),
    ("statement.de.md", include_str!("templates/consumer/statement.de.md")),
    ("statement.en.md", include_str!("templates/consumer/statement.en.md")),
    ("schema.sql", include_str!("templates/consumer/schema.sql")),
    ("solutions/reference.wat", include_str!("templates/consumer/solutions/reference.wat")),
    ("mutants/no-transaction.wat", include_str!("templates/consumer/mutants/no-transaction.wat")),
];

/// The files of a prediction exercise scaffold.
const PREDICTION_FILES: [(&str, &str); 4] = [
    (EXERCISE_FILE, include_str!("templates/prediction/exercise.toml")),
    ("statement.de.md", include_str!("templates/prediction/statement.de.md")),
    ("statement.en.md", include_str!("templates/prediction/statement.en.md")),
    ("scenario.rhai", include_str!("templates/prediction/scenario.rhai")),
];

/// Why a scaffold could not be written.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    #[error(
        "{0}: the folder's name is the exercise's slug and must be lowercase letters, digits and '-' \
         (1 to 64 characters), e.g. exercises/05-outbox"
    )]
    BadSlug(PathBuf),
    #[error("{0}: exists and is not empty; choose a new folder (nothing was written)")]
    NotEmpty(PathBuf),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Writes a new exercise of `kind` into `dir` (which must not exist or be empty); its slug is the
/// folder's name. Returns the files written, relative to `dir`.
pub fn scaffold(kind: GraderKind, dir: &Path) -> Result<Vec<String>, NewError> {
    let slug = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|s| crate::exercise::is_slug(s))
        .ok_or_else(|| NewError::BadSlug(dir.to_path_buf()))?;
    if let Ok(mut entries) = std::fs::read_dir(dir)
        && entries.next().is_some()
    {
        return Err(NewError::NotEmpty(dir.to_path_buf()));
    }
    let files: &[(&str, &str)] = match kind {
        GraderKind::Consumer => &CONSUMER_FILES,
        GraderKind::Prediction => &PREDICTION_FILES,
    };
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| NewError::Io { path, source }
    };
    let mut written = Vec::new();
    for (relative, template) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, template.replace(SLUG_PLACEHOLDER, slug)).map_err(io(&path))?;
        written.push((*relative).to_string());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_names_its_slug_through_the_placeholder() {
        for (file, template) in CONSUMER_FILES.iter().chain(PREDICTION_FILES.iter()) {
            if *file == EXERCISE_FILE {
                assert!(template.contains("slug = \"__SLUG__\""), "{file}");
            }
        }
    }

    #[test]
    fn a_folder_that_is_not_a_slug_or_not_empty_is_refused() {
        let root = tempfile::tempdir().expect("temporary directory");
        let bad = root.path().join("Lager Übung");
        assert!(matches!(scaffold(GraderKind::Consumer, &bad), Err(NewError::BadSlug(_))));
        let taken = root.path().join("taken");
        std::fs::create_dir(&taken).expect("mkdir");
        std::fs::write(taken.join("notes.txt"), "keep me").expect("write");
        assert!(matches!(scaffold(GraderKind::Prediction, &taken), Err(NewError::NotEmpty(_))));
        assert_eq!(std::fs::read_to_string(taken.join("notes.txt")).expect("read"), "keep me");
    }
}
