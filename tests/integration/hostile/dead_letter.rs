//! Hostile input to the queue with redrive (`[consumer.world.queue]`, exercise 07): a consumer that
//! always raises with a huge message, a flood of calls into a provider that answers "try again
//! later", and a queue declared beyond its limits. Every grade ends within the submission's
//! deadline with the limit it met named; the report stays bounded.

use std::sync::OnceLock;

use pruefstein::exercise::Exercise;
use pruefstein::limits::{MAX_RECEIVE_COUNT_MAX, OUTSIDE_CALLS_PER_RUN_MAX, REPORT_BYTES_MAX};
use pruefstein::report::{Report, Verdict};
use pruefstein::submission::{Language, Submission};

use crate::support::{check, exercise_dir, load};

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load("07-dead-letter"))
}

fn grade_python(text: &str) -> Report {
    let submission = Submission::Source { language: Language::Python, text: text.to_string() };
    pruefstein::grade::grade(exercise(), &submission, &pruefstein::grade::GradeOptions::default())
        .expect("grading runs")
}

#[test]
fn a_consumer_that_always_raises_a_huge_message_ends_with_every_message_in_the_dlq_and_a_bounded_report() {
    let report =
        super::grade_guarded(grade_python, "def verarbeite(con, msg):\n    raise ValueError('x' * 20000)\n");
    assert_eq!(report.verdict, Verdict::Failed);
    let json = super::json(&report);
    assert!(json.len() <= REPORT_BYTES_MAX, "the report is bounded: {} bytes", json.len());
    // The exception's text is cut at the log's limit, named.
    assert!(json.contains("limit \\\"log per run\\\""), "the limit is named");
    // The schedules end: every message reaches the dead letter queue after the declared receives,
    // and a good one is named lost there.
    let failure = check(&report, "at-least-once-schedule").failure.as_ref().expect("the schedules fail");
    assert!(failure.en.contains("after 3 deliveries without an ack"), "{}", failure.en);
}

#[test]
fn a_consumer_retrying_a_provider_that_says_try_again_later_ends_at_a_named_limit() {
    // Retries the receipt in a loop until it is sent instead of leaving the retry to the queue.
    // Outside the schedules the first call is sent; inside, message 24's transient failures turn
    // the loop into a flood that the run's call limit (or the fuel) ends, named.
    let text = std::fs::read_to_string(exercise_dir("07-dead-letter").join("solutions/reference.py"))
        .expect("reference")
        .replace(
            "        mail.send_mail(key=str(msg[\"id\"]), to=gebuehr[\"email\"],\n                       body=\"Monatsgebühr von %d abgebucht.\" % gebuehr[\"betrag\"])",
            "        for _ in range(1000000):\n            try:\n                mail.send_mail(key=str(msg[\"id\"]), to=gebuehr[\"email\"], body=\"x\")\n                break\n            except mail.KeyInFlight:\n                pass",
        );
    assert!(text.contains("range(1000000)"), "the retry loop is in: {text}");
    let report = super::grade_guarded(grade_python, &text);
    assert_eq!(report.verdict, Verdict::Failed);
    let json = super::json(&report);
    assert!(json.len() <= REPORT_BYTES_MAX, "the report is bounded: {} bytes", json.len());
    let failure = check(&report, "at-least-once-schedule").failure.as_ref().expect("the schedules fail");
    assert!(failure.en.contains("limit \"fuel\""), "{}", failure.en);
    const { assert!(OUTSIDE_CALLS_PER_RUN_MAX < 1_000_000) };
}

#[test]
fn a_queue_declared_beyond_its_limits_is_refused_with_the_limit_named() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let folder = dir.path().join("07-dead-letter");
    copy_dir(&exercise_dir("07-dead-letter"), &folder);
    let toml = std::fs::read_to_string(folder.join("exercise.toml")).expect("read");
    let too_many = toml.replace("max_receive_count = 3", &format!("max_receive_count = {}", 1_000_000));
    std::fs::write(folder.join("exercise.toml"), &too_many).expect("write");
    let error = refusal(&folder);
    assert!(error.contains("receives before the dead letter queue"), "{error}");
    assert!(error.contains(&format!("between 1 and {MAX_RECEIVE_COUNT_MAX}")), "{error}");
    // Transient failures a correct consumer could not outlast, and an id no message has.
    let forever = toml.replace("failures = 2", "failures = 3");
    std::fs::write(folder.join("exercise.toml"), &forever).expect("write");
    let error = refusal(&folder);
    assert!(error.contains("fewer than max_receive_count"), "{error}");
    let unknown = toml.replace("id = 24, failures", "id = 999999999999, failures");
    std::fs::write(folder.join("exercise.toml"), &unknown).expect("write");
    let error = refusal(&folder);
    assert!(error.contains("no message of [consumer.messages] has"), "{error}");
}

/// Why loading the exercise in `folder` is refused.
fn refusal(folder: &std::path::Path) -> String {
    match pruefstein::graders::load(folder) {
        Ok(_) => panic!("{} loads, but must be refused", folder.display()),
        Err(error) => error.to_string(),
    }
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
