//! The evidence a consumer check leaves in the report: the trace of deliveries and statements, the
//! state before, after and expected with its diff, the crash points and the fuel used; and how it is
//! rendered for the terminal.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::guestdb::status;
use super::state::{SqlValue, State, TableDiff};
use crate::text::{Lang, Text};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub schedule: Option<super::schedule::ScheduleInfo>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The crash points a crash check exercised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrashPoints {
    /// Writes the consumer performs when it processes the message without faults.
    pub writes: u32,
    /// Crash points tested (one after each write; a sample of them beyond
    /// [`crate::limits::CRASH_POINTS_MAX`]).
    pub tested: u32,
    /// The crash points tested are a sample drawn from the submission's seed, not all of them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sampled: bool,
    /// The first crash point whose outcome was wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<u32>,
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
    /// The statement found the database locked by the other instance's transaction and waits.
    Wait { instance: u32, sql: String },
    /// A line from `env.log`.
    Log { instance: u32, text: String },
    /// The harness killed the instance right after a write.
    Crash { instance: u32, after_write: u32 },
    /// The entry function returned.
    Return { instance: u32, value: i32 },
    /// The instance died: a trap, a limit, a bad host call.
    Fault { instance: u32, code: String, message: Text },
    /// The harness rolled back a transaction the consumer left open.
    RolledBack { instance: u32, reason: Text },
    /// The queue's side: acked, not acked, ack lost...
    Queue { text: Text },
}

impl TraceEvent {
    /// One line for the terminal (and the HTML report).
    pub fn render(&self, lang: Lang) -> String {
        let de = lang == Lang::De;
        match self {
            TraceEvent::Start { instance } => {
                if de {
                    format!("#{instance} startet (neuer Prozess, leerer Speicher)")
                } else {
                    format!("#{instance} starts (new process, empty memory)")
                }
            }
            TraceEvent::Deliver { instance, message, note } => {
                let note = note.as_ref().map(|n| format!(" ({})", n.get(lang))).unwrap_or_default();
                if de {
                    format!("#{instance} erhält {message}{note}")
                } else {
                    format!("#{instance} receives {message}{note}")
                }
            }
            TraceEvent::Statement {
                instance,
                call,
                sql,
                params,
                status: code,
                changes,
                row,
                write,
                error,
            } => {
                let mut line = format!("#{instance} {call} {sql}");
                if !params.is_empty() {
                    let p: Vec<String> = params.iter().map(|v| v.to_string()).collect();
                    let _ = write!(line, "  [{}]", p.join(", "));
                }
                let _ = write!(line, " → {code} {}", status::name(*code));
                if let Some(row) = row {
                    let _ = write!(line, " = {row}");
                }
                if let Some(changes) = changes {
                    let _ = write!(line, ", {changes} {}", if de { "Zeile(n)" } else { "row(s)" });
                }
                if let Some(write) = write {
                    let _ = write!(line, ", {} {write}", if de { "Schreibzugriff" } else { "write" });
                }
                if let Some(error) = error {
                    let _ = write!(line, ": {error}");
                }
                line
            }
            TraceEvent::Log { instance, text } => format!("#{instance} log: {text}"),
            TraceEvent::Wait { instance, sql } => {
                if de {
                    format!("#{instance} wartet auf die Sperre der Datenbank: {sql}")
                } else {
                    format!("#{instance} waits for the database lock: {sql}")
                }
            }
            TraceEvent::Crash { instance, after_write } => {
                if de {
                    format!("#{instance} ABSTURZ nach Schreibzugriff {after_write} (Prozess beendet)")
                } else {
                    format!("#{instance} CRASH after write {after_write} (process killed)")
                }
            }
            TraceEvent::Return { instance, value } => {
                let meaning = match (*value, de) {
                    (1, true) => "verarbeitet",
                    (1, false) => "processed",
                    (0, true) => "Duplikat",
                    (0, false) => "duplicate",
                    (_, true) => "Fehler: nicht bestätigt",
                    (_, false) => "error: not acked",
                };
                if de {
                    format!("#{instance} gibt {value} zurück ({meaning})")
                } else {
                    format!("#{instance} returns {value} ({meaning})")
                }
            }
            TraceEvent::Fault { instance, code, message } => {
                format!("#{instance} ✗ [{code}] {}", message.get(lang))
            }
            TraceEvent::RolledBack { instance, reason } => {
                format!("#{instance} ROLLBACK: {}", reason.get(lang))
            }
            TraceEvent::Queue { text } => format!("queue: {}", text.get(lang)),
        }
    }
}

fn render_state(state: &State, out: &mut String, indent: &str) {
    for (table, rows) in state {
        let cells: Vec<String> = rows
            .iter()
            .map(|row| format!("({})", row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")))
            .collect();
        let _ =
            writeln!(out, "{indent}{table}: {}", if cells.is_empty() { "-".into() } else { cells.join(" ") });
    }
}

/// Appends the evidence of a failed check to `out`.
pub fn render_detail_text(detail: &ConsumerDetail, lang: Lang, out: &mut String) {
    let de = lang == Lang::De;
    let _ = writeln!(out, "  {}:", if de { "Ablauf" } else { "Trace" });
    for event in &detail.trace {
        let _ = writeln!(out, "    {}", event.render(lang));
    }
    if detail.trace_omitted > 0 {
        let _ = writeln!(
            out,
            "    … {} {}",
            detail.trace_omitted,
            if de { "weitere Ereignisse ausgelassen" } else { "more events left out" }
        );
    }
    if let Some(points) = &detail.crash_points {
        let _ = writeln!(
            out,
            "  {}: {}/{}{}{}",
            if de { "Absturzpunkte" } else { "Crash points" },
            points.tested,
            points.writes,
            match (points.sampled, de) {
                (false, _) => "",
                (true, true) => " (Stichprobe aus dem Seed)",
                (true, false) => " (sampled from the seed)",
            },
            points
                .failed_at
                .map(|k| if de {
                    format!(", falsch nach Schreibzugriff {k}")
                } else {
                    format!(", wrong after write {k}")
                })
                .unwrap_or_default()
        );
    }
    if let Some(state) = &detail.state {
        let _ = writeln!(out, "  {}:", if de { "Zustand vorher" } else { "State before" });
        render_state(&state.before, out, "    ");
        let _ = writeln!(out, "  {}:", if de { "Zustand nachher" } else { "State after" });
        render_state(&state.after, out, "    ");
        let _ = writeln!(
            out,
            "  {}:",
            if de { "Erwartet (Referenzlösung)" } else { "Expected (reference solution)" }
        );
        render_state(&state.expected, out, "    ");
        if let Some(allowed) = &state.also_allowed {
            let _ =
                writeln!(out, "  {}:", if de { "oder (nichts passiert)" } else { "or (nothing happened)" });
            render_state(allowed, out, "    ");
        }
        for table in &state.diff {
            for row in &table.missing {
                let _ = writeln!(out, "  - {}: {}", table.table, row_text(row));
            }
            for row in &table.unexpected {
                let _ = writeln!(out, "  + {}: {}", table.table, row_text(row));
            }
        }
    }
    let _ = writeln!(
        out,
        "  {}: {}",
        if de { "Verbrauchter Treibstoff (fuel)" } else { "Fuel used" },
        detail.fuel_used
    );
}

fn row_text(row: &[SqlValue]) -> String {
    format!("({})", row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
}
