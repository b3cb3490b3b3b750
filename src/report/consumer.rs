//! The evidence a consumer check leaves in the report: the trace of deliveries and statements, the
//! state before, after and expected with its diff, the crash points and the fuel used; and how it is
//! rendered for the terminal. Also [`Trace`], which records a check's events within a count and a
//! byte budget while the check runs, and [`clip`], which cuts a text copied from a guest to a named
//! length with a visible mark.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::state::{SqlValue, State, TableDiff};
use crate::limits::{GUEST_TEXT_BYTES_MAX, TRACE_BYTES_RECORDED_MAX, TRACE_EVENTS_RECORDED_MAX};
use crate::text::{Lang, Text};

/// ABI v1 status codes.
pub mod status {
    pub const OK: i32 = 0;
    /// UNIQUE or PRIMARY KEY violated: the lesson's `IntegrityError` on the dedup table.
    pub(crate) const DUPLICATE: i32 = 1;
    /// Another constraint (CHECK, NOT NULL, FOREIGN KEY) violated.
    pub(crate) const CONSTRAINT: i32 = 2;
    /// Any other error (syntax, not allowed, limit).
    pub(crate) const ERROR: i32 = 3;
    /// `query_int` found no row.
    pub(crate) const NO_ROW: i32 = 4;
}

/// Room for the mark of a cut: a text at most this much over `max` is kept whole, so that clipping
/// a clipped text again changes nothing.
const CLIP_MARK_ROOM: usize = 48;

/// `text` cut to `max` bytes (at a character boundary) followed by a visible mark that says how
/// many bytes were left out; `text` itself when it fits (within the room of a mark).
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max + CLIP_MARK_ROOM {
        return text.to_string();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes omitted)", &text[..cut], text.len() - cut)
}

/// Like [`clip`], without copying a text that fits.
pub(crate) fn clip_owned(text: String, max: usize) -> String {
    if text.len() <= max + CLIP_MARK_ROOM { text } else { clip(&text, max) }
}

/// [`clip`] for a bilingual text.
pub(crate) fn clip_text(text: Text, max: usize) -> Text {
    if text.de.len() <= max + CLIP_MARK_ROOM && text.en.len() <= max + CLIP_MARK_ROOM {
        return text;
    }
    let cut = |t: &str, word: &str| {
        if t.len() <= max + CLIP_MARK_ROOM {
            return t.to_string();
        }
        let mut cut = max;
        while !t.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… ({} {word})", &t[..cut], t.len() - cut)
    };
    Text { de: cut(&text.de, "Bytes ausgelassen"), en: cut(&text.en, "bytes omitted") }
}

/// The trace of one check while it runs. Events are recorded until [`TRACE_EVENTS_RECORDED_MAX`]
/// events or [`TRACE_BYTES_RECORDED_MAX`] bytes (as JSON) are reached; later ones are only counted,
/// so a check that makes millions of statements keeps a bounded trace. Every text in an event is
/// clipped to [`GUEST_TEXT_BYTES_MAX`] as it is recorded.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    events: Vec<TraceEvent>,
    bytes: usize,
    omitted: u32,
    full: bool,
}

impl Trace {
    pub(crate) fn push(&mut self, event: TraceEvent) {
        if self.full {
            self.omitted = self.omitted.saturating_add(1);
            return;
        }
        let event = event.clipped(GUEST_TEXT_BYTES_MAX);
        let size = serde_json::to_string(&event).map(|j| j.len()).unwrap_or(GUEST_TEXT_BYTES_MAX);
        if self.events.len() >= TRACE_EVENTS_RECORDED_MAX || self.bytes + size > TRACE_BYTES_RECORDED_MAX {
            self.full = true;
            self.omitted = self.omitted.saturating_add(1);
            return;
        }
        self.bytes += size;
        self.events.push(event);
    }

    pub(crate) fn extend<I: IntoIterator<Item = TraceEvent>>(&mut self, events: I) {
        for event in events {
            self.push(event);
        }
    }

    /// Appends another recorded trace, with the events it left out.
    pub(crate) fn append(&mut self, other: Trace) {
        let omitted = other.omitted;
        self.extend(other.events);
        self.omitted = self.omitted.saturating_add(omitted);
        if omitted > 0 {
            // The other trace lost events: whatever follows here would leave a gap unmarked.
            self.full = true;
        }
    }

    /// The recorded events and the number left out.
    pub(crate) fn into_parts(self) -> (Vec<TraceEvent>, u32) {
        (self.events, self.omitted)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }

    /// Bytes recorded (as JSON).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConsumerDetail {
    pub trace: Vec<TraceEvent>,
    /// The trace was cut to keep the report small; this many events were left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trace_omitted: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateEvidence>,
    /// Fuel the submission used over all deliveries of this check.
    pub fuel_used: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash_points: Option<CrashPoints>,
    /// The at-least-once schedule the trace shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleInfo>,
    /// The exercise's invariant (`[[consumer.invariants]]` name) that a state read during this
    /// check was first found to violate, whether or not that is the failure the check reports
    /// (a check that found something else wrong first reports that).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariant: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The crash points a crash check exercised: one after each write and one after each COMMIT the
/// consumer performs without faults, for the fresh message and for the message whose effect fails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrashPoints {
    /// Crash points that come right after a write.
    pub writes: u32,
    /// Crash points that come right after the statement that committed a transaction.
    #[serde(default)]
    pub commits: u32,
    /// Crash points that come right after a call to an outside service.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub calls: u32,
    /// Crash points tested, in the order they happen (a sample of them beyond
    /// [`crate::limits::CRASH_POINTS_MAX`]).
    pub tested: u32,
    /// The crash points tested are a sample drawn from the submission's seed, not all of them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sampled: bool,
    /// The first crash point whose outcome was wrong (counted like `tested`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<u32>,
    /// Where that crash point lies, in words: after which statement, before which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_where: Option<Text>,
}

impl CrashPoints {
    /// Every crash point found.
    pub(crate) fn total(&self) -> u32 {
        self.writes + self.commits + self.calls
    }
}

/// What a crash point comes right after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// The delivery's `write`-th successful data-changing statement; `autocommit` when it ran outside
    /// a transaction, so SQLite made it durable at once.
    Write { write: u32, autocommit: bool },
    /// The statement that committed the delivery's `transaction`-th transaction (`COMMIT`, `END`,
    /// `RELEASE` of the outermost savepoint).
    Commit { transaction: u32 },
    /// The delivery's `call`-th call to an outside service (`name`, such as `send_mail`);
    /// `in_transaction` when a transaction was open then (its COMMIT still to come).
    Call { call: u32, name: &'static str, in_transaction: bool },
}

impl Boundary {
    /// "nach Schreibzugriff 2" / "nach dem COMMIT der 1. Transaktion".
    pub(crate) fn describe(&self) -> Text {
        match *self {
            Boundary::Write { write, .. } => {
                Text { de: format!("nach Schreibzugriff {write}"), en: format!("after write {write}") }
            }
            Boundary::Commit { transaction } => Text {
                de: format!("nach dem COMMIT der {transaction}. Transaktion"),
                en: format!("after the COMMIT of transaction {transaction}"),
            },
            Boundary::Call { name, in_transaction, .. } => call_boundary(name, in_transaction),
        }
    }
}

/// "nach `send_mail`, vor dem COMMIT": a crash point right after a call to an outside service.
pub(crate) fn call_boundary(name: &str, in_transaction: bool) -> Text {
    if in_transaction {
        Text {
            de: format!("nach `{name}`, vor dem COMMIT"),
            en: format!("after `{name}`, before the COMMIT"),
        }
    } else {
        Text { de: format!("nach `{name}`"), en: format!("after `{name}`") }
    }
}

/// One crash point of a delivery: a moment right after a statement at which the harness may kill
/// the consumer. Crash points are the durable boundaries (after every write and every COMMIT); a
/// crash anywhere else adds nothing (decision record 0045 in `docs/decisions/` says why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashPoint {
    /// Its number in the delivery, from 1, in the order the points happen.
    pub number: u32,
    pub after: Boundary,
    /// The statement it comes right after (shortened).
    pub statement: String,
    /// The statement the consumer ran next, a `BEGIN` skipped (shortened); `None` when it returned
    /// instead.
    pub next: Option<String>,
}

/// The longest SQL text a crash point's description quotes.
const QUOTED_SQL_CHARS: usize = 60;

/// `sql` on one line, cut after [`QUOTED_SQL_CHARS`] characters with " …".
pub(crate) fn quote_sql(sql: &str) -> String {
    let line = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= QUOTED_SQL_CHARS {
        return line;
    }
    let cut: String = line.chars().take(QUOTED_SQL_CHARS).collect();
    let cut = match cut.rfind(' ') {
        Some(space) if space > QUOTED_SQL_CHARS / 2 => cut[..space].to_string(),
        _ => cut,
    };
    format!("{cut} …")
}

impl CrashPoint {
    /// Where the point lies, for a student: "nach dem COMMIT der 1. Transaktion, vor der nächsten
    /// Anweisung `UPDATE punkte …`".
    pub(crate) fn describe(&self) -> Text {
        let after = self.after.describe();
        let (what_de, what_en) = match self.after {
            Boundary::Write { autocommit: true, .. } => (
                format!(" (`{}`, ohne Transaktion: sofort dauerhaft)", self.statement),
                format!(" (`{}`, outside a transaction: durable at once)", self.statement),
            ),
            Boundary::Write { autocommit: false, .. } => (
                format!(" (`{}`, in der offenen Transaktion)", self.statement),
                format!(" (`{}`, inside the open transaction)", self.statement),
            ),
            Boundary::Call { .. } => (String::new(), String::new()),
            Boundary::Commit { .. } => {
                let plain = self.statement.trim_end_matches(';').trim().eq_ignore_ascii_case("COMMIT");
                if plain {
                    (String::new(), String::new())
                } else {
                    (format!(" (`{}`)", self.statement), format!(" (`{}`)", self.statement))
                }
            }
        };
        let (next_de, next_en) = match &self.next {
            Some(next) => (
                format!(", vor der nächsten Anweisung `{next}`"),
                format!(", before the next statement `{next}`"),
            ),
            None => {
                (", bevor der Konsument zurückkehrt".to_string(), ", before the consumer returns".to_string())
            }
        };
        Text { de: format!("{}{what_de}{next_de}", after.de), en: format!("{}{what_en}{next_en}", after.en) }
    }
}

/// The state evidence of a check: what the database looked like, and what it should have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateEvidence {
    pub before: State,
    pub after: State,
    /// What the reference solution leaves.
    pub expected: State,
    /// A second acceptable outcome (after a crash: nothing happened at all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub also_allowed: Option<State>,
    /// The state before the message took effect for the first time, where it is not `before`
    /// (a duplicate: `before` already holds the first delivery's effect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<State>,
    /// `after` compared with `expected`.
    pub diff: Vec<TableDiff>,
}

/// One step of a check, in order. `instance` numbers the consumer instances (processes) of the
/// check: a restart or a crash starts a new one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TraceEvent {
    /// A consumer instance starts (a fresh process: nothing in memory).
    Start { instance: u32 },
    /// The instance is the exercise's relay (its second entry, `[consumer] relay`), run by the
    /// harness before it reads a state: it moves what the outbox holds to the broker.
    Relay { instance: u32 },
    /// The queue delivers a message to an instance.
    Deliver {
        instance: u32,
        message: serde_json::Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<Text>,
    },
    /// A `db.exec` or `db.query_int` call.
    Statement {
        instance: u32,
        /// The line of the student's source that issued it (consumers in an interpreted language
        /// whose guest tells it: JavaScript, TypeScript's JavaScript).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
        call: String,
        sql: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        params: Vec<SqlValue>,
        status: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changes: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row: Option<i64>,
        /// The number of this write in the delivery (crash points are counted by it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        write: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A call to an outside service the exercise declares (`world.send_mail`): what was asked and
    /// what the service answered. It happened outside: a crash does not undo it.
    Outside {
        instance: u32,
        /// The line of the student's source that made the call (interpreted consumers).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
        call: String,
        key: String,
        to: String,
        body: String,
        /// `sent`, `replayed`, `422 key reused`, `409 in flight`, `400 invalid`.
        answer: String,
    },
    /// The statement found the database locked by the other instance's transaction and waits.
    Wait { instance: u32, sql: String },
    /// A line from `env.log`.
    Log { instance: u32, text: String },
    /// The harness killed the instance at a crash point: right after a write or right after the
    /// statement that committed a transaction.
    Crash {
        instance: u32,
        /// The crash point's number in the delivery (writes and commits counted together).
        #[serde(default, skip_serializing_if = "is_zero")]
        point: u32,
        /// The crash came right after this write of the delivery.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_write: Option<u32>,
        /// The crash came right after the COMMIT of this transaction of the delivery.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_commit: Option<u32>,
        /// The crash came right after a call to this outside service (`send_mail`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_call: Option<String>,
        /// That call was made inside a transaction whose COMMIT had not come yet.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        before_commit: bool,
        /// The line of the student's source whose statement was the last before the crash.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
    },
    /// The entry function returned.
    Return {
        instance: u32,
        value: i32,
        /// The line of the student's source that returned (interpreted consumers whose guest
        /// tells it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
    },
    /// The instance died: a trap, a limit, a bad host call.
    Fault { instance: u32, code: String, message: Text },
    /// The harness rolled back a transaction the consumer left open.
    RolledBack { instance: u32, reason: Text },
    /// The queue's side: acked, not acked, ack lost...
    Queue { text: Text },
}

impl TraceEvent {
    /// The event with every text clipped to `max` bytes (see [`clip`]).
    pub fn clipped(self, max: usize) -> TraceEvent {
        let value = |v: SqlValue| match v {
            SqlValue::Text(t) => SqlValue::Text(clip_owned(t, max)),
            SqlValue::Blob { hex } => SqlValue::Blob { hex: clip_owned(hex, max) },
            other => other,
        };
        match self {
            TraceEvent::Deliver { instance, message, note } => {
                TraceEvent::Deliver { instance, message, note: note.map(|n| clip_text(n, max)) }
            }
            TraceEvent::Statement {
                instance,
                line,
                call,
                sql,
                params,
                status,
                changes,
                row,
                write,
                error,
            } => TraceEvent::Statement {
                instance,
                line,
                call: clip_owned(call, max),
                sql: clip_owned(sql, max),
                params: params.into_iter().map(value).collect(),
                status,
                changes,
                row,
                write,
                error: error.map(|e| clip_owned(e, max)),
            },
            TraceEvent::Wait { instance, sql } => TraceEvent::Wait { instance, sql: clip_owned(sql, max) },
            TraceEvent::Log { instance, text } => TraceEvent::Log { instance, text: clip_owned(text, max) },
            TraceEvent::Fault { instance, code, message } => {
                TraceEvent::Fault { instance, code: clip_owned(code, max), message: clip_text(message, max) }
            }
            TraceEvent::RolledBack { instance, reason } => {
                TraceEvent::RolledBack { instance, reason: clip_text(reason, max) }
            }
            TraceEvent::Queue { text } => TraceEvent::Queue { text: clip_text(text, max) },
            TraceEvent::Outside { instance, line, call, key, to, body, answer } => TraceEvent::Outside {
                instance,
                line,
                call,
                key: clip_owned(key, max),
                to: clip_owned(to, max),
                body: clip_owned(body, max),
                answer,
            },
            other @ (TraceEvent::Start { .. }
            | TraceEvent::Relay { .. }
            | TraceEvent::Crash { .. }
            | TraceEvent::Return { .. }) => other,
        }
    }
}

/// "Absturzpunkte: 4/4 (3 nach Schreibzugriffen, 1 nach COMMIT), falsch an Absturzpunkt 2: …".
pub(crate) fn crash_points_line(points: &CrashPoints, lang: Lang) -> String {
    let de = lang == Lang::De;
    let mut line = if de {
        format!(
            "Absturzpunkte: {}/{} ({} nach Schreibzugriffen, {} nach COMMIT)",
            points.tested,
            points.total(),
            points.writes,
            points.commits
        )
    } else {
        format!(
            "Crash points: {}/{} ({} after writes, {} after COMMIT)",
            points.tested,
            points.total(),
            points.writes,
            points.commits
        )
    };
    if points.calls > 0 {
        // Inside the parentheses: "(3 nach Schreibzugriffen, 1 nach COMMIT, 1 nach Aufrufen …)".
        line.pop();
        let calls = points.calls;
        let _ = if de {
            write!(line, ", {calls} nach Aufrufen externer Dienste)")
        } else {
            write!(line, ", {calls} after calls to outside services)")
        };
    }
    if points.sampled {
        line.push_str(if de { ", Stichprobe aus dem Seed" } else { ", sampled from the seed" });
    }
    if let Some(k) = points.failed_at {
        let place = points.failed_where.as_ref().map(|w| format!(": {}", w.get(lang))).unwrap_or_default();
        let _ = if de {
            write!(line, ", falsch an Absturzpunkt {k}{place}")
        } else {
            write!(line, ", wrong at crash point {k}{place}")
        };
    }
    line
}

pub(crate) fn row_text(row: &[SqlValue]) -> String {
    format!("({})", row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
}

/// The schedule a check reports, for machines (the trace has it in words).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleInfo {
    /// The seed the schedule was drawn from (hex).
    pub seed: String,
    /// Size (sends plus faults) of the schedule as drawn.
    pub original_size: usize,
    /// Size of the reported schedule (smaller if it was shrunk).
    pub size: usize,
    pub description: Text,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_texts_and_marks_the_cut_of_long_ones() {
        let long = "a".repeat(100);
        assert_eq!(clip(&long, 100), long);
        assert_eq!(clip(&long, 52), long, "within the room of a mark");
        assert_eq!(clip(&long, 3), "aaa… (97 bytes omitted)");
        assert_eq!(clip(&clip(&long, 3), 3), clip(&long, 3), "clipping twice changes nothing");
        // Never inside a character: "ü" is two bytes.
        let umlauts = format!("a{}", "ü".repeat(50));
        assert_eq!(clip(&umlauts, 2), "a… (100 bytes omitted)");
        let text = clip_text(Text { de: "x".repeat(60), en: "y".repeat(60) }, 4);
        assert_eq!(text.de, "xxxx… (56 Bytes ausgelassen)");
        assert_eq!(text.en, "yyyy… (56 bytes omitted)");
    }

    #[test]
    fn a_trace_is_bounded_in_events_and_bytes_while_it_is_recorded() {
        let mut trace = Trace::default();
        for _ in 0..100_000 {
            trace.push(TraceEvent::Log { instance: 1, text: String::new() });
        }
        assert_eq!(trace.len(), TRACE_EVENTS_RECORDED_MAX);
        let (events, omitted) = trace.into_parts();
        assert_eq!(events.len() + omitted as usize, 100_000, "every event is kept or counted");

        let mut trace = Trace::default();
        for _ in 0..10_000 {
            trace.push(TraceEvent::Log { instance: 1, text: "z".repeat(100_000) });
        }
        assert!(trace.bytes() <= TRACE_BYTES_RECORDED_MAX, "{}", trace.bytes());
        let (events, omitted) = trace.into_parts();
        assert!(!events.is_empty() && omitted > 0);
        let TraceEvent::Log { text, .. } = &events[0] else { panic!() };
        assert!(text.len() < GUEST_TEXT_BYTES_MAX + 40, "clipped as recorded: {}", text.len());
    }

    #[test]
    fn after_a_cut_nothing_more_is_recorded_so_the_kept_part_is_a_prefix() {
        let mut trace = Trace::default();
        trace.push(TraceEvent::Start { instance: 1 });
        let mut inner = Trace::default();
        for _ in 0..TRACE_EVENTS_RECORDED_MAX + 5 {
            inner.push(TraceEvent::Start { instance: 2 });
        }
        trace.append(inner);
        trace.push(TraceEvent::Start { instance: 3 });
        let (events, omitted) = trace.into_parts();
        assert!(events.iter().all(|e| !matches!(e, TraceEvent::Start { instance: 3 })));
        assert_eq!(events.len() + omitted as usize, TRACE_EVENTS_RECORDED_MAX + 7);
    }
}
