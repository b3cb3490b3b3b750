//! What the test modules share: where the checkout is, the bundled exercises and one loaded copy of
//! exercise 03 for the whole run, grading helpers, waiting on a condition with a deadline, copying
//! exercise folders; `http` speaks raw HTTP/1.1 and `server` runs the real `pruefstein serve`.

pub mod http;
pub mod server;

use std::path::{Path, PathBuf};
use std::sync::{OnceLock, mpsc};
use std::time::{Duration, Instant};

use pruefstein::consumer::ConsumerDetail;
use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::{CheckDetail, CheckReport, Report};
use pruefstein::submission::{Language, Submission};

/// The `pruefstein` binary that `cargo test` built for this run.
pub const BIN: &str = env!("CARGO_BIN_EXE_pruefstein");
/// The consumer exercise of the lesson.
pub const CONSUMER: &str = "03-idempotenter-konsument";
/// The first prediction exercise.
pub const PREDICTION: &str = "01-visibility-timeout";

/// The checkout's root (the folder with `exercises/`).
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A bundled exercise folder.
pub fn exercise_dir(slug: &str) -> PathBuf {
    repo().join("exercises").join(slug)
}

/// Loads a bundled exercise afresh.
pub fn load(slug: &str) -> Exercise {
    pruefstein::graders::load(&exercise_dir(slug)).unwrap_or_else(|e| panic!("{slug} loads: {e}"))
}

/// Exercise 03's folder.
pub fn consumer_dir() -> PathBuf {
    exercise_dir(CONSUMER)
}

/// Exercise 03, loaded once for the whole run (a loaded exercise is immutable and shared, as in
/// the service; its grader caches its compiled artefacts inside it).
pub fn consumer_exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| pruefstein::graders::load(&consumer_dir()).expect("exercise 03 loads"))
}

/// Grades module bytes (wasm or WAT) with the default options.
pub fn grade_module(exercise: &Exercise, bytes: Vec<u8>) -> Report {
    // Every module shares this process: none may cap SQLite's heap in it (only a grading worker
    // process does), or guest databases here would keep their temporary tables in memory.
    assert!(
        !pruefstein::sandbox::grading_process_limited(),
        "the test process must never run sandbox::limit_grading_process()"
    );
    grade(exercise, &Submission::Module(bytes), &GradeOptions::default()).expect("grading runs")
}

/// Grades module bytes against exercise 03 with the default options.
pub fn grade_consumer(bytes: Vec<u8>) -> Report {
    grade_module(consumer_exercise(), bytes)
}

/// Grades module bytes against exercise 03 on a thread of its own; fails the test if the grade has
/// not returned within `hang` (a hang guard for hostile modules, not a performance bound).
pub fn grade_guarded(bytes: Vec<u8>, hang: Duration) -> Report {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(grade_consumer(bytes));
    });
    receiver.recv_timeout(hang).unwrap_or_else(|_| {
        panic!("the grade did not return within {hang:?}: a limit is missing, a submission hangs the grader")
    })
}

/// A file of an exercise folder as a submission: source in the language its extension names,
/// otherwise a module in WebAssembly text.
pub fn submission_of_file(path: &Path) -> Submission {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match path.extension().and_then(|e| e.to_str()).and_then(Language::from_extension) {
        Some(language) => Submission::Source { language, text },
        None => Submission::Module(text.into_bytes()),
    }
}

/// Grades a file of an exercise folder (see [`submission_of_file`]).
pub fn grade_file_with(exercise: &Exercise, path: &Path, options: &GradeOptions) -> Report {
    grade(exercise, &submission_of_file(path), options).expect("grading runs")
}

/// `pruefstein check`'s own soundness table for the bundled exercise `slug`, every row asserted:
/// each solution passes every check, each mutant fails the check its `expect-fail:` line names;
/// the exercise has a solution in each of `languages` (by extension) and at least `mutants_min`
/// mutants.
pub fn assert_solutions_pass_and_mutants_fail(slug: &str, languages: &[&str], mutants_min: usize) {
    let soundness = pruefstein::check::check_exercise(&load(slug));
    assert!(soundness.problems.is_empty(), "{slug}: {:?}", soundness.problems);
    for row in &soundness.rows {
        if row.expect == "pass" {
            assert!(row.failed_checks.is_empty(), "{slug}/{}: failed {:?}", row.file, row.failed_checks);
        } else if let Some(invariant) = row.expected_invariant() {
            assert!(
                row.violated_invariants.iter().any(|v| v == invariant) && !row.failed_checks.is_empty(),
                "{slug}/{}: declares {}, fails {:?}, violates {:?}",
                row.file,
                row.expect,
                row.failed_checks,
                row.violated_invariants
            );
        } else {
            assert!(
                row.failed_checks.contains(&row.expect),
                "{slug}/{}: declares {}, fails {:?}",
                row.file,
                row.expect,
                row.failed_checks
            );
        }
        assert!(row.ok, "{slug}/{}: {}", row.file, row.note);
    }
    let solutions: Vec<&str> =
        soundness.rows.iter().filter(|r| r.expect == "pass").map(|r| r.file.as_str()).collect();
    for language in languages {
        assert!(
            solutions.iter().any(|f| f.ends_with(&format!(".{language}"))),
            "{slug}: no .{language} in {solutions:?}"
        );
    }
    let (caught, mutants) = soundness.mutants_caught();
    assert!(mutants >= mutants_min && caught == mutants, "{slug}: {caught}/{mutants} mutants caught");
}

/// A report's check by name.
pub fn check<'r>(report: &'r Report, name: &str) -> &'r CheckReport {
    report.checks.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no check {name} in the report"))
}

/// A consumer check's evidence.
pub fn consumer_detail(check: &CheckReport) -> &ConsumerDetail {
    let CheckDetail::Consumer(detail) = &check.detail else { panic!("{}: not a consumer check", check.name) };
    detail
}

/// The harness's notes (the queue's and the log's lines) in the trace of the check `name`, in
/// `lang`.
pub fn harness_notes(report: &Report, name: &str, lang: pruefstein::text::Lang) -> Vec<String> {
    consumer_detail(check(report, name))
        .trace
        .iter()
        .filter_map(|e| match e {
            pruefstein::consumer::detail::TraceEvent::Queue { text } => Some(text.get(lang).to_string()),
            _ => None,
        })
        .collect()
}

/// Grades an answer with the default options, for `learner` (the lesson's variant without one).
pub fn grade_answer(exercise: &Exercise, answer: &str, learner: Option<&str>) -> Report {
    let options = GradeOptions { learner: learner.map(str::to_string), ..GradeOptions::default() };
    grade(exercise, &Submission::Answer(answer.to_string()), &options).expect("gradable")
}

/// The names of the checks a report failed.
pub fn failed(report: &Report) -> Vec<String> {
    report.failed_checks().map(|c| c.name.clone()).collect()
}

/// Polls `f` until it returns Some, or panics at the deadline.
pub fn poll<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = f() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        // The poll interval: the condition decides, the deadline bounds.
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Copies a folder tree (exercise folders are a few small files).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot list {}: {e}", from.display())) {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("cannot copy to {}: {e}", target.display()));
        }
    }
}
