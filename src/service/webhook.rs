//! Webhook delivery from the outbox. Sender threads lease due events, `POST` them to the client's
//! callback URL with Standard Webhooks headers (`webhook-id`: the event id, the same on every
//! attempt; `webhook-timestamp`; `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of
//! `id.timestamp.body` under the client's secret), and record the outcome. Network errors, 5xx,
//! 408, 425 and 429 are retried with exponential backoff and a jitter drawn from a ChaCha generator
//! seeded by the configured seed, the event id and the attempt; other answers and exhausted
//! attempts make the event dead, listed by `GET /api/v1/webhooks/dead` until redelivered. Scores
//! for LTI platforms go through the same outbox ([`super::lti::ags`]). The requests themselves go
//! out under the address policy of [`super::outbound`].

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use super::outbound::{AttemptError, post};
use super::shared::Shared;
use super::store::{Delivery, OutboxEvent};
use super::{auth, clock};
use crate::limits::{WEBHOOK_BACKOFF_MAX_MS, WEBHOOK_LEASE_BATCH_MAX, WEBHOOK_LEASE_MS, WEBHOOK_SENDERS};
/// How often an idle sender looks for events whose retry time has come.
const IDLE_POLL: Duration = Duration::from_millis(100);

pub(crate) fn start(shared: &Arc<Shared>) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    (0..WEBHOOK_SENDERS)
        .map(|n| {
            let shared = shared.clone();
            std::thread::Builder::new().name(format!("webhook-{n}")).spawn(move || run(&shared))
        })
        .collect()
}

fn run(shared: &Shared) {
    loop {
        let seen = shared.outbox.generation();
        if !shared.accepting.load(Ordering::SeqCst) {
            return;
        }
        match shared.store.lease_events(WEBHOOK_LEASE_BATCH_MAX, WEBHOOK_LEASE_MS, clock::now_ms()) {
            Ok(events) if !events.is_empty() => {
                for event in events {
                    deliver(shared, &event);
                }
            }
            Ok(_) => shared.outbox.wait(seen, IDLE_POLL),
            Err(e) => {
                tracing::error!(error = %e, "outbox_lease_failed");
                shared.outbox.wait(seen, Duration::from_secs(1));
            }
        }
    }
}

fn deliver(shared: &Shared, event: &OutboxEvent) {
    let attempt = event.attempts + 1;
    let outcome = if event.event_id.starts_with(super::lti::ags::EVENT_PREFIX) {
        // A score for an LTI platform's line item.
        super::lti::ags::deliver(&shared.lti_context(), event)
    } else {
        match send_webhook(shared, event) {
            Some(outcome) => outcome,
            None => return,
        }
    };
    let delivery = match outcome {
        Ok(()) => Delivery::Delivered,
        Err(error) if error.retry && attempt < shared.config.webhook_attempts => Delivery::Retry {
            at: clock::now_ms()
                + backoff_ms(
                    shared.config.webhook_seed,
                    shared.config.webhook_backoff_ms,
                    &event.event_id,
                    attempt,
                ) as i64,
            error: error.message,
        },
        Err(error) => Delivery::Dead {
            error: if error.retry {
                format!("{} (after {attempt} attempts)", error.message)
            } else {
                error.message
            },
        },
    };
    record(shared, event, delivery);
}

/// One attempt to deliver a webhook, signed with its client's secret; none when the client cannot
/// be read now (the lease runs out and the event is tried again).
fn send_webhook(shared: &Shared, event: &OutboxEvent) -> Option<Result<(), AttemptError>> {
    let secret = match shared.store.client_by_id(event.client_id) {
        Ok(Some(client)) => client.webhook_secret,
        Ok(None) => {
            return Some(Err(AttemptError { message: "the client no longer exists".into(), retry: false }));
        }
        Err(e) => {
            tracing::error!(error = %e, "outbox_client_failed");
            return None;
        }
    };
    let timestamp = clock::now_ms() / 1000;
    let signature = auth::sign_webhook(&secret, &event.event_id, timestamp, event.payload.as_bytes());
    let headers = [
        ("webhook-id", event.event_id.clone()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", signature),
    ];
    Some(post(
        &event.url,
        &headers,
        event.payload.as_bytes(),
        shared.config.allow_private_callbacks,
        shared.config.webhook_timeout_ms,
    ))
}

fn record(shared: &Shared, event: &OutboxEvent, delivery: Delivery) {
    let attempt = event.attempts + 1;
    match &delivery {
        Delivery::Delivered => {
            shared.metrics.webhook_delivered.inc();
            tracing::info!(event = %event.event_id, attempt, "webhook_delivered");
        }
        Delivery::Retry { error, at } => {
            shared.metrics.webhook_retried.inc();
            tracing::warn!(
                event = %event.event_id,
                attempt,
                error = %error,
                next = %clock::rfc3339(*at),
                "webhook_retry"
            );
        }
        Delivery::Dead { error } => {
            shared.metrics.webhook_dead.inc();
            tracing::warn!(event = %event.event_id, attempt, error = %error, "webhook_dead");
        }
    }
    if let Err(e) = shared.store.record_delivery(&event.event_id, &delivery, clock::now_ms()) {
        // The lease runs out and the event is tried again: at least once, never lost.
        tracing::error!(error = %e, "outbox_record_failed");
    }
}

/// The delay before retry number `attempt` (1 = after the first failure): `base · 2^(attempt-1)`,
/// at most [`WEBHOOK_BACKOFF_MAX_MS`], less a jitter of up to half of it drawn from ChaCha8 keyed
/// with SHA-256(seed, event id, attempt). The same inputs give the same delay on every machine.
pub(crate) fn backoff_ms(seed: u64, base_ms: u64, event_id: &str, attempt: u32) -> u64 {
    let exponent = attempt.saturating_sub(1).min(40);
    let delay = base_ms.saturating_mul(1u64 << exponent).min(WEBHOOK_BACKOFF_MAX_MS);
    let mut hash = Sha256::new();
    hash.update(seed.to_le_bytes());
    hash.update(event_id.as_bytes());
    hash.update(attempt.to_le_bytes());
    let mut rng = ChaCha8Rng::from_seed(hash.finalize().into());
    let fraction = rng.next_u64() as f64 / (u64::MAX as f64 + 1.0);
    delay - (delay as f64 * 0.5 * fraction) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_seeded_jitter() {
        let delays: Vec<u64> = (1..=4).map(|a| backoff_ms(7, 1000, "evt_sub_1", a)).collect();
        for (attempt, delay) in delays.iter().enumerate() {
            let full = 1000u64 << attempt;
            assert!(*delay > full / 2 && *delay <= full, "attempt {}: {delay}", attempt + 1);
        }
        assert_eq!(delays, (1..=4).map(|a| backoff_ms(7, 1000, "evt_sub_1", a)).collect::<Vec<_>>());
        assert_ne!(backoff_ms(7, 1000, "evt_sub_1", 3), backoff_ms(8, 1000, "evt_sub_1", 3));
        assert!(backoff_ms(0, 1000, "e", 60) <= WEBHOOK_BACKOFF_MAX_MS);
    }
}
