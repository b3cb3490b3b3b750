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
    match Exercise::load(dir) {
        Ok(exercise) => check_exercise(&exercise),
        Err(error) => {
            soundness.problems.push(error.to_string());
            soundness
        }
    }
}
