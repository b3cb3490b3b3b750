//! Tests of the diagram layout and its SVG: lanes, one row per event, crash and redelivery marks,
//! bounds, determinism and escaping.

use super::*;
use crate::sim::TimelineLine;
use crate::text::Text;
use serde_json::json;

fn detail(trace: Vec<TraceEvent>) -> ConsumerDetail {
    ConsumerDetail { trace, ..Default::default() }
}

fn deliver(instance: u32, id: u32) -> TraceEvent {
    TraceEvent::Deliver { instance, message: json!({"id": id}), note: None }
}

fn statement(instance: u32, sql: &str) -> TraceEvent {
    TraceEvent::Statement {
        line: None,
        instance,
        call: "db.exec".into(),
        sql: sql.into(),
        params: Vec::new(),
        status: 0,
        changes: Some(1),
        row: None,
        write: Some(1),
        error: None,
    }
}

fn crash(instance: u32) -> TraceEvent {
    TraceEvent::Crash {
        instance,
        point: 1,
        after_write: Some(1),
        after_commit: None,
        after_call: None,
        before_commit: false,
        line: None,
    }
}

/// The crash check's story: #1 gets the message and crashes after its first write, #2 starts
/// and gets it again, writes and acks.
fn crash_and_redelivery() -> Vec<TraceEvent> {
    vec![
        TraceEvent::Start { instance: 1 },
        deliver(1, 7),
        statement(1, "INSERT INTO gesehen (msg_id) VALUES (?)"),
        crash(1),
        TraceEvent::Queue { text: Text::same("nothing happened; the queue redelivers") },
        TraceEvent::Start { instance: 2 },
        deliver(2, 7),
        statement(2, "INSERT INTO gesehen (msg_id) VALUES (?)"),
        TraceEvent::Return { instance: 2, value: 1, line: None },
    ]
}

/// Lifelines: the queue first, the database last, and each instance a lifeline of its own
/// from its first row to its last, headed by its number.
#[test]
fn lanes_are_queue_instances_database() {
    let layout = consumer_layout(&detail(crash_and_redelivery()), Lang::En);
    assert_eq!(layout.lanes.first().map(|l| l.header.as_str()), Some("Queue"));
    assert_eq!(layout.lanes.last().map(|l| l.header.as_str()), Some("Database"));
    assert!(layout.lanes.first().is_some_and(|l| l.full) && layout.lanes.last().is_some_and(|l| l.full));
    let lives: Vec<(u32, usize, usize)> =
        layout.lifelines.iter().map(|l| (l.instance, l.first, l.last)).collect();
    assert_eq!(lives, vec![(1, 0, 3), (2, 5, 8)]);
    // #1 ended (crashed) before #2 began: #2 takes its place.
    assert_eq!(layout.lifelines[0].lane, layout.lifelines[1].lane);
    assert_eq!(layout.lanes.len(), 3);
    let svg = render(&layout, "d").into_string();
    assert!(svg.contains("<g class=\"lifeline\" data-instance=\"2\">"), "{svg}");
    assert!(svg.contains(">#2</text>"), "{svg}");
}

/// A trace that calls an outside service gets its lane right of the database, an arrow to it per
/// call and the crash after the call named in the row; a trace without one has no such lane.
/// Records of an event log come from the log: its lane heads the diagram, in both languages.
#[test]
fn records_of_an_event_log_come_from_the_log_lane() {
    let mut trace = crash_and_redelivery();
    for event in &mut trace {
        if let TraceEvent::Deliver { message, .. } = event {
            message["partition"] = serde_json::json!(0);
            message["offset"] = serde_json::json!(40);
        }
    }
    for lang in [Lang::De, Lang::En] {
        let layout = consumer_layout(&detail(trace.clone()), lang);
        assert_eq!(layout.lanes.first().map(|l| l.header.as_str()), Some("Log"));
        assert!(layout.description.to_lowercase().contains(": log,"), "{}", layout.description);
        assert!(layout.rows.iter().any(|r| r.kind == "redeliver"), "a redelivery from the log");
    }
    let plain = consumer_layout(&detail(crash_and_redelivery()), Lang::De);
    assert_eq!(plain.lanes.first().map(|l| l.header.as_str()), Some("Queue"));
}

#[test]
fn an_outside_service_gets_a_lane_of_its_own_only_when_called() {
    let mail = TraceEvent::Outside {
        instance: 1,
        line: Some(19),
        call: "send_mail".into(),
        key: "7".into(),
        to: "anna@example.org".into(),
        body: "ok".into(),
        answer: "sent".into(),
    };
    let after_mail = TraceEvent::Crash {
        instance: 1,
        point: 3,
        after_write: None,
        after_commit: None,
        after_call: Some("send_mail".into()),
        before_commit: true,
        line: Some(19),
    };
    let trace = vec![TraceEvent::Start { instance: 1 }, deliver(1, 7), mail, after_mail];
    let layout = consumer_layout(&detail(trace), Lang::De);
    let headers: Vec<&str> = layout.lanes.iter().map(|l| l.header.as_str()).collect();
    assert_eq!(headers, vec!["Queue", "", "Datenbank", "Mail-Dienst"]);
    assert_eq!(layout.rows[2].kind, "outside");
    assert_eq!(layout.rows[2].mark, Mark::Arrow { from: 1, to: 3, dashed: false });
    assert!(
        layout.rows[3].label.contains("ABSTURZ nach `send_mail`, vor dem COMMIT"),
        "{:?}",
        layout.rows[3]
    );
    let plain = consumer_layout(&detail(crash_and_redelivery()), Lang::De);
    assert!(plain.lanes.iter().all(|l| l.header != "Mail-Dienst"));
}

/// Two instances alive at once get lanes side by side; beyond the limit they share.
#[test]
fn overlapping_instances_get_lanes_side_by_side_up_to_the_limit() {
    let n = DIAGRAM_INSTANCE_LANES_MAX as u32 + 2;
    let mut trace: Vec<TraceEvent> = (1..=n).map(|i| deliver(i, i)).collect();
    trace.extend((1..=n).map(|i| TraceEvent::Return { instance: i, value: 1, line: None }));
    let layout = consumer_layout(&detail(trace), Lang::En);
    assert_eq!(layout.lanes.len(), DIAGRAM_INSTANCE_LANES_MAX + 2);
    let lanes: Vec<usize> = layout.lifelines.iter().map(|l| l.lane).collect();
    assert_eq!(&lanes[..DIAGRAM_INSTANCE_LANES_MAX], &[0, 1, 2]);
    assert!(lanes.iter().all(|&l| l < DIAGRAM_INSTANCE_LANES_MAX));
    // Every row is drawn in its instance's lane.
    for row in &layout.rows {
        let lane = layout.lifelines.iter().find(|l| Some(l.instance) == row.instance).map(|l| l.lane + 1);
        match row.mark {
            Mark::Arrow { from, to, .. } => assert!(Some(from) == lane || Some(to) == lane, "{row:?}"),
            other => panic!("unexpected mark {other:?}"),
        }
    }
}

/// One row per event, in order, each labelled with the event's line.
#[test]
fn one_row_per_event() {
    let trace = crash_and_redelivery();
    let layout = consumer_layout(&detail(trace.clone()), Lang::De);
    assert_eq!(layout.rows.len(), trace.len());
    assert_eq!(layout.omitted, 0);
    for (row, event) in layout.rows.iter().zip(&trace) {
        assert_eq!(row.label, clip_label(&event.render(Lang::De)));
    }
    let kinds: Vec<&str> = layout.rows.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        ["start", "deliver", "statement", "crash", "queue", "start", "redeliver", "statement", "ack"]
    );
    let svg = render(&layout, "d").into_string();
    assert_eq!(svg.matches("<g class=\"row\"").count(), trace.len());
    assert!(!svg.contains("class=\"omitted\""));
}

/// A crash is a cross on the crashed instance's lifeline (not on the queue or the database).
#[test]
fn a_crash_is_a_cross_on_the_instance_lifeline() {
    let layout = consumer_layout(&detail(crash_and_redelivery()), Lang::En);
    let row = &layout.rows[3];
    assert_eq!((row.kind, row.instance), ("crash", Some(1)));
    let lane = layout.lifelines[0].lane + 1;
    assert_eq!(row.mark, Mark::Cross { lane });
    assert!(lane != 0 && lane != layout.lanes.len() - 1);
    let svg = render(&layout, "d").into_string();
    assert!(svg.contains("data-kind=\"crash\" data-instance=\"1\""), "{svg}");
}

/// After a crash, the next delivery of the same message is a redelivery: an arrow from the queue
/// to the next instance. A delivery after an ack (the lesson's True) is not one.
#[test]
fn a_redelivery_is_an_arrow_from_the_queue_to_the_next_instance() {
    let layout = consumer_layout(&detail(crash_and_redelivery()), Lang::En);
    let row = &layout.rows[6];
    assert_eq!((row.kind, row.instance), ("redeliver", Some(2)));
    let lane = layout.lifelines[1].lane + 1;
    assert_eq!(row.mark, Mark::Arrow { from: 0, to: lane, dashed: false });

    // The same message after an ack, and after a return the queue does not ack.
    let mut trace =
        vec![deliver(1, 7), TraceEvent::Return { instance: 1, value: 1, line: None }, deliver(2, 7)];
    trace.extend([TraceEvent::Return { instance: 2, value: 2, line: None }, deliver(3, 7)]);
    let kinds: Vec<&str> = consumer_layout(&detail(trace), Lang::En).rows.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, ["deliver", "ack", "deliver", "no-ack", "redeliver"]);
}

/// However long the trace, the diagram draws at most DIAGRAM_ROWS_MAX rows and says how many
/// it left out, counting those the report had already cut.
#[test]
fn a_long_trace_gives_a_bounded_diagram() {
    let mut d = detail((0..1_000).map(|i| statement(i % 7 + 1, "UPDATE t SET x = x + 1")).collect());
    d.trace_omitted = 5;
    let layout = consumer_layout(&d, Lang::En);
    assert_eq!(layout.rows.len(), DIAGRAM_ROWS_MAX);
    assert_eq!(layout.omitted, 1_000 - DIAGRAM_ROWS_MAX + 5);
    let svg = consumer_diagram(&d, Lang::En, "d").into_string();
    assert!(svg.contains(&format!("… {} more events", 1_000 - DIAGRAM_ROWS_MAX + 5)), "{svg}");
}

/// Long, multi-line or direction-changing text becomes one short line.
#[test]
fn labels_are_one_clipped_line() {
    let long = "SELECT 1\n\tFROM t ".repeat(20);
    let label = clip_label(&long);
    assert_eq!(label.chars().count(), DIAGRAM_LABEL_CHARS_MAX);
    assert!(label.ends_with('…') && !label.contains(['\n', '\t']) && !label.contains("  "), "{label}");
    assert_eq!(clip_label("a\u{202E}b  c\n"), "ab c");
    let exact = "x".repeat(DIAGRAM_LABEL_CHARS_MAX);
    assert_eq!(clip_label(&exact), exact);
}

/// Guest text reaches the SVG escaped.
#[test]
fn guest_text_is_escaped() {
    let svg = consumer_diagram(&detail(vec![statement(1, "</text><script>x</script>")]), Lang::En, "d")
        .into_string();
    assert!(!svg.contains("<script>") && svg.contains("&lt;/text&gt;&lt;script&gt;"), "{svg}");
}

/// The same report gives the same SVG, with an accessible name and description.
#[test]
fn the_svg_is_deterministic_and_labelled() {
    let d = detail(crash_and_redelivery());
    let a = consumer_diagram(&d, Lang::De, "diagram-crash points").into_string();
    assert_eq!(a, consumer_diagram(&d, Lang::De, "diagram-crash points").into_string());
    assert!(a.starts_with("<svg class=\"sequence\" id=\"diagram-crash-points\""), "{a}");
    assert!(
        a.contains("role=\"img\" aria-labelledby=\"diagram-crash-points-title diagram-crash-points-desc\"")
    );
    assert!(a.contains("<title id=\"diagram-crash-points-title\">") && a.contains("<desc id="));
    assert!(a.contains("9 Ereignisse gezeichnet, 1 Absturz, 1 erneute Zustellung."), "{a}");
    // Every coordinate is an integer: no number is printed with a fraction.
    for attribute in ["x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "width", "height", "points", "viewBox"] {
        for value in a.split(&format!(" {attribute}=\"")).skip(1) {
            let value = value.split('"').next().unwrap_or_default();
            assert!(
                !value.is_empty() && value.chars().all(|c| c.is_ascii_digit() || " ,-".contains(c)),
                "{attribute}=\"{value}\""
            );
        }
    }
}

/// The simulated timeline: queue and consumers; a receive is an arrow from the queue, a later
/// attempt a redelivery, an ack an arrow back; other lines are dots.
#[test]
fn a_timeline_by_tick() {
    let line = |tick, en: &str| TimelineLine { tick, text: Text::new(format!("de {en}"), en) };
    let d = PredictionDetail {
        expected: json!(2),
        expected_text: "2".into(),
        given: json!(1),
        given_text: "1".into(),
        parameters: Vec::new(),
        timeline: vec![
            line(0, "zahlung-1 is sent (id 1)"),
            line(0, "A receives zahlung-1 (attempt 1), invisible until t=3"),
            line(3, "no ack for zahlung-1 within the visibility timeout: visible again (after 1 attempt)"),
            line(4, "C receives zahlung-1 (attempt 2), invisible until t=7"),
            line(4, "ack for zahlung-1: deleted"),
            line(5, "C processes zahlung-1"),
        ],
        timeline_omitted: 3,
        timeline_see: None,
    };
    let layout = timeline_layout(&d, Lang::En);
    let rows: Vec<(&str, Mark)> = layout.rows.iter().map(|r| (r.kind, r.mark)).collect();
    let arrow = |from, to| Mark::Arrow { from, to, dashed: false };
    assert_eq!(
        rows,
        [
            ("queue", Mark::Dot { lane: 0 }),
            ("deliver", arrow(0, 1)),
            ("visible-again", Mark::Dot { lane: 0 }),
            ("redeliver", arrow(0, 1)),
            ("ack", arrow(1, 0)),
            ("note", Mark::Dot { lane: 1 }),
        ]
    );
    assert_eq!(layout.rows[3].label, "t=4: C receives zahlung-1 (attempt 2), invi…");
    assert_eq!(layout.omitted, 3);
    assert_eq!(timeline_layout(&d, Lang::De).rows[0].label, "t=0: de zahlung-1 is sent (id 1)");
}

/// A row's text is wrapped between words onto lines that fit beside the lanes; a word longer
/// than a line is cut; nothing is lost.
#[test]
fn labels_wrap_between_words() {
    let lines = svg::wrap("INSERT INTO gesehen (msg_id) VALUES (?) and more words");
    assert!(lines.len() >= 2, "{lines:?}");
    assert!(lines.iter().all(|l| l.chars().count() <= 28 && !l.starts_with(' ')), "{lines:?}");
    assert_eq!(lines.join(" "), "INSERT INTO gesehen (msg_id) VALUES (?) and more words");
    let long = "x".repeat(44);
    let cut = svg::wrap(&long);
    assert_eq!(cut.concat(), long);
    assert!(cut.iter().all(|l| l.chars().count() <= 28), "{cut:?}");
    assert_eq!(svg::wrap(""), vec![String::new()]);
    assert_eq!(svg::wrap("ab c"), vec!["ab c".to_string()]);
}

/// Every row's text starts right of the last lane, so no text can cross a lifeline.
#[test]
fn texts_stand_right_of_the_lanes() {
    let layout = consumer_layout(&detail(crash_and_redelivery()), Lang::En);
    let last = layout.lanes.iter().map(|l| l.x).max().unwrap();
    let svg = render(&layout, "d").into_string();
    for part in svg.split("<g class=\"row\"").skip(1) {
        let x: i32 = part.split("<text x=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(x > last, "a row's text at x={x} is not right of the last lane at {last}");
    }
}

/// A message that moves to the dead letter queue is an arrow from the queue to a lane of its own,
/// rightmost, in a consumer trace and in a simulated timeline; without one there is no such lane.
#[test]
fn the_dead_letter_queue_is_a_lane_when_a_message_moves_there() {
    let dead = "m23 moves to the dead letter queue after 3 attempts";
    let mut trace = crash_and_redelivery();
    assert!(consumer_layout(&detail(trace.clone()), Lang::En).lanes.iter().all(|l| l.header != "DLQ"));
    trace.push(TraceEvent::Queue {
        text: Text::new("m23 kommt nach 3 Versuchen in die Dead Letter Queue", dead),
    });
    let layout = consumer_layout(&detail(trace), Lang::De);
    let dlq = layout.lanes.len() - 1;
    assert_eq!(layout.lanes[dlq].header, "DLQ");
    let last = layout.rows.last().expect("rows");
    assert_eq!((last.kind, last.mark), ("dead-letter", Mark::Arrow { from: 0, to: dlq, dashed: false }));

    let line = |tick, en: &str| TimelineLine { tick, text: Text::new(format!("de {en}"), en) };
    let d = PredictionDetail {
        expected: json!(1),
        expected_text: "1".into(),
        given: json!(0),
        given_text: "0".into(),
        parameters: Vec::new(),
        timeline: vec![line(0, "abo-3 is sent (id 1)"), line(6, dead)],
        timeline_omitted: 0,
        timeline_see: None,
    };
    let layout = timeline_layout(&d, Lang::En);
    assert_eq!(
        layout.lanes.iter().map(|l| l.header.as_str()).collect::<Vec<_>>(),
        ["Queue", "Consumers", "DLQ"]
    );
    assert_eq!(layout.rows[1].mark, Mark::Arrow { from: 0, to: 2, dashed: false });
    let svg = render(&layout, "t").into_string();
    assert!(svg.contains(">DLQ<"), "the lane's header is drawn");
}
