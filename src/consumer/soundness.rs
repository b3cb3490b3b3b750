//! `pruefstein check` for a consumer exercise: the reference and every solution pass, every mutant
//! fails the check it declares (its `expect-fail:` line).

use std::path::Path;

use super::exercise::ConsumerExercise;
use super::harness::Check;
use super::oracle::oracle;
use crate::exercise::{Exercise, GradeError, GradeOptions, Soundness, SoundnessRow};
use crate::report::{Report, Verdict};
use crate::submission::Submission;

/// The line in a mutant that declares the check it must fail: `;; expect-fail: <check>`
/// (or `// expect-fail: <check>` in C and AssemblyScript sources).
pub const EXPECT_FAIL_MARK: &str = "expect-fail:";

/// The check a source line declares (`;; expect-fail: <check>`, `// …`, `/* … */`), if it does.
pub fn expect_fail_on_line(line: &str) -> Option<&str> {
    line.split_once(EXPECT_FAIL_MARK).map(|(_, rest)| rest.trim().trim_end_matches("*/").trim_end())
}

/// The check a mutant declares, with the line it is on.
fn declared_check(path: &Path) -> Result<(String, usize), String> {
    let sidecar = path
        .with_extension(format!("{}.expect", path.extension().and_then(|e| e.to_str()).unwrap_or_default()));
    let (source, file) = if path.extension().is_some_and(|e| e == "wasm") {
        (std::fs::read_to_string(&sidecar).map_err(|e| format!("{}: {e}", sidecar.display()))?, sidecar)
    } else {
        (std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?, path.to_path_buf())
    };
    for (index, line) in source.lines().enumerate().take(40) {
        if let Some(name) = expect_fail_on_line(line) {
            let check: Check = name.parse().map_err(|e| format!("{}:{}: {e}", file.display(), index + 1))?;
            return Ok((check.name().to_string(), index + 1));
        }
    }
    Err(format!(
        "{}: a mutant must declare the check it fails with a line \"{EXPECT_FAIL_MARK} <check>\" near the top",
        file.display()
    ))
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

/// Proves a consumer exercise sound: the reference and every solution pass; every mutant fails the
/// check it declares.
pub fn check(exercise: &Exercise, consumer: &ConsumerExercise) -> Soundness {
    let mut soundness = Soundness::default();
    let reference_key: [&[&str]; 2] = [&["consumer", "reference"], &["consumer"]];
    if let Err(error) = oracle(exercise, consumer) {
        let message = match error {
            GradeError::Exercise { message, .. } => message,
            other => other.to_string(),
        };
        // A rule about one message points at that message; anything else at the reference.
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
        let candidates: Vec<&[&str]> = message_key.into_iter().chain(reference_key).collect();
        soundness
            .problems
            .push(crate::exercise::error_at_key(&exercise.dir, &candidates, message).to_string());
        return soundness;
    }
    let relative = |p: &Path| p.strip_prefix(&exercise.dir).unwrap_or(p).display().to_string();
    let options = GradeOptions::default();
    let mut solutions = vec![consumer.reference_path.clone()];
    for file in module_files(&consumer.solutions_dir) {
        if !solutions.contains(&file) {
            solutions.push(file);
        }
    }
    for file in solutions {
        let is_reference = file == consumer.reference_path;
        let row = match grade_file(exercise, consumer, &file, &options) {
            Ok(report) => {
                let failed: Vec<String> = report.failed_checks().map(|c| c.name.clone()).collect();
                let note = report.rejection.as_ref().map(|r| r.message.en.clone()).unwrap_or_default();
                if report.verdict != Verdict::Passed {
                    let why = match (&report.rejection, report.failed_checks().next()) {
                        (Some(rejection), _) => format!("it is rejected: {}", rejection.message.en),
                        (None, Some(first)) => format!(
                            "it fails {}; {}: {}",
                            failed.join(", "),
                            first.name,
                            first.failure.as_ref().map(|f| f.en.as_str()).unwrap_or("")
                        ),
                        (None, None) => "it does not pass".into(),
                    };
                    let problem = if is_reference {
                        crate::exercise::error_at_key(
                            &exercise.dir,
                            &reference_key,
                            format!(
                                "the reference solution {} must pass every check, but {why}",
                                relative(&file)
                            ),
                        )
                        .to_string()
                    } else {
                        format!("{}: a solution must pass every check, but {why}", relative(&file))
                    };
                    soundness.problems.push(problem);
                }
                SoundnessRow {
                    file: relative(&file),
                    expect: "pass".into(),
                    ok: report.verdict == Verdict::Passed,
                    failed_checks: failed,
                    note,
                }
            }
            Err(error) => {
                soundness.problems.push(format!("{}: {error}", relative(&file)));
                SoundnessRow {
                    file: relative(&file),
                    expect: "pass".into(),
                    failed_checks: vec![],
                    ok: false,
                    note: error,
                }
            }
        };
        soundness.rows.push(row);
    }
    let mutants = module_files(&consumer.mutants_dir);
    if mutants.is_empty() {
        soundness.problems.push(format!(
            "{}: no mutants; add wrong solutions that prove the checks catch mistakes",
            relative(&consumer.mutants_dir)
        ));
    }
    for file in mutants {
        let (declared, line) = match declared_check(&file) {
            Ok(found) => found,
            Err(problem) => {
                soundness.problems.push(problem);
                continue;
            }
        };
        let declared_at = if file.extension().is_some_and(|e| e == "wasm") {
            format!("{}.expect:{line}", relative(&file))
        } else {
            format!("{}:{line}", relative(&file))
        };
        let row = match grade_file(exercise, consumer, &file, &options) {
            Ok(report) => {
                let failed: Vec<String> = report.failed_checks().map(|c| c.name.clone()).collect();
                let note = report
                    .rejection
                    .as_ref()
                    .map(|r| format!("rejected: {}", r.message.en))
                    .unwrap_or_default();
                let ok = failed.contains(&declared);
                if !ok {
                    let problem = match (&report.rejection, failed.is_empty()) {
                        (Some(rejection), _) => format!(
                            "{declared_at}: the mutant is rejected before any check runs ({}), so it cannot \
                             prove {declared}",
                            rejection.message.en
                        ),
                        (None, true) => format!(
                            "{declared_at}: declares \"{EXPECT_FAIL_MARK} {declared}\", but the mutant passes \
                             every check: it proves nothing. Make it wrong in the way {declared} catches"
                        ),
                        (None, false) => format!(
                            "{declared_at}: declares \"{EXPECT_FAIL_MARK} {declared}\", but the mutant fails \
                             only {}: declare one of those, or change the mutant",
                            failed.join(", ")
                        ),
                    };
                    soundness.problems.push(problem);
                }
                SoundnessRow { file: relative(&file), ok, expect: declared, failed_checks: failed, note }
            }
            Err(error) => {
                soundness.problems.push(format!("{}: {error}", relative(&file)));
                SoundnessRow {
                    file: relative(&file),
                    expect: declared,
                    failed_checks: vec![],
                    ok: false,
                    note: error,
                }
            }
        };
        soundness.rows.push(row);
    }
    soundness
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
    super::grade(exercise, consumer, &submission, options).map_err(|e| e.to_string())
}
