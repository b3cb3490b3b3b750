//! The message broker an exercise may declare (`[consumer.world.broker]`): every `publish(topic,
//! key, payload)` is recorded, duplicates included, so that an invariant can see a message that
//! went out twice (the outbox pattern's at-least-once relay). What was published happened outside:
//! a crash does not undo it. The recorded publications are the observer's table
//! [`PUBLISHED_TABLE`].

use serde::Deserialize;

use super::{CallLimit, World};
use crate::limits::{OUTSIDE_ADDRESS_BYTES_MAX, OUTSIDE_CALLS_PER_RUN_MAX, OUTSIDE_PAYLOAD_BYTES_MAX};

/// The table the recorded publications appear as, to state queries and invariants.
pub const PUBLISHED_TABLE: &str = "published";

/// `[consumer.world.broker]`: a broker that takes every publication (no keys of its own; the key is
/// the message's, for the consumers downstream to deduplicate by).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerConfig {}

/// One publication, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publication {
    pub instance: u32,
    /// The run's delivery during which it was published.
    pub delivery: u32,
    /// The id of the message being delivered (its JSON text).
    pub msg_id: String,
    pub topic: String,
    pub key: String,
    pub payload: String,
    /// The broker took it (a malformed publication is refused and recorded as such).
    pub accepted: bool,
    /// The delivery that published it ended in a crash the harness injected.
    pub crashed: bool,
}

/// What a call asks of the broker.
pub struct PublishRequest<'a> {
    pub instance: u32,
    pub msg_id: String,
    pub topic: &'a [u8],
    pub key: &'a [u8],
    pub payload: &'a [u8],
}

/// Why a publication is refused, if it is.
pub fn invalid_publication(topic: &[u8], key: &[u8], payload: &[u8]) -> Option<String> {
    if topic.is_empty() || topic.len() > OUTSIDE_ADDRESS_BYTES_MAX || key.len() > OUTSIDE_ADDRESS_BYTES_MAX {
        return Some(format!(
            "the topic must be 1 to {OUTSIDE_ADDRESS_BYTES_MAX} bytes long and the key at most as long"
        ));
    }
    if payload.len() > OUTSIDE_PAYLOAD_BYTES_MAX {
        return Some(format!(
            "the payload is {} bytes long, more than {OUTSIDE_PAYLOAD_BYTES_MAX} (limit \"payload length of an outside call\")",
            payload.len()
        ));
    }
    let texts = [topic, key, payload];
    if texts.iter().any(|t| std::str::from_utf8(t).is_err()) {
        return Some("topic, key and payload must be valid UTF-8".into());
    }
    None
}

impl World {
    /// Publishes: accepted (`Ok(true)`) or refused as malformed (`Ok(false)`); recorded either way.
    /// `Err` past [`OUTSIDE_CALLS_PER_RUN_MAX`] (mails and publications together).
    pub fn publish(&mut self, request: PublishRequest<'_>) -> Result<bool, CallLimit> {
        if self.outside_calls() >= OUTSIDE_CALLS_PER_RUN_MAX {
            return Err(CallLimit);
        }
        let accepted = self.config.broker.is_some()
            && invalid_publication(request.topic, request.key, request.payload).is_none();
        let delivery = self.delivery_of.get(&request.instance).copied().unwrap_or(self.deliveries);
        let text =
            |bytes: &[u8], max: usize| String::from_utf8_lossy(&bytes[..bytes.len().min(max)]).into_owned();
        self.published.push(Publication {
            instance: request.instance,
            delivery,
            msg_id: request.msg_id,
            topic: text(request.topic, OUTSIDE_ADDRESS_BYTES_MAX + 1),
            key: text(request.key, OUTSIDE_ADDRESS_BYTES_MAX + 1),
            payload: text(request.payload, OUTSIDE_PAYLOAD_BYTES_MAX + 1),
            accepted,
            crashed: false,
        });
        Ok(accepted)
    }

    /// The publications recorded so far, in order.
    pub fn published(&self) -> &[Publication] {
        &self.published
    }
}

/// Creates the observer's table [`PUBLISHED_TABLE`] (in `temp`) if it is not there yet.
pub fn create_observer_table(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS published (
             topic TEXT, key TEXT, payload TEXT, msg_id TEXT, instance INTEGER, delivery INTEGER,
             accepted INTEGER, crashed INTEGER)",
    )
}

/// Writes `world`'s publications into the observer's [`PUBLISHED_TABLE`], replacing what it held.
pub fn show_to_observer(conn: &rusqlite::Connection, world: &World) -> rusqlite::Result<()> {
    create_observer_table(conn)?;
    conn.execute("DELETE FROM temp.published", [])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO temp.published (topic, key, payload, msg_id, instance, delivery, accepted, crashed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for p in world.published() {
        insert.execute(rusqlite::params![
            p.topic, p.key, p.payload, p.msg_id, p.instance, p.delivery, p.accepted, p.crashed
        ])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{World, WorldConfig};
    use super::*;

    fn publish(world: &mut World, instance: u32, topic: &str, key: &str) -> Result<bool, CallLimit> {
        let request = PublishRequest {
            instance,
            msg_id: "1".into(),
            topic: topic.as_bytes(),
            key: key.as_bytes(),
            payload: b"{}",
        };
        world.publish(request)
    }

    #[test]
    fn every_publication_is_recorded_duplicates_and_crashes_visible() {
        let mut world = World::new(WorldConfig { broker: Some(BrokerConfig {}), ..WorldConfig::default() });
        world.begin_delivery(1);
        assert_eq!(publish(&mut world, 1, "bestellungen", "7"), Ok(true));
        world.crashed(1);
        world.begin_delivery(2);
        assert_eq!(publish(&mut world, 2, "bestellungen", "7"), Ok(true), "the broker takes the duplicate");
        assert_eq!(publish(&mut world, 2, "", "7"), Ok(false), "no topic: refused, recorded");
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        show_to_observer(&conn, &world).expect("shown");
        let rows: Vec<(String, i64, i64)> = conn
            .prepare("SELECT key, accepted, crashed FROM published ORDER BY rowid")
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
            .expect("read");
        assert_eq!(rows, vec![("7".into(), 1, 1), ("7".into(), 1, 0), ("7".into(), 0, 0)]);
        let duplicates: i64 = conn
            .query_row("SELECT count(*) FROM (SELECT key FROM published WHERE accepted GROUP BY key HAVING count(*) > 1)", [], |r| r.get(0))
            .expect("count");
        assert_eq!(duplicates, 1);
    }

    #[test]
    fn publications_and_mails_share_the_calls_bound_and_without_a_broker_nothing_is_taken() {
        let mut world = World::new(WorldConfig::default());
        world.begin_delivery(1);
        assert_eq!(publish(&mut world, 1, "t", "k"), Ok(false));
        while world.published().len() < OUTSIDE_CALLS_PER_RUN_MAX {
            let _ = publish(&mut world, 1, "t", "k");
        }
        assert_eq!(publish(&mut world, 1, "t", "k"), Err(CallLimit));
    }
}
