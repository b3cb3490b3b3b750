//! `LISTEN/NOTIFY`: one connection per node that listens on the store's channels and tells the node
//! what any node did (jobs queued, a submission finished), so that a grading thread or a waiting
//! request on this node wakes at once instead of at its next poll. The notifications are sent by
//! the transactions themselves (`pg_notify` in [`super::queue`]), so they arrive only once the
//! change is committed. A lost connection is opened again after [`PG_LISTEN_RETRY_MS`]; while it is
//! down the nodes poll, and on reconnecting the listener says "jobs queued" once, in case it missed
//! some.
//!
//! [`PG_LISTEN_RETRY_MS`]: crate::limits::PG_LISTEN_RETRY_MS

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio_postgres::AsyncMessage;

use super::queue::{FINISHED_CHANNEL, JOBS_CHANNEL};
use super::tls::RustlsConnect;
use crate::service::store::Notice;

/// What a notification on one of the store's channels means to `node`: nothing if `node` sent it
/// itself about queued jobs (it woke its own grading threads already).
pub(crate) fn notice(channel: &str, payload: &str, node: &str) -> Option<Notice> {
    match channel {
        JOBS_CHANNEL => (payload != node).then_some(Notice::JobsQueued),
        FINISHED_CHANNEL => payload.parse().ok().map(Notice::Finished),
        _ => None,
    }
}

/// Listens until the runtime stops, connecting again whenever the connection is lost.
pub(crate) async fn listen(
    config: tokio_postgres::Config,
    tls: RustlsConnect,
    node: Arc<str>,
    hear: Arc<dyn Fn(Notice) + Send + Sync>,
) {
    loop {
        match config.connect(tls.clone()).await {
            Ok((client, mut connection)) => {
                let (sender, mut received) = tokio::sync::mpsc::unbounded_channel();
                let node = node.clone();
                // The connection delivers notifications only while it is polled.
                let driver = tokio::spawn(async move {
                    let mut messages =
                        std::pin::pin!(futures_util::stream::poll_fn(move |cx| connection.poll_message(cx)));
                    while let Some(message) = messages.next().await {
                        match message {
                            Ok(AsyncMessage::Notification(n)) => {
                                if sender.send(notice(n.channel(), n.payload(), &node)).is_err() {
                                    return;
                                }
                            }
                            Ok(_) => {}
                            Err(_) => return,
                        }
                    }
                });
                let subscribed =
                    client.batch_execute(&format!("LISTEN {JOBS_CHANNEL}; LISTEN {FINISHED_CHANNEL}")).await;
                if subscribed.is_ok() {
                    tracing::info!(event = "listening", channels = %format!("{JOBS_CHANNEL},{FINISHED_CHANNEL}"));
                    (*hear)(Notice::JobsQueued);
                    while let Some(heard) = received.recv().await {
                        if let Some(heard) = heard {
                            (*hear)(heard);
                        }
                    }
                }
                driver.abort();
                tracing::warn!(event = "listen_lost", retry_ms = crate::limits::PG_LISTEN_RETRY_MS);
            }
            Err(e) => {
                tracing::warn!(event = "listen_failed", error = %e, retry_ms = crate::limits::PG_LISTEN_RETRY_MS);
            }
        }
        tokio::time::sleep(Duration::from_millis(crate::limits::PG_LISTEN_RETRY_MS)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifications_are_read_by_channel() {
        assert_eq!(notice(JOBS_CHANNEL, "node-b", "node-a"), Some(Notice::JobsQueued));
        assert_eq!(notice(JOBS_CHANNEL, "node-a", "node-a"), None, "its own jobs woke it already");
        assert_eq!(notice(FINISHED_CHANNEL, "42", "node-a"), Some(Notice::Finished(42)));
        assert_eq!(notice(FINISHED_CHANNEL, "x", "node-a"), None);
        assert_eq!(notice("other", "1", "node-a"), None);
    }
}
