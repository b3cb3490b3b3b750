//! What a source consumer's uncaught exception says, in the student's own lines: the interpreter
//! guest's own frames hidden from the traceback, and a note naming the exception and where it was
//! raised.

use crate::report::consumer::TraceEvent;
use crate::text;
use crate::text::Text;

/// The line a Python traceback starts with.
const TRACEBACK_START: &str = "Traceback (most recent call last):";
/// The start of a traceback line for a frame of the interpreter guest's own `sqlite3` module.
const INTERPRETER_FRAME: &str = "  File \"sqlite3.py\"";

/// Removes the frames of the guest's `sqlite3` module from the tracebacks `instance` logged: in
/// CPython, `sqlite3` is written in C and its frames do not show, so a student reads only their own
/// lines.
pub(super) fn hide_interpreter_frames(events: &mut Vec<TraceEvent>, instance: u32) {
    let mut in_traceback = false;
    events.retain(|event| match event {
        TraceEvent::Log { instance: i, text } if *i == instance => {
            if text == TRACEBACK_START {
                in_traceback = true;
                true
            } else if in_traceback && text.starts_with(INTERPRETER_FRAME) {
                false
            } else {
                in_traceback &= text.starts_with("  ");
                true
            }
        }
        _ => true,
    });
}

/// The exception of the last traceback `instance` logged, as a note for the failure text: its
/// type and message, and the line of the student's file it was raised at.
pub(super) fn python_exception_note(events: &[TraceEvent], instance: u32) -> Option<Text> {
    let logged: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            TraceEvent::Log { instance: i, text } if *i == instance => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let start = logged.iter().rposition(|line| *line == TRACEBACK_START)?;
    let rest = &logged[start + 1..];
    let exception = rest.iter().find(|line| !line.starts_with("  "))?.trim();
    let frame =
        rest.iter().rev().filter_map(|line| line.strip_prefix("  File \"consumer.py\", line ")).find_map(
            |tail| {
                let (line, function) = tail.split_once(", in ")?;
                Some((line.parse::<u32>().ok()?, function.trim()))
            },
        );
    Some(match frame {
        Some((line, function)) => text!(
            "Python-Ausnahme in Zeile {line} ({function}): {exception}.",
            "Python exception at line {line} ({function}): {exception}."
        ),
        None => text!("Python-Ausnahme: {exception}.", "Python exception: {exception}."),
    })
}

/// Removes the frames of the JavaScript guest's own `node:sqlite` module from the stacks `instance`
/// logged: in Node, `node:sqlite` is native and its frames do not show, so a student reads only
/// their own lines.
pub(super) fn hide_guest_module_frames(events: &mut Vec<TraceEvent>, instance: u32) {
    events.retain(|event| match event {
        TraceEvent::Log { instance: i, text } if *i == instance => {
            !(text.starts_with("    at ") && text.contains("(node:sqlite:"))
        }
        _ => true,
    });
}

/// The line the JavaScript guest logs an uncaught error with: `Uncaught Name: message`.
const UNCAUGHT_START: &str = "Uncaught ";

/// The error of the last uncaught error `instance` logged, as a note for the failure text: its
/// name and message, and the line of the student's file it was thrown at (the first frame of
/// `consumer.js` in its stack, below the guest's own `node:sqlite` frames). For TypeScript
/// (`stripped`), the line is one of the JavaScript its types were stripped to, and the note says so.
pub(super) fn javascript_exception_note(
    events: &[TraceEvent],
    instance: u32,
    stripped: bool,
) -> Option<Text> {
    let logged: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            TraceEvent::Log { instance: i, text } if *i == instance => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let start = logged.iter().rposition(|line| line.starts_with(UNCAUGHT_START))?;
    let error = logged[start].strip_prefix(UNCAUGHT_START)?.trim();
    let frame = logged[start + 1..]
        .iter()
        .take_while(|line| line.starts_with("    at "))
        .filter_map(|line| {
            let tail = line.trim().strip_prefix("at ")?;
            let (function, place) = match tail.split_once(" (") {
                Some((function, place)) => (function, place.trim_end_matches(')')),
                None => ("<anonymous>", tail),
            };
            let place = place.strip_prefix("consumer.js:")?;
            let line = place.split(':').next()?.parse::<u32>().ok()?;
            Some((line, function))
        })
        .next();
    Some(match (frame, stripped) {
        (Some((line, function)), false) => text!(
            "JavaScript-Fehler in Zeile {line} ({function}): {error}.",
            "JavaScript error at line {line} ({function}): {error}."
        ),
        (Some((line, function)), true) => text!(
            "Fehler in Zeile {line} des JavaScripts, das aus consumer.ts ohne Typen wurde ({function}): {error}.",
            "Error at line {line} of the JavaScript that consumer.ts became without its types ({function}): {error}."
        ),
        (None, _) => text!("JavaScript-Fehler: {error}.", "JavaScript error: {error}."),
    })
}
