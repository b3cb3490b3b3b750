//! `pruefstein check` for a consumer exercise: the reference and every solution pass, every mutant
//! fails the check it declares (its `expect-fail:` line).

use std::path::Path;

use super::checks::Check;
use super::exercise::ConsumerExercise;
use super::harness::oracle::oracle;
use crate::exercise::{Exercise, GradeError, GradeOptions, Soundness, SoundnessRow};
use crate::report::{Report, Verdict};
use crate::submission::Submission;

/// The line in a mutant that declares the check it must fail: `;; expect-fail: <check>`
/// (or `// expect-fail: <check>` in C and AssemblyScript sources), or the exercise's invariant a
/// state it leaves must violate: `# expect-fail: invariant <name>`.
pub const EXPECT_FAIL_MARK: &str = "expect-fail:";

/// The check a source line declares (`;; expect-fail: <check>`, `// …`, `/* … */`), if it does.
pub fn expect_fail_on_line(line: &str) -> Option<&str> {
    line.split_once(EXPECT_FAIL_MARK).map(|(_, rest)| rest.trim().trim_end_matches("*/").trim_end())
}

/// What a mutant declares it fails, in a soundness row's words (a check's name, or
/// `invariant <name>` for one of the exercise's invariants), with the line it is on.
fn declared_check(path: &Path, consumer: &ConsumerExercise) -> Result<(String, usize), String> {
    let sidecar = path
        .with_extension(format!("{}.expect", path.extension().and_then(|e| e.to_str()).unwrap_or_default()));
    let (source, file) = if path.extension().is_some_and(|e| e == "wasm") {
        (std::fs::read_to_string(&sidecar).map_err(|e| format!("{}: {e}", sidecar.display()))?, sidecar)
    } else {
        (std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?, path.to_path_buf())
    };
    for (index, line) in source.lines().enumerate().take(40) {
        if let Some(name) = expect_fail_on_line(line) {
            let at = |e: String| format!("{}:{}: {e}", file.display(), index + 1);
            let declared = match SoundnessRow::expects_invariant_named(name) {
                Some(invariant) => declared_invariant(invariant, consumer).map_err(at)?,
                None => name.parse::<Check>().map_err(|e| at(e.to_string()))?.name().to_string(),
            };
            return Ok((declared, index + 1));
        }
    }
    Err(format!(
        "{}: a mutant must declare the check it fails with a line \"{EXPECT_FAIL_MARK} <check>\" near the top",
        file.display()
    ))
}

/// `invariant <name>` for an invariant the exercise declares.
fn declared_invariant(name: &str, consumer: &ConsumerExercise) -> Result<String, String> {
    if consumer.invariants.iter().any(|i| i.name == name) {
        return Ok(SoundnessRow::expects_invariant(name));
    }
    let declared: Vec<&str> = consumer.invariants.iter().map(|i| i.name.as_str()).collect();
    Err(if declared.is_empty() {
        format!("the exercise declares no invariant, so no mutant can break {name:?}")
    } else {
        format!("no invariant {name:?} in [[consumer.invariants]] (declared: {})", declared.join(", "))
    })
}

/// What a graded mutant fails, in a soundness row's words: its failed checks, then the
/// exercise's invariants a state it left violated (each once, in the order of the checks).
fn failed_and_violated(report: &Report) -> (Vec<String>, Vec<String>) {
    let failed: Vec<String> = report.failed_checks().map(|c| c.name.clone()).collect();
    let mut violated: Vec<String> = Vec::new();
    for check in &report.checks {
        if let crate::report::CheckDetail::Consumer(detail) = &check.detail
            && let Some(name) = &detail.invariant
            && !violated.contains(name)
        {
            violated.push(name.clone());
        }
    }
    (failed, violated)
}

/// Submission files in `dir`, sorted: modules (`.wat`, `.wasm`) and sources in a language the
/// consumer grader interprets (`.py`).
fn module_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                e == "wat" || e == "wasm" || crate::submission::Language::from_extension(e).is_some()
            })
        })
        .collect();
    files.sort();
    files
}

/// The keys a problem with the reference points at, the first one written.
const REFERENCE_KEY: [&[&str]; 2] = [&["consumer", "reference"], &["consumer"]];

/// Proves a consumer exercise sound: the reference and every solution pass; every mutant fails the
/// check it declares. Warns where a mutant fails for another reason than the one it declares (it
/// fails the fresh message's effect) or where no check tells the mistakes apart.
pub fn check(exercise: &Exercise, consumer: &ConsumerExercise) -> Soundness {
    let mut soundness = Soundness::default();
    let oracle = match oracle(exercise, consumer) {
        Ok(oracle) => oracle,
        Err(error) => {
            soundness.problems.push(oracle_problem(exercise, error));
            return soundness;
        }
    };
    if let Some(problem) = pinned_state_problem(exercise, consumer, &oracle.states.after_fresh) {
        soundness.problems.push(problem);
    }
    let roles = consumer.roles(&oracle.states.after_fresh);
    let effects = roles.names(crate::report::roles::Role::Effect);
    check_solutions(exercise, consumer, &mut soundness);
    check_mutants(exercise, consumer, &effects, &mut soundness);
    soundness
}

/// Where a broken oracle's problem points: a rule about one message at that message, anything
/// else at the reference.
fn oracle_problem(exercise: &Exercise, error: GradeError) -> String {
    let message = match error {
        GradeError::Exercise { message, .. } => message,
        other => other.to_string(),
    };
    let message_key: Option<&[&str]> = if message.contains("violation message") {
        Some(&["consumer", "messages", "violation"])
    } else if message.contains("same_body") {
        Some(&["consumer", "messages", "same_body"])
    } else if message.contains("fresh message") {
        Some(&["consumer", "messages", "fresh"])
    } else if message.contains("batch message") || message.contains("reports an error for") {
        Some(&["consumer", "messages", "batch"])
    } else {
        None
    };
    let candidates: Vec<&[&str]> = message_key.into_iter().chain(REFERENCE_KEY).collect();
    crate::exercise::error_at_key(&exercise.dir, &candidates, message).to_string()
}

/// The teacher's pinned state after the fresh message against the oracle's, query by query.
fn pinned_state_problem(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    after_fresh: &super::state::State,
) -> Option<String> {
    let pinned = consumer.expect_after_fresh.as_ref()?;
    let oracle: super::state::State = after_fresh
        .iter()
        .filter(|(name, _)| pinned.contains_key(*name))
        .map(|(n, r)| (n.clone(), r.clone()))
        .collect();
    let diff = super::state::diff(&oracle, pinned);
    let first = diff.first()?;
    let rows = |rows: &[crate::report::state::Row]| {
        let rows: Vec<String> = rows
            .iter()
            .map(|row| format!("({})", row.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")))
            .collect();
        if rows.is_empty() { "nothing".to_string() } else { rows.join(", ") }
    };
    let message = format!(
        "after the fresh message the reference solution {} leaves in {} {} where [consumer.expect] pins {}: \
         the reference (or the pinned state) is wrong",
        consumer.reference_path.strip_prefix(&exercise.dir).unwrap_or(&consumer.reference_path).display(),
        first.table,
        rows(&first.unexpected),
        rows(&first.missing),
    );
    let key: [&[&str]; 3] = [
        &["consumer", "expect", "after_fresh", first.table.as_str()],
        &["consumer", "expect"],
        &["consumer"],
    ];
    Some(crate::exercise::error_at_key(&exercise.dir, &key, message).to_string())
}

fn relative(exercise: &Exercise, path: &Path) -> String {
    path.strip_prefix(&exercise.dir).unwrap_or(path).display().to_string()
}

/// The reference and every file in the solutions folder must pass every check.
fn check_solutions(exercise: &Exercise, consumer: &ConsumerExercise, soundness: &mut Soundness) {
    let options = GradeOptions::default();
    let mut solutions = vec![consumer.reference_path.clone()];
    for file in module_files(&consumer.solutions_dir) {
        if !solutions.contains(&file) {
            solutions.push(file);
        }
    }
    for file in solutions {
        let is_reference = file == consumer.reference_path;
        let name = relative(exercise, &file);
        let row = match grade_file(exercise, consumer, &file, &options) {
            Ok(report) => {
                let (failed, violated) = failed_and_violated(&report);
                let note = report.rejection.as_ref().map(|r| r.message.en.clone()).unwrap_or_default();
                if report.verdict != Verdict::Passed {
                    let why = match (&report.rejection, report.failed_checks().next()) {
                        (Some(rejection), _) => match located(&name, &rejection.message.en) {
                            (Some(line), text) => format!("it is rejected at {name}:{line}: {text}"),
                            (None, text) => format!("it is rejected: {text}"),
                        },
                        (None, Some(first)) => format!(
                            "it fails {}; {}: {}",
                            failed.join(", "),
                            first.name,
                            first.failure.as_ref().map(|f| f.en.as_str()).unwrap_or("")
                        ),
                        (None, None) => "it does not pass".into(),
                    };
                    soundness.problems.push(if is_reference {
                        crate::exercise::error_at_key(
                            &exercise.dir,
                            &REFERENCE_KEY,
                            format!("the reference solution {name} must pass every check, but {why}"),
                        )
                        .to_string()
                    } else {
                        format!("{name}: a solution must pass every check, but {why}")
                    });
                }
                let ok = report.verdict == Verdict::Passed;
                SoundnessRow {
                    file: name,
                    expect: "pass".into(),
                    ok,
                    failed_checks: failed,
                    violated_invariants: violated,
                    note,
                }
            }
            Err(error) => {
                soundness.problems.push(format!("{name}: {error}"));
                SoundnessRow {
                    file: name,
                    expect: "pass".into(),
                    failed_checks: vec![],
                    violated_invariants: vec![],
                    ok: false,
                    note: error,
                }
            }
        };
        soundness.rows.push(row);
    }
}

/// Every mutant must fail the check it declares; a mutant whose declaration is unreadable is a row
/// that is not caught, so the share of mutants caught never leaves it out.
fn check_mutants(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    effects: &[String],
    soundness: &mut Soundness,
) {
    let mutants = module_files(&consumer.mutants_dir);
    if mutants.is_empty() {
        soundness.problems.push(format!(
            "{}: no mutants; add wrong solutions that prove the checks catch mistakes",
            relative(exercise, &consumer.mutants_dir)
        ));
    }
    let mut fails_everything = 0;
    for file in &mutants {
        let name = relative(exercise, file);
        let (declared, line) = match declared_check(file, consumer) {
            Ok(found) => found,
            Err(problem) => {
                soundness.problems.push(problem);
                let expect = UNDECLARED.to_string();
                soundness.rows.push(SoundnessRow {
                    file: name,
                    expect,
                    failed_checks: vec![],
                    violated_invariants: vec![],
                    ok: false,
                    note: String::new(),
                });
                continue;
            }
        };
        let declared_at = if file.extension().is_some_and(|e| e == "wasm") {
            format!("{name}.expect:{line}")
        } else {
            format!("{name}:{line}")
        };
        let row = match grade_file(exercise, consumer, file, &GradeOptions::default()) {
            Ok(report) => {
                let row = graded_mutant_row(&report, (name, declared, &declared_at), effects, soundness);
                if report.rejection.is_none() && row.failed_checks.len() == report.checks.len() {
                    fails_everything += 1;
                }
                row
            }
            Err(error) => {
                soundness.problems.push(format!("{name}: {error}"));
                SoundnessRow {
                    file: name,
                    expect: declared,
                    failed_checks: vec![],
                    violated_invariants: vec![],
                    ok: false,
                    note: error,
                }
            }
        };
        soundness.rows.push(row);
    }
    if mutants.len() > 1 && fails_everything == mutants.len() {
        soundness.warnings.push(
            crate::exercise::error_at_key(
                &exercise.dir,
                &REFERENCE_KEY,
                format!(
                    "every mutant fails every check: the checks do not tell the mistakes apart, which happens when \
                     the reference is wrong (the mutants are then right where it is not); pin the state after the \
                     fresh message in [consumer.expect] after_fresh to prove the reference, or make each mutant \
                     wrong in one way ({} mutants)",
                    mutants.len()
                ),
            )
            .to_string(),
        );
    }
}

/// The row of a graded mutant that declares `declared` (at `declared_at`); why it does not prove
/// its declaration goes to the problems, a suspicious reason to the warnings.
fn graded_mutant_row(
    report: &Report,
    (name, declared, declared_at): (String, String, &str),
    effects: &[String],
    soundness: &mut Soundness,
) -> SoundnessRow {
    let (failed, violated) = failed_and_violated(report);
    let broken: Vec<String> = failed
        .iter()
        .cloned()
        .chain(violated.iter().map(|name| SoundnessRow::expects_invariant(name)))
        .collect();
    let ok = broken.contains(&declared);
    if let Some(problem) = mutant_problem(report, (&name, &declared, declared_at), &broken) {
        soundness.problems.push(problem);
    } else if let Some(warning) = wrong_reason(report, &declared, declared_at, effects) {
        soundness.warnings.push(warning);
    }
    let note = report
        .rejection
        .as_ref()
        .map(|r| format!("rejected: {}", located(&name, &r.message.en).1))
        .unwrap_or_default();
    SoundnessRow {
        file: name,
        ok,
        expect: declared,
        failed_checks: failed,
        violated_invariants: violated,
        note,
    }
}

/// What a soundness row's `expect` says for a mutant without a readable declaration.
const UNDECLARED: &str = "(no known check)";

/// The line of the file `name` a rejection of its source speaks of, and the rejection in the
/// teacher's file's words: the interpreter calls every submission `consumer.py` (or `.js`), and a
/// Python traceback's last line is the error.
fn located(name: &str, message: &str) -> (Option<usize>, String) {
    let number = |rest: &str| rest.split(|c: char| !c.is_ascii_digit()).next().and_then(|n| n.parse().ok());
    for guest in ["consumer.py", "consumer.js"] {
        let python = format!("File \"{guest}\", line ");
        if let Some(at) = message.rfind(&python) {
            let line = number(&message[at + python.len()..]);
            let first = message.lines().next().unwrap_or_default();
            let first = first.split("Traceback").next().unwrap_or(first).trim();
            let error = message.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().trim();
            return (line, format!("{first} {error}"));
        }
        let javascript = format!("at {guest}:");
        if let Some(at) = message.rfind(&javascript) {
            let line = number(&message[at + javascript.len()..]);
            let text = message.replace(&format!("\n    {javascript}"), " at line ").replace(guest, name);
            return (line, text);
        }
    }
    (None, message.to_string())
}

/// Why a mutant does not prove the check it declares, if it does not.
fn mutant_problem(
    report: &Report,
    (name, declared, declared_at): (&str, &str, &str),
    failed: &[String],
) -> Option<String> {
    if failed.iter().any(|f| f == declared) {
        return None;
    }
    Some(match (&report.rejection, failed.is_empty()) {
        (Some(rejection), _) => {
            let (line, text) = located(name, &rejection.message.en);
            let at = line.map_or_else(|| declared_at.to_string(), |line| format!("{name}:{line}"));
            format!(
                "{at}: the mutant is rejected before any check runs ({text}), so it cannot prove {declared}"
            )
        }
        (None, true) => format!(
            "{declared_at}: declares \"{EXPECT_FAIL_MARK} {declared}\", but the mutant passes every check: it proves \
             nothing. Make it wrong in the way {declared} catches"
        ),
        (None, false) => format!(
            "{declared_at}: declares \"{EXPECT_FAIL_MARK} {declared}\", but the mutant fails only {}: declare one of \
             those, or change the mutant",
            failed.join(", ")
        ),
    })
}

/// A warning when a mutant that declares another check fails the fresh message for a reason
/// other than the ids it remembers: its effect differs from the reference's, or it does not even
/// process the message. Either the mutant is wrong in a second way, or the reference is wrong.
fn wrong_reason(report: &Report, declared: &str, declared_at: &str, effects: &[String]) -> Option<String> {
    let fresh = Check::FreshMessage.name();
    if declared == fresh {
        return None;
    }
    let check = report.checks.iter().find(|c| c.name == fresh && !c.passed && !c.not_run)?;
    let crate::report::CheckDetail::Consumer(detail) = &check.detail else { return None };
    let effect_differs = match &detail.state {
        Some(evidence) => evidence.diff.iter().any(|d| effects.contains(&d.table)),
        None => true,
    };
    effect_differs.then(|| {
        format!(
            "{declared_at}: declares \"{EXPECT_FAIL_MARK} {declared}\", but the mutant also fails {fresh}: its \
             effect of the fresh message differs from the reference's ({}). Either the mutant is wrong in a \
             second way, or the reference is wrong; pin the state after the fresh message in [consumer.expect] \
             after_fresh to tell which",
            check.failure.as_ref().map(|f| f.en.trim_end_matches('.')).unwrap_or("no reason given")
        )
    })
}

fn grade_file(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    file: &Path,
    options: &GradeOptions,
) -> Result<Report, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let language =
        file.extension().and_then(|e| e.to_str()).and_then(crate::submission::Language::from_extension);
    let submission = match language {
        None => Submission::Module(bytes),
        Some(language) => Submission::Source {
            language,
            text: String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", file.display()))?,
        },
    };
    super::grading::grade(exercise, consumer, &submission, options).map_err(|e| e.to_string())
}
