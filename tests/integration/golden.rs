//! Golden reports: one passing and one failing report per grader, as JSON, as text in German and
//! English, and as the student's report page in both languages, compared with the files in
//! `tests/golden/`. A change of the report format, of a feedback text or of the page shows up here
//! as a diff; when it is intended, rewrite the files with
//! `PRUEFSTEIN_BLESS=1 cargo test --test integration golden::` and review the diff in the commit.
//!
//! JSON and text are compared byte for byte. The page is compared after collapsing the whitespace
//! between tags, which a browser ignores, so a change of how the page is assembled does not count as
//! a change of what it shows.

use std::path::PathBuf;

use pruefstein::report::render_text;
use pruefstein::report::{Report, Verdict};
use pruefstein::service::store::{ResultRecord, Status, SubmissionRecord};
use pruefstein::text::Lang;

use crate::support::{self, exercise_dir, load, repo as root};

fn golden_dir() -> PathBuf {
    root().join("tests/golden")
}

fn grade_module(exercise: &str, file: &str) -> Report {
    let bytes = std::fs::read(exercise_dir(exercise).join(file)).expect("module file exists");
    support::grade_module(&load(exercise), bytes)
}

fn grade_answer(exercise: &str, answer: &str) -> Report {
    support::grade_answer(&load(exercise), answer, None)
}

/// The page as the service renders it for a graded submission with this report; every field that is
/// not part of the report is fixed.
fn page(report: &Report, kind: &str, lang: Lang) -> String {
    let record = SubmissionRecord {
        id: 7,
        client_id: 1,
        exercise: report.exercise.clone(),
        learner: "lernende-1".to_string(),
        kind: kind.to_string(),
        sha256: report.submission_sha256.clone(),
        callback_url: None,
        metadata: None,
        idempotency_key: None,
        request_hash: "0".repeat(64),
        created_at: 1_764_000_000_000,
        status: Status::Graded,
        attempts: 1,
        result: Some(ResultRecord {
            verdict: Some(report.verdict.name().to_string()),
            points: Some(report.score.points),
            max_points: Some(report.score.max),
            report: Some(report.to_json()),
            failure: None,
            finished_at: 1_764_000_001_000,
            grade_ms: Some(12),
            version: 1,
            exercise_hash: None,
            grader_version: None,
        }),
    };
    pruefstein::service::html::report_page(&record, lang, "s-0007", "token-0007")
}

/// Whitespace between two tags collapsed, so only what a browser shows is compared.
fn normalise_page(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut pending = String::new();
    let mut after_tag = false;
    for c in html.chars() {
        if after_tag && c.is_whitespace() {
            pending.push(c);
            continue;
        }
        if c == '<' && after_tag {
            pending.clear();
        }
        out.push_str(&pending);
        pending.clear();
        out.push(c);
        after_tag = c == '>';
    }
    out
}

/// Compares `actual` with the golden file `name`, or writes it when blessing.
fn assert_golden(name: &str, actual: &str) {
    let path = golden_dir().join(name);
    if std::env::var_os("PRUEFSTEIN_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).expect("create tests/golden");
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (write it with PRUEFSTEIN_BLESS=1)", path.display()));
    let (expected_cmp, actual_cmp) = if name.ends_with(".html") {
        (normalise_page(&expected), normalise_page(actual))
    } else {
        (expected.clone(), actual.to_string())
    };
    if expected_cmp != actual_cmp {
        let line = expected_cmp.lines().zip(actual_cmp.lines()).position(|(a, b)| a != b);
        panic!(
            "{name} differs from its golden file (first differing line: {}).\n--- expected\n{}\n--- actual\n{}",
            line.map_or("past the end of one".to_string(), |l| (l + 1).to_string()),
            line.and_then(|l| expected_cmp.lines().nth(l)).unwrap_or(""),
            line.and_then(|l| actual_cmp.lines().nth(l)).unwrap_or(""),
        );
    }
}

fn assert_report(stem: &str, report: &Report, kind: &str) {
    assert_golden(&format!("{stem}.json"), &report.to_json());
    for lang in [Lang::De, Lang::En] {
        let code = lang.code();
        assert_golden(&format!("{stem}.{code}.txt"), &render_text(report, lang));
        assert_golden(&format!("{stem}.{code}.html"), &page(report, kind, lang));
    }
}

#[test]
fn consumer_passed() {
    let report = grade_module("03-idempotenter-konsument", "solutions/reference.wat");
    assert_eq!(report.verdict, Verdict::Passed);
    assert_report("consumer-passed", &report, "module");
}

#[test]
fn consumer_failed() {
    let report = grade_module("03-idempotenter-konsument", "mutants/separate-autocommit.wat");
    assert_eq!(report.verdict, Verdict::Failed);
    assert_report("consumer-failed", &report, "module");
}

#[test]
fn prediction_passed() {
    let report = grade_answer("01-visibility-timeout", "(2, 2, 0)");
    assert_eq!(report.verdict, Verdict::Passed);
    assert_report("prediction-passed", &report, "answer");
}

#[test]
fn prediction_failed() {
    let report = grade_answer("01-visibility-timeout", "(2, 1, 1)");
    assert_eq!(report.verdict, Verdict::Failed);
    assert_report("prediction-failed", &report, "answer");
}

#[test]
fn page_whitespace_between_tags_is_ignored_and_nothing_else() {
    assert_eq!(normalise_page("<p>\n  <b>a b</b>\n</p>"), "<p><b>a b</b></p>");
    assert_ne!(normalise_page("<p>a b</p>"), normalise_page("<p>ab</p>"));
    assert_ne!(normalise_page("<p> a</p>"), normalise_page("<p>a</p>"));
}
