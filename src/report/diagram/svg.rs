//! A [`Layout`] drawn as inline SVG, the way sequence diagrams are drawn: the lanes side by side on
//! the left (their headers as a staircase above them, each lifeline beginning below its own
//! header), each row's message an arrow between two lanes, a note a dot on its lane, a crash a
//! cross on its instance's lifeline, and each row's text beside the lanes, right of the last
//! lifeline, wrapped onto lines of [`LABEL_LINE_CHARS`] characters. No text crosses a lifeline or
//! another text. The drawing is [`WIDTH`] units wide and scales to the width of the page; its text
//! is [`FONT_SIZE`] units, at least 11 px on a phone 360 px wide.

use maud::{Markup, html};

use super::{LANE_GAP, LEFT_LANE_X, Lane, Layout, Mark, lane_x};
use crate::limits::DIAGRAM_INSTANCE_LANES_MAX;

/// Width of the drawing in SVG units; it scales to the width of the page.
const WIDTH: i32 = 390;
/// Font size in SVG units. On a phone 360 px wide the drawing is about 311 px wide (inside a
/// check's box), so its text is about 11.2 px; on a wider screen it grows with the drawing.
const FONT_SIZE: i32 = 14;
// At 360 px (the page's margins, a check's padding and the borders leave 311 px), the text is at
// least 11 px.
const _: () = assert!(311 * FONT_SIZE >= 11 * WIDTH);
/// Characters of a row's text on one line; a longer text goes on to the next line.
const LABEL_LINE_CHARS: usize = 28;
/// Space between the last lane and the rows' text.
const LABEL_GAP: i32 = 12;
// The text of the widest diagram (every instance lane in use) ends inside the drawing: a
// character of a monospace font is at most 0.61 em wide.
const _: () = assert!(
    LEFT_MOST_LABEL_X + (LABEL_LINE_CHARS as i32) * FONT_SIZE * 61 / 100 <= WIDTH - 4,
    "a line of text sticks out of the drawing"
);
const LEFT_MOST_LABEL_X: i32 = LEFT_LANE_X + LANE_GAP * (DIAGRAM_INSTANCE_LANES_MAX as i32 + 1) + LABEL_GAP;
/// The baseline of the first header, and the step from one header to the next.
const HEADER_BASELINE: i32 = 16;
const HEADER_STEP: i32 = 19;
/// A lifeline begins this far below its header's baseline (clear of its descenders).
const LIFELINE_BELOW_HEADER: i32 = 7;
/// One line of a row's text, and the space a row adds around its lines.
const LINE_HEIGHT: i32 = 17;
const ROW_PADDING: i32 = 6;
/// A row's first baseline below the row's top, and its mark (arrow, cross, dot) below the top.
const FIRST_BASELINE: i32 = 15;
const MARK_OFFSET: i32 = 10;
const INK: &str = "#1b1e23";
const ALARM: &str = "#a1181b";

/// `text` on lines of at most [`LABEL_LINE_CHARS`] characters, broken between words where it can
/// be (a word longer than a line is cut).
pub(super) fn wrap(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut count = 0usize;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        if count > 0 && count + 1 + word.len() > LABEL_LINE_CHARS {
            lines.push(std::mem::take(&mut line));
            count = 0;
        }
        while word.len() > LABEL_LINE_CHARS - count - usize::from(count > 0) {
            let room = LABEL_LINE_CHARS - count - usize::from(count > 0);
            if count > 0 {
                line.push(' ');
            }
            line.extend(word.drain(..room));
            lines.push(std::mem::take(&mut line));
            count = 0;
        }
        if count > 0 {
            line.push(' ');
            count += 1;
        }
        count += word.len();
        line.extend(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The headers as drawn: (x, text) from top to bottom, one step apart. The queue's and the
/// database's lanes have their own; the instance lanes share one ("Instanzen"), over the first.
fn headers(layout: &Layout) -> Vec<(usize, i32, &str)> {
    let mut headers = Vec::new();
    for (i, lane) in layout.lanes.iter().enumerate() {
        if lane.full {
            headers.push((i, lane.x, lane.header.as_str()));
        } else if let Some(header) = layout.instances_header.filter(|_| i > 0 && layout.lanes[i - 1].full) {
            headers.push((i, lane.x, header));
        }
    }
    headers
}

fn header_baseline(k: usize) -> i32 {
    HEADER_BASELINE + HEADER_STEP * i32::try_from(k).unwrap_or(0)
}

/// The text of a row as drawn: the redelivery sign first.
fn row_text(kind: &str, label: &str) -> String {
    if kind == "redeliver" { format!("↻ {label}") } else { label.to_string() }
}

/// Where each row begins, where the "… more" row begins, and where the drawing ends.
fn row_tops(layout: &Layout, first: i32) -> (Vec<i32>, i32, i32) {
    let mut tops = Vec::with_capacity(layout.rows.len());
    let mut y = first;
    for row in &layout.rows {
        tops.push(y);
        let lines = i32::try_from(wrap(&row_text(row.kind, &row.label)).len()).unwrap_or(1);
        y += ROW_PADDING + LINE_HEIGHT * lines;
    }
    let omitted_top = y;
    if layout.omitted > 0 {
        y += ROW_PADDING + LINE_HEIGHT;
    }
    (tops, omitted_top, y + 4)
}

fn arrow(x1: i32, x2: i32, y: i32, dashed: bool, colour: &str) -> Markup {
    let dir = if x2 >= x1 { 1 } else { -1 };
    let tip = x2 - dir * 3;
    let back = tip - dir * 8;
    html! {
        line x1=(x1) y1=(y) x2=(back) y2=(y) stroke=(colour) stroke-width="2"
            stroke-dasharray=[dashed.then_some("5 3")] {}
        polygon points={ (tip) "," (y) " " (back) "," (y - 5) " " (back) "," (y + 5) } fill=(colour) {}
    }
}

/// One row's mark on the lanes.
fn mark(lanes: &[Lane], kind: &str, mark: Mark, y: i32) -> Markup {
    html! {
        @match mark {
            Mark::Arrow { from, to, dashed } => {
                (arrow(lanes[from].x, lanes[to].x, y, dashed, if kind == "redeliver" { ALARM } else { INK }))
            }
            Mark::Cross { lane } => {
                @let x = lanes[lane].x;
                line x1=(x - 7) y1=(y - 7) x2=(x + 7) y2=(y + 7) stroke=(ALARM) stroke-width="4" {}
                line x1=(x - 7) y1=(y + 7) x2=(x + 7) y2=(y - 7) stroke=(ALARM) stroke-width="4" {}
            }
            Mark::Head { .. } => {}
            Mark::Dot { lane } => { circle cx=(lanes[lane].x) cy=(y) r="4" fill=(INK) {} }
        }
    }
}

/// A text of several lines at `x`, the first baseline at `y`.
fn lines(x: i32, y: i32, lines: &[String]) -> Markup {
    html! {
        @for (k, line) in lines.iter().enumerate() {
            tspan x=(x) y=(y + LINE_HEIGHT * i32::try_from(k).unwrap_or(0)) { (line) }
        }
    }
}

/// The layout as an inline SVG (`role="img"`, with a title and a description); `id` makes the
/// title's and description's ids unique on the page.
pub fn render(layout: &Layout, id: &str) -> Markup {
    // An id is one token: anything but letters, digits, '-' and '_' becomes '-'.
    let id: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' }).collect();
    let headers = headers(layout);
    let last_lane = layout.lanes.len().saturating_sub(1);
    let label_x = lane_x(last_lane) + LABEL_GAP;
    let (tops, omitted_top, height) = row_tops(layout, header_baseline(headers.len().saturating_sub(1)) + 12);
    let bottom = height - 4;
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
            @for (k, (lane, x, header)) in headers.iter().enumerate() {
                text class="header" x=(x - 4) y=(header_baseline(k)) font-weight="700" fill=(INK) { (header) }
                @if layout.lanes[*lane].full {
                    line class="lane" x1=(x) y1=(header_baseline(k) + LIFELINE_BELOW_HEADER) x2=(x) y2=(bottom)
                        stroke=(INK) stroke-width="1" stroke-dasharray="3 3" {}
                }
            }
            @for life in &layout.lifelines {
                @let x = layout.lanes[life.lane + 1].x;
                @let top = tops[life.first] + 1;
                @let end = tops[life.last] + MARK_OFFSET;
                g class="lifeline" data-instance=(life.instance) {
                    @if end > top + 18 {
                        line x1=(x) y1=(top + 18) x2=(x) y2=(end) stroke=(INK) stroke-width="2" {}
                    }
                    @let digits = i32::try_from(life.instance.checked_ilog10().unwrap_or(0)).unwrap_or(0) + 2;
                    @let half = 4 + digits * 5;
                    rect x=(x - half) y=(top) width=(2 * half) height="18" rx="3" fill="#ffffff"
                        stroke=(INK) stroke-width="2" {}
                    text class="head" x=(x) y=(top + 14) text-anchor="middle" fill=(INK) { "#" (life.instance) }
                }
            }
            @for (row, top) in layout.rows.iter().zip(&tops) {
                @let crash = matches!(row.mark, Mark::Cross { .. }) || row.kind == "redeliver";
                g class="row" data-kind=(row.kind) data-instance=[row.instance] {
                    (mark(&layout.lanes, row.kind, row.mark, top + MARK_OFFSET))
                    text x=(label_x) y=(top + FIRST_BASELINE) fill=(if crash { ALARM } else { INK }) {
                        (lines(label_x, top + FIRST_BASELINE, &wrap(&row_text(row.kind, &row.label))))
                    }
                }
            }
            @if layout.omitted > 0 {
                text class="omitted" x=(label_x) y=(omitted_top + FIRST_BASELINE) fill=(INK) {
                    "… " (layout.omitted) " " (layout.omitted_label)
                }
            }
        }
    }
}
