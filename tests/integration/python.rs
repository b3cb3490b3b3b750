//! Consumers in Python: the lesson's own `verarbeite` passes every check of exercise 03 unchanged,
//! every Python mutant fails the check it declares, bad files are refused at load with a message
//! that names the problem, and the differential test: every Python solution and mutant gets the
//! same verdict per check under the machine's real CPython and sqlite3
//! (`tests/differential/reference_harness.py`, which crashes a real process after write k).

use std::path::{Path, PathBuf};
use std::process::Command;

use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::{Report, Verdict};
use pruefstein::submission::{Language, Submission};

use pruefstein::exercise::Exercise;

use crate::support::{consumer_dir, consumer_exercise, exercise_dir, failed, load, repo};

pub fn grade_python(text: &str) -> Report {
    grade_python_in(consumer_exercise(), text)
}

pub fn grade_python_in(exercise: &Exercise, text: &str) -> Report {
    let submission = Submission::Source { language: Language::Python, text: text.to_string() };
    grade(exercise, &submission, &GradeOptions::default()).expect("grading runs")
}

fn python_files(folder: &str) -> Vec<PathBuf> {
    python_files_in(&consumer_dir(), folder)
}

fn python_files_in(dir: &Path, folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
        .expect("folder exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

fn declared(source: &str) -> String {
    source
        .lines()
        .find_map(|l| l.split_once("expect-fail:").map(|(_, c)| c.trim().to_string()))
        .expect("a mutant declares its check")
}

const LESSON: &str = "\
import sqlite3


def verarbeite(con, msg):
    with con:
        try:
            con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?)\", (msg[\"id\"],))
        except sqlite3.IntegrityError:
            return False
        con.execute(\"UPDATE punkte SET stand = stand + ? WHERE kunde = ?\",
                    (msg[\"body\"][\"punkte\"], msg[\"body\"][\"kunde\"]))
        return True
";

#[test]
fn the_lessons_code_passes_every_check_unchanged() {
    let report = grade_python(LESSON);
    assert_eq!(report.verdict, Verdict::Passed, "failed {:?}", failed(&report));
    assert_eq!(report.checks.len(), pruefstein::consumer::checks::Check::ALL.len());
    // The same function without its import line: the lesson's file has sqlite3 at hand.
    let without_import = LESSON.replacen("import sqlite3\n", "", 1);
    assert_eq!(grade_python(&without_import).verdict, Verdict::Passed);
    // The lesson's file in the exercise is this text.
    let file = std::fs::read_to_string(consumer_dir().join("solutions/lesson.py")).expect("lesson.py");
    assert!(file.ends_with(LESSON), "solutions/lesson.py holds the lesson's code");
}

#[test]
fn every_python_solution_passes_and_every_python_mutant_fails_its_declared_check() {
    let solutions = python_files("solutions");
    assert!(solutions.len() >= 3, "{solutions:?}");
    for file in solutions {
        let report = grade_python(&std::fs::read_to_string(&file).expect("read"));
        assert_eq!(report.verdict, Verdict::Passed, "{}: failed {:?}", file.display(), failed(&report));
    }
    let mutants = python_files("mutants");
    assert!(mutants.len() >= 6, "{mutants:?}");
    for file in mutants {
        let source = std::fs::read_to_string(&file).expect("read");
        let report = grade_python(&source);
        assert!(
            failed(&report).contains(&declared(&source)),
            "{}: failed {:?}",
            file.display(),
            failed(&report)
        );
    }
}

/// The verdicts of the checks the reference harness decides, from CPython.
fn cpython_verdicts(
    exercise: &Path,
    consumer: &Path,
    reference: &Path,
) -> serde_json::Map<String, serde_json::Value> {
    let output = Command::new("python3")
        .arg(repo().join("tests/differential/reference_harness.py"))
        .args([exercise, consumer, reference])
        .output()
        .expect("python3 runs (the differential test needs the machine's CPython)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    match serde_json::from_slice(&output.stdout).expect("the harness prints JSON") {
        serde_json::Value::Object(map) => map,
        other => panic!("the harness printed {other}"),
    }
}

#[test]
fn differential_every_python_file_gets_cpythons_verdict_per_check() {
    for (slug, reference) in
        [("03-idempotenter-konsument", "solutions/lesson.py"), ("04-lager", "solutions/reference.py")]
    {
        let dir = exercise_dir(slug);
        let exercise = load(slug);
        let reference = dir.join(reference);
        let files: Vec<PathBuf> =
            python_files_in(&dir, "solutions").into_iter().chain(python_files_in(&dir, "mutants")).collect();
        assert!(files.len() >= 5, "{slug}: {files:?}");
        for file in files {
            let verdicts = cpython_verdicts(&dir, &file, &reference);
            assert!(verdicts.len() >= 7, "{verdicts:?}");
            let report = grade_python_in(&exercise, &std::fs::read_to_string(&file).expect("read"));
            for (check, verdict) in &verdicts {
                let ours = report.checks.iter().find(|c| &c.name == check).expect("the check exists");
                let ours = if ours.passed { "passed" } else { "failed" };
                assert_eq!(
                    ours,
                    verdict,
                    "{}: {check}: Prüfstein says {ours}, CPython says {verdict}",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn a_file_that_imports_what_a_consumer_does_not_need_is_refused_naming_the_import() {
    for module in ["os", "socket", "time", "random", "subprocess"] {
        let report = grade_python(&format!("import {module}\n{LESSON}"));
        assert_eq!(report.verdict, Verdict::Rejected, "{module}");
        let rejection = report.rejection.expect("a rejection");
        assert_eq!(rejection.code, "import-not-allowed", "{module}");
        assert!(rejection.message.en.contains(&format!("\"{module}\"")), "{}", rejection.message.en);
        assert!(rejection.message.de.contains(&format!("„{module}“")), "{}", rejection.message.de);
    }
    // What pure computation needs loads.
    let report = grade_python(&format!("import json\nimport math\nimport collections\n{LESSON}"));
    assert_eq!(report.verdict, Verdict::Passed, "failed {:?}", failed(&report));
}

#[test]
fn bad_files_get_clear_rejections() {
    let report = grade_python("def verarbeite(con, msg)\n    return True\n");
    let rejection = report.rejection.expect("a syntax error is refused");
    assert_eq!(rejection.code, "python-syntax-error");
    let report = grade_python("def process(con, msg):\n    return True\n");
    let rejection = report.rejection.expect("no entry function is refused");
    assert_eq!(rejection.code, "python-load-error");
    assert!(
        rejection.message.en.contains("defines no function verarbeite(con, msg)"),
        "{}",
        rejection.message.en
    );
    let report = grade_python("raise ValueError('beim Laden')\n");
    let rejection = report.rejection.expect("an exception at load is refused");
    assert!(rejection.message.en.contains("ValueError: beim Laden"), "{}", rejection.message.en);
    let huge = format!("{LESSON}\n# {}\n", "x".repeat(pruefstein::limits::PYTHON_SOURCE_BYTES_MAX));
    let rejection = grade_python(&huge).rejection.expect("too large");
    assert_eq!(rejection.code, "source-too-large");
    assert!(rejection.message.en.contains("limit \"source size\""), "{}", rejection.message.en);
}

#[test]
fn a_return_value_other_than_a_bool_is_a_clear_error_and_print_goes_to_the_log() {
    let report = grade_python("def verarbeite(con, msg):\n    print('hallo', msg['id'])\n    return 1\n");
    assert_eq!(report.verdict, Verdict::Failed);
    let json = serde_json::to_string(&report).expect("serialises");
    assert!(json.contains("hallo 7"), "print reaches the log");
    assert!(json.contains("verarbeite must return True or False, not 1"), "the error names the value");
}

/// Exercise 03 copied with `line` added to its `[consumer]` section.
fn exercise_03_with(line: &str) -> (tempfile::TempDir, Result<Exercise, String>) {
    let dir = tempfile::tempdir().expect("temporary folder");
    crate::support::copy_tree(&consumer_dir(), dir.path());
    let toml = dir.path().join("exercise.toml");
    let text = std::fs::read_to_string(&toml).expect("exercise.toml").replacen(
        "[consumer]\n",
        &format!("[consumer]\n{line}\n"),
        1,
    );
    std::fs::write(&toml, text).expect("write exercise.toml");
    let loaded = pruefstein::graders::load(dir.path()).map_err(|e| e.to_string());
    (dir, loaded)
}

#[test]
fn an_exercise_may_restrict_the_languages_it_accepts() {
    let (_dir, exercise) = exercise_03_with("languages = []");
    let exercise = exercise.expect("loads");
    assert!(exercise.grader.languages().is_empty());
    let report = grade_python_in(&exercise, LESSON);
    assert_eq!(report.verdict, Verdict::Rejected);
    assert_eq!(report.rejection.expect("refused").code, "language-not-accepted");
    let (_dir, exercise) = exercise_03_with("languages = [\"python\"]");
    assert_eq!(exercise.expect("loads").grader.languages(), vec![Language::Python]);
    let (_dir, exercise) = exercise_03_with("languages = [\"cobol\"]");
    let error = exercise.expect_err("an unknown language is a load error");
    assert!(error.contains("unknown language \"cobol\"") && error.contains("exercise.toml"), "{error}");
}

#[test]
fn an_exception_is_told_in_pythons_words_with_its_line_and_the_check_replays_from_the_source() {
    let text =
        std::fs::read_to_string(repo().join("graders/consumer/kits/python/consumer.py")).expect("skeleton");
    let line = 1 + text
        .lines()
        .position(|l| l.trim_start().starts_with("raise NotImplementedError"))
        .expect("raise");
    let report = grade_python(&text);
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message");
    let failure = fresh.failure.as_ref().expect("explained");
    let told = format!("at line {line} (verarbeite): NotImplementedError: verarbeite is not written yet");
    assert!(failure.en.contains(&told), "{}", failure.en);
    assert!(
        failure.de.contains(&format!("in Zeile {line} (verarbeite): NotImplementedError")),
        "{}",
        failure.de
    );

    // The traceback in the trace shows the student's own frames, as CPython's would: not the
    // frames of the interpreter's sqlite3 module.
    let pruefstein::report::CheckDetail::Consumer(detail) = &fresh.detail else { panic!("a consumer check") };
    let logged: Vec<&str> = detail
        .trace
        .iter()
        .filter_map(|e| match e {
            pruefstein::consumer::detail::TraceEvent::Log { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        logged.contains(&format!("  File \"consumer.py\", line {line}, in verarbeite").as_str()),
        "{logged:?}"
    );
    assert!(!logged.iter().any(|l| l.contains("sqlite3.py")), "{logged:?}");

    // A constraint the student's code runs into is named the same way (CPython's message).
    let swallowing = "def verarbeite(con, msg):\n    with con:\n        con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?)\", (1,))\n        con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?)\", (1,))\n    return True\n";
    let report = grade_python(swallowing);
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message");
    let failure = &fresh.failure.as_ref().expect("explained").en;
    assert!(
        failure.contains("at line 4 (verarbeite): IntegrityError: UNIQUE constraint failed: gesehen.msg_id"),
        "{failure}"
    );

    // The replay command names a source file, and replays the check from it.
    let command = fresh.replay.as_ref().expect("a replay command");
    assert!(command.contains("<consumer.py> --replay "), "{command}");
    let token = command.split("--replay ").nth(1).and_then(|r| r.split_whitespace().next()).expect("token");
    let options = GradeOptions { replay: Some(token.to_string()), ..GradeOptions::default() };
    let submission = Submission::Source { language: Language::Python, text: swallowing.to_string() };
    let replayed = grade(consumer_exercise(), &submission, &options).expect("replays");
    assert_eq!(replayed.checks.len(), 1);
    assert_eq!(replayed.checks[0].failure, fresh.failure);
}

/// A call whose arguments span several lines is told with the line where the call starts, as
/// CPython tells it: the statement it issues, the crash point after it and the traceback of the
/// error it raises all name that line, not the line of its last argument. The expected line is
/// CPython's own, from running the same function under the machine's `python3` and `sqlite3`.
#[test]
fn a_call_over_several_lines_is_told_with_the_line_it_starts_on_as_cpython_tells_it() {
    let text = "import sqlite3\n\n\ndef verarbeite(con, msg):\n    con.execute(\n        \"SELECT nope FROM gesehen WHERE msg_id = ?\",\n        (msg[\"id\"],),\n    )\n    return True\n";
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("consumer.py"), text).expect("write");
    let cpython = Command::new("python3")
        .current_dir(dir.path())
        .args([
            "-c",
            "import sqlite3, traceback, consumer\n\
             con = sqlite3.connect(':memory:')\n\
             con.execute('CREATE TABLE gesehen (msg_id INTEGER PRIMARY KEY)')\n\
             try:\n    consumer.verarbeite(con, {'id': 1})\n\
             except sqlite3.OperationalError as e:\n    print(traceback.extract_tb(e.__traceback__)[-1].lineno)\n",
        ])
        .output()
        .expect("python3 runs");
    assert!(cpython.status.success(), "{}", String::from_utf8_lossy(&cpython.stderr));
    let line: u32 = String::from_utf8_lossy(&cpython.stdout).trim().parse().expect("CPython names a line");
    assert_eq!(line, 5, "CPython tells the call with its first line");

    let report = grade_python(text);
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message");
    let failure = &fresh.failure.as_ref().expect("explained").en;
    assert!(failure.contains(&format!("at line {line} (verarbeite): OperationalError")), "{failure}");
    let pruefstein::report::CheckDetail::Consumer(detail) = &fresh.detail else { panic!("a consumer check") };
    let mut statement_lines = Vec::new();
    let mut traceback = Vec::new();
    for event in &detail.trace {
        match event {
            pruefstein::consumer::detail::TraceEvent::Statement { line, .. } => statement_lines.push(*line),
            pruefstein::consumer::detail::TraceEvent::Log { text, .. } => traceback.push(text.clone()),
            _ => {}
        }
    }
    assert_eq!(statement_lines, vec![Some(line)], "{:?}", detail.trace);
    assert!(
        traceback.contains(&format!("  File \"consumer.py\", line {line}, in verarbeite")),
        "{traceback:?}"
    );
}

/// A file saved with a UTF-8 byte-order mark (as some Windows editors save) runs as CPython runs
/// it: the mark is the encoding's signature, not code. The same file is checked under the
/// machine's python3, and the report's source view shows the file without the mark.
#[test]
fn a_file_with_a_byte_order_mark_runs_as_cpython_runs_it() {
    let text =
        format!("\u{feff}{}", std::fs::read_to_string(consumer_dir().join("solutions/lesson.py")).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("consumer.py");
    std::fs::write(&file, &text).unwrap();
    let cpython = Command::new("python3")
        .args(["-c", "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')"])
        .arg(&file)
        .output()
        .expect("python3 runs");
    assert!(cpython.status.success(), "CPython refuses it: {}", String::from_utf8_lossy(&cpython.stderr));
    let report = grade_python(&text);
    assert_eq!(
        report.verdict,
        Verdict::Passed,
        "{}",
        pruefstein::report::render_text(&report, pruefstein::text::Lang::En)
    );
    let source = report.source.expect("the source view");
    assert!(!source.text.starts_with('\u{feff}'), "{:?}", &source.text[..10]);
}

/// `con.close()` ends the connection as CPython's does: the next `execute` (and `commit`, a
/// cursor) raises `ProgrammingError: Cannot operate on a closed database.`; closing again is
/// allowed; an open transaction is rolled back. Each check's verdict is CPython's (the
/// differential harness), and the exception is told as CPython tells it.
#[test]
fn differential_a_closed_connection_raises_programming_error_as_in_cpython() {
    let consumer = "import sqlite3\n\n\ndef verarbeite(con, msg):\n    with con:\n        try:\n            \
con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?)\", (msg[\"id\"],))\n        except sqlite3.IntegrityError:\n            \
return False\n        con.execute(\"UPDATE punkte SET stand = stand + ? WHERE kunde = ?\",\n                    \
(msg[\"body\"][\"punkte\"], msg[\"body\"][\"kunde\"]))\n    con.close()\n    con.close()\n    \
con.execute(\"SELECT 1\")\n    return True\n";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("closes.py");
    std::fs::write(&file, consumer).unwrap();
    let exercise_dir = consumer_dir();
    let verdicts = cpython_verdicts(&exercise_dir, &file, &exercise_dir.join("solutions/lesson.py"));
    let report = grade_python(consumer);
    for (check, verdict) in &verdicts {
        let ours = report.checks.iter().find(|c| &c.name == check).expect("the check exists");
        assert_eq!(if ours.passed { "passed" } else { "failed" }, verdict, "{check}: CPython says {verdict}");
    }
    assert!(verdicts.values().any(|v| v == "failed"), "{verdicts:?}");
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message");
    let failure = fresh.failure.as_ref().expect("explained");
    assert!(failure.en.contains("ProgrammingError: Cannot operate on a closed database."), "{}", failure.en);
}
