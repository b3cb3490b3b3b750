//! Exercise 08 end to end: a consumer on an event log keeps its group's committed offset in its
//! own database. Every solution (Python, JavaScript, WAT) passes, every mutant fails the check it
//! declares; after a crash the log resumes at the committed offset, and the moment is named in the
//! log's words; the committed offsets and their history are tables the invariants read.

use std::sync::OnceLock;

use pruefstein::consumer::detail::TraceEvent;
use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::Report;
use pruefstein::submission::{Language, Submission};

use crate::support::{
    assert_solutions_pass_and_mutants_fail, check, consumer_detail, exercise_dir, failed, grade_file_with,
    load,
};

const SLUG: &str = "08-offsets";

fn exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| load(SLUG))
}

fn grade_file(relative: &str) -> Report {
    grade_file_with(exercise(), &exercise_dir(SLUG).join(relative), &GradeOptions::default())
}

#[test]
fn every_solution_passes_and_every_mutant_fails_its_declared_check() {
    assert_solutions_pass_and_mutants_fail(SLUG, &["py", "js", "wat"], 6);
}

#[test]
fn each_message_is_a_record_with_its_partition_and_offset() {
    let report = grade_file("solutions/reference.py");
    let trace = &consumer_detail(check(&report, "fresh-message")).trace;
    let message = trace
        .iter()
        .find_map(|e| match e {
            TraceEvent::Deliver { message, .. } => Some(message.clone()),
            _ => None,
        })
        .expect("a delivery");
    assert_eq!((message["partition"].as_u64(), message["offset"].as_u64()), (Some(0), Some(40)));
}

#[test]
fn an_offset_committed_before_processing_makes_the_log_skip_the_record_after_a_crash() {
    for file in ["mutants/commit-vor-verarbeitung.py", "mutants/commit-vor-verarbeitung.wat"] {
        let report = grade_file(file);
        let crash = check(&report, "crash-points");
        let failure = crash.failure.as_ref().expect("failed");
        assert!(
            failure.de.contains("stellt das Log den Eintrag nicht erneut zu: festgeschrieben ist schon Offset 41, der Eintrag hat Offset 40 (Partition 0)"),
            "{file}: {}",
            failure.de
        );
        assert!(failure.en.contains("the log does not deliver the record again"), "{file}: {}", failure.en);
        let notes = crate::support::harness_notes(&report, "crash-points", pruefstein::text::Lang::De);
        assert!(
            notes.iter().any(|n| n.starts_with("Log: Absturz nach dem Offset-Commit, vor dem Verarbeiten")),
            "{file}: {notes:?}"
        );
        assert!(
            report.diagnosis.as_ref().is_some_and(|d| d
                .main
                .title
                .de
                .starts_with("Offset vor dem Verarbeiten")),
            "{file}"
        );
    }
}

#[test]
fn a_crash_after_processing_before_the_offset_commit_is_named_and_redelivered() {
    let report = grade_file("mutants/getrennte-transaktion.py");
    let notes = crate::support::harness_notes(&report, "crash-points", pruefstein::text::Lang::De);
    assert!(
        notes.iter().any(|n| n.starts_with("Log: Absturz nach dem Verarbeiten, vor dem Offset-Commit")
            && n.ends_with("das Log stellt erneut zu ab Offset 40")),
        "{notes:?}"
    );
}

/// Exercise 08 without its `offsets` state query: only the effect is compared with the reference,
/// so what is wrong with the offsets alone is left to the invariants (the folder lives as long as
/// the returned directory).
fn without_the_offsets_query() -> (tempfile::TempDir, Exercise) {
    let toml = std::fs::read_to_string(exercise_dir(SLUG).join("exercise.toml")).expect("read");
    let without_offsets = toml.replace(
        "[[consumer.state]]\nname = \"offsets\"\nsql = \"SELECT gruppe, partition, naechster FROM offsets\"\nrole = \"memory\"\n",
        "",
    );
    assert_ne!(without_offsets, toml, "the offsets query is declared");
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().join(SLUG);
    crate::support::copy_tree(&exercise_dir(SLUG), &copy);
    std::fs::write(copy.join("exercise.toml"), without_offsets).expect("write");
    let changed = Exercise::load_with(&copy, &[pruefstein::consumer::GRADER]).expect("loads");
    (dir, changed)
}

#[test]
fn a_failed_records_offset_committed_anyway_breaks_the_invariant_and_the_violation_check() {
    let report = grade_file("mutants/fehlschlag-festgeschrieben.py");
    assert!(failed(&report).contains(&"constraint-violation".to_string()));
    // Without the state comparison the invariant alone names it: an exercise that compares only
    // the effect sees "committed offset <= highest processed + 1" broken.
    let (_dir, changed) = without_the_offsets_query();
    let source = std::fs::read_to_string(exercise_dir(SLUG).join("mutants/fehlschlag-festgeschrieben.py"))
        .expect("read");
    let report = grade(
        &changed,
        &Submission::Source { language: Language::Python, text: source },
        &GradeOptions::default(),
    )
    .expect("grades");
    let failure = check(&report, "constraint-violation").failure.as_ref().expect("failed");
    assert!(
        failure.en.contains("\"offset-hoechstens-verarbeitet-plus-eins\" does not hold"),
        "{}",
        failure.en
    );
}

#[test]
fn an_offset_that_moves_back_breaks_the_invariant_read_from_the_commit_history() {
    // Correct but for one thing: a record below the committed offset sets the offset back to it.
    let reference = std::fs::read_to_string(exercise_dir(SLUG).join("solutions/reference.py")).expect("read");
    let back = reference.replace(
        "        if weiter == 0:\n            return False",
        "        if weiter == 0:\n            con.execute(\"UPDATE offsets SET naechster = ? WHERE gruppe = ? AND partition = ?\", (offset, GRUPPE, partition))\n            return False",
    );
    assert_ne!(back, reference);
    let submission = Submission::Source { language: Language::Python, text: back };
    // The comparison of the offsets with the reference's sees it first.
    let report = grade(exercise(), &submission, &GradeOptions::default()).expect("grades");
    let failure = check(&report, "duplicate-same-instance").failure.as_ref().expect("failed");
    assert!(failure.en.contains("differ"), "{}", failure.en);
    // Without that comparison the invariant over the commit history names it.
    let (_dir, changed) = without_the_offsets_query();
    let report = grade(&changed, &submission, &GradeOptions::default()).expect("grades");
    let failure = check(&report, "duplicate-same-instance").failure.as_ref().expect("failed");
    assert!(failure.en.contains("\"offset-nie-zurueck\" does not hold"), "{}", failure.en);
}
