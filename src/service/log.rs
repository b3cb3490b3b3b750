//! Structured logs through `tracing`: one JSON object per line on standard error, with the time, the
//! level, the event's name (`event`) and its fields at the top level, and the fields of the span it
//! happened in (`span`: the submission being graded, its exercise and attempt), so that a log
//! collector can filter by any of them. `RUST_LOG` filters (e.g. `RUST_LOG=warn` or
//! `RUST_LOG=pruefstein=debug`); without it, [`DEFAULT_FILTER`] applies.
//!
//! Logging never stops or slows the service: a line is handed to one writer thread through a queue of
//! at most [`LOG_LINES_QUEUED_MAX`] lines, and a line that finds the queue full, or that standard
//! error refuses (a closed pipe: a log shipper restarting, `| head`), is dropped and counted
//! ([`lines_dropped`], `pruefstein_log_lines_dropped_total`). Before, a failed write made the
//! formatter print its own complaint with `eprintln!`, which panics on a closed pipe, in whichever
//! thread was logging: the main thread (the process exited) or a grading thread (its jobs stayed
//! `running`), and a reader that stopped reading blocked every logging thread.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Mutex, OnceLock};

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::limits::{LOG_FLUSH_MS_MAX, LOG_LINE_BYTES_MAX, LOG_LINES_QUEUED_MAX};

/// Lines dropped since the process started: the queue was full or standard error refused them.
static DROPPED: AtomicU64 = AtomicU64::new(0);
/// Lines handed to the queue, and lines the writer thread has finished with (written or dropped):
/// [`flush`] waits until the second catches up with the first.
static QUEUED: AtomicU64 = AtomicU64::new(0);
static DONE: AtomicU64 = AtomicU64::new(0);

/// Log lines dropped so far (a full queue, or a write to standard error that failed).
pub(crate) fn lines_dropped() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

/// The queue in front of the writer thread: its sending end, shared by every logging thread.
struct Queue {
    sender: Mutex<SyncSender<Vec<u8>>>,
}

/// Hands each finished line to the writer thread without waiting.
#[derive(Clone, Copy)]
struct QueuedStderr(&'static Queue);

/// One line being formatted; sent when the formatter drops it.
struct Line {
    queue: &'static Queue,
    bytes: Vec<u8>,
}

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let room = LOG_LINE_BYTES_MAX.saturating_sub(self.bytes.len());
        self.bytes.extend_from_slice(&bytes[..bytes.len().min(room)]);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if self.bytes.is_empty() {
            return;
        }
        if self.bytes.last() != Some(&b'\n') {
            self.bytes.push(b'\n');
        }
        let sender = self.queue.sender.lock().unwrap_or_else(|p| p.into_inner());
        match sender.try_send(std::mem::take(&mut self.bytes)) {
            Ok(()) => {
                QUEUED.fetch_add(1, Ordering::Release);
            }
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                DROPPED.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl<'w> MakeWriter<'w> for QueuedStderr {
    type Writer = Line;

    fn make_writer(&'w self) -> Line {
        Line { queue: self.0, bytes: Vec::new() }
    }
}

/// Writes the queued lines to `out` until every sender is gone; a line `out` refuses is dropped and
/// counted, and writing goes on (a pipe may be replaced, a full disk may drain).
fn write_lines(lines: Receiver<Vec<u8>>, mut out: impl Write) {
    for line in lines {
        if out.write_all(&line).and_then(|()| out.flush()).is_err() {
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
        DONE.fetch_add(1, Ordering::Release);
    }
}

/// Waits until the writer thread has finished with every line queued so far, for at most
/// [`LOG_FLUSH_MS_MAX`]: the last lines before the process exits (`stopped`) reach the log, and an
/// output that does not drain cannot hold the exit.
pub(crate) fn flush() {
    let target = QUEUED.load(Ordering::Acquire);
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(LOG_FLUSH_MS_MAX);
    while DONE.load(Ordering::Acquire) < target && std::time::Instant::now() < deadline {
        // Polled: the writer thread has no one to tell; the deadline bounds the wait.
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The process's queue to standard error and its writer thread, started on first use.
fn queued_stderr() -> Option<QueuedStderr> {
    static QUEUE: OnceLock<Option<Queue>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::sync_channel(LOG_LINES_QUEUED_MAX);
        std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || write_lines(receiver, std::io::stderr()))
            .ok()?;
        Some(Queue { sender: Mutex::new(sender) })
    });
    queue.as_ref().map(QueuedStderr)
}

/// The filter without `RUST_LOG`: the service's own events from `info` up, others' warnings.
pub(crate) const DEFAULT_FILTER: &str = "warn,pruefstein=info";

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
        // A failed write is counted by the writer; the formatter's own complaint would go to
        // standard error with `eprintln!`, which panics when that is a closed pipe.
        .log_internal_errors(false)
        .finish()
}

/// Sends the process's logs to standard error as JSON lines. Called once by `pruefstein serve`; a
/// second call (a subscriber is already set) changes nothing. A bad `RUST_LOG` falls back to the
/// default and says so.
pub(crate) fn init() {
    let (filter, bad) = match std::env::var("RUST_LOG") {
        Ok(raw) if !raw.trim().is_empty() => match EnvFilter::try_new(&raw) {
            Ok(filter) => (filter, None),
            Err(e) => (EnvFilter::new(DEFAULT_FILTER), Some(format!("RUST_LOG={raw:?}: {e}"))),
        },
        _ => (EnvFilter::new(DEFAULT_FILTER), None),
    };
    let installed = match queued_stderr() {
        Some(queued) => tracing::subscriber::set_global_default(subscriber(filter, queued)),
        // No thread could be started: write in the logging thread, never panicking.
        None => tracing::subscriber::set_global_default(subscriber(filter, UnqueuedStderr)),
    };
    if installed.is_ok()
        && let Some(error) = bad
    {
        tracing::warn!(event = "bad_log_filter", error = %error, default = DEFAULT_FILTER);
    }
}

/// Standard error written in the logging thread, a failed write counted and otherwise ignored.
#[derive(Clone, Copy)]
struct UnqueuedStderr;

/// A line for [`UnqueuedStderr`].
struct UnqueuedLine;

impl Write for UnqueuedLine {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if std::io::stderr().write_all(bytes).is_err() {
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'w> MakeWriter<'w> for UnqueuedStderr {
    type Writer = UnqueuedLine;

    fn make_writer(&'w self) -> UnqueuedLine {
        UnqueuedLine
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

    /// A writer that refuses everything, as a pipe whose reader has gone.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    /// A full queue drops the newest lines at once, counted, and keeps the ones it holds whole.
    #[test]
    fn a_full_queue_drops_and_counts_lines_without_waiting() {
        let (sender, receiver) = std::sync::mpsc::sync_channel(2);
        let queue: &'static Queue = Box::leak(Box::new(Queue { sender: Mutex::new(sender) }));
        let before = lines_dropped();
        tracing::subscriber::with_default(subscriber(EnvFilter::new("info"), QueuedStderr(queue)), || {
            for n in 0..5 {
                tracing::info!(event = "line", n);
            }
        });
        assert!(lines_dropped() >= before + 3, "two queued, three dropped");
        let queued: Vec<Vec<u8>> = receiver.try_iter().collect();
        assert_eq!(queued.len(), 2);
        for (n, line) in queued.iter().enumerate() {
            let value: serde_json::Value = serde_json::from_slice(line).unwrap();
            assert_eq!(value["n"], n);
            assert!(line.ends_with(b"\n"));
        }
    }

    /// Lines that standard error refuses (a pipe whose reader has gone) are dropped and counted, and
    /// the writer goes on with the next ones instead of failing.
    #[test]
    fn a_closed_pipe_drops_and_counts_lines_and_the_writer_goes_on() {
        let (sender, receiver) = std::sync::mpsc::sync_channel(8);
        for _ in 0..3 {
            sender.send(b"{}\n".to_vec()).unwrap();
        }
        drop(sender);
        let before = lines_dropped();
        write_lines(receiver, ClosedPipe);
        assert!(lines_dropped() >= before + 3);
    }

    /// A line longer than the limit is cut, not grown without end.
    #[test]
    fn a_line_is_cut_at_its_limit() {
        let (sender, _receiver) = std::sync::mpsc::sync_channel(1);
        let queue: &'static Queue = Box::leak(Box::new(Queue { sender: Mutex::new(sender) }));
        let mut long = Line { queue, bytes: Vec::new() };
        long.write_all(&vec![b'x'; LOG_LINE_BYTES_MAX + 10]).unwrap();
        assert_eq!(long.bytes.len(), LOG_LINE_BYTES_MAX);
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
