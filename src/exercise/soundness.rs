//! The soundness table of an exercise: `pruefstein check` and the hot reload prove with it that the
//! reference passes and every mutant fails the check it declares. Each grader kind fills it
//! ([`super::Grader::check`]); the table and its rendering are the same for all.

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
    /// What is sound but suspicious (a mutant that fails for another reason than it declares): a
    /// problem under `--strict`.
    pub warnings: Vec<String>,
}

impl Soundness {
    pub fn sound(&self) -> bool {
        self.problems.is_empty() && self.rows.iter().all(|r| r.ok)
    }

    /// Sound, and without warnings (`pruefstein check --strict`).
    pub fn sound_strictly(&self) -> bool {
        self.sound() && self.warnings.is_empty()
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
        for warning in &self.warnings {
            let _ = writeln!(out, "warning: {warning}");
        }
        let _ = writeln!(out, "{}", if self.sound() { "exercise is sound" } else { "exercise is NOT sound" });
        out
    }
}
