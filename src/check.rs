//! `pruefstein check`: proves an exercise sound. The reference must pass, and every mutant must fail
//! the check it declares; each grader adds its own validations (script limits, variants, ...).

use crate::exercise::{Exercise, Soundness};

/// Proves a loaded exercise sound, with the checks of its grader kind.
pub fn check_exercise(exercise: &Exercise) -> Soundness {
    exercise.grader.check(exercise)
}

/// Checks the exercise folder `dir`: first what can be found without loading it (the description
/// file, both statements), each problem on its own line with its file; then loads it (a problem names
/// its file and, where it has one, its line and column) and proves it sound.
pub fn check_dir(dir: &std::path::Path) -> Soundness {
    let mut soundness = Soundness::default();
    if !dir.is_dir() {
        soundness.problems.push(format!("{}: no such folder", dir.display()));
        return soundness;
    }
    for file in [crate::exercise::EXERCISE_FILE, "statement.de.md", "statement.en.md"] {
        let path = dir.join(file);
        if !path.is_file() {
            soundness.problems.push(format!(
                "{}: missing; every exercise has {} (`pruefstein new` writes a template of each)",
                path.display(),
                ["exercise.toml", "statement.de.md", "statement.en.md"].join(", ")
            ));
        }
    }
    if !soundness.problems.is_empty() {
        return soundness;
    }
    // Every TOML syntax error at once (loading stops at the first).
    let toml_path = dir.join(crate::exercise::EXERCISE_FILE);
    if let Ok(source) = std::fs::read_to_string(&toml_path) {
        let (_, errors) = toml::de::DeTable::parse_recoverable(&source);
        for error in errors {
            let (line, column) =
                crate::exercise::line_column(&source, error.span().map_or(0, |span| span.start));
            soundness.problems.push(format!(
                "{}:{line}:{column}: {}",
                toml_path.display(),
                error.message().trim()
            ));
        }
        if !soundness.problems.is_empty() {
            return soundness;
        }
    }
    match crate::graders::load(dir) {
        Ok(exercise) => {
            let mut soundness = check_exercise(&exercise);
            let folder =
                dir.canonicalize().ok().and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
            if let Some(folder) = folder.filter(|folder| *folder != exercise.slug) {
                soundness.problems.insert(
                    0,
                    crate::exercise::error_at_key(
                        dir,
                        &[&["slug"]],
                        format!(
                            "slug {:?} differs from the folder's name {folder:?}: the folder's name is the slug \
                             (rename the folder or change the slug)",
                            exercise.slug
                        ),
                    )
                    .to_string(),
                );
            }
            soundness.warnings.extend(statement_warnings(dir, &exercise));
            soundness
        }
        Err(error) => {
            soundness.problems.push(error.to_string());
            soundness
        }
    }
}

/// Warnings about the statements: an English statement that is the German one copied, or reads as
/// German.
fn statement_warnings(dir: &std::path::Path, exercise: &Exercise) -> Vec<String> {
    let en = &exercise.statement.en;
    let path = dir.join("statement.en.md");
    if en.trim() == exercise.statement.de.trim() {
        return vec![format!(
            "{}:1:1: the English statement is a copy of statement.de.md; students who read English get German",
            path.display()
        )];
    }
    match german_line(en) {
        Some(line) => vec![format!(
            "{}:{line}:1: the English statement reads as German from this line on; translate it (German belongs \
             in statement.de.md)",
            path.display()
        )],
        None => Vec::new(),
    }
}

/// Words frequent in German prose and rare in English prose.
const GERMAN_WORDS: [&str; 16] = [
    "der", "die", "das", "und", "nicht", "ist", "ein", "eine", "mit", "für", "wird", "auf", "dem", "den",
    "zu", "sich",
];
/// Words frequent in English prose.
const ENGLISH_WORDS: [&str; 10] = ["the", "and", "is", "not", "a", "with", "for", "to", "of", "it"];

/// The first line of `text` from which it reads as German (more German than English words, and at
/// least a few), if it does as a whole.
fn german_line(text: &str) -> Option<usize> {
    let count = |text: &str, words: &[&str]| {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| words.iter().any(|g| g.eq_ignore_ascii_case(w)))
            .count()
    };
    let (german, english) = (count(text, &GERMAN_WORDS), count(text, &ENGLISH_WORDS));
    if german < 5 || german <= english {
        return None;
    }
    text.lines().position(|line| count(line, &GERMAN_WORDS) > count(line, &ENGLISH_WORDS)).map(|i| i + 1)
}
