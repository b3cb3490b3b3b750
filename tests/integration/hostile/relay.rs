//! Hostile relays (exercise 06's second entry, `[consumer] relay`, run by the harness before it
//! reads a state): a relay that loops forever, one that publishes a million times, one that
//! publishes 10 MB payloads, one that leaves its transaction open. Every grade ends within the
//! submission's deadline, the limit met is named in the failure, and the report stays bounded.

use std::sync::OnceLock;
use std::time::Duration;

use pruefstein::consumer::detail::TraceEvent;
use pruefstein::exercise::Exercise;
use pruefstein::limits::{
    GUEST_TEXT_BYTES_MAX, OUTSIDE_CALLS_PER_RUN_MAX, REPORT_BYTES_MAX, WALL_MS_PER_SUBMISSION,
};
use pruefstein::report::{Report, Verdict};

use crate::support::{check, consumer_detail, grade_module, load};

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load("06-outbox"))
}

/// Grades `wat` against exercise 06 on a thread of its own, under a hang guard.
fn grade(wat: String) -> Report {
    let hang = Duration::from_millis(WALL_MS_PER_SUBMISSION * 6);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(grade_module(exercise(), wat.into_bytes()));
    });
    receiver.recv_timeout(hang).expect("the grade ends: no relay hangs the grader")
}

/// A module whose `verarbeite` processes every message without a write and whose `weiterleiten`
/// runs `relay`, with `$publish` on topic 64.. (`t`) and the bytes at 1024.. .
fn module(pages: u32, relay: &str) -> String {
    format!(
        r#"(module
  (import "world" "publish" (func $publish (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (memory (export "memory") {pages})
  (data (i32.const 64) "t")
  (data (i32.const 96) "BEGIN")
  (func (export "verarbeite") (result i32) (i32.const 1))
  (func (export "weiterleiten") (result i32) (local $i i32) (local $s i32)
    {relay}))"#
    )
}

/// The fresh-message check's failure, which meets the relay first.
fn relay_failure(report: &Report) -> String {
    assert_eq!(report.verdict, Verdict::Failed);
    let json = serde_json::to_string(report).expect("json");
    assert!(json.len() <= REPORT_BYTES_MAX, "the report is bounded: {} bytes", json.len());
    let failure = check(report, "fresh-message").failure.as_ref().expect("the relay fails the fresh message");
    assert!(
        failure.en.contains("The relay (this exercise's second entry) ended with an error"),
        "{}",
        failure.en
    );
    failure.en.clone()
}

#[test]
fn a_relay_that_loops_forever_ends_at_the_fuel_limit_named() {
    let report = grade(module(1, "(loop $forever (br $forever)) (i32.const 1)"));
    let failure = relay_failure(&report);
    assert!(failure.contains("fuel"), "{failure}");
}

#[test]
fn a_relay_that_publishes_a_million_times_ends_at_the_outside_call_limit_named() {
    let report = grade(module(
        1,
        "(loop $more
           (drop (call $publish (i32.const 64) (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 64) (i32.const 1)))
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $more (i32.lt_u (local.get $i) (i32.const 1000000))))
         (i32.const 1)",
    ));
    let failure = relay_failure(&report);
    assert!(failure.contains("limit \"outside calls per run\""), "{failure}");
    let published = consumer_detail(check(&report, "fresh-message"))
        .trace
        .iter()
        .filter(|e| matches!(e, TraceEvent::Outside { call, .. } if call == "publish"))
        .count();
    assert!(published <= OUTSIDE_CALLS_PER_RUN_MAX, "{published}");
    const { assert!(OUTSIDE_CALLS_PER_RUN_MAX < 1_000_000) };
}

#[test]
fn a_relay_publishing_ten_megabytes_gets_invalid_and_the_report_clips_it() {
    let ten_mb = 10 * 1024 * 1024;
    let report = grade(module(
        161,
        &format!(
            "(memory.fill (i32.const 1024) (i32.const 120) (i32.const {ten_mb}))
             (local.set $s (call $publish (i32.const 64) (i32.const 1) (i32.const 1024) (i32.const {ten_mb}) (i32.const 1024) (i32.const {ten_mb})))
             (if (result i32) (i32.eq (local.get $s) (i32.const 3)) (then (i32.const 7)) (else (i32.const 1)))"
        ),
    ));
    let failure = relay_failure(&report);
    let json = serde_json::to_string(&report).expect("json");
    // Copying 20 MB costs more fuel than a run has: the fuel limit may end it before the call;
    // otherwise the broker refuses it (status 3) and the relay reports its error.
    assert!(json.contains("fuel-exhausted"), "{failure}");
    for event in &consumer_detail(check(&report, "fresh-message")).trace {
        if let TraceEvent::Outside { key, body, answer, .. } = event {
            assert_eq!(answer, "400 invalid");
            assert!(key.len() <= GUEST_TEXT_BYTES_MAX + 64 && body.len() <= GUEST_TEXT_BYTES_MAX + 64);
        }
    }
}

#[test]
fn a_relay_that_leaves_its_transaction_open_is_named() {
    let report = grade(module(1, "(drop (call $exec (i32.const 96) (i32.const 5))) (i32.const 1)"));
    let failure = check(&report, "fresh-message").failure.as_ref().expect("failed");
    assert!(failure.en.contains("transaction"), "{}", failure.en);
}

#[test]
fn a_module_without_the_relay_is_rejected_naming_it() {
    let wat =
        r#"(module (memory (export "memory") 1) (func (export "verarbeite") (result i32) (i32.const 1)))"#;
    let report = grade(wat.to_string());
    assert_eq!(report.verdict, Verdict::Rejected);
    let json = serde_json::to_string(&report).expect("json");
    assert!(
        json.contains("missing-relay") && json.contains("weiterleiten"),
        "{}",
        &json[..json.len().min(2000)]
    );
}
