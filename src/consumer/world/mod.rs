//! The world outside the consumer that an exercise declares (`[consumer.world]`): a mail provider
//! with or without idempotency keys, and a message broker (`broker`). One [`World`] belongs to one run and is shared by every
//! instance of it: what a provider did happened outside, so it survives an instance's crash, while
//! the run's database rolls back the crashed instance's open transaction.
//!
//! The provider follows the semantics of Stripe and of the IETF draft on the `Idempotency-Key`
//! header: the first result per key is stored and replayed; the same key with another payload is
//! refused (HTTP 422); the same key while its first call is still in flight in another instance is
//! refused (HTTP 409); a key is forgotten `ttl_deliveries` deliveries after the one that stored it
//! (simulated time: deliveries of the run, so a run is deterministic). A provider without keys
//! sends every call. Every call is recorded; the harness shows the recorded calls to its state
//! queries and invariants as the read-only table [`MAILS_TABLE`] of the observer's connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;

pub mod broker;
pub mod log;
pub mod queue;

use crate::limits::{
    OUTSIDE_ADDRESS_BYTES_MAX, OUTSIDE_CALLS_PER_RUN_MAX, OUTSIDE_PAYLOAD_BYTES_MAX, PROVIDER_KEY_BYTES_MAX,
    PROVIDER_KEY_TTL_DELIVERIES_MAX,
};

/// The table the recorded mail calls appear as, to state queries and invariants.
pub const MAILS_TABLE: &str = "mails";

/// `[consumer.world]` in `exercise.toml`: the outside services the consumer talks to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldConfig {
    /// A mail provider (`world.send_mail`).
    #[serde(default)]
    pub mail: Option<MailConfig>,
    /// A message broker (`world.publish`).
    #[serde(default)]
    pub broker: Option<broker::BrokerConfig>,
    /// A queue with redrive (`[consumer.world.queue]`): a receive limit and a dead letter queue.
    #[serde(default)]
    pub queue: Option<queue::QueueConfig>,
    /// An event log the consumer reads as one consumer group, committing offsets.
    #[serde(default)]
    pub log: Option<log::LogConfig>,
}

/// `[consumer.world.mail]`: the mail provider.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailConfig {
    /// Whether the provider honours idempotency keys; without them every call sends a mail.
    pub idempotency_keys: bool,
    /// Deliveries of the run after the one that stored a key for which the provider keeps it.
    #[serde(default = "default_ttl")]
    pub ttl_deliveries: u32,
}

fn default_ttl() -> u32 {
    PROVIDER_KEY_TTL_DELIVERIES_MAX
}

impl WorldConfig {
    /// Whether the world declares any service.
    pub fn is_empty(&self) -> bool {
        self.mail.is_none() && self.broker.is_none() && self.queue.is_none() && self.log.is_none()
    }

    /// The problem with the declaration, if it has one.
    pub fn problem(&self) -> Option<String> {
        if let Some(problem) = self.queue.as_ref().and_then(|q| q.problem(self.mail.is_some())) {
            return Some(problem);
        }
        if let Some(problem) = self.log.as_ref().and_then(log::LogConfig::problem) {
            return Some(problem);
        }
        let mail = self.mail.as_ref()?;
        (mail.ttl_deliveries == 0 || mail.ttl_deliveries > PROVIDER_KEY_TTL_DELIVERIES_MAX).then(|| {
            format!(
                "[consumer.world.mail] ttl_deliveries must be between 1 and {PROVIDER_KEY_TTL_DELIVERIES_MAX}, not {}",
                mail.ttl_deliveries
            )
        })
    }
}

/// The provider's answer to one call; its ABI status code is [`MailAnswer::status`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailAnswer {
    /// The mail was sent.
    Sent,
    /// The key was known with the same payload: the stored result is replayed, nothing is sent.
    Replayed,
    /// The key was known with another payload (HTTP 422): nothing is sent.
    KeyReused,
    /// The key's first call is still in flight in another instance (HTTP 409): nothing is sent.
    KeyInFlight,
    /// The request is malformed (a key, recipient or body out of bounds): nothing is sent.
    Invalid,
    /// A transient failure the exercise declares (`[consumer.world.queue] transient`): the
    /// provider answers "try again later" with the status of a key in flight (HTTP 409), so that
    /// the guests' existing error raises; nothing is sent, no key is stored.
    Unavailable,
}

/// ABI status codes of `world.send_mail` (beside `db`'s 0–4; `ABI.md` lists them).
pub mod status {
    pub const SENT: i32 = 0;
    pub const INVALID: i32 = 3;
    pub const KEY_REUSED: i32 = 5;
    pub const KEY_IN_FLIGHT: i32 = 6;
}

impl MailAnswer {
    pub fn status(self) -> i32 {
        match self {
            MailAnswer::Sent | MailAnswer::Replayed => status::SENT,
            MailAnswer::KeyReused => status::KEY_REUSED,
            MailAnswer::KeyInFlight | MailAnswer::Unavailable => status::KEY_IN_FLIGHT,
            MailAnswer::Invalid => status::INVALID,
        }
    }

    /// The answer's name in the recorded table and the trace.
    pub fn name(self) -> &'static str {
        match self {
            MailAnswer::Sent => "sent",
            MailAnswer::Replayed => "replayed",
            MailAnswer::KeyReused => "422 key reused",
            MailAnswer::KeyInFlight => "409 in flight",
            MailAnswer::Invalid => "400 invalid",
            MailAnswer::Unavailable => "409 try again later",
        }
    }
}

/// One call to the mail provider, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailCall {
    pub instance: u32,
    /// The run's delivery (counted over all instances, from 1) during which the call was made.
    pub delivery: u32,
    /// The id of the message being delivered (its JSON text), as the harness knows it.
    pub msg_id: String,
    /// The key as given (lossy UTF-8, cut at [`PROVIDER_KEY_BYTES_MAX`] + 1 bytes).
    pub key: String,
    pub recipient: String,
    pub body: String,
    pub answer: MailAnswer,
    /// The delivery that made the call ended in a crash the harness injected.
    pub crashed: bool,
}

/// A key the provider keeps.
#[derive(Debug, Clone)]
struct KeptKey {
    /// The payload of the first call (recipient, body).
    payload: (String, String),
    /// The delivery that stored it.
    stored_at: u32,
    /// The instance whose call is still in flight, while it is.
    in_flight: Option<u32>,
}

/// Why a request is refused before the provider looks at its key.
pub fn invalid_request(key: &[u8], recipient: &[u8], body: &[u8], keys: bool) -> Option<String> {
    if keys {
        if key.is_empty() || key.len() > PROVIDER_KEY_BYTES_MAX {
            return Some(format!(
                "the idempotency key must be 1 to {PROVIDER_KEY_BYTES_MAX} bytes long, not {} (limit \"idempotency key length\")",
                key.len()
            ));
        }
        match std::str::from_utf8(key) {
            Err(_) => return Some("the idempotency key is not valid UTF-8".into()),
            Ok(text) if text.chars().any(char::is_control) => {
                return Some("the idempotency key holds a control character".into());
            }
            Ok(_) => {}
        }
    }
    if recipient.is_empty() || recipient.len() > OUTSIDE_ADDRESS_BYTES_MAX {
        return Some(format!(
            "the recipient must be 1 to {OUTSIDE_ADDRESS_BYTES_MAX} bytes long, not {}",
            recipient.len()
        ));
    }
    if body.len() > OUTSIDE_PAYLOAD_BYTES_MAX {
        return Some(format!(
            "the body is {} bytes long, more than {OUTSIDE_PAYLOAD_BYTES_MAX} (limit \"payload length of an outside call\")",
            body.len()
        ));
    }
    if std::str::from_utf8(recipient).is_err() || std::str::from_utf8(body).is_err() {
        return Some("the recipient and the body must be valid UTF-8".into());
    }
    None
}

/// The outside services of one run: the state every instance of the run shares.
#[derive(Debug, Default)]
pub struct World {
    config: WorldConfig,
    /// Deliveries of the run so far, over all instances.
    deliveries: u32,
    /// The current delivery of each instance.
    delivery_of: HashMap<u32, u32>,
    keys: HashMap<String, KeptKey>,
    calls: Vec<MailCall>,
    published: Vec<broker::Publication>,
    /// The declared queue's receive count of each message it delivered ([`World::received`]).
    receives: HashMap<String, u32>,
    dead_letters: Vec<queue::DeadLetter>,
    /// The event log, when the exercise declares one.
    log: Option<log::LogWorld>,
    /// Calls of `world.commit_offset` so far (outside calls, counted with mails and publications).
    offset_commits: usize,
}

/// One run's world, shared by its instances (each instance's store holds a clone).
pub type SharedWorld = Arc<Mutex<World>>;

/// What a call asks of the provider.
pub struct MailRequest<'a> {
    pub instance: u32,
    pub msg_id: String,
    pub key: &'a [u8],
    pub recipient: &'a [u8],
    pub body: &'a [u8],
}

/// The call past [`OUTSIDE_CALLS_PER_RUN_MAX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimit;

impl World {
    pub fn new(config: WorldConfig) -> World {
        let log = config.log.as_ref().and_then(log::LogWorld::new);
        World { config, log, ..World::default() }
    }

    /// A new world for `config`, shared.
    pub fn shared(config: &WorldConfig) -> SharedWorld {
        Arc::new(Mutex::new(World::new(config.clone())))
    }

    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Calls to outside services so far: mails, publications and offset commits together.
    pub(crate) fn outside_calls(&self) -> usize {
        self.calls.len() + self.published.len() + self.offset_commits
    }

    /// The calls recorded so far, in order.
    pub fn calls(&self) -> &[MailCall] {
        &self.calls
    }

    /// A delivery to `instance` begins: the run's simulated clock moves on by one delivery.
    pub fn begin_delivery(&mut self, instance: u32) {
        self.deliveries += 1;
        self.delivery_of.insert(instance, self.deliveries);
    }

    /// The delivery to `instance` ended in an injected crash: its calls are marked as such.
    pub fn crashed(&mut self, instance: u32) {
        let Some(&delivery) = self.delivery_of.get(&instance) else { return };
        for call in self.calls.iter_mut().filter(|c| c.instance == instance && c.delivery == delivery) {
            call.crashed = true;
        }
        for p in self.published.iter_mut().filter(|p| p.instance == instance && p.delivery == delivery) {
            p.crashed = true;
        }
        self.finish_in_flight(instance);
    }

    /// Answers a call and records it; `Err` past [`OUTSIDE_CALLS_PER_RUN_MAX`] (mails and
    /// publications together). An interleaved run then keeps a sent call's key in flight
    /// ([`World::start_in_flight`]) while the other instance takes its turn.
    pub fn send_mail(&mut self, request: MailRequest<'_>) -> Result<MailAnswer, CallLimit> {
        if self.outside_calls() >= OUTSIDE_CALLS_PER_RUN_MAX {
            return Err(CallLimit);
        }
        let Some(mail) = self.config.mail.clone() else { return Ok(MailAnswer::Invalid) };
        let delivery = self.delivery_of.get(&request.instance).copied().unwrap_or(self.deliveries);
        let text =
            |bytes: &[u8], max: usize| String::from_utf8_lossy(&bytes[..bytes.len().min(max)]).into_owned();
        let key = text(request.key, PROVIDER_KEY_BYTES_MAX + 1);
        let payload = (
            text(request.recipient, OUTSIDE_ADDRESS_BYTES_MAX + 1),
            text(request.body, OUTSIDE_PAYLOAD_BYTES_MAX + 1),
        );
        let answer = if invalid_request(request.key, request.recipient, request.body, mail.idempotency_keys)
            .is_some()
        {
            MailAnswer::Invalid
        } else if self.transiently_failing(&request.msg_id) {
            MailAnswer::Unavailable
        } else if !mail.idempotency_keys {
            MailAnswer::Sent
        } else {
            let expired = self.keys.get(&key).is_some_and(|kept| {
                kept.in_flight.is_none() && delivery > kept.stored_at + mail.ttl_deliveries
            });
            if expired {
                self.keys.remove(&key);
            }
            match self.keys.get(&key) {
                Some(kept) if kept.in_flight.is_some_and(|i| i != request.instance) => {
                    MailAnswer::KeyInFlight
                }
                Some(kept) if kept.payload != payload => MailAnswer::KeyReused,
                Some(_) => MailAnswer::Replayed,
                None => {
                    let kept = KeptKey { payload: payload.clone(), stored_at: delivery, in_flight: None };
                    self.keys.insert(key.clone(), kept);
                    MailAnswer::Sent
                }
            }
        };
        self.calls.push(MailCall {
            instance: request.instance,
            delivery,
            msg_id: request.msg_id,
            key,
            recipient: payload.0,
            body: payload.1,
            answer,
            crashed: false,
        });
        Ok(answer)
    }

    /// Marks the key of `instance`'s last call in flight (an interleaved run lets the other
    /// instance go on while the request travels).
    pub fn start_in_flight(&mut self, instance: u32) {
        let Some(call) = self.calls.last().filter(|c| c.instance == instance && c.answer == MailAnswer::Sent)
        else {
            return;
        };
        if let Some(kept) = self.keys.get_mut(&call.key) {
            kept.in_flight = Some(instance);
        }
    }

    /// The calls of `instance` in flight have their answer.
    pub fn finish_in_flight(&mut self, instance: u32) {
        for kept in self.keys.values_mut().filter(|k| k.in_flight == Some(instance)) {
            kept.in_flight = None;
        }
    }
}

/// Creates the tables [`MAILS_TABLE`], [`broker::PUBLISHED_TABLE`], [`queue::DLQ_TABLE`] and the
/// log's on `conn` (in its `temp` schema: a guest's connection never sees them) if they are not
/// there yet.
pub fn create_observer_tables(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    broker::create_observer_table(conn)?;
    queue::create_observer_table(conn)?;
    log::create_observer_tables(conn)?;
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS mails (
             key TEXT, recipient TEXT, body TEXT, msg_id TEXT, instance INTEGER, delivery INTEGER,
             answer TEXT, effect INTEGER, crashed INTEGER)",
    )
}

/// Writes `world`'s recorded calls into the observer's [`MAILS_TABLE`], replacing what it held.
pub fn show_to_observer(conn: &rusqlite::Connection, world: &World) -> rusqlite::Result<()> {
    create_observer_tables(conn)?;
    conn.execute("DELETE FROM temp.mails", [])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO temp.mails (key, recipient, body, msg_id, instance, delivery, answer, effect, crashed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for call in world.calls() {
        insert.execute(rusqlite::params![
            call.key,
            call.recipient,
            call.body,
            call.msg_id,
            call.instance,
            call.delivery,
            call.answer.name(),
            call.answer == MailAnswer::Sent,
            call.crashed,
        ])?;
    }
    broker::show_to_observer(conn, world)?;
    queue::show_to_observer(conn, world)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(keys: bool, ttl: u32) -> World {
        World::new(WorldConfig {
            mail: Some(MailConfig { idempotency_keys: keys, ttl_deliveries: ttl }),
            ..WorldConfig::default()
        })
    }

    fn send(world: &mut World, instance: u32, key: &str, body: &str) -> MailAnswer {
        let request = MailRequest {
            instance,
            msg_id: "1".into(),
            key: key.as_bytes(),
            recipient: b"anna@example.org",
            body: body.as_bytes(),
        };
        world.send_mail(request).expect("within the limit")
    }

    #[test]
    fn a_key_is_replayed_refused_with_another_payload_and_forgotten_after_its_ttl() {
        let mut w = world(true, 2);
        w.begin_delivery(1);
        assert_eq!(send(&mut w, 1, "7", "hallo"), MailAnswer::Sent);
        assert_eq!(send(&mut w, 1, "7", "hallo"), MailAnswer::Replayed);
        assert_eq!(send(&mut w, 1, "7", "anders"), MailAnswer::KeyReused);
        w.begin_delivery(1);
        w.begin_delivery(1);
        assert_eq!(send(&mut w, 1, "7", "hallo"), MailAnswer::Replayed, "two deliveries later: still kept");
        w.begin_delivery(1);
        assert_eq!(send(&mut w, 1, "7", "hallo"), MailAnswer::Sent, "three deliveries later: forgotten");
        assert_eq!(w.calls().iter().filter(|c| c.answer == MailAnswer::Sent).count(), 2);
    }

    #[test]
    fn a_key_in_flight_is_refused_to_another_instance_and_every_call_sends_without_keys() {
        let mut w = world(true, 10);
        w.begin_delivery(1);
        w.begin_delivery(2);
        assert_eq!(send(&mut w, 1, "7", "hallo"), MailAnswer::Sent);
        w.start_in_flight(1);
        assert_eq!(send(&mut w, 2, "7", "hallo"), MailAnswer::KeyInFlight);
        w.finish_in_flight(1);
        assert_eq!(send(&mut w, 2, "7", "hallo"), MailAnswer::Replayed);
        let mut plain = world(false, 10);
        plain.begin_delivery(1);
        assert_eq!(send(&mut plain, 1, "7", "hallo"), MailAnswer::Sent);
        assert_eq!(send(&mut plain, 1, "", "hallo"), MailAnswer::Sent, "no key is needed");
    }

    #[test]
    fn odd_keys_are_invalid_requests_and_the_calls_are_bounded() {
        let mut w = world(true, 10);
        w.begin_delivery(1);
        for key in ["", "a\u{0}b", "a\nb", &"k".repeat(PROVIDER_KEY_BYTES_MAX + 1)] {
            assert_eq!(send(&mut w, 1, key, "x"), MailAnswer::Invalid, "{key:?}");
        }
        let request =
            MailRequest { instance: 1, msg_id: "1".into(), key: &[0xff, 0xfe], recipient: b"a", body: b"" };
        assert_eq!(w.send_mail(request), Ok(MailAnswer::Invalid));
        while w.calls().len() < OUTSIDE_CALLS_PER_RUN_MAX {
            send(&mut w, 1, "k", "x");
        }
        let request = MailRequest { instance: 1, msg_id: "1".into(), key: b"k", recipient: b"a", body: b"" };
        assert_eq!(w.send_mail(request), Err(CallLimit));
    }

    #[test]
    fn a_crash_marks_the_calls_of_its_delivery_and_the_observer_sees_them() {
        let mut w = world(false, 10);
        w.begin_delivery(1);
        send(&mut w, 1, "7", "hallo");
        w.crashed(1);
        w.begin_delivery(2);
        send(&mut w, 2, "7", "hallo");
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        show_to_observer(&conn, &w).expect("shown");
        let rows: Vec<(i64, i64, i64)> = conn
            .prepare("SELECT delivery, effect, crashed FROM mails ORDER BY delivery")
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
            .expect("read");
        assert_eq!(rows, vec![(1, 1, 1), (2, 1, 0)]);
    }
}
