//! Exercise 08-offsets-im-log end to end: the event log keeps the group's committed offsets itself
//! (`offsets = "broker"`), the consumer commits through `world.commit_offset` after its COMMIT and
//! absorbs the redelivery with a dedup table. Every solution (Python, JavaScript, WAT) passes,
//! every mutant fails the check it declares; both crash points around the call are named in
//! words, and after a crash the log delivers again from the offset it holds.

use std::sync::OnceLock;

use pruefstein::consumer::detail::TraceEvent;
use pruefstein::exercise::Exercise;
use pruefstein::grade::GradeOptions;
use pruefstein::report::Report;

use crate::support::{
    assert_solutions_pass_and_mutants_fail, check, consumer_detail, exercise_dir, grade_file_with, load,
};

const SLUG: &str = "08-offsets-im-log";

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load(SLUG))
}

fn grade_file(relative: &str) -> Report {
    grade_file_with(exercise(), &exercise_dir(SLUG).join(relative), &GradeOptions::default())
}

/// The harness's notes in `check`'s trace, in German.
fn notes(report: &Report, name: &str) -> Vec<String> {
    crate::support::harness_notes(report, name, pruefstein::text::Lang::De)
}

#[test]
fn every_solution_passes_and_every_mutant_fails_its_declared_check() {
    assert_solutions_pass_and_mutants_fail(SLUG, &["py", "js", "wat"], 6);
}

#[test]
fn a_crash_after_commit_offset_before_the_commit_makes_the_log_skip_the_record() {
    for file in ["mutants/commit-vor-dem-commit.py", "mutants/commit-vor-dem-commit.wat"] {
        let report = grade_file(file);
        let crash = check(&report, "crash-points");
        let failure = crash.failure.as_ref().expect("failed");
        assert!(failure.de.contains("nach `commit_offset`, vor dem COMMIT"), "{file}: {}", failure.de);
        assert!(failure.en.contains("after `commit_offset`, before the COMMIT"), "{file}: {}", failure.en);
        assert!(failure.de.contains("stellt das Log den Eintrag nicht erneut zu"), "{file}: {}", failure.de);
        assert!(
            failure.de.contains("rufe `commit_offset` erst nach dem COMMIT auf"),
            "{file}: {}",
            failure.de
        );
        assert!(
            notes(&report, "crash-points")
                .iter()
                .any(|n| n.starts_with("Log: Absturz nach dem Offset-Commit, vor dem Verarbeiten")),
            "{file}"
        );
    }
}

#[test]
fn a_crash_after_the_commit_before_commit_offset_is_redelivered_and_absorbed_by_the_dedup_table() {
    let report = grade_file("solutions/reference.py");
    let crash = check(&report, "crash-points");
    assert!(crash.passed, "{:?}", crash.failure);
    let notes = notes(&report, "crash-points");
    assert!(
        notes.iter().any(|n| n.contains("vor der nächsten Anweisung `commit_offset(…)`")),
        "the crash point before the call is named: {notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.starts_with("die Datenbank ist vollständig, nur der Offset fehlt im Log")),
        "{notes:?}"
    );
    let calls: Vec<String> = consumer_detail(crash)
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Outside { call, key, body, answer, .. } => {
                Some(format!("{call}({key}, {body}) {answer}"))
            }
            _ => None,
        })
        .collect();
    assert!(calls.iter().any(|c| c == "commit_offset(0, 41) committed"), "{calls:?}");
}

#[test]
fn without_dedup_a_crash_between_the_commit_and_commit_offset_counts_the_record_twice() {
    let report = grade_file("mutants/ohne-dedup.py");
    let failure = check(&report, "crash-points").failure.as_ref().expect("failed");
    assert!(
        failure.de.starts_with(
            "Nach dem Absturz nach dem COMMIT der 1. Transaktion, vor der nächsten Anweisung `commit_offset(…)`, und erneuter Zustellung stimmt die Datenbank nicht"
        ),
        "{}",
        failure.de
    );
    let state = consumer_detail(check(&report, "crash-points")).state.as_ref().expect("a state");
    let posten = serde_json::to_string(&state.after["posten"]).expect("json");
    assert_eq!(posten, r#"[[0,40,"anna",30],[0,40,"anna",30]]"#, "counted twice");
}
