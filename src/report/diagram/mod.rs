//! Timelines as sequence diagrams: the trace of a failing consumer check (lifelines for the queue,
//! the consumer instances #1, #2, … and the database; deliveries, statements, crashes,
//! redeliveries and acks as arrows and marks) and the simulated timeline of a wrong prediction
//! (the queue and the consumers, row by row in the order of the ticks), drawn as inline SVG on the
//! server.
//!
//! The layout ([`consumer_layout`], [`timeline_layout`]) is data, tested on its own; [`render`]
//! turns it into SVG. The picture is bounded whatever the trace: at most
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

/// Width of the drawing in SVG units; it scales to the width of the page.
const WIDTH: i32 = 400;
/// Height of the lane headers.
const HEADER_HEIGHT: i32 = 30;
/// Height of one row: its mark, then its label below.
const ROW_HEIGHT: i32 = 38;
/// Where a row's mark (arrow, cross, dot) sits below the row's top.
const MARK_OFFSET: i32 = 12;
/// Where a row's label sits (baseline) below the row's top.
const LABEL_OFFSET: i32 = 31;
/// Font size in SVG units: on a phone 390 px wide the drawing is about 345 px wide, so its text is
/// about 12 px (at least 11 px down to a drawing 315 px wide). A label of
/// [`DIAGRAM_LABEL_CHARS_MAX`] characters (0.6 em each in a monospace font) fits the width.
const FONT_SIZE: i32 = 14;
// A label of the longest kind, starting at x = 4, ends inside the drawing.
const _: () = assert!(4 + DIAGRAM_LABEL_CHARS_MAX as i32 * FONT_SIZE * 6 / 10 <= WIDTH);
/// The outer lanes (queue left, database or consumers right).
const LEFT_LANE_X: i32 = 30;
const RIGHT_LANE_X: i32 = WIDTH - 30;
const INK: &str = "#1b1e23";
const ALARM: &str = "#a1181b";

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
pub fn clip_label(text: &str) -> String {
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

/// The instance an event belongs to.
fn instance_of(event: &TraceEvent) -> Option<u32> {
    match event {
        TraceEvent::Start { instance }
        | TraceEvent::Deliver { instance, .. }
        | TraceEvent::Statement { instance, .. }
        | TraceEvent::Wait { instance, .. }
        | TraceEvent::Log { instance, .. }
        | TraceEvent::Crash { instance, .. }
        | TraceEvent::Return { instance, .. }
        | TraceEvent::Fault { instance, .. }
        | TraceEvent::RolledBack { instance, .. } => Some(*instance),
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

/// The x of instance lane `j` of `n`, evenly between the outer lanes.
fn instance_x(j: usize, n: usize) -> i32 {
    let span = RIGHT_LANE_X - LEFT_LANE_X;
    // n and j are at most DIAGRAM_INSTANCE_LANES_MAX: the conversions cannot fail.
    let (j, n) = (i32::try_from(j).unwrap_or(0), i32::try_from(n).unwrap_or(1));
    LEFT_LANE_X + span * (j + 1) / (n + 1)
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
pub fn consumer_layout_in(detail: &ConsumerDetail, lang: Lang, voice: crate::report::voice::Voice) -> Layout {
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

    let mut lanes = vec![Lane { header: "Queue".to_string(), x: LEFT_LANE_X, full: true }];
    lanes.extend((0..lanes_used).map(|j| Lane {
        header: String::new(),
        x: instance_x(j, lanes_used),
        full: false,
    }));
    lanes.push(Lane { header: t(lang, "Datenbank", "Database").to_string(), x: RIGHT_LANE_X, full: true });

    // Per message (its JSON): whether its last delivery ended without an ack (a crash, a fault, a
    // return the queue does not ack), so that the next delivery of it is a redelivery.
    let mut unacked: BTreeMap<String, bool> = BTreeMap::new();
    // Per instance: the message it is working on.
    let mut working: BTreeMap<u32, String> = BTreeMap::new();
    let (mut crashes, mut redeliveries) = (0, 0);
    let mut rows = Vec::with_capacity(events.len());
    for event in events {
        let instance = instance_of(event);
        let lane = instance.and_then(|i| lane_of.get(&i).copied()).unwrap_or(1);
        let mut end_delivery = |instance: u32, acked: bool| {
            if let Some(message) = working.remove(&instance) {
                unacked.insert(message, !acked);
            }
        };
        let (kind, mark) = match event {
            TraceEvent::Start { .. } => ("start", Mark::Head { lane }),
            TraceEvent::Deliver { instance, message, .. } => {
                let key = message.to_string();
                let again = unacked.get(&key).copied().unwrap_or(false);
                unacked.insert(key.clone(), false);
                working.insert(*instance, key);
                if again {
                    redeliveries += 1;
                }
                (
                    if again { "redeliver" } else { "deliver" },
                    Mark::Arrow { from: 0, to: lane, dashed: false },
                )
            }
            TraceEvent::Statement { .. } => {
                ("statement", Mark::Arrow { from: lane, to: database, dashed: false })
            }
            TraceEvent::Wait { .. } => ("wait", Mark::Arrow { from: lane, to: database, dashed: true }),
            TraceEvent::Log { .. } => ("log", Mark::Dot { lane }),
            TraceEvent::Crash { instance, .. } => {
                end_delivery(*instance, false);
                crashes += 1;
                ("crash", Mark::Cross { lane })
            }
            TraceEvent::Fault { instance, .. } => {
                end_delivery(*instance, false);
                crashes += 1;
                ("fault", Mark::Cross { lane })
            }
            TraceEvent::Return { instance, value, .. } => {
                // The lesson's True and False are acked; anything else comes again.
                let acked = matches!(value, 0 | 1);
                end_delivery(*instance, acked);
                if acked {
                    ("ack", Mark::Arrow { from: lane, to: 0, dashed: false })
                } else {
                    ("no-ack", Mark::Arrow { from: lane, to: 0, dashed: true })
                }
            }
            TraceEvent::RolledBack { .. } => ("rolled-back", Mark::Dot { lane: database }),
            TraceEvent::Queue { .. } => ("queue", Mark::Dot { lane: 0 }),
        };
        rows.push(Row { kind, instance, mark, label: clip_label(&voiced_label(event, lang, voice)) });
    }

    let instances = match (spans.keys().next(), spans.keys().next_back()) {
        (Some(a), Some(b)) if a != b => format!("#{a}–#{b}"),
        (Some(a), _) => format!("#{a}"),
        _ => "–".to_string(),
    };
    let description = match lang {
        Lang::De => format!(
            "Sequenzdiagramm: Queue, Instanzen {instances} und Datenbank; {} gezeichnet, {}, {}. \
             Die Liste „Ablauf“ enthält jedes Ereignis als Text.",
            counted(rows.len(), "Ereignis", "Ereignisse"),
            counted(crashes, "Absturz", "Abstürze"),
            counted(redeliveries, "erneute Zustellung", "erneute Zustellungen"),
        ),
        Lang::En => format!(
            "Sequence diagram: queue, instances {instances} and database; {} drawn, {}, {}. The list \
             \"Trace\" has every event as text.",
            counted(rows.len(), "event", "events"),
            counted(crashes, "crash", "crashes"),
            counted(redeliveries, "redelivery", "redeliveries"),
        ),
    };
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
    let rows: Vec<Row> = lines
        .iter()
        .map(|line| {
            let (kind, mark) = timeline_mark(&line.text.en);
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
        lanes: vec![
            Lane { header: "Queue".to_string(), x: LEFT_LANE_X, full: true },
            Lane { header: t(lang, "Konsumenten", "Consumers").to_string(), x: RIGHT_LANE_X, full: true },
        ],
        instances_header: None,
        lifelines: Vec::new(),
        rows,
        omitted,
        omitted_label: t(lang, "weitere Zeilen", "more lines"),
    }
}

/// Row index as an SVG coordinate (bounded by [`DIAGRAM_ROWS_MAX`]).
fn row_top(row: usize) -> i32 {
    HEADER_HEIGHT + i32::try_from(row).unwrap_or(0) * ROW_HEIGHT
}

/// A header's anchor: the left lane's header starts at the edge, the right one ends there.
fn header_anchor(lane: &Lane) -> (i32, &'static str) {
    if lane.x == LEFT_LANE_X {
        (4, "start")
    } else if lane.x == RIGHT_LANE_X {
        (WIDTH - 4, "end")
    } else {
        (lane.x, "middle")
    }
}

fn arrow(x1: i32, x2: i32, y: i32, dashed: bool, colour: &str) -> Markup {
    let dir = if x2 >= x1 { 1 } else { -1 };
    let tip = x2 - dir * 3;
    let back = tip - dir * 9;
    html! {
        line x1=(x1) y1=(y) x2=(back) y2=(y) stroke=(colour) stroke-width="2"
            stroke-dasharray=[dashed.then_some("6 4")] {}
        polygon points={ (tip) "," (y) " " (back) "," (y - 5) " " (back) "," (y + 5) } fill=(colour) {}
    }
}

/// The layout as an inline SVG (`role="img"`, with a title and a description); `id` makes the
/// title's and description's ids unique on the page.
pub fn render(layout: &Layout, id: &str) -> Markup {
    // An id is one token: anything but letters, digits, '-' and '_' becomes '-'.
    let id: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' }).collect();
    let extra = usize::from(layout.omitted > 0);
    let height = row_top(layout.rows.len() + extra) + 8;
    let bottom = height - 6;
    let title_id = format!("{id}-title");
    let desc_id = format!("{id}-desc");
    html! {
        svg class="sequence" id=(id) xmlns="http://www.w3.org/2000/svg" role="img"
            aria-labelledby={ (title_id) " " (desc_id) } viewBox={ "0 0 " (WIDTH) " " (height) }
            width=(WIDTH) height=(height) font-family="ui-monospace, Menlo, Consolas, monospace"
            font-size=(FONT_SIZE) data-rows=(layout.rows.len()) data-omitted=(layout.omitted) {
            title id=(title_id) { (layout.title) }
            desc id=(desc_id) { (layout.description) }
            rect x="0" y="0" width=(WIDTH) height=(height) fill="#ffffff" {}
            @for lane in &layout.lanes {
                @if lane.full {
                    @let (x, anchor) = header_anchor(lane);
                    text x=(x) y="18" text-anchor=(anchor) font-weight="700" fill=(INK) { (lane.header) }
                    line x1=(lane.x) y1="24" x2=(lane.x) y2=(bottom) stroke=(INK) stroke-width="1"
                        stroke-dasharray="3 3" {}
                }
            }
            @if let Some(header) = layout.instances_header {
                text x=(WIDTH / 2) y="18" text-anchor="middle" font-weight="700" fill=(INK) { (header) }
            }
            @for life in &layout.lifelines {
                @let x = layout.lanes[life.lane + 1].x;
                @let top = row_top(life.first) + MARK_OFFSET;
                @let end = row_top(life.last) + MARK_OFFSET;
                g class="lifeline" data-instance=(life.instance) {
                    @if end > top {
                        line x1=(x) y1=(top) x2=(x) y2=(end) stroke=(INK) stroke-width="2" {}
                    }
                    // Wide enough for "#" and the number's digits (9 units each), at least 40.
                    @let half = (8 + 5 * (life.instance.checked_ilog10().unwrap_or(0) as i32 + 2)).max(20);
                    rect x=(x - half) y=(top - 10) width=(2 * half) height="20" rx="3" fill="#ffffff"
                        stroke=(INK) stroke-width="2" {}
                    text x=(x) y=(top + 5) text-anchor="middle" fill=(INK) { "#" (life.instance) }
                }
            }
            @for (i, row) in layout.rows.iter().enumerate() {
                @let top = row_top(i);
                @let y = top + MARK_OFFSET;
                g class="row" data-kind=(row.kind) data-instance=[row.instance] {
                    @match row.mark {
                        Mark::Arrow { from, to, dashed } => {
                            @let colour = if row.kind == "redeliver" { ALARM } else { INK };
                            (arrow(layout.lanes[from].x, layout.lanes[to].x, y, dashed, colour))
                            @if row.kind == "redeliver" {
                                text x=((layout.lanes[from].x + layout.lanes[to].x) / 2) y=(y - 3)
                                    text-anchor="middle" fill=(ALARM) font-weight="700" { "↻" }
                            }
                        }
                        Mark::Cross { lane } => {
                            @let x = layout.lanes[lane].x;
                            line x1=(x - 8) y1=(y - 8) x2=(x + 8) y2=(y + 8) stroke=(ALARM) stroke-width="4" {}
                            line x1=(x - 8) y1=(y + 8) x2=(x + 8) y2=(y - 8) stroke=(ALARM) stroke-width="4" {}
                        }
                        Mark::Head { .. } => {}
                        Mark::Dot { lane } => {
                            circle cx=(layout.lanes[lane].x) cy=(y) r="4" fill=(INK) {}
                        }
                    }
                    text x="4" y=(top + LABEL_OFFSET) fill=(if matches!(row.mark, Mark::Cross { .. }) { ALARM } else { INK })
                        stroke="#ffffff" stroke-width="4" paint-order="stroke" { (row.label) }
                }
            }
            @if layout.omitted > 0 {
                text class="omitted" x="4" y=(row_top(layout.rows.len()) + LABEL_OFFSET - 10) fill=(INK) {
                    "… " (layout.omitted) " " (layout.omitted_label)
                }
            }
        }
    }
}

/// The diagram of a consumer check's trace (nothing when the trace is empty).
pub fn consumer_diagram(detail: &ConsumerDetail, lang: Lang, id: &str) -> Markup {
    consumer_diagram_in(detail, lang, crate::report::voice::Voice::Module, id)
}

/// [`consumer_diagram`] with the labels in `voice`'s words.
pub fn consumer_diagram_in(
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
pub fn timeline_diagram(detail: &PredictionDetail, lang: Lang, id: &str) -> Markup {
    if detail.timeline.is_empty() {
        return html! {};
    }
    render(&timeline_layout(detail, lang), id)
}

#[cfg(test)]
mod tests;
