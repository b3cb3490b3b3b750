//! `pruefstein new`: scaffolds an exercise folder that passes `pruefstein check` as generated, for a
//! teacher to change step by step (checking after each step). The templates live in
//! `src/authoring/templates/` and are compiled into the binary.

use std::path::{Path, PathBuf};

use crate::exercise::{EXERCISE_FILE, GraderKind};
use crate::submission::Language;

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

/// The files a consumer scaffold gets for a source language, beside the WAT ones: a solution and a
/// mutant in that language.
fn language_files(language: Language) -> &'static [(&'static str, &'static str)] {
    match language {
        Language::Python => &[
            ("solutions/reference.py", include_str!("templates/consumer/python/solutions/reference.py")),
            (
                "mutants/no-transaction.py",
                include_str!("templates/consumer/python/mutants/no-transaction.py"),
            ),
        ],
        Language::JavaScript => &[
            ("solutions/reference.js", include_str!("templates/consumer/javascript/solutions/reference.js")),
            (
                "mutants/no-transaction.js",
                include_str!("templates/consumer/javascript/mutants/no-transaction.js"),
            ),
        ],
        Language::TypeScript => &[
            ("solutions/reference.ts", include_str!("templates/consumer/typescript/solutions/reference.ts")),
            (
                "mutants/no-transaction.ts",
                include_str!("templates/consumer/typescript/mutants/no-transaction.ts"),
            ),
        ],
    }
}

/// The line of the consumer template after which `languages` goes.
const LANGUAGES_ANCHOR: &str = "mutants = \"mutants\"                     # every module here must fail the check it declares (default)\n";

/// The anchor line followed by the `languages` line for `language`.
fn languages_line(language: Language) -> String {
    format!(
        "{LANGUAGES_ANCHOR}languages = [\"{}\"]                  # source accepted besides modules (default: every language)\n",
        language.name()
    )
}

/// The consumer template's `exercise.toml` for an exercise in `language` only: its reference in
/// that language, the languages it accepts, and comments that speak of source, not of modules.
fn source_only_description(template: &str, language: Language) -> String {
    template
        .replace(LANGUAGES_ANCHOR, &languages_line(language))
        .replace(
            "reference = \"solutions/reference.wat\"   # the oracle",
            &format!("reference = \"solutions/reference.{}\"    # the oracle", language.extension()),
        )
        .replace(ENTRY_LINE_MODULE, ENTRY_LINE_SOURCE)
        .replace(
            "# A consumer exercise: students submit a WebAssembly consumer (ABI v1, graders/consumer/ABI.md) that",
            &format!("# A consumer exercise: students submit a consumer in {} that", language.name()),
        )
}

/// The template's `entry` line, and the same line for source (a function of the message).
const ENTRY_LINE_MODULE: &str =
    "entry = \"verarbeite\"                    # the exported function: no parameters, returns i32 (default)";
const ENTRY_LINE_SOURCE: &str =
    "entry = \"verarbeite\"                    # the function the harness calls with each message (default)";

/// The statement's paragraph on writing the consumer in `language`.
fn statement_paragraph(language: Language, german: bool) -> String {
    match (language, german) {
        (Language::Python, true) => "\nIn Python: `def verarbeite(con, msg)` bekommt eine `sqlite3`-Verbindung `con` und die \
             Nachricht `msg` als `dict`; `True` heißt verarbeitet, `False` schon verarbeitet, eine Ausnahme ist \
             ein Fehler. Starterkit: `graders/consumer/kits/python/`.\n"
            .to_string(),
        (Language::Python, false) => "\nIn Python: `def verarbeite(con, msg)` gets a `sqlite3` connection `con` and the \
             message `msg` as a `dict`; `True` means processed, `False` already processed, an exception is an \
             error. Starter kit: `graders/consumer/kits/python/`.\n"
            .to_string(),
        (Language::JavaScript, true) => "\nIn JavaScript: `export function verarbeite(db, msg)` bekommt eine Datenbank \
             `db` wie `DatabaseSync` aus Nodes `node:sqlite` (`db.prepare(sql).run(...)`, `.get(...)`, \
             `db.transaction(fn)`) und die Nachricht `msg` als Objekt; `true` heißt verarbeitet, `false` schon \
             verarbeitet, ein geworfener Fehler ist ein Fehler. Starterkit: `graders/consumer/kits/javascript/`.\n"
            .to_string(),
        (Language::JavaScript, false) => "\nIn JavaScript: `export function verarbeite(db, msg)` gets a database `db` \
             like `DatabaseSync` of Node's `node:sqlite` (`db.prepare(sql).run(...)`, `.get(...)`, \
             `db.transaction(fn)`) and the message `msg` as an object; `true` means processed, `false` already \
             processed, a thrown error is an error. Starter kit: `graders/consumer/kits/javascript/`.\n"
            .to_string(),
        (Language::TypeScript, true) => "\nIn TypeScript: wie in JavaScript (`export function verarbeite(db: DatabaseSync, \
             msg)` mit `db` wie aus Nodes `node:sqlite`); die Typen werden in der Sandbox entfernt. Starterkit: \
             `graders/consumer/kits/javascript/`.\n"
            .to_string(),
        (Language::TypeScript, false) => "\nIn TypeScript: as in JavaScript (`export function verarbeite(db: DatabaseSync, \
             msg)` with `db` as from Node's `node:sqlite`); the types are stripped in the sandbox. Starter kit: \
             `graders/consumer/kits/javascript/`.\n"
            .to_string(),
    }
}

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
    #[error("a {0} exercise takes no source language: --language is for consumer exercises")]
    LanguageForKind(&'static str),
}

/// Writes a new exercise of `kind` into `dir` (which must not exist or be empty); its slug is the
/// folder's name. Returns the files written, relative to `dir`.
pub fn scaffold(kind: GraderKind, dir: &Path) -> Result<Vec<String>, NewError> {
    scaffold_with(kind, dir, None)
}

/// [`scaffold`], and for a consumer exercise with `language`: an exercise in that language only,
/// without any WebAssembly text: its reference (the oracle) and a mutant in that language, the
/// exercise restricted to it (`[consumer] languages`) and the statement saying how to write it.
pub fn scaffold_with(
    kind: GraderKind,
    dir: &Path,
    language: Option<Language>,
) -> Result<Vec<String>, NewError> {
    if language.is_some() && kind != GraderKind::Consumer {
        return Err(NewError::LanguageForKind(kind.name()));
    }
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
    let mut files: Vec<(&str, String)> = match kind {
        GraderKind::Consumer => CONSUMER_FILES.iter().map(|(p, t)| (*p, (*t).to_string())).collect(),
        GraderKind::Prediction => PREDICTION_FILES.iter().map(|(p, t)| (*p, (*t).to_string())).collect(),
    };
    if let Some(language) = language {
        files.retain(|(path, _)| !path.ends_with(".wat"));
        for (path, text) in &mut files {
            match *path {
                EXERCISE_FILE => *text = source_only_description(text, language),
                "statement.de.md" => text.push_str(&statement_paragraph(language, true)),
                "statement.en.md" => text.push_str(&statement_paragraph(language, false)),
                _ => {}
            }
        }
        files.extend(language_files(language).iter().map(|(p, t)| (*p, (*t).to_string())));
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| NewError::Io { path, source }
    };
    let mut written = Vec::new();
    for (relative, template) in &files {
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
