//! Hostile calls to an outside service (ABI v1.1's `world.send_mail`, exercise 05's mail provider):
//! a flood of a million calls, payloads of 10 MB, keys of every odd shape. Every grade ends within
//! the submission's deadline, the limit met is named, the recorded calls and the report stay bounded.

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
    EXERCISE.get_or_init(|| load("05-buchung-und-mail"))
}

/// Grades `wat` against exercise 05 on a thread of its own, under a hang guard.
fn grade(wat: String) -> Report {
    let hang = Duration::from_millis(WALL_MS_PER_SUBMISSION * 6);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(grade_module(exercise(), wat.into_bytes()));
    });
    receiver.recv_timeout(hang).expect("the grade ends: no outside call hangs the grader")
}

/// A module whose `verarbeite` runs `body` with `$send` calling send_mail on the bytes at
/// key 1024.., recipient 64.. (`a@b`), body 80.. .
fn module(pages: u32, data: &str, body: &str) -> String {
    format!(
        r#"(module
  (import "world" "send_mail" (func $send (param i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") {pages})
  (data (i32.const 64) "a@b")
  {data}
  (func (export "verarbeite") (result i32) (local $i i32) (local $s i32)
    {body}))"#
    )
}

fn outside_answers(report: &Report, name: &str) -> Vec<(String, usize, usize)> {
    consumer_detail(check(report, name))
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Outside { answer, key, body, .. } => Some((answer.clone(), key.len(), body.len())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_million_calls_end_at_the_outside_call_limit_named() {
    let wat = module(
        1,
        r#"(data (i32.const 1024) "k")"#,
        "(loop $more
           (drop (call $send (i32.const 1024) (i32.const 1) (i32.const 64) (i32.const 3) (i32.const 80) (i32.const 1)))
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $more (i32.lt_u (local.get $i) (i32.const 1000000))))
         (i32.const 1)",
    );
    let report = grade(wat);
    assert_eq!(report.verdict, Verdict::Failed);
    let json = serde_json::to_string(&report).expect("json");
    assert!(json.len() <= REPORT_BYTES_MAX, "the report is bounded: {} bytes", json.len());
    // Each call costs fuel: the run's call limit (or the fuel per delivery) ends the flood, named.
    let fresh = check(&report, "fresh-message");
    let failure = fresh.failure.as_ref().expect("the flood fails the fresh message");
    assert!(
        failure.en.contains("limit \"outside calls per run\"") || failure.en.contains("fuel"),
        "{}",
        failure.en
    );
    const { assert!(OUTSIDE_CALLS_PER_RUN_MAX < 1_000_000) };
}

#[test]
fn payloads_of_ten_megabytes_are_invalid_requests_and_clipped_in_the_report() {
    // 10 MB of 'x' from byte 1024 on (161 pages of 64 KiB); key and body both 10 MB.
    let ten_mb = 10 * 1024 * 1024;
    let wat = module(
        161,
        "",
        &format!(
            "(memory.fill (i32.const 1024) (i32.const 120) (i32.const {ten_mb}))
             (local.set $s (call $send (i32.const 1024) (i32.const {ten_mb}) (i32.const 64) (i32.const 3) (i32.const 1024) (i32.const {ten_mb})))
             (if (result i32) (i32.eq (local.get $s) (i32.const 3)) (then (i32.const 7)) (else (i32.const 1)))"
        ),
    );
    let report = grade(wat);
    assert_eq!(report.verdict, Verdict::Failed);
    let json = serde_json::to_string(&report).expect("json");
    assert!(json.len() <= REPORT_BYTES_MAX);
    let answers = outside_answers(&report, "fresh-message");
    let fuel_ran_out = json.contains("fuel-exhausted");
    // Copying 20 MB costs more fuel than a delivery has: the fuel limit may end it before the call.
    assert!(fuel_ran_out || !answers.is_empty(), "{}", &json[..json.len().min(4000)]);
    for (answer, key, body) in answers {
        assert_eq!(answer, "400 invalid");
        assert!(
            key <= GUEST_TEXT_BYTES_MAX + 64 && body <= GUEST_TEXT_BYTES_MAX + 64,
            "clipped: {key} {body}"
        );
    }
}

#[test]
fn keys_of_every_odd_shape_are_invalid_requests() {
    // Empty, NUL bytes, invalid UTF-8, control characters, one byte over the key limit.
    let over = "k".repeat(pruefstein::limits::PROVIDER_KEY_BYTES_MAX + 1);
    let keys: [(&str, usize); 5] =
        [("", 0), ("a\\00b", 3), ("\\ff\\fe", 2), ("a\\0ab\\1b", 4), (&over, over.len())];
    for (key, len) in keys {
        let wat = module(
            1,
            &format!(r#"(data (i32.const 1024) "{key}")"#),
            &format!(
                "(local.set $s (call $send (i32.const 1024) (i32.const {len}) (i32.const 64) (i32.const 3) (i32.const 80) (i32.const 0)))
                 (if (result i32) (i32.eq (local.get $s) (i32.const 3)) (then (i32.const 7)) (else (i32.const 1)))"
            ),
        );
        let report = grade(wat);
        assert_eq!(report.verdict, Verdict::Failed, "{key:?}");
        let answers = outside_answers(&report, "fresh-message");
        assert_eq!(answers.first().map(|a| a.0.as_str()), Some("400 invalid"), "{key:?}");
        // The module saw status 3 and returned 7: reported as an error of the fresh message.
        let failure = check(&report, "fresh-message").failure.as_ref().expect("failed");
        assert!(failure.en.contains('7'), "{key:?}: {}", failure.en);
    }
}

#[test]
fn a_module_calling_send_mail_in_an_exercise_without_a_provider_ends_with_a_named_fault() {
    let wat = module(
        1,
        r#"(data (i32.const 1024) "k")"#,
        "(drop (call $send (i32.const 1024) (i32.const 1) (i32.const 64) (i32.const 3) (i32.const 80) (i32.const 1)))
         (i32.const 1)",
    );
    let report = grade_module(crate::support::consumer_exercise(), wat.into_bytes());
    assert_eq!(report.verdict, Verdict::Failed);
    let failure = check(&report, "fresh-message").failure.as_ref().expect("failed");
    assert!(failure.en.contains("this exercise has no mail provider"), "{}", failure.en);
}

#[test]
fn a_flood_of_publications_and_a_ten_megabyte_payload_end_with_named_limits() {
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = temp.path().join("05-buchung-und-mail");
    crate::support::copy_tree(&crate::support::exercise_dir("05-buchung-und-mail"), &dir);
    let mut toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("toml");
    toml.push_str("\n[consumer.world.broker]\n");
    std::fs::write(dir.join("exercise.toml"), toml).expect("write");
    let brokered = pruefstein::graders::load(&dir).expect("the copy loads");
    let publish = |pages: u32, body: &str| {
        format!(
            r#"(module
  (import "world" "publish" (func $publish (param i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") {pages})
  (data (i32.const 64) "topic")
  (func (export "verarbeite") (result i32) (local $i i32) (local $s i32)
    {body}))"#
        )
    };
    let flood = publish(
        1,
        "(loop $more
           (drop (call $publish (i32.const 64) (i32.const 5) (i32.const 64) (i32.const 1) (i32.const 64) (i32.const 5)))
           (local.set $i (i32.add (local.get $i) (i32.const 1)))
           (br_if $more (i32.lt_u (local.get $i) (i32.const 1000000))))
         (i32.const 1)",
    );
    let report = grade_module(&brokered, flood.into_bytes());
    let failure = check(&report, "fresh-message").failure.as_ref().expect("the flood fails");
    assert!(failure.en.contains("limit \"outside calls per run\""), "{}", failure.en);
    assert!(serde_json::to_string(&report).expect("json").len() <= REPORT_BYTES_MAX);
    let ten_mb = 10 * 1024 * 1024;
    let huge = publish(
        161,
        &format!(
            "(memory.fill (i32.const 1024) (i32.const 120) (i32.const {ten_mb}))
             (local.set $s (call $publish (i32.const 64) (i32.const 5) (i32.const 64) (i32.const 1) (i32.const 1024) (i32.const {ten_mb})))
             (if (result i32) (i32.eq (local.get $s) (i32.const 3)) (then (i32.const 7)) (else (i32.const 1)))"
        ),
    );
    let report = grade_module(&brokered, huge.into_bytes());
    assert_eq!(report.verdict, Verdict::Failed);
    let json = serde_json::to_string(&report).expect("json");
    assert!(json.len() <= REPORT_BYTES_MAX);
    let answers = outside_answers(&report, "fresh-message");
    assert!(json.contains("fuel-exhausted") && answers.iter().all(|a| a.0 == "400 invalid"), "{answers:?}");
}
