//! A consumer trace as lines a student reads, in the words of the language they wrote in: a Python
//! consumer's statements are `con.execute("…", (7,))` with sqlite3's implicit `BEGIN` explained
//! once and `con.commit()` or the end of `with con:` for its COMMIT, its returns `True`/`False`
//! and its errors `IntegrityError`; a JavaScript consumer's are `db.prepare("…").run(7)` and
//! `throw`; a compiled module's are ABI v1's calls and status codes.

use std::fmt::Write;

use super::consumer::{
    Boundary, ConsumerDetail, StateEvidence, TraceEvent, call_boundary, crash_points_line, row_text, status,
};
use super::state::State;
use super::voice::Voice;
use crate::text::Lang;

/// What a trace's lines need beyond each event: the voice, the student's source (to tell an
/// explicit `BEGIN` or `con.commit()` from the ones sqlite3 and `with con:` issue), and whether the
/// implicit `BEGIN` was explained already.
struct Speaker<'a> {
    lang: Lang,
    voice: Voice,
    source: Option<&'a str>,
    begin_explained: bool,
    /// Inside a Python traceback or a JavaScript stack in the log.
    raising: Option<Raising>,
    /// The instance that logged it.
    raising_instance: u32,
}

/// An uncaught error being read from the log: the line of the student's file it came from, and
/// the error.
struct Raising {
    line: Option<u32>,
    error: Option<String>,
}

impl Speaker<'_> {
    fn de(&self) -> bool {
        self.lang == Lang::De
    }

    fn pick<'s>(&self, de: &'s str, en: &'s str) -> &'s str {
        if self.de() { de } else { en }
    }

    /// The text of line `n` of the source, if there is one.
    fn source_line(&self, n: Option<u32>) -> Option<&str> {
        let n = n? as usize;
        self.source?.lines().nth(n.checked_sub(1)?)
    }

    fn enclosing_with(&self, n: Option<u32>) -> Option<usize> {
        enclosing_with(self.source?, n?).map(|w| w as usize)
    }

    /// A transaction control statement as a Python student wrote (or did not write) it.
    fn python_control(&mut self, sql: &str, line: Option<u32>) -> String {
        let keyword = sql.split_whitespace().next().unwrap_or_default().to_ascii_uppercase();
        let written = self.source_line(line).map(str::to_ascii_lowercase).unwrap_or_default();
        match keyword.trim_end_matches(';') {
            "BEGIN" if !written.contains("begin") => {
                if self.begin_explained {
                    self.pick("BEGIN (implizit)", "BEGIN (implicit)").to_string()
                } else {
                    self.begin_explained = true;
                    self.pick(
                        "BEGIN (implizit: sqlite3 öffnet vor dem ersten Schreibzugriff selbst eine Transaktion)",
                        "BEGIN (implicit: sqlite3 opens a transaction by itself before the first write)",
                    )
                    .to_string()
                }
            }
            "COMMIT" if written.contains("commit(") => "con.commit()".to_string(),
            "ROLLBACK" if written.contains("rollback(") => "con.rollback()".to_string(),
            word @ ("COMMIT" | "ROLLBACK") => match self.enclosing_with(line) {
                Some(with) => {
                    if self.de() {
                        format!("{word} (Ende von `with` in Zeile {with})")
                    } else {
                        format!("{word} (end of `with` at line {with})")
                    }
                }
                None => word.to_string(),
            },
            _ => Voice::Python.statement("db.exec", sql, &[], false),
        }
    }

    fn statement(&mut self, event: &TraceEvent) -> String {
        let TraceEvent::Statement {
            line, call, sql, params, status: code, changes, row, write, error, ..
        } = event
        else {
            return String::new();
        };
        let de = self.de();
        let query = call.ends_with("query_int");
        let params: Vec<String> = params.iter().map(|v| v.to_string()).collect();
        let control = !query && params.is_empty() && super::roles::written_table(sql).is_none();
        let mut text = match self.voice {
            Voice::Python if control && is_control(sql) => self.python_control(sql, *line),
            voice => voice.statement(call, sql, &params, query),
        };
        let ok = *code == status::OK;
        match (self.voice, *code) {
            (Voice::Module, _) => {
                let name = match *code {
                    status::OK => "ok".to_string(),
                    other => self.voice.statement_error(other).get(self.lang).to_string(),
                };
                let name = name.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
                let _ = write!(text, " → {code} {name}");
                if let Some(row) = row {
                    let _ = write!(text, " = {row}");
                }
            }
            (_, status::OK) if query => {
                let _ = match row {
                    Some(value) => write!(text, " → {} {value}", self.pick("Zeile:", "row:")),
                    None => write!(text, " → ok"),
                };
            }
            (_, status::NO_ROW) => {
                let _ = write!(text, " → {}", self.pick("keine Zeile", "no row"));
            }
            (_, status::OK) => {
                if write.is_some() || changes.is_some_and(|c| c > 0) {
                    text.push_str(" → ok");
                }
            }
            (voice, other) => {
                let _ = write!(text, " → {}", voice.statement_error(other).get(self.lang));
            }
        }
        if ok && let Some(changes) = changes {
            let _ = write!(text, ", {changes} {}", self.pick("Zeile(n) geändert", "row(s) changed"));
        }
        if let Some(write) = write {
            let _ = write!(text, ", {} {write}", self.pick("Schreibzugriff", "write"));
        }
        // A missing row is said in the report's language above; the host's own note on it is not
        // SQLite's text to quote.
        if let Some(error) = error.as_ref().filter(|_| *code != status::NO_ROW) {
            let _ = write!(text, ": {error}");
        }
        let at = match line {
            Some(n) if de => format!("Zeile {n}: "),
            Some(n) => format!("line {n}: "),
            None => String::new(),
        };
        format!("{at}{text}")
    }

    fn returned(&self, value: i32, line: Option<u32>) -> String {
        let meaning = match value {
            1 => self.pick("verarbeitet", "processed"),
            0 => self.pick("Duplikat", "duplicate"),
            _ => self.pick("Fehler: nicht bestätigt", "error: not acked"),
        };
        let ended = self.voice.ended(value);
        let at = match line {
            Some(n) => format!(" {} {n}", self.pick("in Zeile", "at line")),
            None => String::new(),
        };
        format!("{}{at} ({meaning})", ended.get(self.lang))
    }

    /// A line the consumer logged. A Python traceback or a JavaScript stack (the guest's report of
    /// an uncaught error) becomes one line: the error, with the student's line it came from.
    fn log(&mut self, instance: u32, text: &str, out: &mut Vec<String>) {
        let (file, python) = match self.voice {
            Voice::Python => ("consumer.py", true),
            Voice::JavaScript => ("consumer.js", false),
            Voice::Module => {
                out.push(format!("#{instance} {}: {text}", self.pick("Ausgabe", "output")));
                return;
            }
        };
        if python && text.starts_with("Traceback (most recent call last)") {
            self.raising = Some(Raising { line: None, error: None });
            return;
        }
        if let Some(raising) = self.raising.as_mut() {
            let python_frame = format!("  File \"{file}\", line ");
            if let Some(tail) = text.strip_prefix(&python_frame) {
                raising.line = tail.split(',').next().and_then(|n| n.parse().ok());
                return;
            }
            if !python && text.starts_with("    at ") {
                let place = text.rsplit_once(" (").map_or(text, |(_, p)| p).trim_end_matches(')');
                let place = place.trim_start_matches("    at ");
                let line =
                    place.strip_prefix(&format!("{file}:")).and_then(|r| r.split(':').next()?.parse().ok());
                if raising.line.is_none() {
                    raising.line = line;
                }
                return;
            }
            if python && text.starts_with("  ") {
                return;
            }
            if python {
                raising.error = Some(text.to_string());
                self.flush(instance, out);
                return;
            }
        }
        self.flush(instance, out);
        if let Some(error) = text.strip_prefix("Uncaught ").filter(|_| !python) {
            self.raising = Some(Raising { line: None, error: Some(error.to_string()) });
            return;
        }
        out.push(format!("#{instance} {}: {text}", self.pick("Ausgabe", "output")));
    }

    /// The uncaught error gathered from the log, as one line.
    fn flush(&mut self, instance: u32, out: &mut Vec<String>) {
        let Some(Raising { line, error }) = self.raising.take() else { return };
        let label = match self.voice {
            Voice::Python => self.pick("Ausnahme, nicht gefangen", "uncaught exception"),
            _ => self.pick("Fehler, nicht gefangen", "uncaught error"),
        };
        let at = line.map(|n| format!(" {} {n}", self.pick("in Zeile", "at line"))).unwrap_or_default();
        out.push(format!("#{instance} {label}{at}: {}", error.unwrap_or_default()));
    }

    fn event(&mut self, event: &TraceEvent, out: &mut Vec<String>) {
        let de = self.de();
        if let TraceEvent::Log { instance, text } = event {
            self.raising_instance = *instance;
            self.log(*instance, text, out);
            return;
        }
        self.flush(self.raising_instance, out);
        out.push(match event {
            TraceEvent::Start { instance } => {
                format!(
                    "#{instance} {}",
                    self.pick(
                        "startet (neuer Prozess, leerer Speicher)",
                        "starts (new process, empty memory)"
                    )
                )
            }
            TraceEvent::Relay { instance } => format!(
                "#{instance} {}",
                self.pick(
                    "ist das Relay: liest die Outbox und veröffentlicht beim Broker",
                    "is the relay: reads the outbox and publishes to the broker"
                )
            ),
            TraceEvent::Deliver { instance, message, note } => {
                let note = note.as_ref().map(|n| format!(" ({})", n.get(self.lang))).unwrap_or_default();
                format!("#{instance} {} {message}{note}", self.pick("erhält", "receives"))
            }
            TraceEvent::Statement { instance, .. } => format!("#{instance} {}", self.statement(event)),
            TraceEvent::Log { .. } => return,
            TraceEvent::Wait { instance, sql } => {
                format!(
                    "#{instance} {}: {sql}",
                    self.pick("wartet auf die Sperre der Datenbank", "waits for the database lock")
                )
            }
            TraceEvent::Outside { instance, line, call, key, to, body, answer } => {
                let at = line.map(|n| format!(" ({} {n})", self.pick("Zeile", "line"))).unwrap_or_default();
                outside_line(*instance, call, (key, to, body), &at, answer, de)
            }
            TraceEvent::Crash {
                instance,
                point,
                after_write,
                after_commit,
                line,
                after_call,
                before_commit,
            } => {
                let after = match (after_commit, after_write) {
                    (Some(transaction), _) => Some(Boundary::Commit { transaction: *transaction }.describe()),
                    (None, Some(write)) => {
                        Some(Boundary::Write { write: *write, autocommit: false }.describe())
                    }
                    (None, None) => after_call.as_deref().map(|name| call_boundary(name, *before_commit)),
                };
                let mut after = after.map(|a| format!(" {}", a.get(self.lang))).unwrap_or_default();
                if let Some(n) = line {
                    let _ = write!(after, " {} {n}", self.pick("in Zeile", "at line"));
                }
                match (de, *point) {
                    (true, 0) => format!("#{instance} ABSTURZ{after} (Prozess beendet)"),
                    (true, p) => format!("#{instance} ABSTURZ{after} (Absturzpunkt {p}, Prozess beendet)"),
                    (false, 0) => format!("#{instance} CRASH{after} (process killed)"),
                    (false, p) => format!("#{instance} CRASH{after} (crash point {p}, process killed)"),
                }
            }
            TraceEvent::Return { instance, value, line } => {
                format!("#{instance} {}", self.returned(*value, *line))
            }
            TraceEvent::Fault { instance, message, .. } => {
                format!("#{instance} ✗ {}", message.get(self.lang))
            }
            TraceEvent::RolledBack { instance, reason } => {
                format!("#{instance} ROLLBACK: {}", reason.get(self.lang))
            }
            TraceEvent::Queue { text } => format!("Queue: {}", text.get(self.lang)),
        });
    }
}

/// An outside service's answer (as recorded: `sent`, `replayed`, `422 key reused`, …) in words.
/// A call to an outside service, in the trace: "#1 Log: commit_offset(partition 0, offset 41) → committed".
fn outside_line(
    instance: u32,
    call: &str,
    (key, to, body): (&str, &str, &str),
    at: &str,
    answer: &str,
    de: bool,
) -> String {
    if call == "commit_offset" {
        let answer = commit_answer(answer, de);
        let (p, o) = if de { ("Partition", "Offset") } else { ("partition", "offset") };
        return format!("#{instance} Log: {call}({p} {key}, {o} {body}){at} → {answer}");
    }
    let answer = outside_answer(answer, de);
    if call == "publish" {
        let (service, topic) = if de { ("Broker", "Thema") } else { ("broker", "topic") };
        format!("#{instance} {service}: {call}({topic} {to}, key „{key}“){at} → {answer}")
    } else if de {
        format!("#{instance} Mail-Dienst: {call}(key „{key}“, an {to}){at} → {answer}")
    } else {
        format!("#{instance} mail provider: {call}(key \"{key}\", to {to}){at} → {answer}")
    }
}

/// The log's answer to `commit_offset`, as recorded ("committed", "400 refused: beyond-end").
fn commit_answer(answer: &str, de: bool) -> &str {
    match (answer, de) {
        ("committed", true) => "festgeschrieben",
        ("committed", false) => "committed",
        ("400 refused: not-delivered", true) => {
            "abgelehnt: aus dieser Partition wurde noch nichts zugestellt"
        }
        ("400 refused: not-delivered", false) => "refused: nothing of this partition was delivered yet",
        ("400 refused: beyond-end", true) => "abgelehnt: hinter dem Ende der Partition",
        ("400 refused: beyond-end", false) => "refused: beyond the partition's end",
        ("400 refused: before-start", true) => "abgelehnt: vor dem ersten Offset des Logs",
        ("400 refused: before-start", false) => "refused: before the log's first offset",
        ("400 refused: negative", true) => "abgelehnt: negativer Offset",
        ("400 refused: negative", false) => "refused: negative offset",
        (_, true) => "abgelehnt: keine solche Partition",
        (_, false) => "refused: no such partition",
    }
}

fn outside_answer(answer: &str, de: bool) -> &str {
    match (answer, de) {
        ("sent", true) => "gesendet",
        ("sent", false) => "sent",
        ("published", true) => "veröffentlicht",
        ("published", false) => "published",
        ("replayed", true) => "Ergebnis wiederholt, keine neue Mail",
        ("replayed", false) => "result replayed, no new mail",
        ("422 key reused", true) => "abgelehnt (422): derselbe Schlüssel mit anderem Inhalt",
        ("422 key reused", false) => "refused (422): the same key with another payload",
        ("409 in flight", true) => "abgelehnt (409): der Schlüssel ist noch in Bearbeitung",
        ("409 in flight", false) => "refused (409): the key is still in flight",
        (_, true) => "abgelehnt (400): ungültige Anfrage",
        (_, false) => "refused (400): invalid request",
    }
}

/// The `with` statement of a Python `source` that encloses line `n` (its line number), if any.
pub(crate) fn enclosing_with(source: &str, n: u32) -> Option<u32> {
    let n = n as usize;
    let lines: Vec<&str> = source.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let here = indent(lines.get(n.checked_sub(1)?)?);
    (1..n)
        .rev()
        .find(|&w| {
            let line = lines[w - 1];
            line.trim_start().starts_with("with ") && indent(line) < here
        })
        .and_then(|w| u32::try_from(w).ok())
}

/// The line a Python COMMIT or ROLLBACK at `line` belongs to: its own when the student wrote
/// `con.commit()` or `con.rollback()` there, else the `with` whose end issued it.
pub(crate) fn python_transaction_end(source: &str, sql: &str, line: u32) -> u32 {
    let written =
        source.lines().nth((line as usize).saturating_sub(1)).unwrap_or_default().to_ascii_lowercase();
    let keyword = sql.split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
    let keyword = keyword.trim_end_matches(';');
    if !matches!(keyword, "commit" | "rollback" | "end") || written.contains(&format!("{keyword}(")) {
        return line;
    }
    enclosing_with(source, line).unwrap_or(line)
}

/// The lines of `file` that uncaught errors came from in `events`, in order: JavaScript logs
/// `Uncaught …` and then its stack, innermost frame first; Python logs a traceback whose last frame
/// of the file raised.
pub(crate) fn uncaught_error_lines<'e>(
    file: &str,
    events: impl IntoIterator<Item = &'e super::consumer::TraceEvent>,
) -> Vec<u32> {
    use super::consumer::TraceEvent;
    let mut lines = Vec::new();
    let mut in_javascript_stack = false;
    let mut python_frame: Option<u32> = None;
    for event in events {
        let TraceEvent::Log { text: logged, .. } = event else { continue };
        if logged.starts_with("Uncaught ") {
            in_javascript_stack = true;
        } else if in_javascript_stack && logged.starts_with("    at ") {
            let place = logged.rsplit_once(" (").map_or(logged.as_str(), |(_, p)| p);
            let place = place.trim_start_matches("    at ").trim_end_matches(')');
            if let Some(line) = place
                .strip_prefix(&format!("{file}:"))
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse::<u32>().ok())
            {
                lines.push(line);
                in_javascript_stack = false;
            }
        } else {
            in_javascript_stack = false;
        }
        if let Some(tail) = logged.strip_prefix(&format!("  File \"{file}\", line ")) {
            python_frame = tail.split(',').next().and_then(|n| n.parse::<u32>().ok());
        } else if !logged.starts_with("  ")
            && !logged.starts_with("Traceback")
            && let Some(line) = python_frame.take()
        {
            lines.push(line);
        }
    }
    lines
}

/// Whether `sql` is transaction control (BEGIN, COMMIT, ROLLBACK, END, SAVEPOINT, RELEASE).
fn is_control(sql: &str) -> bool {
    let word = sql.split_whitespace().next().unwrap_or_default().trim_end_matches(';').to_ascii_uppercase();
    matches!(word.as_str(), "BEGIN" | "COMMIT" | "ROLLBACK" | "END" | "SAVEPOINT" | "RELEASE")
}

impl TraceEvent {
    /// One line for the terminal (and the HTML report), in ABI v1's words.
    #[cfg(test)]
    pub(crate) fn render(&self, lang: Lang) -> String {
        render_trace(std::slice::from_ref(self), lang, Voice::Module, None).pop().unwrap_or_default()
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

/// Appends the evidence of a failed check to `out`: its trace in `voice`'s words (`source` is
/// the student's file), or a pointer to the check whose trace it repeats (`same_as`), its crash
/// points and states, and for a module the fuel it used.
pub(crate) fn render_detail_text(
    detail: &ConsumerDetail,
    lang: Lang,
    out: &mut String,
    (voice, source): (Voice, Option<&str>),
    same_as: Option<&str>,
) {
    let de = lang == Lang::De;
    match same_as {
        Some(title) => {
            let _ = writeln!(
                out,
                "  {}",
                if de {
                    format!("Ablauf: wie bei „{title}“")
                } else {
                    format!("Trace: as for \"{title}\"")
                }
            );
        }
        None => {
            let _ = writeln!(out, "  {}:", if de { "Ablauf" } else { "Trace" });
            for line in render_trace(&detail.trace, lang, voice, source) {
                let _ = writeln!(out, "    {line}");
            }
        }
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
        let _ = writeln!(out, "  {}", crash_points_line(points, lang));
    }
    if let Some(state) = &detail.state {
        render_states_text(state, lang, out, "  ");
    }
    if voice == Voice::Module {
        let _ = writeln!(
            out,
            "  {}: {}",
            if de { "Verbrauchter Treibstoff (fuel)" } else { "Fuel used" },
            detail.fuel_used
        );
    }
}

/// The state before, after and expected (and the second acceptable outcome), then the difference.
pub(crate) fn render_states_text(state: &StateEvidence, lang: Lang, out: &mut String, indent: &str) {
    let de = lang == Lang::De;
    let inner = format!("{indent}  ");
    let _ = writeln!(out, "{indent}{}:", if de { "Zustand vorher" } else { "State before" });
    render_state(&state.before, out, &inner);
    let _ = writeln!(out, "{indent}{}:", if de { "Zustand nachher" } else { "State after" });
    render_state(&state.after, out, &inner);
    let _ = writeln!(
        out,
        "{indent}{}:",
        if de { "Erwartet (Referenzlösung)" } else { "Expected (reference solution)" }
    );
    render_state(&state.expected, out, &inner);
    if let Some(allowed) = &state.also_allowed {
        let _ =
            writeln!(out, "{indent}{}:", if de { "oder (nichts passiert)" } else { "or (nothing happened)" });
        render_state(allowed, out, &inner);
    }
    for table in &state.diff {
        for row in &table.missing {
            let _ = writeln!(out, "{indent}- {}: {}", table.table, row_text(row));
        }
        for row in &table.unexpected {
            let _ = writeln!(out, "{indent}+ {}: {}", table.table, row_text(row));
        }
    }
}

/// The lines of `events` in `lang`, in `voice`'s words; `source` is the student's file.
pub fn render_trace(events: &[TraceEvent], lang: Lang, voice: Voice, source: Option<&str>) -> Vec<String> {
    render_trace_classed(events, lang, voice, source).into_iter().map(|(_, line)| line).collect()
}

/// [`render_trace`], each line with the class of what it shows (`crash`, `fault`), if any.
pub(crate) fn render_trace_classed(
    events: &[TraceEvent],
    lang: Lang,
    voice: Voice,
    source: Option<&str>,
) -> Vec<(Option<&'static str>, String)> {
    let mut speaker =
        Speaker { lang, voice, source, begin_explained: false, raising: None, raising_instance: 0 };
    let mut out = Vec::new();
    let mut classes = Vec::new();
    for event in events {
        speaker.event(event, &mut out);
        let class = match event {
            TraceEvent::Crash { .. } => Some("crash"),
            TraceEvent::Fault { .. } => Some("fault"),
            _ => None,
        };
        // The event's own line is the last one it added (a flushed error comes before it).
        classes.resize(out.len(), None);
        if let (Some(class), Some(last)) = (class, classes.last_mut()) {
            *last = Some(class);
        }
    }
    speaker.flush(speaker.raising_instance, &mut out);
    classes.resize(out.len(), None);
    classes.into_iter().zip(out).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::state::SqlValue;

    fn statement(line: u32, sql: &str, params: Vec<SqlValue>, code: i32, write: Option<u32>) -> TraceEvent {
        TraceEvent::Statement {
            instance: 1,
            line: (line > 0).then_some(line),
            call: "db.exec".into(),
            sql: sql.into(),
            params,
            status: code,
            changes: (code == status::OK && write.is_some()).then_some(1),
            row: None,
            write,
            error: (code != status::OK).then(|| "UNIQUE constraint failed: gesehen.msg_id".into()),
        }
    }

    #[test]
    fn a_python_trace_speaks_python() {
        let source = "def verarbeite(con, msg):\n    with con:\n        con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?)\", (msg[\"id\"],))\n    return True\n";
        let events = [
            statement(3, "BEGIN", vec![], status::OK, None),
            statement(
                3,
                "INSERT INTO gesehen (msg_id) VALUES (?)",
                vec![SqlValue::Integer(7)],
                status::OK,
                Some(1),
            ),
            statement(3, "COMMIT", vec![], status::OK, None),
            statement(3, "BEGIN", vec![], status::OK, None),
            statement(
                3,
                "INSERT INTO gesehen (msg_id) VALUES (?)",
                vec![SqlValue::Integer(7)],
                status::DUPLICATE,
                None,
            ),
            TraceEvent::Return { instance: 1, value: 1, line: Some(4) },
        ];
        let lines = render_trace(&events, Lang::De, Voice::Python, Some(source));
        assert!(lines[0].contains("BEGIN (implizit: sqlite3 öffnet"), "{}", lines[0]);
        assert_eq!(
            lines[1],
            "#1 Zeile 3: con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?)\", (7,)) → ok, 1 Zeile(n) geändert, Schreibzugriff 1"
        );
        assert_eq!(lines[2], "#1 Zeile 3: COMMIT (Ende von `with` in Zeile 2)");
        assert_eq!(lines[3], "#1 Zeile 3: BEGIN (implizit)", "explained once");
        assert!(
            lines[4].ends_with("→ IntegrityError: UNIQUE constraint failed: gesehen.msg_id"),
            "{}",
            lines[4]
        );
        assert_eq!(lines[5], "#1 gab `True` zurück in Zeile 4 (verarbeitet)");
        for line in &lines {
            assert!(!line.contains("db.exec") && !line.contains("→ 0") && !line.contains("→ 1"), "{line}");
        }
    }

    #[test]
    fn a_module_trace_keeps_the_abi_and_its_status_codes() {
        let events = [statement(
            0,
            "INSERT INTO gesehen (msg_id) VALUES (?)",
            vec![SqlValue::Integer(7)],
            status::DUPLICATE,
            None,
        )];
        let de = render_trace(&events, Lang::De, Voice::Module, None);
        assert!(
            de[0].contains("db.exec INSERT INTO gesehen (msg_id) VALUES (?)  [7] → 1 Duplikat: UNIQUE"),
            "{}",
            de[0]
        );
        let en = render_trace(&events, Lang::En, Voice::Module, None);
        assert!(en[0].contains("→ 1 duplicate: UNIQUE"), "{}", en[0]);
    }
}
