//! Consumers in JavaScript and TypeScript: every JavaScript and TypeScript solution of exercises 03
//! and 04 passes and every mutant fails the check it declares; `node:sqlite` behaves as a learner knows it from Node
//! (`prepare().run/get/all`, `exec`, `db.transaction`, an error's `code`, `errcode` and `errstr`);
//! bad files are refused at load with a message that names the problem; an uncaught error is told
//! with the line of `consumer.js`, without the guest's own frames.

use std::path::{Path, PathBuf};

use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::{Report, Verdict};
use pruefstein::submission::{Language, Submission};

use crate::support::{consumer_dir, consumer_exercise, exercise_dir, failed, load};

pub fn grade_javascript(text: &str) -> Report {
    grade_javascript_in(consumer_exercise(), text)
}

fn grade_javascript_in(exercise: &Exercise, text: &str) -> Report {
    grade_source_in(exercise, Language::JavaScript, text)
}

pub fn grade_typescript(text: &str) -> Report {
    grade_source_in(consumer_exercise(), Language::TypeScript, text)
}

fn grade_source_in(exercise: &Exercise, language: Language, text: &str) -> Report {
    let submission = Submission::Source { language, text: text.to_string() };
    grade(exercise, &submission, &GradeOptions::default()).expect("grading runs")
}

/// Grades the file at `path` as the language its extension names.
fn grade_file(exercise: &Exercise, path: &Path) -> (Report, String) {
    let language =
        path.extension().and_then(|e| e.to_str()).and_then(Language::from_extension).expect("a source file");
    let text = std::fs::read_to_string(path).expect("read");
    (grade_source_in(exercise, language, &text), text)
}

/// The JavaScript and TypeScript files in `dir/folder`, sorted.
fn javascript_files(dir: &Path, folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
        .expect("folder exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "js" || e == "ts"))
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

/// The lines the consumer logged in the trace of `check`.
fn logged(report: &Report, check: &str) -> Vec<String> {
    let found = report.checks.iter().find(|c| c.name == check).expect("the check ran");
    let pruefstein::report::CheckDetail::Consumer(detail) = &found.detail else { panic!("a consumer check") };
    detail
        .trace
        .iter()
        .filter_map(|e| match e {
            pruefstein::consumer::detail::TraceEvent::Log { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

const REFERENCE: &str = "\
export function verarbeite(db, msg) {
    try {
        db.transaction(() => {
            db.prepare(\"INSERT INTO gesehen (msg_id) VALUES (?)\").run(msg.id);
            db.prepare(\"UPDATE punkte SET stand = stand + ? WHERE kunde = ?\").run(msg.body.punkte, msg.body.kunde);
        })();
    } catch (error) {
        if (error.code === \"SQLITE_CONSTRAINT_PRIMARYKEY\") {
            return false;
        }
        throw error;
    }
    return true;
}
";

#[test]
fn every_javascript_and_typescript_solution_passes_and_every_mutant_fails_its_declared_check() {
    for (slug, solutions_min, mutants_min) in [("03-idempotenter-konsument", 4, 7), ("04-lager", 1, 2)] {
        let dir = exercise_dir(slug);
        let exercise = load(slug);
        let solutions = javascript_files(&dir, "solutions");
        assert!(solutions.len() >= solutions_min, "{solutions:?}");
        for file in solutions {
            let (report, _) = grade_file(&exercise, &file);
            assert_eq!(report.verdict, Verdict::Passed, "{}: failed {:?}", file.display(), failed(&report));
        }
        let mutants = javascript_files(&dir, "mutants");
        assert!(mutants.len() >= mutants_min, "{mutants:?}");
        for file in mutants {
            let (report, source) = grade_file(&exercise, &file);
            assert!(
                failed(&report).contains(&declared(&source)),
                "{}: failed {:?}",
                file.display(),
                failed(&report)
            );
        }
    }
    let file = std::fs::read_to_string(consumer_dir().join("solutions/reference.js")).expect("reference.js");
    assert_eq!(
        file.lines().filter(|l| !l.starts_with("//")).collect::<Vec<_>>().join("\n").trim(),
        REFERENCE.trim()
    );
}

#[test]
fn node_sqlite_errors_name_sqlites_extended_code_and_rows_are_named_as_sqlite_names_columns() {
    let probe = "\
export function verarbeite(db, msg) {
    try {
        db.prepare(\"INSERT INTO gesehen (msg_id) VALUES (?)\").run(msg.id);
    } catch (e) {
        console.log(\"duplicate\", e.name, e.code, e.errcode, e.errstr, e.message);
        return false;
    }
    const stand = db.prepare(\"SELECT stand FROM punkte WHERE kunde = ?\").get(msg.body.kunde);
    const count = db.prepare(\"SELECT count(*) AS n FROM gesehen\").all();
    const none = db.prepare(\"SELECT msg_id FROM gesehen WHERE msg_id = ?\").get(-1);
    console.log(\"rows\", stand, count, none === undefined);
    try {
        db.prepare(\"UPDATE punkte SET stand = stand + ? WHERE kunde = ?\").run(msg.body.punkte, msg.body.kunde);
    } catch (e) {
        console.log(\"check\", e.code, e.errcode, e.errstr, e.message);
        throw e;
    }
    const ran = db.prepare(\"DELETE FROM gesehen WHERE msg_id = ?\").run(-1);
    console.log(\"changes\", ran.changes, db.isTransaction);
    db.prepare(\"DELETE FROM gesehen WHERE msg_id = ?\").run(-1);
    return true;
}
";
    let report = grade_javascript(probe);
    let fresh = logged(&report, "fresh-message");
    assert!(fresh.contains(&"rows {\"stand\":100} [{\"n\":1}] true".to_string()), "{fresh:?}");
    assert!(fresh.contains(&"changes 0 false".to_string()), "{fresh:?}");
    let duplicate = logged(&report, "duplicate-same-instance");
    assert!(
        duplicate.contains(
            &"duplicate SqliteError SQLITE_CONSTRAINT_PRIMARYKEY 1555 constraint failed UNIQUE constraint failed: gesehen.msg_id"
                .to_string()
        ),
        "{duplicate:?}"
    );
    let violation = logged(&report, "constraint-violation");
    assert!(
        violation.contains(
            &"check SQLITE_CONSTRAINT_CHECK 275 constraint failed CHECK constraint failed: stand <= 1000"
                .to_string()
        ),
        "{violation:?}"
    );
    // The uncaught error shows the student's frames only, not the guest's node:sqlite.
    assert!(
        violation.iter().any(|l| l.starts_with("Uncaught SqliteError: CHECK constraint failed")),
        "{violation:?}"
    );
    assert!(violation.iter().any(|l| l.starts_with("    at verarbeite (consumer.js:13:")), "{violation:?}");
    assert!(!violation.iter().any(|l| l.contains("node:sqlite")), "{violation:?}");
}

#[test]
fn an_uncaught_error_is_told_with_its_line_and_a_wrong_return_value_is_named() {
    let report = grade_javascript(
        "export function verarbeite(db, msg) {\n    console.log(\"hallo\", msg.id);\n    throw new TypeError(\"noch nicht geschrieben\");\n}\n",
    );
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message");
    let failure = fresh.failure.as_ref().expect("explained");
    assert!(
        failure.en.contains("JavaScript error at line 3 (verarbeite): TypeError: noch nicht geschrieben"),
        "{}",
        failure.en
    );
    assert!(failure.de.contains("JavaScript-Fehler in Zeile 3 (verarbeite)"), "{}", failure.de);
    assert!(logged(&report, "fresh-message").contains(&"hallo 7".to_string()));
    let report = grade_javascript("export function verarbeite(db, msg) {\n    return 1;\n}\n");
    let json = serde_json::to_string(&report).expect("serialises");
    assert!(
        json.contains("verarbeite must return true (processed) or false (duplicate), not 1"),
        "the error names the value"
    );
    let report = grade_javascript("export async function verarbeite(db, msg) {\n    return true;\n}\n");
    let json = serde_json::to_string(&report).expect("serialises");
    assert!(json.contains("returned a Promise"), "{json}");
}

#[test]
fn bad_files_get_clear_rejections() {
    let rejected = |text: &str| grade_javascript(text).rejection.expect("refused");
    let rejection = rejected("export function verarbeite(db, msg) {\n    return (;\n}\n");
    assert_eq!(rejection.code, "javascript-syntax-error");
    assert!(rejection.message.en.contains("consumer.js:2"), "{}", rejection.message.en);
    let rejection = rejected("function verarbeite(db, msg) {\n    return true;\n}\n");
    assert_eq!(rejection.code, "javascript-load-error");
    assert!(
        rejection.message.en.contains("exports no function verarbeite(db, msg)"),
        "{}",
        rejection.message.en
    );
    let rejection = rejected("throw new RangeError(\"beim Laden\");\n");
    assert!(rejection.message.en.contains("RangeError: beim Laden"), "{}", rejection.message.en);
    let huge = format!("{REFERENCE}\n// {}\n", "x".repeat(pruefstein::limits::JAVASCRIPT_SOURCE_BYTES_MAX));
    let rejection = rejected(&huge);
    assert_eq!(rejection.code, "source-too-large");
    assert!(rejection.message.en.contains("limit \"source size\""), "{}", rejection.message.en);
    let rejection = rejected("export function verarbeite() { return true; }\0");
    assert_eq!(rejection.code, "not-javascript");
    // A consumer cannot open a database of its own.
    let report = grade_javascript(
        "import { DatabaseSync } from \"node:sqlite\";\nexport function verarbeite(db, msg) {\n    new DatabaseSync(\":memory:\");\n    return true;\n}\n",
    );
    assert!(
        serde_json::to_string(&report).expect("json").contains("a consumer uses the database it is given"),
        "{:?}",
        failed(&report)
    );
}

#[test]
fn a_file_that_imports_what_a_consumer_does_not_need_is_refused_naming_the_import() {
    for module in ["fs", "node:fs", "child_process", "./other.js", "https://example.org/x.js"] {
        let report = grade_javascript(&format!("import * as m from \"{module}\";\n{REFERENCE}"));
        let rejection = report.rejection.expect("a rejection");
        assert_eq!(rejection.code, "import-not-allowed", "{module}");
        assert!(rejection.message.en.contains(&format!("\"{module}\"")), "{}", rejection.message.en);
    }
    let report = grade_javascript(&format!("import {{ DatabaseSync }} from \"node:sqlite\";\n{REFERENCE}"));
    assert_eq!(report.verdict, Verdict::Passed, "failed {:?}", failed(&report));
}

#[test]
fn an_exercise_restricted_to_python_refuses_javascript() {
    let dir = tempfile::tempdir().expect("temporary folder");
    crate::support::copy_tree(&consumer_dir(), dir.path());
    let toml = dir.path().join("exercise.toml");
    let text = std::fs::read_to_string(&toml).expect("exercise.toml").replacen(
        "[consumer]\n",
        "[consumer]\nlanguages = [\"python\"]\n",
        1,
    );
    std::fs::write(&toml, text).expect("write exercise.toml");
    let exercise = pruefstein::graders::load(dir.path()).expect("loads");
    let report = grade_javascript_in(&exercise, REFERENCE);
    assert_eq!(report.verdict, Verdict::Rejected);
    let rejection = report.rejection.expect("refused");
    assert_eq!(rejection.code, "language-not-accepted");
    assert!(rejection.message.en.contains("javascript"), "{}", rejection.message.en);
}

#[test]
fn typescript_is_graded_once_its_types_are_stripped_and_an_error_says_which_lines_it_names() {
    let typed = format!(
        "import type {{ DatabaseSync }} from \"node:sqlite\";\n\ninterface Nachricht {{\n    id: number;\n}}\n\n{}",
        REFERENCE.replace("verarbeite(db, msg)", "verarbeite(db: DatabaseSync, msg: Nachricht & { body: { punkte: number; kunde: string } }): boolean")
    );
    let report = grade_typescript(&typed);
    assert_eq!(report.verdict, Verdict::Passed, "failed {:?}", failed(&report));
    // An error's line is one of the JavaScript that runs, and the note says so.
    let report = grade_typescript(
        "type Id = number;\nexport function verarbeite(db: unknown, msg: { id: Id }): boolean {\n    throw new Error(\"noch nicht\");\n}\n",
    );
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message");
    let failure = fresh.failure.as_ref().expect("explained");
    assert!(
        failure.en.contains("Error at line 2 of the JavaScript that consumer.ts became without its types (verarbeite): Error: noch nicht"),
        "{}",
        failure.en
    );
    // The replay command names the TypeScript file.
    assert!(fresh.replay.as_deref().is_some_and(|r| r.contains("<consumer.ts>")), "{:?}", fresh.replay);
    // Not TypeScript: refused with the stripper's message, before any check runs.
    let rejection = grade_typescript("export function verarbeite(db: , msg) {\n").rejection.expect("refused");
    assert_eq!(rejection.code, "typescript-syntax-error");
    // Imports are refused as in JavaScript (what the types leave).
    let rejection = grade_typescript(&format!("import fs from \"fs\";\nconsole.log(fs);\n{REFERENCE}"))
        .rejection
        .expect("refused");
    assert_eq!(rejection.code, "import-not-allowed", "{}", rejection.message.en);
}

#[test]
fn each_statement_names_its_line_a_crash_point_the_line_it_followed_and_the_report_shows_the_source_marked() {
    let dir = exercise_dir("03-idempotenter-konsument");
    let (report, text) =
        grade_file(&load("03-idempotenter-konsument"), &dir.join("mutants/separate-autocommit.js"));
    let line_of =
        |needle: &str| 1 + text.lines().position(|l| l.contains(needle)).expect("in the file") as u32;
    let (insert, update) = (line_of("INSERT INTO gesehen"), line_of("UPDATE punkte"));
    let crash = report.checks.iter().find(|c| c.name == "crash-points").expect("crash-points");
    let pruefstein::report::CheckDetail::Consumer(detail) = &crash.detail else { panic!("a consumer check") };
    use pruefstein::consumer::detail::TraceEvent;
    let statements: Vec<(Option<u32>, &str)> = detail
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Statement { line, sql, .. } => Some((*line, sql.as_str())),
            _ => None,
        })
        .collect();
    assert!(
        statements
            .iter()
            .all(|(line, sql)| *line == Some(if sql.starts_with("INSERT") { insert } else { update })),
        "{statements:?}"
    );
    let crash_line = detail.trace.iter().find_map(|e| match e {
        TraceEvent::Crash { line, .. } => Some(*line),
        _ => None,
    });
    assert_eq!(crash_line, Some(Some(insert)), "the process died after the statement of line {insert}");
    let rendered = pruefstein::report::trace_text::render_trace(
        &detail.trace,
        pruefstein::text::Lang::En,
        pruefstein::report::voice::Voice::JavaScript,
        Some(&text),
    );
    assert!(
        rendered.iter().any(|l| l.contains(&format!("CRASH after write 1 at line {insert}"))),
        "{rendered:?}"
    );
    assert!(
        rendered.iter().any(|l| l.contains(&format!("line {insert}: db.prepare(\"INSERT INTO gesehen"))),
        "{rendered:?}"
    );

    // The report carries the file with those lines marked, and the page shows it.
    let source = report.source.as_ref().expect("a source view");
    assert_eq!((source.file.as_str(), source.text.as_str()), ("consumer.js", text.as_str()));
    let mark = |n: u32| source.marks.iter().find(|m| m.line == n).cloned();
    let at_insert = mark(insert).expect("the INSERT's line is marked");
    assert!(at_insert.statement && at_insert.crash && !at_insert.error, "{at_insert:?}");
    let at_update = mark(update).expect("the UPDATE's line is marked");
    assert!(at_update.statement && at_update.error, "the CHECK error was thrown there: {at_update:?}");
    let html = pruefstein::report::html::render_report(&report, pruefstein::text::Lang::En).into_string();
    // The INSERT's line decided the main problem (the id made durable before the credit).
    assert!(at_insert.decisive, "{at_insert:?}");
    let decisive = format!("class=\"marked decisive crash\" id=\"line-{insert}\"");
    assert!(html.contains("Your source") && html.contains(&decisive), "{html}");
    let main = html.find("id=\"main-problem\"").expect("the main problem");
    assert!(main < html.find("Your source").expect("source"), "the main problem comes first");

    // Python: the line an exception was raised at; TypeScript: the JavaScript that ran, said so.
    let python =
        std::fs::read_to_string(crate::support::repo().join("graders/consumer/kits/python/consumer.py"))
            .expect("kit");
    let raised = 1 + python
        .lines()
        .position(|l| l.trim_start().starts_with("raise NotImplementedError"))
        .expect("raise") as u32;
    let report = grade_source_in(consumer_exercise(), Language::Python, &python);
    let source = report.source.expect("a source view");
    assert_eq!(source.file, "consumer.py");
    assert!(source.marks.iter().any(|m| m.line == raised && m.error), "{:?}", source.marks);
    // Python's statements and crash points name their lines too (the line of the call, as
    // MicroPython counts it: the last line of a call written over several).
    let (report, text) =
        grade_file(&load("03-idempotenter-konsument"), &dir.join("mutants/separate-autocommit.py"));
    let insert = 1 + text.lines().position(|l| l.contains("INSERT INTO gesehen")).expect("insert") as u32;
    let source = report.source.expect("a source view");
    let at_insert = source.marks.iter().find(|m| m.line == insert).expect("marked");
    assert!(at_insert.statement && at_insert.crash, "{:?}", source.marks);
    let report = grade_typescript(
        "type Id = number;\nexport function verarbeite(db: unknown, msg: { id: Id }): boolean {\n    throw new Error(\"x\");\n}\n",
    );
    let source = report.source.expect("a source view");
    assert!(source.note.is_some() && !source.text.contains("type Id"), "{source:?}");
    // A module has no source to show.
    let wat = std::fs::read(dir.join("solutions/reference.wat")).expect("wat");
    assert!(crate::support::grade_module(consumer_exercise(), wat).source.is_none());
}

/// A file saved with a UTF-8 byte-order mark runs as Node runs it (the mark is dropped before the
/// code is read), in JavaScript and in TypeScript; the machine's node agrees that the file parses.
#[test]
fn a_file_with_a_byte_order_mark_runs_as_node_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    for (file, language) in [("reference.js", Language::JavaScript), ("typed.ts", Language::TypeScript)] {
        let text = format!(
            "\u{feff}{}",
            std::fs::read_to_string(consumer_dir().join("solutions").join(file)).unwrap()
        );
        if language == Language::JavaScript {
            let path = dir.path().join("consumer.mjs");
            std::fs::write(&path, &text).unwrap();
            let node =
                std::process::Command::new("node").arg("--check").arg(&path).output().expect("node runs");
            assert!(node.status.success(), "node refuses it: {}", String::from_utf8_lossy(&node.stderr));
        }
        let report = grade_source_in(consumer_exercise(), language, &text);
        assert_eq!(
            report.verdict,
            Verdict::Passed,
            "{file}: {}",
            pruefstein::report::render_text(&report, pruefstein::text::Lang::En)
        );
        let source = report.source.expect("the source view");
        assert!(!source.text.starts_with('\u{feff}'), "{file}: the view shows the mark");
    }
}

/// A thrown value that is not an Error is described as Node describes it (`String(value)`,
/// `util.inspect`): a Symbol as `Symbol(boom)`, not as an exception without text; the machine's
/// node agrees.
#[test]
fn a_thrown_symbol_is_described_as_node_describes_it() {
    let node = std::process::Command::new("node")
        .args(["-e", "process.on('uncaughtException', e => console.log(String(e))); throw Symbol('boom')"])
        .output()
        .expect("node runs");
    assert_eq!(String::from_utf8_lossy(&node.stdout).trim(), "Symbol(boom)");
    let report = grade_javascript("export function verarbeite(db, msg) {\n    throw Symbol(\"boom\");\n}\n");
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message");
    let failure = fresh.failure.as_ref().expect("explained");
    assert!(failure.en.contains("Symbol(boom)"), "{}", failure.en);
    let json = serde_json::to_string(&report).expect("serialises");
    assert!(!json.contains("has no text"), "{json}");
}
