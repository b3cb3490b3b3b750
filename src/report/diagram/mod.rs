//! Timelines as sequence diagrams: the trace of a failing consumer check (lifelines for the queue
//! or the event log whose records it delivers,
//! the consumer instances #1, #2, … and the database; deliveries, statements, crashes,
//! redeliveries and acks as arrows and marks) and the simulated timeline of a wrong prediction
//! (the queue and the consumers, row by row in the order of the ticks), drawn as inline SVG on the
//! server.
//!
//! The layout ([`consumer_layout`], [`timeline_layout`]) is data, tested on its own; [`render`]
//! turns it into SVG (`svg.rs`: lanes on the left, each row's text beside them). The picture is bounded whatever the trace: at most
//! [`DIAGRAM_ROWS_MAX`] rows (then one row "… n more"), labels of at most
//! [`DIAGRAM_LABEL_CHARS_MAX`] characters, at most [`DIAGRAM_INSTANCE_LANES_MAX`] instance
//! lifelines side by side. Every coordinate is an integer, so the same report gives the same SVG
//! byte for byte. Text from the guest is escaped by maud and clipped. The numbered list beside the
//! diagram stays the full account (and what a screen reader reads: the SVG is one image with a
//! title and a description).

use std::collections::BTreeMap;

use maud::{Markup, html};

use super::consumer::{ConsumerDetail, TraceEvent};
use super::prediction::PredictionDetail;
use crate::limits::{DIAGRAM_INSTANCE_LANES_MAX, DIAGRAM_LABEL_CHARS_MAX, DIAGRAM_ROWS_MAX};
use crate::text::Lang;

/// The first lane's x (the queue); every further lane [`LANE_GAP`] to the right of the one before.
pub(super) const LEFT_LANE_X: i32 = 14;
/// Space between two lanes: wide enough for an instance's head ("#99" is 3 characters).
pub(super) const LANE_GAP: i32 = 28;

/// The x of lane `i` (lane 0 the queue).
fn lane_x(i: usize) -> i32 {
    // i is at most DIAGRAM_INSTANCE_LANES_MAX + 1: the conversion cannot fail.
    LEFT_LANE_X + LANE_GAP * i32::try_from(i).unwrap_or(0)
}

/// What one row of a diagram draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// An arrow from one lane to another (lane indices); dashed when `dashed`.
    Arrow { from: usize, to: usize, dashed: bool },
    /// A cross on a lane: the instance died there.
    Cross { lane: usize },
    /// Where an instance's lifeline begins (its head box is drawn with the lifeline).
    Head { lane: usize },
    /// A dot on a lane: something happened there.
    Dot { lane: usize },
}

/// One row: one trace event or one timeline line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// What happened, for a reader of the markup and for tests: `deliver`, `redeliver`,
    /// `statement`, `crash`, `ack`, `no-ack`, …
    pub kind: &'static str,
    /// The consumer instance the row belongs to, if any.
    pub instance: Option<u32>,
    pub mark: Mark,
    /// The row's line of text, clipped.
    pub label: String,
}

/// A lane: a vertical line with a header (the queue, the database, the consumers), or a place where
/// instances' lifelines are drawn one after the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// The header; empty for an instance lane (its lifelines carry their own heads).
    pub header: String,
    pub x: i32,
    /// Drawn from top to bottom (the queue, the database); instance lanes draw lifelines instead.
    pub full: bool,
}

/// The lifeline of one consumer instance: in `lane`, from row `first` to row `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifeline {
    pub instance: u32,
    pub lane: usize,
    pub first: usize,
    pub last: usize,
}

/// A diagram laid out: lanes, lifelines and rows, with the count of what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub title: String,
    pub description: String,
    pub lanes: Vec<Lane>,
    /// The header over the instance lanes ("Instanzen"), if there are any.
    pub instances_header: Option<&'static str>,
    pub lifelines: Vec<Lifeline>,
    pub rows: Vec<Row>,
    /// Rows (events, lines) not drawn: beyond [`DIAGRAM_ROWS_MAX`] or already cut from the report.
    pub omitted: usize,
    /// "more events" / "weitere Ereignisse".
    pub omitted_label: &'static str,
}

/// "1 Absturz", "2 Abstürze".
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn t(lang: Lang, de: &'static str, en: &'static str) -> &'static str {
    if lang == Lang::De { de } else { en }
}

/// `text` on one line (whitespace and control characters as one space, bidirectional overrides
/// dropped), at most [`DIAGRAM_LABEL_CHARS_MAX`] characters, the last one "…" when it was cut.
pub(crate) fn clip_label(text: &str) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in text.chars() {
        if matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}') {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            space = count > 0;
            continue;
        }
        let needed = usize::from(space) + 1;
        if count + needed > DIAGRAM_LABEL_CHARS_MAX {
            // Room for the mark: drop characters until it fits.
            while count >= DIAGRAM_LABEL_CHARS_MAX {
                out.pop();
                count -= 1;
            }
            out.push('…');
            return out;
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        out.push(c);
        count += 1;
    }
    out
}

/// Whether `event` delivers a record of an event log (a message with its partition and offset).
fn is_record(event: &TraceEvent) -> bool {
    matches!(event, TraceEvent::Deliver { message, .. }
        if message.get("partition").is_some_and(serde_json::Value::is_u64)
            && message.get("offset").is_some_and(serde_json::Value::is_u64))
}

/// The instance an event belongs to.
fn instance_of(event: &TraceEvent) -> Option<u32> {
    match event {
        TraceEvent::Start { instance }
        | TraceEvent::Relay { instance }
        | TraceEvent::Deliver { instance, .. }
        | TraceEvent::Statement { instance, .. }
        | TraceEvent::Wait { instance, .. }
        | TraceEvent::Log { instance, .. }
        | TraceEvent::Crash { instance, .. }
        | TraceEvent::Return { instance, .. }
        | TraceEvent::Fault { instance, .. }
        | TraceEvent::RolledBack { instance, .. }
        | TraceEvent::Outside { instance, .. } => Some(*instance),
        TraceEvent::Queue { .. } => None,
    }
}

/// Places each instance's lifeline in one of at most [`DIAGRAM_INSTANCE_LANES_MAX`] lanes: an
/// instance takes the first lane whose last lifeline ended before it begins; when every lane is
/// busy, the one that frees up first is shared. Returns the lifelines (in order of their first row)
/// and the number of lanes used (at least one).
fn place_lifelines(spans: &BTreeMap<u32, (usize, usize)>) -> (Vec<Lifeline>, usize) {
    let mut order: Vec<(u32, usize, usize)> = spans.iter().map(|(&i, &(f, l))| (i, f, l)).collect();
    order.sort_by_key(|&(instance, first, _)| (first, instance));
    let mut busy_until: Vec<usize> = Vec::new();
    let mut lifelines = Vec::with_capacity(order.len());
    for (instance, first, last) in order {
        let lane = match busy_until.iter().position(|&until| until < first) {
            Some(lane) => lane,
            None if busy_until.len() < DIAGRAM_INSTANCE_LANES_MAX => {
                busy_until.push(0);
                busy_until.len() - 1
            }
            None => {
                let mut lane = 0;
                for (i, &until) in busy_until.iter().enumerate() {
                    if until < busy_until[lane] {
                        lane = i;
                    }
                }
                lane
            }
        };
        busy_until[lane] = busy_until[lane].max(last);
        lifelines.push(Lifeline { instance, lane, first, last });
    }
    (lifelines, busy_until.len().max(1))
}

/// One event's label in `voice`'s words.
fn voiced_label(event: &TraceEvent, lang: Lang, voice: crate::report::voice::Voice) -> String {
    crate::report::trace_text::render_trace(std::slice::from_ref(event), lang, voice, None).join(" ")
}

/// The sequence diagram of a consumer check's trace: lane 0 the queue, then the instance lanes,
/// last the database. One row per event (the first [`DIAGRAM_ROWS_MAX`]).
pub fn consumer_layout(detail: &ConsumerDetail, lang: Lang) -> Layout {
    consumer_layout_in(detail, lang, crate::report::voice::Voice::Module)
}

/// [`consumer_layout`] with the labels in `voice`'s words.
pub(crate) fn consumer_layout_in(
    detail: &ConsumerDetail,
    lang: Lang,
    voice: crate::report::voice::Voice,
) -> Layout {
    let events = &detail.trace[..detail.trace.len().min(DIAGRAM_ROWS_MAX)];
    let omitted = (detail.trace.len() - events.len()).saturating_add(detail.trace_omitted as usize);

    let mut spans: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for (row, event) in events.iter().enumerate() {
        if let Some(instance) = instance_of(event) {
            spans.entry(instance).and_modify(|span| span.1 = row).or_insert((row, row));
        }
    }
    let (lifelines, lanes_used) = place_lifelines(&spans);
    let lane_of: BTreeMap<u32, usize> = lifelines.iter().map(|l| (l.instance, l.lane + 1)).collect();
    let database = lanes_used + 1;

    // Records of an event log (each delivery names its partition and offset) come from the log.
    let source = if events.iter().any(is_record) { "Log" } else { "Queue" };
    let mut lanes = vec![Lane { header: source.to_string(), x: lane_x(0), full: true }];
    lanes.extend((0..lanes_used).map(|j| Lane { header: String::new(), x: lane_x(j + 1), full: false }));
    lanes.push(Lane {
        header: t(lang, "Datenbank", "Database").to_string(),
        x: lane_x(database),
        full: true,
    });
    // The outside service gets a lane of its own, right of the database, when the trace calls it.
    let calls: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Outside { call, .. } => Some(call.as_str()),
            _ => None,
        })
        .collect();
    let provider = (!calls.is_empty()).then_some(database + 1);
    if let Some(provider) = provider {
        let header = match (calls.iter().all(|c| *c == "publish"), calls.contains(&"publish")) {
            _ if calls.iter().all(|c| *c == "commit_offset") => "Offsets",
            (true, _) => "Broker",
            (false, true) => t(lang, "Dienste", "Services"),
            (false, false) => t(lang, "Mail-Dienst", "Mail provider"),
        };
        lanes.push(Lane { header: header.to_string(), x: lane_x(provider), full: true });
    }
    // The dead letter queue gets a lane of its own, rightmost, when a message moved there.
    let dead_letter =
        events.iter().any(|e| matches!(e, TraceEvent::Queue { text } if moves_to_dlq(&text.en)));
    let dlq = dead_letter.then_some(lanes.len());
    if let Some(dlq) = dlq {
        lanes.push(Lane { header: DLQ_HEADER.to_string(), x: lane_x(dlq), full: true });
    }

    let mut deliveries = Deliveries::default();
    let rows: Vec<Row> = events
        .iter()
        .enumerate()
        .map(|(row, event)| {
            let instance = instance_of(event);
            let lane = instance.and_then(|i| lane_of.get(&i).copied()).unwrap_or(1);
            let (kind, mark) = match (event, dlq) {
                (TraceEvent::Queue { text }, Some(dlq)) if moves_to_dlq(&text.en) => dead_letter_row(dlq),
                _ => deliveries.mark(event, lane, (database, provider.unwrap_or(database))),
            };
            let label = relay_crash_label(&events[..row], event, lang)
                .unwrap_or_else(|| voiced_label(event, lang, voice));
            Row { kind, instance, mark, label: clip_label(&label) }
        })
        .collect();
    let mut description = consumer_description(lang, &spans, rows.len(), &deliveries);
    if rows.iter().any(|r| r.kind == "relay") {
        description.push_str(t(
            lang,
            " Eine Instanz ist das Relay: es liest die Outbox und veröffentlicht beim Broker.",
            " One instance is the relay: it reads the outbox and publishes to the broker.",
        ));
    }
    if source == "Log" {
        description = description.replacen("Queue,", "Log,", 1).replacen("queue,", "log,", 1);
    }
    Layout {
        title: t(lang, "Ablauf als Sequenzdiagramm", "Trace as a sequence diagram").to_string(),
        description,
        lanes,
        instances_header: Some(t(lang, "Instanzen", "Instances")),
        lifelines,
        rows,
        omitted,
        omitted_label: t(lang, "weitere Ereignisse", "more events"),
    }
}

/// The label of a relay's crash right after `publish` before it marked the event sent (it wrote
/// nothing since it last read): the moment that sends an event twice, named in words.
fn relay_crash_label(before: &[TraceEvent], event: &TraceEvent, lang: Lang) -> Option<String> {
    let TraceEvent::Crash { instance, after_call: Some(call), .. } = event else { return None };
    let mut relay = false;
    let mut wrote_since_read = false;
    for earlier in before.iter().filter(|e| instance_of(e) == Some(*instance)) {
        match earlier {
            TraceEvent::Relay { .. } => relay = true,
            TraceEvent::Statement { write: Some(_), .. } => wrote_since_read = true,
            TraceEvent::Statement { sql, .. }
                if sql.trim_start().to_ascii_uppercase().starts_with("SELECT") =>
            {
                wrote_since_read = false
            }
            _ => {}
        }
    }
    (relay && !wrote_since_read).then(|| match lang {
        Lang::De => format!("Absturz nach `{call}`, vor dem Markieren"),
        Lang::En => format!("crash after `{call}`, before the marking"),
    })
}

/// What the deliveries of a trace have come to so far: which message each instance works on,
/// which messages' last delivery ended without an ack (so that their next delivery is a
/// redelivery), and the crashes and redeliveries counted.
#[derive(Default)]
struct Deliveries {
    /// Per message (its JSON): whether its last delivery ended without an ack.
    unacked: BTreeMap<String, bool>,
    /// Per instance: the message it is working on.
    working: BTreeMap<u32, String>,
    crashes: usize,
    redeliveries: usize,
}

impl Deliveries {
    fn end(&mut self, instance: u32, acked: bool) {
        if let Some(message) = self.working.remove(&instance) {
            self.unacked.insert(message, !acked);
        }
    }

    /// The row kind and mark of `event`, drawn in `lane` (its instance's) with the database in
    /// lane `database` and the outside service in lane `provider`.
    fn mark(
        &mut self,
        event: &TraceEvent,
        lane: usize,
        (database, provider): (usize, usize),
    ) -> (&'static str, Mark) {
        match event {
            TraceEvent::Outside { .. } => {
                ("outside", Mark::Arrow { from: lane, to: provider, dashed: false })
            }
            TraceEvent::Start { .. } => ("start", Mark::Head { lane }),
            // The relay is an actor of its own: it is not delivered anything, it reads the outbox.
            TraceEvent::Relay { .. } => ("relay", Mark::Arrow { from: lane, to: database, dashed: true }),
            TraceEvent::Deliver { instance, message, .. } => {
                let key = message.to_string();
                let again = self.unacked.get(&key).copied().unwrap_or(false);
                self.unacked.insert(key.clone(), false);
                self.working.insert(*instance, key);
                self.redeliveries += usize::from(again);
                let kind = if again { "redeliver" } else { "deliver" };
                (kind, Mark::Arrow { from: 0, to: lane, dashed: false })
            }
            TraceEvent::Statement { .. } => {
                ("statement", Mark::Arrow { from: lane, to: database, dashed: false })
            }
            TraceEvent::Wait { .. } => ("wait", Mark::Arrow { from: lane, to: database, dashed: true }),
            TraceEvent::Log { .. } => ("log", Mark::Dot { lane }),
            TraceEvent::Crash { instance, .. } | TraceEvent::Fault { instance, .. } => {
                self.end(*instance, false);
                self.crashes += 1;
                let kind = if matches!(event, TraceEvent::Crash { .. }) { "crash" } else { "fault" };
                (kind, Mark::Cross { lane })
            }
            TraceEvent::Return { instance, value, .. } => {
                // The lesson's True and False are acked; anything else comes again.
                let acked = matches!(value, 0 | 1);
                self.end(*instance, acked);
                if acked {
                    ("ack", Mark::Arrow { from: lane, to: 0, dashed: false })
                } else {
                    ("no-ack", Mark::Arrow { from: lane, to: 0, dashed: true })
                }
            }
            TraceEvent::RolledBack { .. } => ("rolled-back", Mark::Dot { lane: database }),
            TraceEvent::Queue { .. } => ("queue", Mark::Dot { lane: 0 }),
        }
    }
}

/// The description a screen reader reads for a consumer diagram.
fn consumer_description(
    lang: Lang,
    spans: &BTreeMap<u32, (usize, usize)>,
    rows: usize,
    deliveries: &Deliveries,
) -> String {
    let instances = match (spans.keys().next(), spans.keys().next_back()) {
        (Some(a), Some(b)) if a != b => format!("#{a}–#{b}"),
        (Some(a), _) => format!("#{a}"),
        _ => "–".to_string(),
    };
    let (crashes, redeliveries) = (deliveries.crashes, deliveries.redeliveries);
    match lang {
        Lang::De => format!(
            "Sequenzdiagramm: Queue, Instanzen {instances} und Datenbank; {} gezeichnet, {}, {}. \
             Die Liste „Ablauf“ enthält jedes Ereignis als Text.",
            counted(rows, "Ereignis", "Ereignisse"),
            counted(crashes, "Absturz", "Abstürze"),
            counted(redeliveries, "erneute Zustellung", "erneute Zustellungen"),
        ),
        Lang::En => format!(
            "Sequence diagram: queue, instances {instances} and database; {} drawn, {}, {}. The list \
             \"Trace\" has every event as text.",
            counted(rows, "event", "events"),
            counted(crashes, "crash", "crashes"),
            counted(redeliveries, "redelivery", "redeliveries"),
        ),
    }
}

/// The header of the dead letter queue's lane.
const DLQ_HEADER: &str = "DLQ";

/// Whether a queue line (the English of `sim::describe`) says a message moved to the dead letter
/// queue.
fn moves_to_dlq(en: &str) -> bool {
    en.contains("moves to the dead letter queue")
}

/// The row of a message that moves from the queue (lane 0) to the dead letter queue's lane.
fn dead_letter_row(dlq: usize) -> (&'static str, Mark) {
    ("dead-letter", Mark::Arrow { from: 0, to: dlq, dashed: false })
}

/// What a simulated timeline line shows, read from its English text (the sentences of
/// `sim::describe`); a line it does not know is a note on the consumers' lane.
fn timeline_mark(en: &str) -> (&'static str, Mark) {
    const QUEUE: usize = 0;
    const CONSUMERS: usize = 1;
    if let Some(at) = en.find("(attempt ") {
        let attempt: String = en[at + "(attempt ".len()..].chars().take_while(char::is_ascii_digit).collect();
        let again = attempt.parse::<u64>().map(|n| n > 1).unwrap_or(false);
        let kind = if again { "redeliver" } else { "deliver" };
        return (kind, Mark::Arrow { from: QUEUE, to: CONSUMERS, dashed: false });
    }
    if en.starts_with("ack for") {
        return ("ack", Mark::Arrow { from: CONSUMERS, to: QUEUE, dashed: false });
    }
    if en.contains("finds no visible message") {
        return ("nothing", Mark::Arrow { from: QUEUE, to: CONSUMERS, dashed: true });
    }
    if en.contains("visible again") {
        return ("visible-again", Mark::Dot { lane: QUEUE });
    }
    if en.contains("dead-letter") {
        return ("dead-letter", Mark::Dot { lane: QUEUE });
    }
    if en.contains(" is sent") || en.starts_with("open()") {
        return ("queue", Mark::Dot { lane: QUEUE });
    }
    ("note", Mark::Dot { lane: CONSUMERS })
}

/// The sequence diagram of a simulated timeline: lane 0 the queue, lane 1 the consumers, one row
/// per line in the order of the ticks (the first [`DIAGRAM_ROWS_MAX`]).
pub fn timeline_layout(detail: &PredictionDetail, lang: Lang) -> Layout {
    let lines = &detail.timeline[..detail.timeline.len().min(DIAGRAM_ROWS_MAX)];
    let omitted = (detail.timeline.len() - lines.len()).saturating_add(detail.timeline_omitted);
    let mut lanes = vec![
        Lane { header: "Queue".to_string(), x: lane_x(0), full: true },
        Lane { header: t(lang, "Konsumenten", "Consumers").to_string(), x: lane_x(1), full: true },
    ];
    // A queue with a receive limit: the dead letter queue gets a lane when a message moved there.
    if lines.iter().any(|line| moves_to_dlq(&line.text.en)) {
        lanes.push(Lane { header: DLQ_HEADER.to_string(), x: lane_x(2), full: true });
    }
    let rows: Vec<Row> = lines
        .iter()
        .map(|line| {
            let (kind, mark) =
                if moves_to_dlq(&line.text.en) { dead_letter_row(2) } else { timeline_mark(&line.text.en) };
            Row { kind, instance: None, mark, label: clip_label(&line.render(lang)) }
        })
        .collect();
    let redeliveries = rows.iter().filter(|r| r.kind == "redeliver").count();
    let ticks = match (lines.first(), lines.last()) {
        (Some(a), Some(b)) => format!("t={}–{}", a.tick, b.tick),
        _ => "–".to_string(),
    };
    let description = match lang {
        Lang::De => format!(
            "Sequenzdiagramm der Simulation ({ticks}): Queue und Konsumenten; {} gezeichnet, {}. Die \
             Liste „Zeitachse der Simulation“ enthält jede Zeile als Text.",
            counted(rows.len(), "Zeile", "Zeilen"),
            counted(redeliveries, "erneute Zustellung", "erneute Zustellungen"),
        ),
        Lang::En => format!(
            "Sequence diagram of the simulation ({ticks}): queue and consumers; {} drawn, {}. The \
             list \"Simulated timeline\" has every line as text.",
            counted(rows.len(), "line", "lines"),
            counted(redeliveries, "redelivery", "redeliveries"),
        ),
    };
    Layout {
        title: t(lang, "Zeitachse als Sequenzdiagramm", "Timeline as a sequence diagram").to_string(),
        description,
        lanes,
        instances_header: None,
        lifelines: Vec::new(),
        rows,
        omitted,
        omitted_label: t(lang, "weitere Zeilen", "more lines"),
    }
}

/// The diagram of a consumer check's trace (nothing when the trace is empty).
#[cfg(test)]
pub(crate) fn consumer_diagram(detail: &ConsumerDetail, lang: Lang, id: &str) -> Markup {
    consumer_diagram_in(detail, lang, crate::report::voice::Voice::Module, id)
}

/// [`consumer_diagram`] with the labels in `voice`'s words.
pub(crate) fn consumer_diagram_in(
    detail: &ConsumerDetail,
    lang: Lang,
    voice: crate::report::voice::Voice,
    id: &str,
) -> Markup {
    if detail.trace.is_empty() {
        return html! {};
    }
    render(&consumer_layout_in(detail, lang, voice), id)
}

/// The diagram of a wrong prediction's simulated timeline (nothing when there is no timeline).
pub(crate) fn timeline_diagram(detail: &PredictionDetail, lang: Lang, id: &str) -> Markup {
    if detail.timeline.is_empty() {
        return html! {};
    }
    render(&timeline_layout(detail, lang), id)
}

mod svg;
pub use svg::render;

#[cfg(test)]
mod tests;
