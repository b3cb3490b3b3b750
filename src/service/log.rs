//! Structured logs: one JSON object per line on standard error, with the time, the level, an event
//! name and its fields, so that a log collector can filter by any of them.

use std::io::Write;

use super::clock;

fn write(level: &str, event: &str, fields: &[(&str, &str)]) {
    let mut line = serde_json::Map::new();
    line.insert("ts".into(), clock::rfc3339(clock::now_ms()).into());
    line.insert("level".into(), level.into());
    line.insert("event".into(), event.into());
    for (key, value) in fields {
        line.insert((*key).into(), (*value).into());
    }
    let mut text = serde_json::Value::Object(line).to_string();
    text.push('\n');
    // A log line that cannot be written is dropped: logging never stops the service.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

pub fn info(event: &str, fields: &[(&str, &str)]) {
    write("info", event, fields);
}

pub fn warn(event: &str, fields: &[(&str, &str)]) {
    write("warn", event, fields);
}

pub fn error(event: &str, fields: &[(&str, &str)]) {
    write("error", event, fields);
}
