//! Exercise 07 end to end: a queue with redrive declared by the exercise (`[consumer.world.queue]`).
//! Every solution (Python, JavaScript and WAT) passes, every mutant fails the check it declares; the
//! transient failures strike only in the schedules, the poison message reaches the dead letter queue
//! after exactly three receives, and the redrive schedule's crash after the COMMIT, before the ack,
//! is named in words and pushes no processed message there.

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

const SLUG: &str = "07-dead-letter";

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load(SLUG))
}

fn grade_file(path: &Path) -> Report {
    grade_file_with(exercise(), path, &GradeOptions::default())
}

fn queue_lines(report: &Report, name: &str) -> Vec<String> {
    crate::support::harness_notes(report, name, pruefstein::text::Lang::De)
}

#[test]
fn every_solution_passes_and_every_mutant_fails_its_declared_check() {
    assert_solutions_pass_and_mutants_fail(SLUG, &["py", "js", "wat"], 6);
}

/// Replays the schedules' check of `file` on the schedule `spec` (the batch is fresh, same_body,
/// violation, 24, 25 by index).
fn replay_schedule(file: &str, spec: &str) -> Report {
    let path = exercise_dir(SLUG).join(file);
    let report = grade_file(&path);
    let token = format!("at-least-once-schedule@{}:{spec}", &report.submission_sha256[..12]);
    let options = GradeOptions { replay: Some(token), ..GradeOptions::default() };
    let text = std::fs::read_to_string(&path).expect("read");
    grade(exercise(), &Submission::Source { language: Language::Python, text }, &options).expect("grades")
}

#[test]
fn the_schedules_redeliver_transient_failures_and_dead_letter_the_poison_after_three_receives() {
    // The calm schedule, each message sent once: the provider answers "try again later" twice for
    // message 24, whose third receive works, and the poison message 23 moves to the dead letter
    // queue after its third receive.
    let full = replay_schedule("solutions/reference.py", "1.5.0,1,2,3,4.");
    assert_eq!(full.verdict, Verdict::Passed, "{:?}", failed(&full));
    let detail = consumer_detail(check(&full, "at-least-once-schedule"));
    let busy = detail
        .trace
        .iter()
        .filter(|e| matches!(e, TraceEvent::Outside { answer, .. } if answer == "409 try again later"))
        .count();
    assert_eq!(busy, 2, "the transient failures strike in the schedules, twice");
    let lines = queue_lines(&full, "at-least-once-schedule");
    assert!(
        lines.iter().any(|l| l.contains("m23 kommt nach 3 Versuchen in die Dead Letter Queue")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("m24 kommt nach")), "{lines:#?}");
    // Outside the schedules no transient failure strikes: the fresh message's mail is sent at once.
    let report = grade_file(&exercise_dir(SLUG).join("solutions/reference.py"));
    let fresh = consumer_detail(check(&report, "fresh-message"));
    assert!(
        fresh.trace.iter().all(|e| !matches!(e, TraceEvent::Outside { answer, .. } if answer != "sent")),
        "{:?}",
        fresh.trace
    );
}

#[test]
fn a_crash_after_the_commit_before_the_ack_is_named_and_pushes_nothing_processed_to_the_dlq() {
    let redrive = format!("1.20.0,1,2,3,4.{}", vec!["k"; 15].join(","));
    let full = replay_schedule("solutions/reference.py", &redrive);
    assert_eq!(full.verdict, Verdict::Passed, "{:?}", failed(&full));
    let lines = queue_lines(&full, "at-least-once-schedule");
    assert!(lines.iter().any(|l| l.contains("Absturz nach dem COMMIT, vor dem Ack")), "{lines:#?}");
    let dead: Vec<&String> = lines.iter().filter(|l| l.contains("in die Dead Letter Queue")).collect();
    assert_eq!(dead.len(), 1, "only the poison message: {dead:#?}");
    // A consumer that reports the duplicate as an error loses the processed messages there.
    let lost = replay_schedule("mutants/duplikat-als-fehler.py", &redrive);
    let failure = check(&lost, "at-least-once-schedule").failure.as_ref().expect("the schedule fails");
    assert!(failure.de.contains("m21"), "{}", failure.de);
}

#[test]
fn a_duplicate_reported_as_an_error_drifts_to_the_dead_letter_queue_and_is_named_lost() {
    let report = grade_file(&exercise_dir(SLUG).join("mutants/duplikat-als-fehler.py"));
    let failure = check(&report, "at-least-once-schedule").failure.as_ref().expect("the schedules fail");
    assert!(
        failure.en.contains("dead") && failure.en.contains("lost"),
        "a processed message in the dead letter queue is named: {}",
        failure.en
    );
}
