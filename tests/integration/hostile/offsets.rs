//! Hostile offsets on an event log (exercise 08: the consumer keeps its group's committed offsets
//! in its own table, which the harness reads before every state): offsets far out of range,
//! negative, of the wrong type, a million commits in one delivery, a huge value, thousands of
//! rows. Every grade ends within the submission's deadline, failed, with what it met named; none
//! is an internal error.

use std::sync::OnceLock;
use std::time::Duration;

use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::limits::WALL_MS_PER_SUBMISSION;
use pruefstein::report::{Report, Verdict};
use pruefstein::submission::{Language, Submission};

use crate::support::{check, load};

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load("08-offsets"))
}

/// Grades Python `source` against exercise 08 on a thread of its own, under a hang guard.
fn grade_python(source: String) -> Report {
    let hang = Duration::from_millis(WALL_MS_PER_SUBMISSION * 6);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let submission = Submission::Source { language: Language::Python, text: source };
        let _ = sender.send(grade(exercise(), &submission, &GradeOptions::default()));
    });
    let graded = receiver.recv_timeout(hang).expect("the grade ends: no offset hangs the grader");
    graded.expect("a student's offsets are never the grader's error")
}

/// A consumer that counts the record and commits `value` (an SQL expression) as its offset.
fn committing(value: &str) -> String {
    format!(
        r#"def verarbeite(con, msg):
    with con:
        con.execute("INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
                    (msg["partition"], msg["offset"], msg["body"]["kunde"], msg["body"]["betrag"]))
        con.execute("UPDATE offsets SET naechster = {value} WHERE gruppe = 'statistik' AND partition = ?",
                    (msg["partition"],))
    return True
"#
    )
}

fn text(report: &Report) -> String {
    serde_json::to_string(report).expect("serialises")
}

#[test]
fn offsets_far_out_of_range_negative_or_not_integers_fail_by_the_state_and_never_break_the_grader() {
    for value in
        ["9223372036854775807", "-9223372036854775808", "-1", "'vierzig'", "x'00ff'", "1e300", "NULL"]
    {
        let report = grade_python(committing(value));
        assert_eq!(report.verdict, Verdict::Failed, "{value}");
        let fresh = check(&report, "fresh-message");
        let failure = fresh.failure.as_ref().expect("the fresh message fails");
        assert!(
            failure.en.contains("does not match the reference") || failure.en.contains("NOT NULL"),
            "{value}: {}",
            failure.en
        );
    }
}

#[test]
fn a_million_commits_in_one_delivery_meet_the_fuel_limit() {
    let source = r#"def verarbeite(con, msg):
    with con:
        for i in range(1000000):
            con.execute("UPDATE offsets SET naechster = ? WHERE gruppe = 'statistik' AND partition = ?",
                        (i, msg["partition"]))
    return True
"#;
    let report = grade_python(source.to_string());
    assert_eq!(report.verdict, Verdict::Failed);
    let all = text(&report);
    // Each statement costs fuel: the budget per delivery (or the statements per delivery) ends it.
    assert!(all.contains("limit \\\"fuel\\\""), "{all:.2000}");
}

#[test]
fn a_huge_offset_value_meets_the_sql_value_length_limit() {
    let report = grade_python(committing("zeroblob(10000000)"));
    assert_eq!(report.verdict, Verdict::Failed);
    let all = text(&report);
    assert!(all.contains("too long"), "{all:.2000}");
}

#[test]
fn thousands_of_offset_rows_are_read_bounded() {
    let source = r#"def verarbeite(con, msg):
    with con:
        con.execute("WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
                    "INSERT INTO offsets (gruppe, partition, naechster) SELECT 'statistik', i, 41 FROM n")
        con.execute("INSERT INTO posten (partition, offset, kunde, betrag) VALUES (?, ?, ?, ?)",
                    (msg["partition"], msg["offset"], msg["body"]["kunde"], msg["body"]["betrag"]))
    return True
"#;
    let report = grade_python(source.to_string());
    assert_eq!(report.verdict, Verdict::Failed);
    assert!(!check(&report, "fresh-message").passed, "the offsets table differs from the reference's");
}
