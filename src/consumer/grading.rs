//! One grade of a consumer submission: compile it, run every check against the oracle, build the
//! report and diagnose it.

use super::checks::Check;
use super::checks::catalogue;
use super::diagnose;
use super::exercise::ConsumerExercise;
use super::harness::oracle::{keep_oracle, oracle};
use super::harness::replay::{REPLAY_HASH_CHARS, ReplayToken};
use super::harness::{CheckEnd, CheckResult, Harness};
use super::interpreter;
use super::process::{self, CompiledConsumer};
use crate::deadline::Deadline;
use crate::exercise::{Exercise, GradeError, GradeOptions, GraderKind};
use crate::report::{CheckDetail, CheckReport, Coverage, REPORT_FORMAT, Rejection, Report, Score, Verdict};
use crate::submission::Submission;
use crate::text;
use crate::text::Text;

/// The placeholder for the submitted file in a replay command: a module, or a source file with its
/// language's extension.
fn replay_file(submission: &Submission) -> String {
    match submission {
        Submission::Source { language, .. } => format!("<consumer.{}>", language.extension()),
        _ => "<module.wasm>".to_string(),
    }
}

fn report_base(exercise: &Exercise, submission: &Submission) -> Report {
    Report {
        format: REPORT_FORMAT,
        exercise: exercise.slug.clone(),
        grader: GraderKind::Consumer,
        submission_sha256: submission.sha256(),
        learner: None,
        verdict: Verdict::Rejected,
        score: Score { points: 0, max: exercise.points },
        summary: Text::default(),
        rejection: None,
        checks: Vec::new(),
        coverage: Vec::new(),
        replay: None,
        source: None,
        diagnosis: None,
    }
}

fn rejected(exercise: &Exercise, submission: &Submission, rejection: Rejection) -> Report {
    Report {
        summary: text!(
            "Die Einreichung konnte nicht bewertet werden.",
            "The submission could not be graded."
        ),
        rejection: Some(rejection),
        ..report_base(exercise, submission)
    }
}

/// Grades a consumer module against `consumer`, on a thread with room for the submission's wasm
/// stack (a source reference that must run gets a thread with room for its own).
pub fn grade(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Report, GradeError> {
    crate::sandbox::with_stack(wasm_stack_for(exercise, submission), || {
        grade_here(exercise, consumer, submission, options)
    })
    .map_err(GradeError::Internal)?
}

/// The wasm stack a submission's instances get: the exercise's, or the interpreter's when that is
/// larger (an interpreter's frames are larger than a compiled module's).
fn wasm_stack_for(exercise: &Exercise, submission: &Submission) -> usize {
    match submission {
        Submission::Source { .. } => {
            exercise.limits.wasm_stack_bytes.max(crate::limits::INTERPRETER_WASM_STACK_BYTES)
        }
        _ => exercise.limits.wasm_stack_bytes,
    }
}

/// The submission compiled (or the rejection to report when it cannot be, or the report of a
/// submission this exercise does not take).
fn compile_submission(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Result<Result<CompiledConsumer, Rejection>, Box<Report>>, GradeError> {
    // An interpreter guest runs on its own engine, with its compiler and deeper stack, which maps
    // each instance (see `interpreter::engine`); a module on the exercise's engine, pooled where it
    // fits.
    let engine = match submission {
        Submission::Source { .. } => super::interpreter::engine(wasm_stack_for(exercise, submission)),
        _ => crate::sandbox::engine_for(options.compiler, &exercise.limits),
    }
    .map_err(GradeError::Internal)?;
    let compiled = match submission {
        Submission::Module(bytes) => {
            CompiledConsumer::compile(engine, bytes, &exercise.limits, &consumer.entry)
        }
        Submission::Source { language, .. } if !consumer.languages.contains(language) => {
            return Ok(Err(Box::new(rejected(
                exercise,
                submission,
                Rejection {
                    code: "language-not-accepted".into(),
                    message: language.not_accepted(&consumer.languages),
                },
            ))));
        }
        Submission::Source { language, text } => CompiledConsumer::compile_source_in(
            engine,
            (*language, text),
            &exercise.limits,
            &consumer.entry,
            &consumer.world,
        ),
        Submission::Answer(_) => {
            return Ok(Err(Box::new(rejected(
                exercise,
                submission,
                Rejection {
                    code: "wrong-submission-kind".into(),
                    message: text!(
                        "Diese Aufgabe erwartet ein WebAssembly-Modul (.wasm oder .wat), keine Antwort als Text.",
                        "This exercise expects a WebAssembly module (.wasm or .wat), not a text answer."
                    ),
                },
            ))));
        }
    };
    // An exercise with a relay runs the same submission a second time with the relay as its entry.
    let compiled = match &consumer.relay {
        Some(relay) => compiled.and_then(|c| c.with_relay(relay, &exercise.limits, &consumer.world)),
        None => compiled,
    };
    Ok(Ok(compiled))
}

/// The grader's own set-up, before the deadline starts: a source submission's interpreter is
/// compiled, read from the module cache or waited for (the service's warm-up). A failure here
/// comes again, and is reported, where the file is loaded.
pub(crate) fn prepare(exercise: &Exercise, consumer: &ConsumerExercise, submission: &Submission) {
    if let Submission::Source { language, .. } = submission
        && consumer.languages.contains(language)
    {
        let _ = super::interpreter::ready(*language, wasm_stack_for(exercise, submission));
    }
}

fn grade_here(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Report, GradeError> {
    // The grader's own set-up is not the student's time (a worker process has done it already).
    prepare(exercise, consumer, submission);
    // The one deadline of this grading: compiling the submission counts, and everything after
    // obeys it.
    let deadline = Deadline::for_submission(&exercise.limits);
    let compiled = match compile_submission(exercise, consumer, submission, options)? {
        Ok(compiled) => compiled,
        Err(report) => return Ok(*report),
    };
    let compiled = match compiled {
        Ok(compiled) => compiled,
        // The grading process failed, not the submission: never the student's verdict.
        Err(fault) if process::is_grader_fault(&fault) => return Err(GradeError::Internal(fault.message.en)),
        Err(rejection) => return Ok(rejected(exercise, submission, rejection)),
    };
    let oracle = oracle(exercise, consumer)?;
    // The limits the instances run under, with the stack their engine has (deeper for an
    // interpreter), so that a stack overflow names the stack that overflowed.
    let limits = crate::limits::Limits {
        wasm_stack_bytes: wasm_stack_for(exercise, submission),
        ..exercise.limits.clone()
    };
    let mut harness = Harness::new(consumer, &limits, &compiled)?;
    harness.seed = seed_of(submission);
    harness.deadline = deadline;
    harness.roles = consumer.roles(&oracle.states.after_fresh);
    if let Some(token) = &options.replay {
        let replay = ReplayToken::parse(token)?;
        let sha = submission.sha256();
        if !sha.starts_with(&replay.module) {
            return Err(GradeError::Replay(format!(
                "the token was made for the module with sha256 {}…, but this module's sha256 is {}",
                replay.module, sha
            )));
        }
        harness.full_trace = true;
        let result = harness.run_check_spec(replay.check, replay.spec.as_deref(), oracle)?;
        let report =
            build_report(exercise, submission, vec![result], (Vec::new(), compiled.voice()), &deadline);
        return Ok(with_diagnosis(report, consumer, &compiled, &harness.roles));
    }
    let mut results = Vec::with_capacity(Check::ALL.len());
    let mut out_of_time = false;
    for check in Check::ALL {
        // Once the time is used up, every check after is listed as not run, never left out.
        if out_of_time || deadline.expired() {
            out_of_time = true;
            results.push(CheckResult::not_run(check, &deadline));
            continue;
        }
        let result = harness.run_check(check, oracle)?;
        out_of_time = result.end != CheckEnd::Finished;
        results.push(result);
    }
    let extra_coverage = std::mem::take(&mut harness.coverage);
    keep_oracle(exercise, oracle, crate::sandbox::module_cache::process_cache());
    let report = build_report(exercise, submission, results, (extra_coverage, compiled.voice()), &deadline);
    Ok(with_diagnosis(report, consumer, &compiled, &harness.roles))
}

/// `report` diagnosed, with the student's source for a consumer in an interpreted language.
fn with_diagnosis(
    report: (Report, Vec<Option<&'static str>>),
    consumer: &ConsumerExercise,
    compiled: &CompiledConsumer,
    roles: &crate::report::roles::Roles,
) -> Report {
    let source = compiled.source();
    let context = diagnose::Context {
        roles,
        voice: compiled.voice(),
        mistakes: &consumer.mistakes,
        file: source.map(|s| s.interpreter.file),
        source: source.map(|s| s.text()),
    };
    with_source(with_folder_texts(diagnose::attach(report, &context), consumer, compiled.voice()), compiled)
}

/// `report` with the exercise's own texts per check: its explanation instead of the lesson's, and
/// its hint on a failed check, their `{processed}` and `{duplicate}` in `voice`'s words.
fn with_folder_texts(
    mut report: Report,
    consumer: &ConsumerExercise,
    voice: crate::report::voice::Voice,
) -> Report {
    let values = [("processed", voice.processed()), ("duplicate", voice.duplicate())];
    for check in &mut report.checks {
        let Some(texts) = consumer.check_texts.get(&check.name) else { continue };
        if let Some(explanation) = &texts.explanation {
            check.explanation = super::folder_texts::fill_folder_text(explanation, &values);
        }
        if !check.passed {
            check.hint = texts.hint.as_ref().map(|hint| super::folder_texts::fill_folder_text(hint, &values));
        }
    }
    report
}

/// `report` with the student's source and the lines its checks speak of, for a consumer in an
/// interpreted language (TypeScript: the JavaScript that ran, which its lines refer to).
fn with_source(mut report: Report, compiled: &CompiledConsumer) -> Report {
    let Some(source) = compiled.source() else { return report };
    let file = source.interpreter.file;
    let note = (source.submitted != source.interpreter.language).then(|| {
        text!(
            "Das ist das JavaScript, zu dem consumer.ts ohne seine Typen wurde; die Zeilen des Berichts sind seine.",
            "This is the JavaScript that consumer.ts became without its types; the report's lines are its lines."
        )
    });
    let decisive = report.diagnosis.as_ref().and_then(|d| d.main.line);
    report.source = Some(interpreter::source_view(file, note, source.text(), &report.checks, decisive));
    report
}

/// The seed of every random choice in grading `submission`: the first 8 bytes of its SHA-256, so a
/// regrade makes the same choices.
pub fn seed_of(submission: &Submission) -> u64 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(submission.bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

/// The report of `results`, and the key of each check's failure (in the order of its checks).
fn build_report(
    exercise: &Exercise,
    submission: &Submission,
    results: Vec<CheckResult>,
    (extra_coverage, voice): (Vec<Coverage>, crate::report::voice::Voice),
    deadline: &Deadline,
) -> (Report, Vec<Option<&'static str>>) {
    let problems = results.iter().map(|r| r.failure.as_ref().map(|p| p.key)).collect();
    let mut coverage = Vec::new();
    let out_of_time = results.iter().any(|r| r.end != CheckEnd::Finished);
    if let Some(points) = results.iter().find_map(|r| r.detail.crash_points.as_ref()) {
        coverage.push(Coverage {
            name: "crash-points".into(),
            label: if points.sampled {
                text!("Absturzpunkte (Stichprobe aus dem Seed)", "crash points (sampled from the seed)")
            } else {
                text!("Absturzpunkte", "crash points")
            },
            exercised: points.tested as u64,
            total: Some(points.total() as u64),
        });
    }
    coverage.extend(extra_coverage);
    let sha = submission.sha256();
    let seed = seed_of(submission);
    let dir = exercise.replay_dir();
    let file = replay_file(submission);
    let checks: Vec<CheckReport> = results
        .into_iter()
        .map(|result| {
            let info = catalogue::info(result.check, voice);
            let not_run = result.end == CheckEnd::NotRun;
            let replay = result.failure.as_ref().filter(|_| !not_run).map(|_| {
                let token = ReplayToken {
                    check: result.check,
                    module: sha[..REPLAY_HASH_CHARS].to_string(),
                    spec: result.replay_spec.clone(),
                };
                format!("pruefstein grade {dir} {file} --replay {}   # seed {seed:#018x}", token.render())
            });
            CheckReport {
                replay,
                name: result.check.name().to_string(),
                title: info.title.clone(),
                passed: result.failure.is_none(),
                not_run,
                explanation: info.explanation.clone(),
                failure: result.failure.map(|problem| problem.text),
                hint: None,
                points: None,
                detail: CheckDetail::Consumer(result.detail),
            }
        })
        .collect();
    let passed = checks.iter().filter(|c| c.passed).count();
    let total = checks.len();
    let all = passed == total;
    let not_run = checks.iter().filter(|c| c.not_run).count();
    // The main problem is added to the summary once the report is diagnosed.
    let summary = if out_of_time {
        let limit = deadline.limit_name();
        Text {
            de: format!(
                "{} erreicht: {passed} von {total} Prüfungen bestanden, {not_run} nicht ausgeführt; Punkte gibt es nur, wenn alle bestehen.",
                limit.de
            ),
            en: format!(
                "The {} was reached: {passed} of {total} checks passed, {not_run} not run; points are given only when all pass.",
                limit.en
            ),
        }
    } else if all {
        text!(
            "Alle {total} Prüfungen bestanden: der Konsument ist idempotent und übersteht Abstürze.",
            "All {total} checks passed: the consumer is idempotent and survives crashes."
        )
    } else {
        text!(
            "{passed} von {total} Prüfungen bestanden; Punkte gibt es nur, wenn alle bestehen.",
            "{passed} of {total} checks passed; points are given only when all pass."
        )
    };
    let report = Report {
        verdict: if all { Verdict::Passed } else { Verdict::Failed },
        score: Score { points: if all { exercise.points } else { 0 }, max: exercise.points },
        summary,
        checks,
        coverage,
        replay: Some(format!("pruefstein grade {dir} {file}   # sha256 {}", submission.sha256())),
        ..report_base(exercise, submission)
    };
    (report, problems)
}
