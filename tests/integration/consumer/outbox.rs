//! Exercise 06 end to end: the outbox pattern with a relay, the submission's second entry, which the
//! harness runs as a process of its own before it reads a state. Every solution (Python, JavaScript
//! and WAT) passes, every mutant fails the check it declares; the relay's crash after `publish` and
//! before the marking is tested, named in words and absorbed by the receiver's deduplication; a
//! relay without `ORDER BY` is caught by the per-account order.

use std::path::Path;
use std::sync::OnceLock;

use pruefstein::consumer::detail::TraceEvent;
use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::{Report, Verdict};
use pruefstein::submission::{Language, Submission};

use crate::support::{
    assert_solutions_pass_and_mutants_fail, check, consumer_detail, exercise_dir, failed, grade_file_with,
    load,
};

const SLUG: &str = "06-outbox";

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load(SLUG))
}

fn grade_with(path: &Path, options: &GradeOptions) -> Report {
    grade_file_with(exercise(), path, options)
}

fn grade_file(path: &Path) -> Report {
    grade_with(path, &GradeOptions::default())
}

#[test]
fn every_solution_passes_and_every_mutant_fails_its_declared_check() {
    assert_solutions_pass_and_mutants_fail(SLUG, &["py", "js", "wat"], 6);
}

#[test]
fn the_relay_crash_after_publish_before_the_marking_is_named_and_the_receiver_sees_the_event_once() {
    let reference = exercise_dir(SLUG).join("solutions/reference.py");
    let report = grade_file(&reference);
    let token = format!("crash-points@{}", &report.submission_sha256[..12]);
    let full = grade_with(&reference, &GradeOptions { replay: Some(token), ..GradeOptions::default() });
    assert_eq!(full.verdict, Verdict::Passed, "{:?}", failed(&full));
    let trace = &consumer_detail(check(&full, "crash-points")).trace;
    let named = trace.iter().position(|e| match e {
        TraceEvent::Queue { text } => text.de.contains("des Relays: nach `publish`, vor dem Markieren"),
        _ => false,
    });
    let named = named.expect("the relay's crash point after publish is named in words");
    // That run: the relay crashes right after publish, restarts and publishes event 7 again, under
    // the same key.
    let publications: Vec<&str> = trace[named..]
        .iter()
        .take_while(|e| !matches!(e, TraceEvent::Queue { text } if text.en.starts_with("crash point") && !text.en.contains("before marking")))
        .filter_map(|e| match e {
            TraceEvent::Outside { call, key, .. } if call == "publish" => Some(key.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(publications, ["7", "7"], "published twice under the same key");
    assert!(
        trace[named..]
            .iter()
            .any(|e| matches!(e, TraceEvent::Crash { after_call: Some(c), .. } if c == "publish"))
    );
    assert!(trace.iter().any(|e| matches!(e, TraceEvent::Relay { .. })), "the relay is shown as such");
    // The crash points counted include the relay's: its publish, its marking and its COMMIT.
    let points = consumer_detail(check(&full, "crash-points")).crash_points.as_ref().expect("counted");
    assert!(points.calls >= 1 && points.tested >= 6, "{points:?}");
}

#[test]
fn a_relay_without_order_by_breaks_the_per_account_order_in_the_schedules() {
    let report = grade_file(&exercise_dir(SLUG).join("mutants/ohne-order-by.py"));
    assert_eq!(failed(&report), ["at-least-once-schedule"]);
    let failure = check(&report, "at-least-once-schedule").failure.as_ref().expect("failed");
    assert!(
        failure.en.starts_with("The invariant \"reihenfolge-pro-konto\" does not hold"),
        "{}",
        failure.en
    );
    // The check shows the schedule that broke the order (shrunk, replayable), not "all correct".
    let schedule = check(&report, "at-least-once-schedule");
    let detail = consumer_detail(schedule);
    assert_eq!(detail.invariant.as_deref(), Some("reihenfolge-pro-konto"));
    assert!(detail.schedule.is_some() && schedule.replay.is_some(), "{:?}", schedule.replay);
    let notes = crate::support::harness_notes(&report, "at-least-once-schedule", pruefstein::text::Lang::En);
    assert!(!notes.iter().any(|n| n.ends_with("all correct")), "{notes:?}");
    assert!(detail.trace.iter().any(|e| matches!(e, TraceEvent::Relay { .. })), "the relay's run is shown");
    let main = &report.diagnosis.as_ref().expect("diagnosis").main;
    assert_eq!(main.mistake, "relay-out-of-order");
}

/// A crash check whose only failure is an invariant stops at the crash point that broke it: the
/// dual write's crash after `publish` and before the COMMIT, not the last crash point tried.
#[test]
fn the_crash_point_that_breaks_an_invariant_is_the_one_shown() {
    let report = grade_file(&exercise_dir(SLUG).join("mutants/direkt-veroeffentlicht.py"));
    assert_eq!(failed(&report), ["crash-points"]);
    let crash = check(&report, "crash-points");
    let detail = consumer_detail(crash);
    assert_eq!(detail.invariant.as_deref(), Some("keine-veroeffentlichung-ohne-buchung"));
    let points = detail.crash_points.as_ref().expect("counted");
    let last_crash = detail.trace.iter().rev().find_map(|e| match e {
        TraceEvent::Crash { line, .. } => Some(*line),
        _ => None,
    });
    assert_eq!(last_crash, Some(Some(21)), "the crash after `publish` (line 21) is the last one shown");
    assert_eq!(points.failed_at, Some(3), "{points:?}");
    assert!(
        points.tested < points.writes + points.commits + points.calls,
        "the check stopped there: {points:?}"
    );
    let main = &report.diagnosis.as_ref().expect("diagnosis").main;
    assert_eq!((main.mistake.as_str(), main.line), ("published-before-commit", Some(21)));
}

#[test]
fn marking_before_publishing_loses_the_event_at_the_relays_crash() {
    let report = grade_file(&exercise_dir(SLUG).join("mutants/markiert-vor-dem-senden.py"));
    assert_eq!(failed(&report), ["crash-points"]);
    let failure = check(&report, "crash-points").failure.as_ref().expect("failed");
    assert!(failure.de.starts_with("Nach dem Absturz des Relays nach dem COMMIT"), "{}", failure.de);
    let where_ = consumer_detail(check(&report, "crash-points")).crash_points.as_ref().expect("counted");
    assert!(where_.failed_at.is_some(), "{where_:?}");
}

#[test]
fn a_source_without_the_relay_function_is_rejected_before_any_check() {
    let reference = std::fs::read_to_string(exercise_dir(SLUG).join("solutions/reference.py")).expect("read");
    let without = reference.replace("def weiterleiten(con, auftrag):", "def relay(con, auftrag):");
    let report = grade(
        exercise(),
        &Submission::Source { language: Language::Python, text: without },
        &GradeOptions::default(),
    )
    .expect("grades");
    assert_eq!(report.verdict, Verdict::Rejected);
    let json = serde_json::to_string(&report).expect("json");
    assert!(json.contains("weiterleiten"), "{}", &json[..json.len().min(2000)]);
    assert!(report.checks.iter().all(|c| !c.passed), "nothing ran");
}

#[test]
fn the_diagram_draws_the_relay_and_the_broker_and_names_the_crash_before_the_marking() {
    let reference = exercise_dir(SLUG).join("solutions/reference.wat");
    let report = grade_file(&reference);
    let token = format!("crash-points@{}", &report.submission_sha256[..12]);
    let full = grade_with(&reference, &GradeOptions { replay: Some(token), ..GradeOptions::default() });
    let whole = consumer_detail(check(&full, "crash-points"));
    // The diagram of the relay's crash run: from the line that names its crash point on (a report
    // draws the first rows of the run it shows).
    let from = whole
        .trace
        .iter()
        .position(
            |e| matches!(e, TraceEvent::Queue { text } if text.en.contains("of the relay: after `publish`")),
        )
        .expect("the relay's crash after publish is tested");
    let detail = &pruefstein::consumer::detail::ConsumerDetail {
        trace: whole.trace[from..].to_vec(),
        ..whole.clone()
    };
    let layout = pruefstein::report::diagram::consumer_layout(detail, pruefstein::text::Lang::De);
    assert!(layout.lanes.iter().any(|l| l.header == "Broker"), "{:?}", layout.lanes);
    assert!(layout.rows.iter().any(|r| r.kind == "relay"), "the relay's runs are rows of their own");
    assert!(layout.description.contains("Eine Instanz ist das Relay"), "{}", layout.description);
    let crash = layout
        .rows
        .iter()
        .find(|r| r.kind == "crash" && r.label == "Absturz nach `publish`, vor dem Markieren")
        .expect("the relay's crash after publish is named in words");
    assert!(matches!(crash.mark, pruefstein::report::diagram::Mark::Cross { .. }));
    let english = pruefstein::report::diagram::consumer_layout(detail, pruefstein::text::Lang::En);
    assert!(english.rows.iter().any(|r| r.label == "crash after `publish`, before the marking"));
}
