//! Exercise 05 end to end: a consumer that books and sends a confirmation through the exercise's
//! mail provider (ABI v1.1). Every solution (Python, JavaScript and WAT) passes, every mutant fails the check it
//! declares; a crash after `send_mail` and before the COMMIT is tested and named in the student's
//! words; the recorded mails survive the crash while the booking rolls back.

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

const SLUG: &str = "05-buchung-und-mail";
/// Its twin whose provider has no idempotency keys.
const WITHOUT_KEYS: &str = "05-mail-ohne-schluessel";

fn exercise_of(slug: &str) -> &'static Exercise {
    static WITH: OnceLock<Exercise> = OnceLock::new();
    static WITHOUT: OnceLock<Exercise> = OnceLock::new();
    let cell = if slug == SLUG { &WITH } else { &WITHOUT };
    cell.get_or_init(|| load(slug))
}

fn exercise() -> &'static Exercise {
    exercise_of(SLUG)
}

fn grade_file(path: &Path) -> Report {
    grade_in(SLUG, path)
}

fn grade_in(slug: &str, path: &Path) -> Report {
    grade_file_with(exercise_of(slug), path, &GradeOptions::default())
}

#[test]
fn every_solution_passes_and_every_mutant_fails_its_declared_check() {
    for slug in [SLUG, WITHOUT_KEYS] {
        assert_solutions_pass_and_mutants_fail(slug, &["py", "js", "wat"], 5);
    }
}

#[test]
fn without_keys_one_extra_mail_after_a_crash_before_the_commit_passes_and_anything_worse_is_named() {
    // The reference passes although its crash after send_mail sends a second mail: the honest
    // guarantee is exactly that.
    let report = grade_in(WITHOUT_KEYS, &exercise_dir(WITHOUT_KEYS).join("solutions/reference.py"));
    assert_eq!(report.verdict, Verdict::Passed, "{:?}", failed(&report));
    // A second mail without a crash breaks the invariant, and the failure says which, in its words.
    let report = grade_in(WITHOUT_KEYS, &exercise_dir(WITHOUT_KEYS).join("mutants/mail-vor-dedup.py"));
    let failure = check(&report, "duplicate-same-instance").failure.as_ref().expect("failed");
    assert!(
        failure
            .de
            .starts_with("Die Invariante „zusaetzliche-mail-nur-nach-absturz“ gilt nicht: Ohne Absturz"),
        "{}",
        failure.de
    );
    assert!(failure.en.contains("Violated by: ('7', 2)."), "{}", failure.en);
    // A lost mail (sent only after the COMMIT) breaks the other one, at the crash after the COMMIT.
    let report = grade_in(WITHOUT_KEYS, &exercise_dir(WITHOUT_KEYS).join("mutants/mail-nach-commit.py"));
    let failure = check(&report, "crash-points").failure.as_ref().expect("failed");
    assert!(failure.en.contains("\"jede-buchung-hat-ihre-mail\" does not hold"), "{}", failure.en);
}

#[test]
fn the_crash_after_send_mail_before_the_commit_is_tested_and_the_key_keeps_the_mail_single() {
    let report = grade_file(&exercise_dir(SLUG).join("solutions/reference.py"));
    let coverage = report.coverage.iter().find(|c| c.name == "crash-points").expect("coverage");
    // Fresh message: INSERT, UPDATE, send_mail, COMMIT; plus the failing and duplicate paths.
    assert!(coverage.exercised >= 4, "{coverage:?}");
    // Replay the crash-points check in full: its trace names the crash after send_mail in words,
    // and the redelivery's call is replayed by the provider, not sent again.
    let token = format!("crash-points@{}", &report.submission_sha256[..12]);
    let options = GradeOptions { replay: Some(token), ..GradeOptions::default() };
    let text = std::fs::read_to_string(exercise_dir(SLUG).join("solutions/reference.py")).expect("read");
    let source = text.clone();
    let full = grade(exercise(), &Submission::Source { language: Language::Python, text }, &options)
        .expect("grades");
    let trace = &consumer_detail(check(&full, "crash-points")).trace;
    let crash = trace
        .iter()
        .position(|e| matches!(e, TraceEvent::Crash { after_call: Some(call), before_commit: true, .. } if call == "send_mail"))
        .expect("a crash right after send_mail, before the COMMIT");
    let answers: Vec<&str> = trace[crash..]
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Outside { answer, .. } => Some(answer.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(answers.first(), Some(&"replayed"), "the redelivery's mail is the stored result: {answers:?}");
    let lines = pruefstein::report::trace_text::render_trace(
        trace,
        pruefstein::text::Lang::De,
        pruefstein::report::voice::Voice::Python,
        Some(&source),
    );
    assert!(
        lines.iter().any(|l| l.contains("ABSTURZ nach `send_mail`, vor dem COMMIT in Zeile 19")),
        "{lines:#?}"
    );
}

#[test]
fn sending_after_the_commit_is_caught_where_the_mail_is_lost() {
    let report = grade_file(&exercise_dir(SLUG).join("mutants/mail-nach-commit.py"));
    assert_eq!(failed(&report), vec!["crash-points".to_string()]);
    // The exercise's own kind of mistake names it (mistakes.toml), not the lesson's advice.
    assert!(report.summary.de.contains("Die Mail ging verloren"), "{}", report.summary.de);
    let other = grade_file(&exercise_dir(SLUG).join("mutants/zwei-transaktionen.py"));
    assert!(!other.summary.de.contains("Die Mail ging verloren"), "{}", other.summary.de);
    let failure = check(&report, "crash-points").failure.as_ref().expect("failed");
    assert!(
        failure.de.contains("nach dem COMMIT der 1. Transaktion, vor der nächsten Anweisung `send_mail(…)`"),
        "{}",
        failure.de
    );
}

/// A copy of exercise 05 whose world also has a broker, with an invariant over the recorded
/// publications: the consumer publishes each booking once (more only after a crash).
fn with_broker() -> (tempfile::TempDir, Exercise) {
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = temp.path().join(SLUG);
    crate::support::copy_tree(&exercise_dir(SLUG), &dir);
    let mut toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("toml");
    toml.push_str(
        r#"
[consumer.world.broker]

[[consumer.invariants]]
name = "einmal-veroeffentlicht"
violations = "SELECT msg_id, count(*) FROM published WHERE crashed = 0 AND accepted = 1 GROUP BY msg_id HAVING count(*) > 1"
text.de = "Ohne Absturz wird jede Buchung höchstens einmal veröffentlicht."
text.en = "Without a crash each booking is published at most once."
"#,
    );
    std::fs::write(dir.join("exercise.toml"), toml).expect("write");
    let reference = std::fs::read_to_string(dir.join("solutions/reference.py")).expect("reference");
    let publishing = reference.replace(
        "        return True\n",
        "        broker.publish(topic=\"buchungen\", key=str(msg[\"id\"]), payload=json.dumps(buchung))\n        return True\n",
    );
    std::fs::write(dir.join("solutions/reference.py"), format!("import broker\nimport json\n{publishing}"))
        .expect("write");
    let exercise = pruefstein::graders::load(&dir).expect("the copy loads");
    (temp, exercise)
}

#[test]
fn a_broker_records_every_publication_and_an_invariant_sees_a_second_one() {
    let (temp, brokered) = with_broker();
    let dir = temp.path().join(SLUG);
    let grade_text = |text: String| {
        grade(&brokered, &Submission::Source { language: Language::Python, text }, &GradeOptions::default())
            .expect("grades")
    };
    let reference = std::fs::read_to_string(dir.join("solutions/reference.py")).expect("read");
    let report = grade_text(reference.clone());
    assert_eq!(
        report.verdict,
        Verdict::Passed,
        "{:?}",
        report.checks.iter().filter_map(|c| c.failure.as_ref()).map(|f| f.en.clone()).collect::<Vec<_>>()
    );
    let twice = reference.replace(
        "        return True\n",
        "        broker.publish(topic=\"buchungen\", key=str(msg[\"id\"]), payload=\"noch einmal\")\n        return True\n",
    );
    let report = grade_text(twice);
    let failure = check(&report, "fresh-message").failure.as_ref().expect("publishing twice fails");
    assert!(failure.en.contains("\"einmal-veroeffentlicht\" does not hold"), "{}", failure.en);
    // The broker is a lane of the diagram and a line of the trace in its words.
    let trace = &consumer_detail(check(&report, "fresh-message")).trace;
    let published =
        trace.iter().filter(|e| matches!(e, TraceEvent::Outside { call, .. } if call == "publish")).count();
    assert_eq!(published, 2, "{trace:?}");
    // In an exercise without a broker, `import broker` is refused at load.
    let plain = grade(
        exercise(),
        &Submission::Source { language: Language::Python, text: reference },
        &GradeOptions::default(),
    )
    .expect("grades");
    assert!(plain.rejection.is_some(), "{:?}", failed(&plain));
}

/// Two instances with the same message, interleaved: a mail sent before the transaction is in
/// flight while the other instance takes its turn, and the provider refuses the same key meanwhile
/// (409, status 6, which this module turns into an error return).
#[test]
fn a_key_in_flight_in_another_instance_is_refused_with_409() {
    let mutant =
        std::fs::read_to_string(exercise_dir(SLUG).join("mutants/mail-vor-buchung.wat")).expect("read");
    let module = mutant.replacen(
        "    (if (call $mail) (then (return (i32.const 2))))",
        "    (local.set $status (call $mail))\n    (if (i32.eq (local.get $status) (i32.const 6)) (then (return (i32.const 9))))",
        1,
    );
    assert_ne!(module, mutant);
    let report = grade(exercise(), &Submission::Module(module.into_bytes()), &GradeOptions::default())
        .expect("grades");
    let trace = &consumer_detail(check(&report, "concurrent-duplicate")).trace;
    let refused =
        trace.iter().any(|e| matches!(e, TraceEvent::Outside { answer, .. } if answer == "409 in flight"));
    assert!(refused, "{trace:#?}");
    assert!(
        trace.iter().any(|e| matches!(e, TraceEvent::Return { value: 9, .. })),
        "the module saw status 6"
    );
}
