//! The soundness table of an exercise: `pruefstein check` and the hot reload prove with it that the
//! reference passes and every mutant fails the check it declares. Each grader kind fills it
//! ([`super::Grader::check`]); the table and its rendering are the same for all.

/// One line of the soundness table.
#[derive(Debug, Clone)]
pub struct SoundnessRow {
    /// The solution's file, relative to the exercise folder.
    pub file: String,
    /// `pass` for solutions that must pass, else the check the mutant must fail, or
    /// `invariant <name>` for a mutant that must break one of the exercise's invariants.
    pub expect: String,
    /// The checks that failed when it was graded.
    pub failed_checks: Vec<String>,
    /// The exercise's invariants that states read while it was graded violated (consumer
    /// exercises with `[[consumer.invariants]]`; empty elsewhere).
    pub violated_invariants: Vec<String>,
    pub ok: bool,
    pub note: String,
}

impl SoundnessRow {
    /// What the row's `expect` says of a mutant that must break the invariant `name`.
    pub fn expects_invariant(name: &str) -> String {
        format!("{INVARIANT_PREFIX}{name}")
    }

    /// The invariant an `expect-fail:` declaration (`invariant <name>`) names, if it names one.
    pub fn expects_invariant_named(declaration: &str) -> Option<&str> {
        declaration.strip_prefix(INVARIANT_PREFIX).map(str::trim)
    }

    /// The invariant this row's mutant must break, if it declares one.
    pub fn expected_invariant(&self) -> Option<&str> {
        Self::expects_invariant_named(&self.expect)
    }
}

/// How a row's `expect` names an invariant rather than a check.
const INVARIANT_PREFIX: &str = "invariant ";

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
                failed_and_violated(row),
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

/// A row's failed checks, then the invariants it broke (`crash-points; invariant mail-einmal`).
fn failed_and_violated(row: &SoundnessRow) -> String {
    let mut parts = Vec::new();
    if !row.failed_checks.is_empty() {
        parts.push(row.failed_checks.join(", "));
    }
    parts.extend(row.violated_invariants.iter().map(|name| SoundnessRow::expects_invariant(name)));
    if parts.is_empty() { "-".to_string() } else { parts.join("; ") }
}
