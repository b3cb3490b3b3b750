//! The queue with redrive an exercise may declare (`[consumer.world.queue]`): a receive limit
//! (`max_receive_count`, SQS's `maxReceiveCount`) after which a message nobody acked moves to the
//! dead letter queue, and transient failures of the outside service (the mail provider answers
//! "409, try again later" during a message's first `failures` receives).
//!
//! The queue itself is [`crate::sim::Queue`], the one the prediction exercises simulate: the
//! at-least-once schedules drive it with the declared limit, tell the run's world each receive
//! ([`World::received`]) and, at the end, the dead letters ([`World::dead_lettered`]). The world
//! shows them to state queries and invariants as the read-only table [`DLQ_TABLE`]. Only the
//! schedules receive through the queue: the other checks deliver each message directly, and no
//! transient failure strikes them.

use serde::Deserialize;

use super::World;
use crate::limits::{BATCH_MESSAGES_MAX, MAX_RECEIVE_COUNT_MAX, OUTSIDE_PAYLOAD_BYTES_MAX};

/// The table the dead letters appear as, to state queries and invariants.
pub const DLQ_TABLE: &str = "dlq";

/// `[consumer.world.queue]`: the queue's receive limit and the transient failures it meets.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueConfig {
    /// Receives of one message before it moves to the dead letter queue, unacked.
    pub max_receive_count: u32,
    /// Messages whose first receives meet a provider that answers "try again later".
    #[serde(default)]
    pub transient: Vec<TransientFailure>,
}

/// `{ id = 10, failures = 2 }`: during the first `failures` receives of the message with this id,
/// the mail provider answers every call with "409, try again later".
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransientFailure {
    pub id: serde_json::Value,
    pub failures: u32,
}

impl QueueConfig {
    /// The problem with the declaration, if it has one; `has_mail`: the world declares a mail
    /// provider (the service whose answers fail).
    pub fn problem(&self, has_mail: bool) -> Option<String> {
        let max = self.max_receive_count;
        if max == 0 || max > MAX_RECEIVE_COUNT_MAX {
            return Some(format!(
                "[consumer.world.queue] max_receive_count must be between 1 and {MAX_RECEIVE_COUNT_MAX} (limit \"receives before the dead letter queue\"), not {max}"
            ));
        }
        if !self.transient.is_empty() && !has_mail {
            return Some(
                "[consumer.world.queue] transient failures are answers of the mail provider: declare [consumer.world.mail] too".into(),
            );
        }
        if self.transient.len() > BATCH_MESSAGES_MAX {
            return Some(format!("[consumer.world.queue] at most {BATCH_MESSAGES_MAX} transient failures"));
        }
        self.transient.iter().find(|t| t.failures == 0 || t.failures >= max).map(|t| {
            format!(
                "[consumer.world.queue] transient failures of message {} must be between 1 and {} (fewer than max_receive_count, or a correct consumer loses the message to the dead letter queue), not {}",
                t.id,
                max - 1,
                t.failures
            )
        })
    }

    /// The problem with a transient failure whose id is that of none of `messages` (the schedules'
    /// messages).
    pub fn unknown_id(&self, messages: &[std::sync::Arc<serde_json::Value>]) -> Option<String> {
        let known = |id: &serde_json::Value| messages.iter().any(|m| m.get("id") == Some(id));
        self.transient.iter().find(|t| !known(&t.id)).map(|t| {
            format!(
                "[consumer.world.queue] transient failures name the message id {}, which no message of [consumer.messages] has",
                t.id
            )
        })
    }
}

/// One message in the dead letter queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadLetter {
    /// The message's id (its JSON text, as the recorded mails name it).
    pub msg_id: String,
    /// How often the queue delivered it before it gave up.
    pub receives: u32,
    /// The whole message as JSON, cut at [`OUTSIDE_PAYLOAD_BYTES_MAX`] bytes.
    pub body: String,
}

impl World {
    /// The queue delivers the message with id `msg_id` (its JSON text) for the `receives`-th time.
    pub fn received(&mut self, msg_id: String, receives: u32) {
        self.receives.insert(msg_id, receives);
    }

    /// Whether the provider answers "try again later" to a call made for the message `msg_id`: it
    /// is in one of its first transient failures' receives.
    pub(super) fn transiently_failing(&self, msg_id: &str) -> bool {
        let Some(queue) = self.config.queue.as_ref() else { return false };
        let Some(&receives) = self.receives.get(msg_id) else { return false };
        // The id as the recorded calls name it: its JSON text (24, or "24" for a text id).
        let names = |t: &TransientFailure| {
            let text = t.id.to_string();
            text == msg_id
        };
        queue.transient.iter().any(|t| names(t) && receives <= t.failures)
    }

    /// The queue moved `message` to the dead letter queue after `receives` receives.
    pub fn dead_lettered(&mut self, message: &serde_json::Value, receives: u32) {
        let msg_id = message.get("id").map(ToString::to_string).unwrap_or_default();
        let mut body = message.to_string();
        if body.len() > OUTSIDE_PAYLOAD_BYTES_MAX {
            let mut cut = OUTSIDE_PAYLOAD_BYTES_MAX;
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            body.truncate(cut);
        }
        self.dead_letters.push(DeadLetter { msg_id, receives, body });
    }

    /// The dead letter queue, in the order the messages moved there.
    pub fn dead_letters(&self) -> &[DeadLetter] {
        &self.dead_letters
    }
}

/// Creates the observer's table [`DLQ_TABLE`] (in `temp`) if it is not there yet.
pub fn create_observer_table(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute_batch("CREATE TEMP TABLE IF NOT EXISTS dlq (msg_id TEXT, receives INTEGER, body TEXT)")
}

/// Writes `world`'s dead letters into the observer's [`DLQ_TABLE`], replacing what it held.
pub fn show_to_observer(conn: &rusqlite::Connection, world: &World) -> rusqlite::Result<()> {
    create_observer_table(conn)?;
    conn.execute("DELETE FROM temp.dlq", [])?;
    let mut insert =
        conn.prepare_cached("INSERT INTO temp.dlq (msg_id, receives, body) VALUES (?1, ?2, ?3)")?;
    for letter in world.dead_letters() {
        insert.execute(rusqlite::params![letter.msg_id, letter.receives, letter.body])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{MailAnswer, MailConfig, MailRequest, WorldConfig};
    use super::*;

    fn config(failures: u32) -> WorldConfig {
        WorldConfig {
            mail: Some(MailConfig { idempotency_keys: true, ttl_deliveries: 1000 }),
            queue: Some(QueueConfig {
                max_receive_count: 3,
                transient: vec![TransientFailure { id: serde_json::json!(10), failures }],
            }),
            ..WorldConfig::default()
        }
    }

    fn send(world: &mut World, msg_id: &str) -> MailAnswer {
        let request = MailRequest {
            instance: 1,
            msg_id: msg_id.into(),
            key: b"10",
            recipient: b"ben@example.org",
            body: b"x",
        };
        world.send_mail(request).expect("within the limit")
    }

    #[test]
    fn the_provider_fails_during_the_first_receives_of_a_transient_message_only() {
        let mut w = World::new(config(2));
        w.begin_delivery(1);
        assert_eq!(send(&mut w, "10"), MailAnswer::Sent, "no receive told: a direct delivery never fails");
        let mut w = World::new(config(2));
        for (receives, expected) in
            [(1, MailAnswer::Unavailable), (2, MailAnswer::Unavailable), (3, MailAnswer::Sent)]
        {
            w.begin_delivery(1);
            w.received("10".into(), receives);
            assert_eq!(send(&mut w, "10"), expected, "receive {receives}");
        }
        w.received("11".into(), 1);
        assert_eq!(send(&mut w, "11"), MailAnswer::Replayed, "another message: the key's first result");
        assert_eq!(MailAnswer::Unavailable.status(), 6, "the provider's \"try again later\"");
    }

    #[test]
    fn declarations_out_of_bounds_are_problems_and_dead_letters_are_a_table() {
        let mut bad = config(3);
        assert!(bad.queue.as_ref().and_then(|q| q.problem(true)).is_some_and(|p| p.contains("fewer than")));
        bad.queue = Some(QueueConfig { max_receive_count: MAX_RECEIVE_COUNT_MAX + 1, transient: Vec::new() });
        assert!(bad.problem().is_some_and(|p| p.contains("receives before the dead letter queue")));
        let no_mail =
            QueueConfig { max_receive_count: 3, transient: config(1).queue.expect("queue").transient };
        assert!(no_mail.problem(false).is_some());
        let message = |id: u32| std::sync::Arc::new(serde_json::json!({ "id": id, "body": {} }));
        assert!(no_mail.unknown_id(&[message(11)]).is_some());
        assert!(no_mail.unknown_id(&[message(11), message(10)]).is_none());

        let mut w = World::new(config(1));
        let huge = serde_json::json!({ "id": 12, "body": { "text": "ü".repeat(OUTSIDE_PAYLOAD_BYTES_MAX) } });
        w.dead_lettered(&huge, 3);
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        super::super::show_to_observer(&conn, &w).expect("shown");
        let (id, receives, len): (String, i64, i64) = conn
            .query_row("SELECT msg_id, receives, length(CAST(body AS BLOB)) FROM dlq", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .expect("one dead letter");
        assert_eq!((id.as_str(), receives), ("12", 3));
        assert!(len as usize <= OUTSIDE_PAYLOAD_BYTES_MAX, "the body is cut at the payload limit");
    }
}
