//! Hostile reports for the sequence diagrams of the report page: the largest trace and the longest
//! timeline a report can carry, every text as long as the recorder keeps it and full of markup,
//! every event from a new instance. The invariant: the diagram stays within `DIAGRAM_ROWS_MAX`
//! rows (with "… n more" at the end), its instance lifelines within `DIAGRAM_INSTANCE_LANES_MAX`
//! lanes, its size bounded whatever the trace, and no guest text leaves its element.

use pruefstein::consumer::detail::{ConsumerDetail, TraceEvent};
use pruefstein::limits::{
    DIAGRAM_INSTANCE_LANES_MAX, DIAGRAM_ROWS_MAX, GUEST_TEXT_BYTES_MAX, TIMELINE_LINES_MAX,
    TRACE_EVENTS_PER_CHECK_MAX,
};
use pruefstein::report::diagram::{consumer_layout, timeline_layout};
use pruefstein::report::html::render_report;
use pruefstein::report::prediction::PredictionDetail;
use pruefstein::report::state::SqlValue;
use pruefstein::report::{CheckDetail, CheckReport, GraderKind, REPORT_FORMAT, Report, Score, Verdict};
use pruefstein::sim::TimelineLine;
use pruefstein::text::{Lang, Text};

/// An upper bound on one diagram's markup, from its parts: a header (lanes, title, description)
/// under 4 KiB, and per row its mark, its label (at most 48 characters, each at most 6 bytes when
/// escaped) and at most one lifeline, each under 1 KiB together.
const DIAGRAM_BYTES_BOUND: usize = 4 * 1024 + DIAGRAM_ROWS_MAX * 1024;

/// Guest text as hostile as it gets: markup that would close the SVG, quotes, a direction
/// override, multi-byte characters and line breaks, as long as the recorder keeps it.
fn hostile_text(i: usize) -> String {
    let unit = format!("</text></svg><script>alert({i})</script>\"'&\u{202E}ü€😀\n");
    unit.repeat(GUEST_TEXT_BYTES_MAX / unit.len() + 1)
}

fn check(name: &str, detail: CheckDetail) -> CheckReport {
    CheckReport {
        name: name.into(),
        title: Text::same(name),
        passed: false,
        not_run: false,
        explanation: Text::same("explanation"),
        failure: Some(Text::same("failure")),
        hint: None,
        points: None,
        replay: None,
        detail,
    }
}

/// The largest trace a report shows: `TRACE_EVENTS_PER_CHECK_MAX` events, each from a new
/// instance, each with clipped hostile texts, and as many more left out as the counter holds.
fn largest_trace() -> ConsumerDetail {
    let trace = (0..TRACE_EVENTS_PER_CHECK_MAX)
        .map(|i| {
            let instance = u32::MAX - i as u32;
            let event = match i % 5 {
                0 => TraceEvent::Deliver {
                    instance,
                    message: serde_json::json!({ "id": i % 3, "body": hostile_text(i) }),
                    note: Some(Text::same(hostile_text(i))),
                },
                1 => TraceEvent::Statement {
                    instance,
                    line: Some(i as u32),
                    call: hostile_text(i),
                    sql: hostile_text(i),
                    params: vec![SqlValue::Text(hostile_text(i))],
                    status: 3,
                    changes: None,
                    row: None,
                    write: None,
                    error: Some(hostile_text(i)),
                },
                2 => TraceEvent::Crash {
                    instance,
                    point: 1,
                    after_write: Some(1),
                    after_commit: None,
                    after_call: None,
                    before_commit: false,
                    line: Some(u32::MAX),
                },
                3 => TraceEvent::Log { instance, text: hostile_text(i) },
                _ => TraceEvent::Queue { text: Text::same(hostile_text(i)) },
            };
            event.clipped(GUEST_TEXT_BYTES_MAX)
        })
        .collect();
    ConsumerDetail { trace, trace_omitted: u32::MAX, state: None, ..Default::default() }
}

/// The longest timeline a report shows, every line a hostile note, and a huge count left out.
fn longest_timeline() -> PredictionDetail {
    PredictionDetail {
        expected: serde_json::json!(1),
        expected_text: "1".into(),
        given: serde_json::json!(2),
        given_text: "2".into(),
        parameters: Vec::new(),
        timeline: (0..TIMELINE_LINES_MAX)
            .map(|i| TimelineLine { tick: u64::MAX - i as u64, text: Text::same(hostile_text(i)) })
            .collect(),
        timeline_omitted: usize::MAX,
        timeline_see: None,
    }
}

fn report(checks: Vec<CheckReport>) -> Report {
    Report {
        format: REPORT_FORMAT,
        exercise: "x".into(),
        grader: GraderKind::Consumer,
        submission_sha256: "00".into(),
        learner: None,
        verdict: Verdict::Failed,
        score: Score { points: 0, max: 1 },
        summary: Text::same("summary"),
        rejection: None,
        checks,
        coverage: Vec::new(),
        replay: None,
        source: None,
        diagnosis: None,
    }
}

/// The SVG elements of a page, whole.
fn svgs(page: &str) -> Vec<&str> {
    page.match_indices("<svg ")
        .map(|(start, _)| {
            let end = page[start..].find("</svg>").map(|e| start + e + "</svg>".len());
            &page[start..end.expect("every svg is closed")]
        })
        .collect()
}

#[test]
fn the_largest_trace_and_timeline_give_bounded_escaped_diagrams() {
    let consumer = largest_trace();
    let prediction = longest_timeline();
    let report = report(vec![
        check("crash-points", CheckDetail::Consumer(consumer.clone())),
        check("versuche", CheckDetail::Prediction(prediction.clone())),
    ]);
    for lang in [Lang::De, Lang::En] {
        let layout = consumer_layout(&consumer, lang);
        assert_eq!(layout.rows.len(), DIAGRAM_ROWS_MAX);
        assert_eq!(layout.omitted, TRACE_EVENTS_PER_CHECK_MAX - DIAGRAM_ROWS_MAX + u32::MAX as usize);
        assert!(layout.lanes.len() <= DIAGRAM_INSTANCE_LANES_MAX + 2, "{} lanes", layout.lanes.len());
        let timeline = timeline_layout(&prediction, lang);
        assert_eq!(timeline.rows.len(), DIAGRAM_ROWS_MAX);
        assert_eq!(timeline.omitted, usize::MAX, "the count saturates instead of overflowing");

        let page = render_report(&report, lang).into_string();
        let svgs = svgs(&page);
        assert_eq!(svgs.len(), 2, "one diagram per check");
        let more = if lang == Lang::De { "weitere" } else { "more" };
        for svg in svgs {
            assert!(svg.len() <= DIAGRAM_BYTES_BOUND, "a diagram of {} bytes", svg.len());
            assert_eq!(svg.matches("<g class=\"row\"").count(), DIAGRAM_ROWS_MAX);
            assert!(svg.contains("class=\"omitted\"") && svg.contains(more), "{svg}");
            assert!(!svg.contains("<script") && !svg.contains('\u{202E}'), "guest text escaped and cleaned");
            // Exactly one closing tag of its own: the guest's "</svg>" is text.
            assert_eq!(svg.matches("</svg>").count(), 1);
        }
    }
}
