//! Hostile calls of ABI v1.1's `world.commit_offset` (exercise 08-offsets-im-log, where the log
//! keeps the offsets): a million calls, offsets at the i64 edges, negative and out-of-range
//! partitions, a partition not delivered yet, a commit with an open transaction, and the call in
//! exercises whose log keeps no offsets. Every grade ends within the submission's deadline, with a
//! named limit or a clear refusal; the log and the grader are unaffected.

use std::sync::OnceLock;
use std::time::Duration;

use pruefstein::consumer::detail::TraceEvent;
use pruefstein::exercise::Exercise;
use pruefstein::limits::{OUTSIDE_CALLS_PER_RUN_MAX, REPORT_BYTES_MAX, WALL_MS_PER_SUBMISSION};
use pruefstein::report::{Report, Verdict};

use crate::support::{check, consumer_detail, exercise_dir, grade_module, load};

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load("08-offsets-im-log"))
}

/// Grades `wat` against `exercise` on a thread of its own, under a hang guard.
fn grade_on(exercise: &'static Exercise, wat: String) -> Report {
    let hang = Duration::from_millis(WALL_MS_PER_SUBMISSION * 6);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(grade_module(exercise, wat.into_bytes()));
    });
    receiver.recv_timeout(hang).expect("the grade ends: no commit hangs the grader")
}

/// The exercise's WAT reference with `calls` (instructions over `$commit_offset`) run first in
/// every delivery.
fn reference_with(calls: &str) -> String {
    let reference =
        std::fs::read_to_string(exercise_dir("08-offsets-im-log").join("solutions/reference.wat"))
            .expect("read");
    let entry = "(func (export \"verarbeite\") (result i32)\n    (local $len i32)";
    assert!(reference.contains(entry), "the reference's entry");
    reference.replace(entry, &format!("{entry}\n    {calls}"))
}

/// The answers to `commit_offset` in a check's trace: (partition, offset, answer).
fn commits(report: &Report, name: &str) -> Vec<(String, String, String)> {
    consumer_detail(check(report, name))
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Outside { call, key, body, answer, .. } if call == "commit_offset" => {
                Some((key.clone(), body.clone(), answer.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_million_commit_offset_calls_end_at_the_outside_call_limit_named() {
    let report = grade_on(
        exercise(),
        reference_with(
            "(local.set $len (i32.const 0))
    (loop $more
      (drop (call $commit_offset (i64.const 0) (i64.const 40)))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (br_if $more (i32.lt_u (local.get $len) (i32.const 1000000))))",
        ),
    );
    assert_eq!(report.verdict, Verdict::Failed);
    let json = serde_json::to_string(&report).expect("json");
    assert!(json.len() <= REPORT_BYTES_MAX, "the report is bounded: {} bytes", json.len());
    let failure = check(&report, "fresh-message").failure.as_ref().expect("the flood fails");
    assert!(failure.en.contains("limit \"outside calls per run\""), "{}", failure.en);
    assert!(failure.de.contains("Aufrufe externer Dienste pro Lauf"), "{}", failure.de);
    const { assert!(OUTSIDE_CALLS_PER_RUN_MAX < 1_000_000) };
}

#[test]
fn offsets_at_the_i64_edges_and_partitions_out_of_range_are_refused_and_the_log_is_unaffected() {
    // Each call must answer 3 (refused); any other answer traps, so a passing grade proves them all
    // refused, and the log's offsets as the reference leaves them.
    let refused = [
        ("0", "9223372036854775807"),
        ("0", "-9223372036854775808"),
        ("0", "-1"),
        ("0", "39"),
        ("0", "42"),
        ("-1", "41"),
        ("5", "41"),
        ("-9223372036854775808", "41"),
        ("9223372036854775807", "41"),
    ];
    let calls: String = refused
        .iter()
        .map(|(p, o)| {
            format!(
                "(if (i32.ne (call $commit_offset (i64.const {p}) (i64.const {o})) (i32.const 3)) (then unreachable))\n    "
            )
        })
        .collect();
    let report = grade_on(exercise(), reference_with(&calls));
    let failed: Vec<&str> = report.checks.iter().filter(|c| !c.passed).map(|c| c.name.as_str()).collect();
    assert_eq!(report.verdict, Verdict::Passed, "failed: {failed:?}");
    let answers = commits(&report, "fresh-message");
    let named: Vec<&str> = answers.iter().map(|(_, _, a)| a.as_str()).collect();
    for reason in ["beyond-end", "negative", "before-start", "unknown-partition"] {
        assert!(named.contains(&format!("400 refused: {reason}").as_str()), "{reason}: {named:?}");
    }
    assert_eq!(answers.last().map(|a| a.2.as_str()), Some("committed"), "the reference's own commit");
}

#[test]
fn a_commit_to_a_partition_not_delivered_yet_is_refused() {
    // Partition 4 holds a record of the batch: in the fresh message's run it was not delivered.
    let report =
        grade_on(exercise(), reference_with("(drop (call $commit_offset (i64.const 4) (i64.const 41)))"));
    let fresh = check(&report, "fresh-message");
    assert!(fresh.passed, "{:?}", fresh.failure);
    let answers = commits(&report, "fresh-message");
    assert_eq!(answers.first().map(|a| a.2.as_str()), Some("400 refused: not-delivered"), "{answers:?}");
}

#[test]
fn a_commit_with_an_open_transaction_is_taken_by_the_log_while_the_transaction_is_rolled_back() {
    // BEGIN, the count, commit_offset, and a return without COMMIT: the transaction is left open
    // and rolled back, while the log holds the offset: the record is skipped for good.
    let wat = r#"(module
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (import "world" "commit_offset" (func $commit_offset (param i64 i64) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "BEGIN")
  (data (i32.const 32) "INSERT INTO verarbeitet (partition, offset) VALUES (0, 40)")
  (func (export "verarbeite") (result i32)
    (drop (call $exec (i32.const 16) (i32.const 5)))
    (drop (call $exec (i32.const 32) (i32.const 58)))
    (drop (call $commit_offset (i64.const 0) (i64.const 41)))
    (i32.const 1)))"#;
    let report = grade_on(exercise(), wat.to_string());
    assert_eq!(report.verdict, Verdict::Failed);
    let fresh = check(&report, "fresh-message").failure.as_ref().expect("the open transaction fails");
    assert!(fresh.en.contains("open"), "{}", fresh.en);
    // The log kept the offset the rolled-back transaction never backed: the report shows it.
    let state = consumer_detail(check(&report, "fresh-message")).state.as_ref().expect("a state");
    let after = serde_json::to_string(&state.after).expect("json");
    assert!(after.contains("\"offsets\":[[0,41],") && after.contains("\"posten\":[]"), "{after}");
}

#[test]
fn commit_offset_where_no_log_keeps_the_offsets_ends_with_a_named_fault() {
    static DATABASE_OFFSETS: OnceLock<Exercise> = OnceLock::new();
    let database = DATABASE_OFFSETS.get_or_init(|| load("08-offsets"));
    let wat = r#"(module
  (import "world" "commit_offset" (func $commit_offset (param i64 i64) (result i32)))
  (memory (export "memory") 1)
  (func (export "verarbeite") (result i32)
    (drop (call $commit_offset (i64.const 0) (i64.const 41)))
    (i32.const 1)))"#;
    for exercise in [database, crate::support::consumer_exercise()] {
        let report = grade_on(exercise, wat.to_string());
        assert_eq!(report.verdict, Verdict::Failed);
        let failure = check(&report, "fresh-message").failure.as_ref().expect("failed");
        assert!(failure.en.contains("no log keeps the offsets"), "{}", failure.en);
        assert!(failure.de.contains("hält kein Log die Offsets"), "{}", failure.de);
    }
}

#[test]
fn odd_types_for_partition_and_offset_are_refused_in_python_and_javascript_with_a_type_error() {
    use pruefstein::grade::{GradeOptions, grade};
    use pruefstein::submission::{Language, Submission};
    let python = "import log\n\ndef verarbeite(con, msg):\n    log.commit_offset(str(msg[\"partition\"]), 41.5)\n    return True\n";
    let javascript = "import { commitOffset } from \"log\";\n\nexport function verarbeite(db, msg) {\n    commitOffset(String(msg.partition), 41.5);\n    return true;\n}\n";
    for (language, text, said) in [
        (Language::Python, python, "commit_offset takes int partition and offset"),
        (Language::JavaScript, javascript, "commitOffset takes integer partition and offset"),
    ] {
        let submission = Submission::Source { language, text: text.to_string() };
        let report = grade(exercise(), &submission, &GradeOptions::default()).expect("grades");
        assert_eq!(report.verdict, Verdict::Failed);
        let fresh = check(&report, "fresh-message");
        let json = serde_json::to_string(&consumer_detail(fresh).trace).expect("json");
        assert!(json.contains(said) && json.contains("TypeError"), "{language:?}: {json:.2000}");
        assert!(commits(&report, "fresh-message").is_empty(), "nothing reached the log");
    }
}
