//! Structured logs through `tracing`: one JSON object per line on standard error, with the time, the
//! level, the event's name (`event`) and its fields at the top level, and the fields of the span it
//! happened in (`span`: the submission being graded, its exercise and attempt), so that a log
//! collector can filter by any of them. `RUST_LOG` filters (e.g. `RUST_LOG=warn` or
//! `RUST_LOG=pruefstein=debug`); without it, [`DEFAULT_FILTER`] applies.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// The filter without `RUST_LOG`: the service's own events from `info` up, others' warnings.
pub const DEFAULT_FILTER: &str = "warn,pruefstein=info";

/// The subscriber that writes JSON lines to `writer`, filtered by `filter`.
fn subscriber<W>(filter: EnvFilter, writer: W) -> impl tracing::Subscriber + Send + Sync
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(true)
        .with_span_list(false)
        .with_env_filter(filter)
        .with_writer(writer)
        .finish()
}

/// Sends the process's logs to standard error as JSON lines. Called once by `pruefstein serve`; a
/// second call (a subscriber is already set) changes nothing. A bad `RUST_LOG` falls back to the
/// default and says so.
pub fn init() {
    let (filter, bad) = match std::env::var("RUST_LOG") {
        Ok(raw) if !raw.trim().is_empty() => match EnvFilter::try_new(&raw) {
            Ok(filter) => (filter, None),
            Err(e) => (EnvFilter::new(DEFAULT_FILTER), Some(format!("RUST_LOG={raw:?}: {e}"))),
        },
        _ => (EnvFilter::new(DEFAULT_FILTER), None),
    };
    if tracing::subscriber::set_global_default(subscriber(filter, std::io::stderr)).is_ok()
        && let Some(error) = bad
    {
        tracing::warn!(event = "bad_log_filter", error = %error, default = DEFAULT_FILTER);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'w> MakeWriter<'w> for Buffer {
        type Writer = Buffer;
        fn make_writer(&'w self) -> Buffer {
            self.clone()
        }
    }

    fn lines(filter: &str, log: impl FnOnce()) -> Vec<serde_json::Value> {
        let buffer = Buffer::default();
        tracing::subscriber::with_default(subscriber(EnvFilter::new(filter), buffer.clone()), log);
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect()
    }

    #[test]
    fn an_event_is_one_json_line_with_its_fields_and_its_span() {
        let logged = lines(DEFAULT_FILTER, || {
            let span = tracing::info_span!("grade", submission = "sub_7", exercise = "03-x", attempt = 2);
            let _inside = span.enter();
            tracing::info!(event = "graded", verdict = "passed", ms = 12.5);
        });
        assert_eq!(logged.len(), 1, "{logged:?}");
        let line = &logged[0];
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["event"], "graded");
        assert_eq!(line["verdict"], "passed");
        assert_eq!(line["ms"], 12.5);
        assert!(line["timestamp"].as_str().is_some_and(|t| t.contains('T')), "{line}");
        assert_eq!(line["span"]["name"], "grade");
        assert_eq!(line["span"]["submission"], "sub_7");
        assert_eq!(line["span"]["exercise"], "03-x");
        assert_eq!(line["span"]["attempt"], 2);
    }

    #[test]
    fn the_filter_drops_what_is_below_its_level() {
        let logged = lines("warn", || {
            tracing::info!(event = "listening");
            tracing::warn!(event = "lease_lost");
        });
        assert_eq!(logged.len(), 1);
        assert_eq!(logged[0]["event"], "lease_lost");
        assert_eq!(logged[0]["level"], "WARN");
    }
}
