//! The consumer grader: a student's WebAssembly consumer under the crash-injection harness.
//!
//! - `abi`: ABI v1, the host functions a module may import;
//! - `guestdb`: the hardened SQLite connection behind `db.*`;
//! - `process`: one consumer instance (a store, a connection), delivery and crash;
//! - `harness`: the crash harness around the one list of checks ([`harness::Check`]), with the
//!   catalogue of their texts, the runners of each family of checks and replay tokens;
//! - `rundb`: one run's database in memory, restored from the exercise's template;
//! - `state`: observable state and diffs, `detail`: the evidence in the report;
//! - `exercise`: the `[consumer]` exercise format.

pub mod abi;
pub mod diagnose;
/// The evidence in a consumer report; its types belong to the report model.
pub use crate::report::consumer as detail;
pub mod exercise;
mod grader;
// Dropping the virtual-table modules of a connection calls SQLite's C API.
#[allow(unsafe_code)]
pub mod guestdb;
pub mod harness;
pub mod interleave;
pub mod interpreter;
pub mod javascript;
pub mod process;
pub mod python;
pub mod rundb;
pub mod schedule;
pub mod state;
pub mod typescript;

use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use detail::ConsumerDetail;
pub use exercise::ConsumerExercise;
pub use grader::GRADER;

use self::harness::replay::REPLAY_HASH_CHARS;
pub use self::harness::replay::ReplayToken;
use self::harness::{Check, CheckEnd, CheckResult, Harness, catalogue};
use self::process::CompiledConsumer;
use self::state::State;
use crate::deadline::Deadline;
use crate::exercise::{Exercise, GraderKind};
use crate::exercise::{GradeError, GradeOptions};
use crate::exercise::{Soundness, SoundnessRow};
use crate::limits::REFERENCE_STATES_CACHED_MAX;
use crate::report::{CheckDetail, CheckReport, Coverage, REPORT_FORMAT, Rejection, Report, Score, Verdict};
use crate::sandbox::module_cache::ModuleCache;
use crate::submission::Submission;
use crate::text;
use crate::text::Text;

/// The reference solution's states without faults: what every check compares against.
///
/// They depend on the exercise alone, so a grading process with a module cache keeps them there
/// ([`ORACLE_CACHE_KIND`], under the exercise's content hash) and the next process of the same
/// program reads them instead of running the reference again; it compiles the reference only when
/// a schedule asks for an order whose state was not kept.
pub struct Oracle {
    /// The reference solution, compiled on first use: the schedules ask it for the expected state
    /// of the messages they processed.
    reference: OnceLock<Result<CompiledConsumer, String>>,
    /// The limits the reference is compiled with (the exercise's).
    limits: crate::limits::Limits,
    /// For each batch message: the reference reports an error for it (a poison message, which must
    /// end in the dead-letter list).
    pub poison: Vec<bool>,
    /// After the fresh message.
    pub after_fresh: State,
    /// After the fresh message and then the same body under a new id.
    pub after_fresh_same_body: State,
    /// After the message whose effect violates a constraint (equal to the initial state).
    pub after_violation: State,
    /// The reference's state after the batch messages in a given order, shared by every grading.
    pub reference_states: ReferenceStates,
    /// How many reference states the module cache holds for this exercise (as far as this process
    /// knows): more are stored once a grading has added some.
    kept_states: AtomicUsize,
}

/// The kind of the module cache's data entries that hold an exercise's [`Oracle`] states.
pub const ORACLE_CACHE_KIND: &str = "consumer-oracle";

/// An [`Oracle`]'s states as the module cache keeps them.
#[derive(serde::Serialize, serde::Deserialize)]
struct OracleRecord {
    /// The exercise's content hash, which the entry's name holds too.
    exercise: String,
    poison: Vec<bool>,
    after_fresh: State,
    after_fresh_same_body: State,
    after_violation: State,
    /// Sorted by order, so that the same states give the same bytes.
    reference_states: Vec<(Vec<usize>, State)>,
}

/// The reference's states after the batch messages in given orders (the schedules' expectations),
/// kept with the loaded exercise: at most [`REFERENCE_STATES_CACHED_MAX`] orders, the first ones
/// asked for. A state depends on the exercise alone (the reference, its schema and messages), never
/// on the submission that asked first, so sharing it changes no report.
#[derive(Default)]
pub struct ReferenceStates(std::sync::Mutex<std::collections::HashMap<Vec<usize>, State>>);

impl ReferenceStates {
    pub fn get(&self, order: &[usize]) -> Option<State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get(order).cloned()
    }

    /// Keeps `state` for `order` while there is room; false when the cache is full.
    pub fn insert(&self, order: &[usize], state: &State) -> bool {
        let mut states = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if states.len() >= REFERENCE_STATES_CACHED_MAX && !states.contains_key(order) {
            return false;
        }
        states.insert(order.to_vec(), state.clone());
        true
    }

    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Oracle {
    /// The compiled reference solution, compiled on first use.
    pub fn reference(&self, consumer: &ConsumerExercise) -> Result<&CompiledConsumer, String> {
        self.reference
            .get_or_init(|| compile_reference(&self.limits, consumer))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn record(&self, exercise: &Exercise) -> OracleRecord {
        let states = self.reference_states.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut reference_states: Vec<(Vec<usize>, State)> =
            states.iter().map(|(order, state)| (order.clone(), state.clone())).collect();
        reference_states.sort_by(|a, b| a.0.cmp(&b.0));
        OracleRecord {
            exercise: exercise.source.id.clone(),
            poison: self.poison.clone(),
            after_fresh: self.after_fresh.clone(),
            after_fresh_same_body: self.after_fresh_same_body.clone(),
            after_violation: self.after_violation.clone(),
            reference_states,
        }
    }

    /// The oracle a cache entry holds, if it is whole and of this exercise (its messages).
    fn from_record(record: OracleRecord, exercise: &Exercise, consumer: &ConsumerExercise) -> Option<Oracle> {
        let batch = consumer.messages.batch.len();
        let fits = record.exercise == exercise.source.id
            && record.poison.len() == batch
            && record.reference_states.len() <= REFERENCE_STATES_CACHED_MAX
            && record.reference_states.iter().all(|(order, _)| order.iter().all(|&i| i < batch));
        if !fits {
            return None;
        }
        let oracle = Oracle {
            reference: OnceLock::new(),
            limits: exercise.limits.clone(),
            poison: record.poison,
            after_fresh: record.after_fresh,
            after_fresh_same_body: record.after_fresh_same_body,
            after_violation: record.after_violation,
            reference_states: ReferenceStates::default(),
            kept_states: AtomicUsize::new(record.reference_states.len()),
        };
        for (order, state) in &record.reference_states {
            oracle.reference_states.insert(order, state);
        }
        Some(oracle)
    }
}

impl std::fmt::Debug for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oracle").field("poison", &self.poison).finish_non_exhaustive()
    }
}

/// The oracle of `consumer`, once per loaded exercise: read from this process's module cache where
/// it holds the exercise's states, else computed.
pub fn oracle<'a>(exercise: &Exercise, consumer: &'a ConsumerExercise) -> Result<&'a Oracle, GradeError> {
    oracle_with_cache(exercise, consumer, crate::sandbox::module_cache::process_cache())
}

/// [`oracle`] with `cache` as the module cache.
pub(crate) fn oracle_with_cache<'a>(
    exercise: &Exercise,
    consumer: &'a ConsumerExercise,
    cache: Option<&ModuleCache>,
) -> Result<&'a Oracle, GradeError> {
    consumer
        .oracle
        .get_or_init(|| {
            cache
                .and_then(|cache| cache.load_data(ORACLE_CACHE_KIND, exercise.source.id.as_bytes()))
                .and_then(|bytes| serde_json::from_slice::<OracleRecord>(&bytes).ok())
                .and_then(|record| Oracle::from_record(record, exercise, consumer))
                .map_or_else(|| compute_oracle(exercise, consumer), Ok)
        })
        .as_ref()
        .map_err(|message| GradeError::Exercise { slug: exercise.slug.clone(), message: message.clone() })
}

/// The placeholder for the submitted file in a replay command: a module, or a source file with its
/// language's extension.
fn replay_file(submission: &Submission) -> String {
    match submission {
        Submission::Source { language, .. } => format!("<consumer.{}>", language.extension()),
        _ => "<module.wasm>".to_string(),
    }
}

fn compute_oracle(exercise: &Exercise, consumer: &ConsumerExercise) -> Result<Oracle, String> {
    let stack = exercise.limits.wasm_stack_bytes;
    crate::sandbox::with_stack(stack, || compute_oracle_here(exercise, consumer))?
}

/// Keeps the oracle's states in `cache` when a grading added reference states since they were
/// last kept (or they never were).
pub(crate) fn keep_oracle(exercise: &Exercise, oracle: &Oracle, cache: Option<&ModuleCache>) {
    let Some(cache) = cache else { return };
    let states = oracle.reference_states.len();
    if oracle.kept_states.swap(states, Ordering::Relaxed) == states {
        return;
    }
    if let Ok(bytes) = serde_json::to_vec(&oracle.record(exercise)) {
        cache.store_data(ORACLE_CACHE_KIND, exercise.source.id.as_bytes(), &bytes);
    }
}

fn compile_reference(
    limits: &crate::limits::Limits,
    consumer: &ConsumerExercise,
) -> Result<CompiledConsumer, String> {
    let engine = crate::sandbox::engine_for(crate::exercise::Compiler::default(), limits)?;
    CompiledConsumer::compile_trusted(engine, &consumer.reference, limits, &consumer.entry).map_err(|r| {
        format!("the reference solution {} is rejected: {}", consumer.reference_path.display(), r.message.en)
    })
}

fn compute_oracle_here(exercise: &Exercise, consumer: &ConsumerExercise) -> Result<Oracle, String> {
    let compiled = compile_reference(&exercise.limits, consumer)?;
    let mut harness = Harness::new(consumer, &exercise.limits, &compiled).map_err(|e| e.to_string())?;
    let states = harness.oracle_run(&consumer.initial_state)?;
    drop(harness);
    Ok(Oracle {
        reference: OnceLock::from(Ok(compiled)),
        limits: exercise.limits.clone(),
        poison: states.poison,
        after_fresh: states.after_fresh,
        after_fresh_same_body: states.after_fresh_same_body,
        after_violation: states.after_violation,
        reference_states: ReferenceStates::default(),
        kept_states: AtomicUsize::new(usize::MAX),
    })
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

/// Grades a consumer module against `consumer`, on a thread with room for the exercise's wasm stack.
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

fn grade_here(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Report, GradeError> {
    // The one deadline of this grading: compiling counts, and everything after obeys it.
    let deadline = Deadline::for_submission(&exercise.limits);
    // An interpreter guest runs on an engine with its deeper stack, which maps each instance (see
    // `sandbox::engine_with_stack`); a module on the exercise's engine, pooled where it fits.
    let engine = match submission {
        Submission::Source { .. } => {
            crate::sandbox::engine_with_stack(options.compiler, wasm_stack_for(exercise, submission))
        }
        _ => crate::sandbox::engine_for(options.compiler, &exercise.limits),
    }
    .map_err(GradeError::Internal)?;
    let compiled = match submission {
        Submission::Module(bytes) => {
            CompiledConsumer::compile(engine, bytes, &exercise.limits, &consumer.entry)
        }
        Submission::Source { language, .. } if !consumer.languages.contains(language) => {
            let accepted: Vec<&str> = consumer.languages.iter().map(|l| l.name()).collect();
            let accepted = if accepted.is_empty() { "-".to_string() } else { accepted.join(", ") };
            return Ok(rejected(
                exercise,
                submission,
                Rejection {
                    code: "language-not-accepted".into(),
                    message: text!(
                        "Diese Aufgabe nimmt keinen Quelltext in {language} an (angenommen: {accepted}); reiche ein WebAssembly-Modul ein.",
                        "This exercise does not accept source in {language} (accepted: {accepted}); submit a WebAssembly module.",
                        language = language.name()
                    ),
                },
            ));
        }
        Submission::Source { language, text } => {
            CompiledConsumer::compile_source(engine, *language, text, &exercise.limits, &consumer.entry)
        }
        Submission::Answer(_) => {
            return Ok(rejected(
                exercise,
                submission,
                Rejection {
                    code: "wrong-submission-kind".into(),
                    message: text!(
                        "Diese Aufgabe erwartet ein WebAssembly-Modul (.wasm oder .wat), keine Antwort als Text.",
                        "This exercise expects a WebAssembly module (.wasm or .wat), not a text answer."
                    ),
                },
            ));
        }
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
    harness.roles = consumer.roles(&oracle.after_fresh);
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
    with_source(diagnose::attach(report, &context), compiled)
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
    grade(exercise, consumer, &submission, options).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_states_stop_growing_at_their_limit() {
        let states = ReferenceStates::default();
        let state = State::new();
        for n in 0..REFERENCE_STATES_CACHED_MAX {
            assert!(states.insert(&[n], &state), "room for order {n}");
        }
        assert!(!states.insert(&[REFERENCE_STATES_CACHED_MAX], &state), "full: a new order is not kept");
        assert!(states.insert(&[0], &state), "an order it holds may be written again");
        assert_eq!(states.len(), REFERENCE_STATES_CACHED_MAX);
        assert!(states.get(&[REFERENCE_STATES_CACHED_MAX]).is_none());
        assert_eq!(states.get(&[1]), Some(State::new()));
    }

    /// Exercise 03, loaded afresh (its oracle not yet computed), and its reference module.
    fn exercise_03() -> (Exercise, Vec<u8>) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
        let exercise = Exercise::load(&dir).expect("exercise 03 loads");
        let reference = std::fs::read(dir.join("solutions/reference.wat")).expect("reference");
        (exercise, reference)
    }

    fn consumer_of(exercise: &Exercise) -> &ConsumerExercise {
        exercise.grader_as::<ConsumerExercise>().expect("a consumer exercise")
    }

    fn report_json(exercise: &Exercise, module: &[u8]) -> String {
        let submission = Submission::Module(module.to_vec());
        let report = crate::grade::grade(exercise, &submission, &GradeOptions::default()).expect("grades");
        serde_json::to_string(&report).expect("json")
    }

    #[test]
    fn an_oracle_kept_in_the_module_cache_is_read_back_without_running_the_reference() {
        let scratch = tempfile::tempdir().expect("temporary directory");
        let cache = ModuleCache::open(&scratch.path().join("cache"), 1 << 20).expect("cache opens");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
        let mutant = std::fs::read(dir.join("mutants/commits-id-first.wat")).expect("mutant");

        // A first process: computes the oracle, grades (which adds the schedules' reference
        // states) and keeps it.
        let (first, reference) = exercise_03();
        let computed = oracle_with_cache(&first, consumer_of(&first), Some(&cache)).expect("oracle");
        assert!(computed.reference.get().is_some(), "a computed oracle has compiled the reference");
        let reference_report = report_json(&first, &reference);
        let mutant_report = report_json(&first, &mutant);
        assert!(!computed.reference_states.is_empty(), "the schedules asked for reference states");
        keep_oracle(&first, computed, Some(&cache));

        // The next process reads it: the reference is neither compiled nor run, and the reports
        // are the same, byte for byte.
        let (second, _) = exercise_03();
        let kept = oracle_with_cache(&second, consumer_of(&second), Some(&cache)).expect("oracle");
        assert_eq!(cache.counts().data_hits.load(Ordering::Relaxed), 1);
        assert_eq!(
            (&kept.poison, &kept.after_fresh, &kept.after_fresh_same_body, &kept.after_violation),
            (
                &computed.poison,
                &computed.after_fresh,
                &computed.after_fresh_same_body,
                &computed.after_violation
            )
        );
        assert_eq!(kept.reference_states.len(), computed.reference_states.len());
        assert_eq!(report_json(&second, &reference), reference_report);
        assert_eq!(report_json(&second, &mutant), mutant_report);
        assert!(kept.reference.get().is_none(), "every state the grades needed was kept: no compile");

        // An entry changed by anyone without the cache's key is removed and the oracle computed.
        let entry = std::fs::read_dir(cache_dir(&scratch))
            .expect("cache directory")
            .map(|e| e.expect("entry").path())
            .find(|p| p.extension().is_some_and(|x| x == "data"))
            .expect("a data entry");
        let mut bytes = std::fs::read(&entry).expect("entry");
        let forged = String::from_utf8_lossy(&bytes).replacen("true", "fals", 1).into_bytes();
        assert_ne!(forged, bytes, "the record names a poison message");
        bytes = forged;
        std::fs::write(&entry, &bytes).expect("forge");
        let (third, _) = exercise_03();
        let recomputed = oracle_with_cache(&third, consumer_of(&third), Some(&cache)).expect("oracle");
        assert!(recomputed.reference.get().is_some(), "a forged entry is not read: computed again");
        assert_eq!(cache.counts().refused.load(Ordering::Relaxed), 1);
        assert!(!entry.exists(), "the forged entry is removed");
        assert_eq!(report_json(&third, &mutant), mutant_report);
    }

    /// A kept oracle must compare equal to the computed one, REAL values included: a value read
    /// back one unit in the last place off would fail a correct consumer. serde_json parses floats
    /// exactly only with its `float_roundtrip` feature; without it some of these come back off.
    #[test]
    fn an_oracle_record_brings_back_every_real_value_exactly() {
        use rand_chacha::rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let mut off = Vec::new();
        for _ in 0..200_000 {
            let value = f64::from_bits(rng.next_u64());
            if !value.is_finite() {
                continue;
            }
            let real = crate::report::state::SqlValue::Real(value);
            let json = serde_json::to_string(&real).expect("json");
            let back: crate::report::state::SqlValue = serde_json::from_str(&json).expect("parses");
            if back != real {
                off.push(json);
            }
        }
        assert!(off.is_empty(), "{} values come back changed, e.g. {:?}", off.len(), off.first());
    }

    fn cache_dir(scratch: &tempfile::TempDir) -> std::path::PathBuf {
        scratch.path().join("cache")
    }
}
