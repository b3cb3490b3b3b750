//! `pruefstein check`: proves an exercise sound. The reference must pass, and every mutant must fail
//! the check it declares; each grader adds its own validations (script limits, variants, ...).

use crate::exercise::{Exercise, ExerciseKind};

/// One line of the soundness table.
#[derive(Debug, Clone)]
pub struct SoundnessRow {
    /// The solution's file, relative to the exercise folder.
    pub file: String,
    /// `pass` for solutions that must pass, else the check the mutant must fail.
    pub expect: String,
    /// The checks that failed when it was graded.
    pub failed_checks: Vec<String>,
    pub ok: bool,
    pub note: String,
}

#[derive(Debug, Clone, Default)]
pub struct Soundness {
    pub rows: Vec<SoundnessRow>,
    /// Problems found outside the table (file and line where known).
    pub problems: Vec<String>,
}

impl Soundness {
    pub fn sound(&self) -> bool {
        self.problems.is_empty() && self.rows.iter().all(|r| r.ok)
    }

    /// Mutants caught / mutants.
    pub fn mutants_caught(&self) -> (usize, usize) {
        let mutants: Vec<_> = self.rows.iter().filter(|r| r.expect != "pass").collect();
        (mutants.iter().filter(|r| r.ok).count(), mutants.len())
    }

    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let width = self.rows.iter().map(|r| r.file.len()).max().unwrap_or(4).max(4);
        if !self.rows.is_empty() {
            let _ = writeln!(out, "{:<width$}  {:<28}  {:<4}  failed checks", "file", "expected", "ok");
        }
        for row in &self.rows {
            let _ = writeln!(
                out,
                "{:<width$}  {:<28}  {:<4}  {}{}",
                row.file,
                row.expect,
                if row.ok { "yes" } else { "NO" },
                if row.failed_checks.is_empty() { "-".to_string() } else { row.failed_checks.join(", ") },
                if row.note.is_empty() { String::new() } else { format!("  ({})", row.note) },
            );
        }
        let (caught, total) = self.mutants_caught();
        if let Some(percent) = (caught * 100).checked_div(total) {
            let _ = writeln!(out, "mutants caught: {caught}/{total} ({percent}%)");
        }
        for problem in &self.problems {
            let _ = writeln!(out, "problem: {problem}");
        }
        let _ = writeln!(out, "{}", if self.sound() { "exercise is sound" } else { "exercise is NOT sound" });
        out
    }
}

pub fn check_exercise(exercise: &Exercise) -> Soundness {
    match &exercise.kind {
        ExerciseKind::Consumer(consumer) => crate::consumer::check(exercise, consumer),
        ExerciseKind::Prediction(prediction) => crate::prediction::check(exercise, prediction),
    }
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
