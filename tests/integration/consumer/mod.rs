//! The consumer grader end to end: every solution of exercise 03 passes, every mutant fails the check
//! it declares, every kind of bad input gets its own clear message, and grading is deterministic.

use std::path::{Path, PathBuf};

use pruefstein::consumer::detail::TraceEvent;
use pruefstein::grade::{Compiler, GradeOptions, grade};
use pruefstein::report::{CheckDetail, Report, Verdict};
use pruefstein::submission::Submission;

mod dead_letter;
mod log_offsets;
mod offsets;
mod outbox;
mod world;

use crate::support::{
    BIN, consumer_dir as exercise_dir, consumer_exercise as exercise, failed, grade_consumer as grade_bytes,
    repo,
};

fn grade_file(relative: &str) -> Report {
    grade_bytes(std::fs::read(exercise_dir().join(relative)).expect("file exists"))
}

fn modules_in(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(exercise_dir().join(folder))
        .expect("folder exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wat"))
        .collect();
    files.sort();
    files
}

#[test]
fn reference_and_three_correct_variants_pass() {
    let solutions = modules_in("solutions");
    assert!(solutions.len() >= 4, "reference plus at least three variants: {solutions:?}");
    for file in solutions {
        let report = grade_bytes(std::fs::read(&file).expect("read"));
        assert_eq!(report.verdict, Verdict::Passed, "{}: failed {:?}", file.display(), failed(&report));
        assert_eq!(report.score.points, report.score.max);
        assert_eq!(report.checks.len(), pruefstein::consumer::checks::Check::ALL.len());
        // Every crash point found is tried: after each write and each COMMIT of the fresh message,
        // of the message whose effect fails, and of a duplicate.
        let coverage = &report.coverage[0];
        assert_eq!(coverage.name, "crash-points");
        assert_eq!(coverage.total, Some(coverage.exercised), "{}", file.display());
        assert!(coverage.exercised >= 3, "{}: {coverage:?}", file.display());
    }
}

#[test]
fn every_mutant_fails_the_check_it_declares() {
    let mutants = modules_in("mutants");
    assert!(mutants.len() >= 8, "{mutants:?}");
    let mut seen = Vec::new();
    for file in mutants {
        let source = std::fs::read_to_string(&file).expect("read");
        let declared = source
            .lines()
            .find_map(|l| l.split_once("expect-fail:").map(|(_, c)| c.trim().to_string()))
            .expect("mutant declares its check");
        let report = grade_bytes(source.into_bytes());
        assert_eq!(report.verdict, Verdict::Failed, "{}", file.display());
        assert_eq!(report.score.points, 0, "all or nothing");
        assert!(
            failed(&report).contains(&declared),
            "{}: declared {declared}, failed {:?}",
            file.display(),
            failed(&report)
        );
        seen.push(declared);
    }
    for check in [
        "duplicate-same-instance",
        "duplicate-after-restart",
        "constraint-violation",
        "crash-points",
        "fresh-message",
    ] {
        assert!(seen.iter().any(|s| s == check), "no mutant proves {check}");
    }
}

#[test]
fn the_in_memory_dedup_passes_the_same_instance_and_fails_after_restart() {
    let report = grade_file("mutants/dedup-in-memory.wat");
    let by_name = |n: &str| report.checks.iter().find(|c| c.name == n).expect("check present");
    assert!(!by_name("duplicate-after-restart").passed);
    assert!(!by_name("lost-ack").passed);
    // It never writes the dedup table, so the fresh message already leaves another state.
    let fresh = by_name("fresh-message");
    let CheckDetail::Consumer(detail) = &fresh.detail else { panic!("consumer detail") };
    let state = detail.state.as_ref().expect("state evidence");
    assert_eq!(state.diff[0].table, "gesehen");
}

#[test]
fn poison_mishandling_is_caught_only_by_the_schedule_check() {
    for file in ["mutants/poison-swallowed-on-retry.wat", "mutants/poison-retry-forever.wat"] {
        let report = grade_file(file);
        assert_eq!(failed(&report), vec!["at-least-once-schedule".to_string()], "{file}");
    }
    let swallowed = grade_file("mutants/poison-swallowed-on-retry.wat");
    let check = swallowed.checks.iter().find(|c| c.name == "at-least-once-schedule").expect("present");
    let failure = &check.failure.as_ref().expect("failure").en;
    assert!(failure.contains("message m9 can never succeed") && failure.contains("acked"), "{failure}");
    let forever = grade_file("mutants/poison-retry-forever.wat");
    let check = forever.checks.iter().find(|c| c.name == "at-least-once-schedule").expect("present");
    assert!(check.failure.as_ref().expect("failure").en.contains("statements per delivery"));
}

#[test]
fn a_failing_schedule_is_shrunk_before_it_is_reported() {
    for file in
        ["mutants/poison-swallowed-on-retry.wat", "mutants/separate-autocommit.wat", "mutants/no-dedup.wat"]
    {
        let report = grade_file(file);
        let check = report.checks.iter().find(|c| c.name == "at-least-once-schedule").expect("present");
        assert!(!check.passed, "{file}");
        let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
        let schedule = detail.schedule.as_ref().expect("the schedule is reported");
        assert!(schedule.size < schedule.original_size, "{file}: {schedule:?}");
        assert!(schedule.seed.starts_with("0x"), "names the original seed");
    }
}

#[test]
fn the_report_says_how_much_was_exercised() {
    let report = grade_file("solutions/reference.wat");
    let names: Vec<&str> = report.coverage.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["crash-points", "interleavings", "schedules"]);
    let schedules = &report.coverage[2];
    assert_eq!(schedules.exercised, pruefstein::consumer::schedule::SCHEDULES_PER_SUBMISSION);
    let text = pruefstein::report::render_text_full(&report, pruefstein::Lang::En);
    // Fresh message: INSERT, UPDATE, COMMIT; the failing one: its INSERT (then the ROLLBACK).
    assert!(text.contains("crash points 4/4"), "{text}");
}

#[test]
fn check_then_act_is_caught_only_by_the_concurrent_check() {
    let report = grade_file("mutants/check-then-act.wat");
    assert_eq!(failed(&report), vec!["concurrent-duplicate".to_string()]);
    let check = report.checks.iter().find(|c| c.name == "concurrent-duplicate").expect("present");
    let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
    // Both instances returned 1 and the points were credited twice.
    let returns = detail.trace.iter().filter(|e| matches!(e, TraceEvent::Return { value: 1, .. })).count();
    assert_eq!(returns, 2);
    let state = detail.state.as_ref().expect("state");
    assert_eq!(state.diff[0].table, "punkte");
    assert!(check.failure.as_ref().expect("failure").en.contains("at the same time"));
}

#[test]
fn the_reference_is_explored_in_every_interleaving() {
    let report = grade_file("solutions/reference.wat");
    let interleavings =
        report.coverage.iter().find(|c| c.name == "interleavings").expect("interleavings coverage");
    assert!(interleavings.exercised >= 4, "{interleavings:?}");
    assert_eq!(interleavings.total, Some(interleavings.exercised), "enumerated exhaustively");
}

#[test]
fn crash_check_reports_the_half_done_effect_with_its_crash_point() {
    let report = grade_file("mutants/update-then-insert-separate.wat");
    let check = report.checks.iter().find(|c| c.name == "crash-points").expect("present");
    assert!(!check.passed);
    let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
    let points = detail.crash_points.as_ref().expect("crash points");
    assert_eq!((points.writes, points.failed_at), (2, Some(1)));
    assert!(detail.trace.iter().any(|e| matches!(e, TraceEvent::Crash { after_write: Some(1), .. })));
    let failure = check.failure.as_ref().expect("failure text");
    assert!(failure.de.contains("entweder beides oder nichts"), "{}", failure.de);
    assert!(failure.en.contains("all or nothing"));
}

/// The mistake the lesson warns about, in every form the mutants give it: the id committed first,
/// the effect afterwards. Only a crash between the two transactions shows it.
#[test]
fn committing_the_id_before_the_effect_is_caught_at_the_crash_after_the_commit() {
    for file in [
        "mutants/commits-id-first.wat",
        "mutants/commits-id-then-credit-in-second-transaction.wat",
        "mutants/commits-id-after-checking-the-limit.wat",
    ] {
        let report = grade_file(file);
        let failed = failed(&report);
        // The schedules crash at the same points, so they may catch it too; nothing else does.
        assert!(failed.contains(&"crash-points".to_string()), "{file}: {failed:?}");
        assert!(
            failed.iter().all(|c| c == "crash-points" || c == "at-least-once-schedule"),
            "{file}: {failed:?}"
        );
        let check = report.checks.iter().find(|c| c.name == "crash-points").expect("present");
        let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
        let points = detail.crash_points.as_ref().expect("crash points");
        assert_eq!(points.failed_at, Some(2), "{file}: the crash right after the first COMMIT");
        let crash = detail.trace.iter().rev().find_map(|e| match e {
            TraceEvent::Crash { point, after_write, after_commit, .. } => {
                Some((*point, *after_write, *after_commit))
            }
            _ => None,
        });
        assert_eq!(crash, Some((2, None, Some(1))), "{file}");
        let failure = check.failure.as_ref().expect("failure");
        assert!(
            failure.de.contains(
                "Nach dem Absturz nach dem COMMIT der 1. Transaktion, vor der nächsten Anweisung `UPDATE punkte SET stand = stand + ? WHERE kunde = ?`"
            ),
            "{file}: {}",
            failure.de
        );
        assert!(
            failure.en.contains(
                "After the crash after the COMMIT of transaction 1, before the next statement `UPDATE punkte"
            ),
            "{file}: {}",
            failure.en
        );
        assert!(failure.en.contains("all or nothing"));
        // The evidence: the id is remembered, the credit is missing.
        let state = detail.state.as_ref().expect("state evidence");
        let punkte = state.diff.iter().find(|d| d.table == "punkte").expect("punkte differ");
        assert_eq!(punkte.missing.len(), 1, "the credited row is missing");
        assert!(state.diff.iter().all(|d| d.table != "gesehen"), "the id is remembered as expected");
        assert!(check.replay.as_deref().is_some_and(|r| r.contains("--replay crash-points@")));
    }
}

#[test]
fn committing_the_id_of_a_failed_effect_is_caught_on_the_failing_path() {
    let report = grade_file("mutants/commits-failed-id-then-forgets.wat");
    let failed = failed(&report);
    assert!(failed.contains(&"crash-points".to_string()), "{failed:?}");
    assert!(failed.iter().all(|c| c == "crash-points" || c == "at-least-once-schedule"), "{failed:?}");
    let check = report.checks.iter().find(|c| c.name == "crash-points").expect("present");
    let failure = check.failure.as_ref().expect("failure");
    assert!(
        failure
            .en
            .contains("after the COMMIT of transaction 1, before the next statement `DELETE FROM gesehen"),
        "{}",
        failure.en
    );
    assert!(failure.de.contains("Wirkung dieser Nachricht scheitert"), "{}", failure.de);
    let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
    let state = detail.state.as_ref().expect("state evidence");
    let gesehen = state.diff.iter().find(|d| d.table == "gesehen").expect("gesehen differs");
    assert_eq!(gesehen.unexpected.len(), 1, "the failed message's id is remembered");
}

#[test]
fn changing_the_database_on_a_duplicate_is_caught_on_the_duplicate_path() {
    let report = grade_file("mutants/refreshes-id-on-duplicate.wat");
    let failed = failed(&report);
    assert!(failed.contains(&"crash-points".to_string()), "{failed:?}");
    assert!(failed.iter().all(|c| c == "crash-points" || c == "at-least-once-schedule"), "{failed:?}");
    let check = report.checks.iter().find(|c| c.name == "crash-points").expect("present");
    let failure = check.failure.as_ref().expect("failure");
    assert!(failure.en.starts_with("A duplicate must change nothing"), "{}", failure.en);
    assert!(
        failure.de.contains("nach Schreibzugriff 1 (`DELETE FROM gesehen WHERE msg_id = ?`, ohne Transaktion: sofort dauerhaft), vor der nächsten Anweisung `INSERT INTO gesehen"),
        "{}",
        failure.de
    );
    let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
    let gesehen = detail.state.as_ref().expect("state").diff.iter().find(|d| d.table == "gesehen").cloned();
    assert_eq!(gesehen.expect("gesehen differs").missing.len(), 1, "the id is forgotten");
}

#[test]
fn a_replay_token_with_the_former_check_name_still_works() {
    let bytes = std::fs::read(exercise_dir().join("mutants/separate-autocommit.wat")).expect("read");
    let sha = pruefstein::submission::Submission::Module(bytes.clone()).sha256();
    let options =
        GradeOptions { replay: Some(format!("crash-after-write@{}", &sha[..12])), ..GradeOptions::default() };
    let replayed = grade(exercise(), &Submission::Module(bytes), &options).expect("replays");
    assert_eq!(replayed.checks[0].name, "crash-points");
    assert!(!replayed.checks[0].passed);
}

#[test]
fn never_committing_is_reported_as_a_transaction_left_open() {
    let report = grade_file("mutants/never-commits.wat");
    let fresh = &report.checks[0];
    assert_eq!(fresh.name, "fresh-message");
    let failure = fresh.failure.as_ref().expect("failure");
    assert!(failure.en.starts_with("Transaction left open"), "{}", failure.en);
    let CheckDetail::Consumer(detail) = &fresh.detail else { panic!() };
    assert!(detail.trace.iter().any(|e| matches!(e, TraceEvent::RolledBack { .. })));
}

#[test]
fn grading_twice_gives_identical_json() {
    for file in ["solutions/reference.wat", "mutants/separate-autocommit.wat", "mutants/dedup-in-memory.wat"]
    {
        let first = grade_file(file).to_json();
        let second = grade_file(file).to_json();
        assert_eq!(first, second, "{file}");
    }
}

#[test]
fn cranelift_gives_the_same_verdicts_as_winch() {
    let options = GradeOptions { compiler: Compiler::Cranelift, ..GradeOptions::default() };
    for file in ["solutions/reference.wat", "mutants/separate-autocommit.wat"] {
        let bytes = std::fs::read(exercise_dir().join(file)).expect("read");
        let cranelift = grade(exercise(), &Submission::Module(bytes.clone()), &options).expect("grades");
        let winch = grade_bytes(bytes);
        assert_eq!(cranelift.verdict, winch.verdict, "{file}");
        assert_eq!(failed(&cranelift), failed(&winch), "{file}");
    }
}

#[test]
fn a_binary_module_grades_like_its_text() {
    let text = std::fs::read(exercise_dir().join("solutions/reference.wat")).expect("read");
    let binary = wat::parse_bytes(&text).expect("valid wat").into_owned();
    assert_eq!(grade_bytes(binary).verdict, Verdict::Passed);
}

#[test]
fn a_text_answer_is_rejected_for_a_consumer_exercise() {
    let report =
        grade(exercise(), &Submission::Answer("(2, 2, 0)".into()), &GradeOptions::default()).expect("grades");
    assert_eq!(report.verdict, Verdict::Rejected);
    assert_eq!(report.rejection.expect("rejection").code, "wrong-submission-kind");
}

// ---------------------------------------------------------------------------------------------
// Bad input. Each module is small WAT with the ABI imports it needs.

const IMPORTS: &str = r#"
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "db" "last_error" (func $last_error (param i32 i32) (result i32)))
  (import "env" "log" (func $log (param i32 i32)))
"#;

/// A module whose `verarbeite` runs `body`, with `data` strings laid out from offset 16 on.
fn module(data: &[&str], extra: &str, body: &str) -> Vec<u8> {
    let mut segments = String::new();
    let mut offset = 16;
    for text in data {
        segments.push_str(&format!("  (data (i32.const {offset}) \"{text}\")\n"));
        offset += text.len().div_ceil(16) * 16;
    }
    format!(
        "(module {IMPORTS}\n  (memory (export \"memory\") 1)\n{segments}{extra}\n  (func (export \"verarbeite\") (result i32)\n{body})\n)"
    )
    .into_bytes()
}

/// Runs `sql` through db.exec as the consumer's first statement; returns the traced status and error.
fn statement_outcome(sql: &str) -> (i32, String) {
    let body = format!("    (drop (call $exec (i32.const 16) (i32.const {})))\n    (i32.const 1)", sql.len());
    let report = grade_bytes(module(&[sql], "", &body));
    assert_eq!(report.verdict, Verdict::Failed);
    let CheckDetail::Consumer(detail) = &report.checks[0].detail else { panic!() };
    detail
        .trace
        .iter()
        .find_map(|e| match e {
            TraceEvent::Statement { status, error, .. } => Some((*status, error.clone().unwrap_or_default())),
            _ => None,
        })
        .expect("the statement is traced")
}

fn rejection(bytes: Vec<u8>) -> (String, String, String) {
    let report = grade_bytes(bytes);
    assert_eq!(report.verdict, Verdict::Rejected);
    assert!(report.checks.is_empty());
    let rejection = report.rejection.expect("a rejection");
    (rejection.code, rejection.message.de, rejection.message.en)
}

/// The first fault in the first check (the fresh message): code and English message.
fn first_fault(bytes: Vec<u8>) -> (String, String) {
    let report = grade_bytes(bytes);
    assert_eq!(report.verdict, Verdict::Failed);
    let CheckDetail::Consumer(detail) = &report.checks[0].detail else { panic!() };
    let fault = detail
        .trace
        .iter()
        .find_map(|e| match e {
            TraceEvent::Fault { code, message, .. } => Some((code.clone(), message.en.clone())),
            _ => None,
        })
        .expect("a fault in the trace");
    let failure = report.checks[0].failure.as_ref().expect("failure");
    assert!(failure.en.contains(&fault.1), "the failure quotes the fault: {}", failure.en);
    fault
}

#[test]
fn not_wasm_is_rejected() {
    let (code, de, en) = rejection(b"hello, this is a text file".to_vec());
    assert_eq!(code, "not-wasm");
    assert!(de.contains("kein WebAssembly-Modul") && en.contains("not a WebAssembly module"));
}

#[test]
fn truncated_wasm_is_rejected() {
    let text = std::fs::read(exercise_dir().join("solutions/reference.wat")).expect("read");
    let binary = wat::parse_bytes(&text).expect("valid").into_owned();
    let (code, _, en) = rejection(binary[..binary.len() / 2].to_vec());
    assert_eq!(code, "invalid-module");
    assert!(en.contains("invalid"), "{en}");
}

#[test]
fn wat_with_a_syntax_error_is_rejected_with_the_position() {
    let (code, _, en) =
        rejection(b"(module (func (export \"verarbeite\") (result i32) (i32.const 1) oops))".to_vec());
    assert_eq!(code, "invalid-module");
    assert!(en.contains("1:"), "names line and column: {en}");
}

#[test]
fn a_precompiled_cwasm_is_rejected() {
    let engine = pruefstein::sandbox::engine(Compiler::Winch).expect("engine");
    let text = std::fs::read(exercise_dir().join("solutions/reference.wat")).expect("read");
    let cwasm = engine.precompile_module(&text).expect("precompiles");
    let (code, _, en) = rejection(cwasm);
    assert_eq!(code, "precompiled-module");
    assert!(en.contains(".cwasm"));
}

#[test]
fn a_module_over_the_size_limit_is_rejected_before_compiling() {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    bytes.resize(pruefstein::limits::MODULE_BYTES_MAX + 1, 0);
    let (code, _, en) = rejection(bytes);
    assert_eq!(code, "module-too-large");
    assert!(en.contains(&pruefstein::limits::MODULE_BYTES_MAX.to_string()), "{en}");
}

#[test]
fn an_unknown_import_is_named_and_the_allowed_ones_listed() {
    let wat = r#"(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
        (memory (export "memory") 1) (func (export "verarbeite") (result i32) (i32.const 1)))"#;
    let (code, de, en) = rejection(wat.as_bytes().to_vec());
    assert_eq!(code, "unknown-import");
    assert!(en.contains("wasi_snapshot_preview1.fd_write"), "{en}");
    assert!(en.contains("db.exec(i32, i32) -> i32") && en.contains("msg.text"), "{en}");
    assert!(de.contains("Erlaubt sind"));
}

#[test]
fn an_import_with_the_wrong_signature_is_rejected() {
    let wat = r#"(module (import "db" "exec" (func (param i32) (result i32)))
        (memory (export "memory") 1) (func (export "verarbeite") (result i32) (i32.const 1)))"#;
    let (code, _, en) = rejection(wat.as_bytes().to_vec());
    assert_eq!(code, "import-signature");
    assert!(en.contains("db.exec(i32, i32) -> i32"), "{en}");
}

#[test]
fn missing_entry_and_missing_memory_are_rejected() {
    let no_entry =
        r#"(module (memory (export "memory") 1) (func (export "process") (result i32) (i32.const 1)))"#;
    let (code, _, en) = rejection(no_entry.as_bytes().to_vec());
    assert_eq!(code, "missing-entry");
    assert!(en.contains("verarbeite"));
    let no_memory = r#"(module (memory 1) (func (export "verarbeite") (result i32) (i32.const 1)))"#;
    assert_eq!(rejection(no_memory.as_bytes().to_vec()).0, "missing-memory");
    let wrong_type = r#"(module (memory (export "memory") 1) (func (export "verarbeite") (param i32) (result i32) (i32.const 1)))"#;
    assert_eq!(rejection(wrong_type.as_bytes().to_vec()).0, "entry-signature");
}

#[test]
fn an_endless_loop_runs_out_of_fuel() {
    let (code, message) =
        first_fault(module(&[], "", "    (loop $forever (br $forever))\n    (i32.const 1)"));
    assert_eq!(code, "fuel-exhausted");
    assert!(
        message.contains("fuel") && message.contains(&pruefstein::limits::FUEL_PER_DELIVERY.to_string()),
        "{message}"
    );
}

#[test]
fn growing_memory_past_the_cap_is_stopped() {
    let body = "    (drop (memory.grow (i32.const 2000)))\n    (i32.const 1)";
    let (code, message) = first_fault(module(&[], "", body));
    assert_eq!(code, "memory-limit");
    assert!(message.contains("65536 KiB"), "{message}");
    let too_big_at_start =
        r#"(module (memory (export "memory") 1025) (func (export "verarbeite") (result i32) (i32.const 1)))"#;
    assert_eq!(rejection(too_big_at_start.as_bytes().to_vec()).0, "memory-limit");
}

#[test]
fn a_table_larger_than_the_limit_at_start_is_refused_with_the_limit_named() {
    let elements = pruefstein::limits::TABLE_ELEMENTS_MAX + 1;
    let wat = format!(
        r#"(module (memory (export "memory") 1) (table {elements} funcref)
            (func (export "verarbeite") (result i32) (i32.const 1)))"#
    );
    let (code, de, en) = rejection(wat.into_bytes());
    assert_eq!(code, "table-limit");
    assert!(en.contains(&elements.to_string()) && en.contains("table elements"), "{en}");
    assert!(de.contains("Tabelleneinträge"), "{de}");
    let at_the_limit = format!(
        r#"(module (memory (export "memory") 1) (table {} funcref)
            (func (export "verarbeite") (result i32) (i32.const 1)))"#,
        pruefstein::limits::TABLE_ELEMENTS_MAX
    );
    assert_eq!(grade_bytes(at_the_limit.into_bytes()).verdict, Verdict::Failed, "graded, not refused");
}

#[test]
fn deep_recursion_hits_the_stack_limit() {
    let extra = "  (func $deep (param i64) (result i64) (i64.add (call $deep (i64.add (local.get 0) (i64.const 1))) (i64.const 1)))";
    let body = "    (drop (call $deep (i64.const 0)))\n    (i32.const 1)";
    let (code, message) = first_fault(module(&[], extra, body));
    assert_eq!(code, "stack-limit");
    assert!(message.contains("512 KiB"), "{message}");
}

#[test]
fn a_recursive_cte_that_never_ends_is_stopped_by_the_step_limit() {
    let (status, error) = statement_outcome(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
    );
    assert_eq!(status, 3);
    assert!(error.contains("SQL steps"), "{error}");
}

#[test]
fn forbidden_sql_gets_status_3_and_says_not_allowed() {
    for (sql, needle) in [
        ("ATTACH DATABASE 'other.db' AS other", "not allowed: ATTACH"),
        ("PRAGMA journal_mode = OFF", "not allowed: PRAGMA journal_mode"),
        ("DROP TABLE gesehen", "not allowed: DROP TABLE"),
        ("CREATE TABLE spy (x)", "not allowed: CREATE TABLE"),
        ("SELECT name FROM sqlite_schema", "not allowed: table \\\"sqlite_master\\\""),
        ("SELECT random()", "not allowed: the function random()"),
    ] {
        let (status, error) = statement_outcome(sql);
        assert_eq!(status, 3, "{sql}");
        let needle = needle.replace("\\\"", "\"");
        assert!(error.contains(&needle), "{sql}: {error}");
    }
}

#[test]
fn two_statements_in_one_call_are_refused() {
    let (status, error) = statement_outcome("DELETE FROM gesehen; DELETE FROM punkte");
    assert_eq!(status, 3);
    assert!(error.contains("one statement per call"), "{error}");
}

#[test]
fn a_pointer_outside_memory_is_a_clear_fault() {
    let body = "    (drop (call $exec (i32.const 65530) (i32.const 100)))\n    (i32.const 1)";
    let (code, message) = first_fault(module(&[], "", body));
    assert_eq!(code, "pointer-out-of-bounds");
    assert!(message.contains("db.exec") && message.contains("65536 bytes"), "{message}");
}

#[test]
fn a_message_path_that_does_not_exist_is_named() {
    let body = "    (drop (call $msg_int (i32.const 16) (i32.const 11)))\n    (i32.const 1)";
    let (code, message) = first_fault(module(&["body.kundin"], "", body));
    assert_eq!(code, "message-path");
    assert!(message.contains("body.kundin") && message.contains("kundin"), "{message}");
}

#[test]
fn a_failing_submission_does_not_affect_the_next_one() {
    let endless = module(&[], "", "    (loop $forever (br $forever))\n    (i32.const 1)");
    assert_eq!(grade_bytes(endless).verdict, Verdict::Failed);
    assert_eq!(grade_file("solutions/reference.wat").verdict, Verdict::Passed);
}

// ---------------------------------------------------------------------------------------------
// The command line.

fn pruefstein(args: &[&str]) -> std::process::Output {
    std::process::Command::new(BIN)
        .args(args)
        .env(pruefstein::cli::MODULE_CACHE_ENV, "off")
        .current_dir(repo())
        .output()
        .expect("the binary runs")
}

#[test]
fn cli_check_proves_exercise_03_sound() {
    let out = pruefstein(&["check", "exercises/03-idempotenter-konsument"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("mutants caught: 30/30 (100%)"), "{stdout}");
    assert!(stdout.contains("exercise is sound"));
}

#[test]
fn cli_grade_exit_codes_are_0_1_2() {
    let dir = "exercises/03-idempotenter-konsument";
    let passed = pruefstein(&["grade", dir, &format!("{dir}/solutions/reference.wat")]);
    assert_eq!(passed.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&passed.stdout).contains("BESTANDEN"));
    let failed = pruefstein(&["grade", dir, &format!("{dir}/mutants/no-dedup.wat"), "--lang", "en"]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stdout).contains("FAILED"));
    let rejected = pruefstein(&["grade", dir, "Cargo.toml", "--json"]);
    assert_eq!(rejected.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&rejected.stdout).expect("json");
    assert_eq!(json["verdict"], "rejected");
    assert_eq!(json["rejection"]["code"], "not-wasm");
}

#[test]
fn replay_reproduces_the_reported_run_byte_for_byte() {
    for (file, check) in [
        ("mutants/check-then-act.wat", "concurrent-duplicate"),
        ("mutants/separate-autocommit.wat", "crash-points"),
    ] {
        let bytes = std::fs::read(exercise_dir().join(file)).expect("read");
        let report = grade_bytes(bytes.clone());
        let original = report.checks.iter().find(|c| c.name == check).expect("check present");
        let command = original.replay.as_ref().expect("a failing check has a replay command");
        let token =
            command.split("--replay ").nth(1).and_then(|rest| rest.split_whitespace().next()).expect("token");
        assert!(command.contains("# seed 0x"), "names the seed: {command}");
        let options = GradeOptions { replay: Some(token.to_string()), ..GradeOptions::default() };
        let replayed = grade(exercise(), &Submission::Module(bytes), &options).expect("replays");
        assert_eq!(replayed.checks.len(), 1);
        let again = &replayed.checks[0];
        assert_eq!(again.name, check);
        let json = |c: &pruefstein::report::CheckReport| serde_json::to_string(&c.detail).expect("json");
        assert_eq!(json(again), json(original), "{file}: the replay's trace differs");
        assert_eq!(again.failure, original.failure);
    }
}

#[test]
fn a_replay_token_for_another_module_is_refused() {
    let report = grade_file("mutants/check-then-act.wat");
    let command = report.checks.iter().find_map(|c| c.replay.clone()).expect("replay");
    let token = command.split("--replay ").nth(1).and_then(|r| r.split_whitespace().next()).expect("token");
    let options = GradeOptions { replay: Some(token.to_string()), ..GradeOptions::default() };
    let reference = std::fs::read(exercise_dir().join("solutions/reference.wat")).expect("read");
    let error = grade(exercise(), &Submission::Module(reference), &options).expect_err("refused");
    assert!(error.to_string().contains("made for the module"), "{error}");
}

/// The reference's states the schedules compare with are kept with the loaded exercise and shared by
/// every grading: a grade on a warm exercise gives the same report, byte for byte, as on an exercise
/// loaded afresh (for every solution and every mutant), and grading the same module again computes
/// no further state.
#[test]
fn the_shared_reference_states_change_no_report() {
    use pruefstein::consumer::ConsumerExercise;
    let warm = crate::support::load(crate::support::CONSUMER);
    let consumer = warm.grader_as::<ConsumerExercise>().expect("a consumer exercise");
    let files: Vec<PathBuf> = modules_in("solutions").into_iter().chain(modules_in("mutants")).collect();
    for file in &files {
        let bytes = std::fs::read(file).expect("read");
        let cold = crate::support::load(crate::support::CONSUMER);
        let on_cold =
            serde_json::to_string(&crate::support::grade_module(&cold, bytes.clone())).expect("json");
        let on_warm =
            serde_json::to_string(&crate::support::grade_module(&warm, bytes.clone())).expect("json");
        assert_eq!(on_warm, on_cold, "{}: the report depends on what was graded before", file.display());
        let kept = pruefstein::consumer::oracle(&warm, consumer).expect("oracle").reference_states.len();
        let again = serde_json::to_string(&crate::support::grade_module(&warm, bytes)).expect("json");
        assert_eq!(again, on_warm, "{}", file.display());
        let kept_after =
            pruefstein::consumer::oracle(&warm, consumer).expect("oracle").reference_states.len();
        assert_eq!(kept_after, kept, "{}: grading again computed a state it had", file.display());
    }
    let kept = pruefstein::consumer::oracle(&warm, consumer).expect("oracle").reference_states.len();
    assert!(kept > 0, "the schedules' reference states are kept with the exercise");
    assert!(kept <= pruefstein::limits::REFERENCE_STATES_CACHED_MAX);
}

/// `pruefstein grade` with its module cache in `cache` (or `off`), as JSON.
fn grade_cached(cache: &std::ffi::OsStr, file: &str) -> std::process::Output {
    let dir = "exercises/03-idempotenter-konsument";
    std::process::Command::new(BIN)
        .args(["grade", dir, &format!("{dir}/{file}"), "--json"])
        .env(pruefstein::cli::MODULE_CACHE_ENV, cache)
        .current_dir(repo())
        .output()
        .expect("the binary runs")
}

/// The entries of a module cache directory: path, inode and modification time.
fn cache_entries(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    use std::os::unix::fs::MetadataExt;
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("cache dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cwasm" || x == "data"))
        .map(|p| {
            let meta = std::fs::metadata(&p).expect("meta");
            (p, meta.ino(), meta.modified().expect("mtime"))
        })
        .collect();
    entries.sort();
    entries
}

#[test]
fn cli_grade_keeps_compiled_references_between_runs_and_reports_the_same() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("modules");
    for file in ["solutions/reference.wat", "mutants/no-dedup.wat", "solutions/lesson.py"] {
        let uncached = grade_cached("off".as_ref(), file);
        assert!(
            uncached.status.code().is_some_and(|c| c <= 1),
            "{file}: {}",
            String::from_utf8_lossy(&uncached.stderr)
        );
        let earlier: Vec<std::path::PathBuf> = if cache.exists() {
            cache_entries(&cache).into_iter().map(|(p, _, _)| p).collect()
        } else {
            Vec::new()
        };
        let before = earlier.len();

        // The first run compiles and keeps: the exercise's reference (once), and for Python the
        // interpreter and its snapshot.
        let first = grade_cached(cache.as_os_str(), file);
        assert_eq!(first.stdout, uncached.stdout, "{file}: the cache changes no report");
        let kept = cache_entries(&cache);
        assert!(kept.len() >= before.max(1), "{file}: {kept:?}");
        if file.ends_with(".py") {
            assert!(kept.len() >= before + 2, "{file}: the interpreter and its snapshot are kept: {kept:?}");
        }

        assert!(
            kept.iter().any(|(p, _, _)| p.extension().is_some_and(|x| x == "data")),
            "{file}: the reference's states (the oracle) are kept: {kept:?}"
        );

        // The second run uses the entries: each is read (its time refreshed), none written anew.
        // The oracle's entry is read, and for Python the interpreter's; the reference's module
        // is not even needed once its states are kept.
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (path, _, _) in &kept {
            std::fs::File::options()
                .append(true)
                .open(path)
                .expect("entry")
                .set_modified(old)
                .expect("mtime");
        }
        let second = grade_cached(cache.as_os_str(), file);
        assert_eq!(second.stdout, uncached.stdout, "{file}: a cached module grades the same");
        let used = cache_entries(&cache);
        assert_eq!(used.len(), kept.len(), "{file}: nothing new is compiled");
        for ((path, inode, _), (_, inode_after, modified)) in kept.iter().zip(&used) {
            assert_eq!(inode, inode_after, "{file}: {} is read, not rewritten", path.display());
            let interpreter = file.ends_with(".py") && !earlier.contains(path);
            if path.extension().is_some_and(|x| x == "data") || interpreter {
                assert!(*modified > old, "{file}: {} is used by the second run", path.display());
            }
        }
    }

    // Entries that are changed on disk are not run: they are compiled again and rewritten, and
    // the report is the same.
    let expected = grade_cached("off".as_ref(), "solutions/lesson.py").stdout;
    let entries = cache_entries(&cache);
    for (path, _, _) in &entries {
        let mut bytes = std::fs::read(path).expect("entry");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x55;
        std::fs::write(path, &bytes).expect("tamper");
    }
    let tampered: Vec<Vec<u8>> = entries.iter().map(|(p, _, _)| std::fs::read(p).expect("entry")).collect();
    let after = grade_cached(cache.as_os_str(), "solutions/lesson.py");
    assert_eq!(after.stdout, expected);
    let rewritten = entries
        .iter()
        .zip(&tampered)
        .filter(|((path, _, _), bytes)| std::fs::read(path).map(|b| &b != *bytes).unwrap_or(true))
        .count();
    assert!(rewritten >= 3, "the reference, the interpreter and its snapshot are refused and rewritten");
}
