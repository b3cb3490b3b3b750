//! The event log an exercise may declare (`[consumer.world.log]`): the consumer reads records of a
//! log ([`crate::sim::EventLog`], the same simulation the prediction scripts run) as one consumer
//! group, and commits the offset of the next record it will read. Each message of the exercise is
//! the record of a partition of its own (the checks reorder messages, which a log does between
//! partitions and never within one), carrying `partition` and `offset` beside `id` and `body`.
//!
//! Where the committed offset lives is declared: so far in the consumer's own database (`offsets =
//! "database"`, read by the teacher's `committed` query, so it can be written in the same
//! transaction as the effect). The harness mirrors every committed offset it reads into the log,
//! so the committed offsets and their history are the observer's tables [`OFFSETS_TABLE`] and
//! [`COMMITS_TABLE`], and a redelivery after a crash comes only when the log would resume at or
//! before the record.

use std::sync::Arc;

use serde::Deserialize;

use super::{CallLimit, World};
use rusqlite::types::Value;

use crate::limits::{
    LOG_COMMITS_PER_RUN_MAX, LOG_NAME_BYTES_MAX, LOG_PARTITIONS_MAX, OUTSIDE_CALLS_PER_RUN_MAX,
};
use crate::sim::log::{CommitRefusal, EventLog, LogEvent, Offset};

/// The table the consumer group's committed offsets appear as: `(grp, partition, committed)`.
pub const OFFSETS_TABLE: &str = "log_offsets";
/// The table every change of a committed offset appears as, in order: `(seq, grp, partition,
/// offset, previous, refused)`; `offset < previous` is an offset that moved back.
pub const COMMITS_TABLE: &str = "log_commits";
/// The highest first offset an exercise may declare (a log after retention).
pub const FIRST_OFFSET_MAX: Offset = 1_000_000;

/// Where the consumer's committed offsets live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OffsetStore {
    /// In the consumer's own database, read by the `committed` query.
    Database,
    /// In the log itself: the consumer commits through `world.commit_offset` (ABI v1.1), a call to
    /// an outside service, apart from its own transaction.
    Broker,
}

/// `[consumer.world.log]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// The log's partitions: at least one per message of the exercise.
    pub partitions: u32,
    /// The offset of every partition's first record (older ones are gone); the group's committed
    /// offsets begin here.
    #[serde(default)]
    pub first_offset: Offset,
    /// The consumer's group.
    pub group: String,
    /// Where the committed offsets live.
    pub offsets: OffsetStore,
    /// With `offsets = "database"`: a query over the exercise's tables returning `(partition,
    /// committed offset)` rows of the consumer's group.
    #[serde(default)]
    pub committed: Option<String>,
    /// The records the log holds, one per message (set by [`LogConfig::place`] when the exercise
    /// loads).
    #[serde(skip)]
    pub records: usize,
}

impl LogConfig {
    /// The problem with the declaration, if it has one.
    pub fn problem(&self) -> Option<String> {
        if self.partitions == 0 || self.partitions > LOG_PARTITIONS_MAX {
            return Some(format!(
                "[consumer.world.log] partitions must be between 1 and {LOG_PARTITIONS_MAX}, not {}",
                self.partitions
            ));
        }
        if self.group.is_empty() || self.group.len() > LOG_NAME_BYTES_MAX {
            return Some(format!("[consumer.world.log] group must be 1 to {LOG_NAME_BYTES_MAX} bytes long"));
        }
        if self.first_offset > FIRST_OFFSET_MAX {
            return Some(format!("[consumer.world.log] first_offset must be at most {FIRST_OFFSET_MAX}"));
        }
        match (self.offsets, &self.committed) {
            (OffsetStore::Database, None) => Some(
                "[consumer.world.log] offsets = \"database\" needs `committed`, a query returning the group's (partition, committed offset) rows".into(),
            ),
            (OffsetStore::Database, Some(_)) => None,
            (OffsetStore::Broker, Some(_)) => Some(
                "[consumer.world.log] offsets = \"broker\" keeps the offsets in the log: `committed` (a query over the consumer's tables) belongs to offsets = \"database\"".into(),
            ),
            (OffsetStore::Broker, None) => None,
        }
    }

    /// A new log with one record per message, message `k` in partition `k`.
    fn new_log(&self, messages: usize) -> Result<EventLog<()>, String> {
        if messages > self.partitions as usize {
            return Err(format!(
                "[consumer.world.log] partitions = {} is fewer than the {messages} messages: each message is the record of a partition of its own (the checks reorder messages, and a log keeps the order within a partition)",
                self.partitions
            ));
        }
        let mut log = EventLog::starting_at(i64::from(self.partitions), self.first_offset)
            .map_err(|e| e.to_string())?;
        for k in 0..messages {
            log.append(k as i64, ()).map_err(|e| e.to_string())?;
        }
        Ok(log)
    }

    /// Adds `partition` and `offset` to each message (objects, in the order fresh, same_body,
    /// violation, batch), as the log placed them.
    pub fn place(&mut self, messages: &mut [&mut serde_json::Value]) -> Result<(), String> {
        let log = self.new_log(messages.len())?;
        self.records = messages.len();
        for (k, message) in messages.iter_mut().enumerate() {
            let Some(object) = message.as_object_mut() else { continue };
            object.insert("partition".into(), serde_json::Value::from(k as u64));
            object.insert("offset".into(), serde_json::Value::from(log.end(k as u32) - 1));
        }
        Ok(())
    }
}

/// Places the messages the at-least-once schedules send (`batch`: fresh, same_body, violation,
/// then the batch's own, every message once) on `log`, in this order, when there is one; `firsts`
/// (fresh, same_body, violation) then share the placed messages.
pub fn place(
    log: Option<&mut LogConfig>,
    batch: &mut [Arc<serde_json::Value>],
    firsts: [&mut Arc<serde_json::Value>; 3],
) -> Result<(), String> {
    let Some(log) = log else { return Ok(()) };
    let mut values: Vec<serde_json::Value> = batch.iter().map(|m| (**m).clone()).collect();
    let mut refs: Vec<&mut serde_json::Value> = values.iter_mut().collect();
    log.place(&mut refs)?;
    for (slot, value) in batch.iter_mut().zip(values) {
        *slot = Arc::new(value);
    }
    for (first, placed) in firsts.into_iter().zip(batch.iter()) {
        *first = Arc::clone(placed);
    }
    Ok(())
}

/// The record a message is: its partition and offset, when it has them.
pub fn record_of(message: &serde_json::Value) -> Option<(u32, Offset)> {
    let partition = u32::try_from(message.get("partition")?.as_u64()?).ok()?;
    Some((partition, message.get("offset")?.as_u64()?))
}

/// The log of one run and the consumer group's committed offsets as last read.
#[derive(Debug, Clone)]
pub struct LogWorld {
    config: LogConfig,
    log: EventLog<()>,
    /// The partitions whose record the run has delivered so far (`world.commit_offset` into
    /// another is refused: nothing of it was read).
    delivered: Vec<bool>,
}

/// The answer of `world.commit_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitAnswer {
    /// The log holds the offset now (or held it already).
    Committed,
    /// The log refused it and holds what it held; recorded in its trace.
    Refused(CommitRefusal),
    /// The partition exists, but the run has not delivered its record yet: nothing was read there.
    NotDelivered,
}

impl CommitAnswer {
    /// The ABI status (`ABI.md`): 0 committed, 3 refused.
    pub fn status(self) -> i32 {
        match self {
            CommitAnswer::Committed => 0,
            CommitAnswer::Refused(_) | CommitAnswer::NotDelivered => 3,
        }
    }

    /// Its name in the trace.
    pub fn name(self) -> String {
        match self {
            CommitAnswer::Committed => "committed".into(),
            CommitAnswer::Refused(why) => {
                let why = serde_json::to_value(why).unwrap_or_default();
                let why = match &why {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Object(o) => o.keys().next().cloned().unwrap_or_default(),
                    _ => String::new(),
                };
                format!("400 refused: {why}")
            }
            CommitAnswer::NotDelivered => "400 refused: not-delivered".into(),
        }
    }
}

impl LogWorld {
    /// The run's log; `None` when the configuration cannot hold its records (the loader refused it).
    pub fn new(config: &LogConfig) -> Option<LogWorld> {
        let log = config.new_log(config.records).ok()?;
        let delivered = vec![false; log.partition_count() as usize];
        Some(LogWorld { config: config.clone(), log, delivered })
    }

    /// The run delivers `message`: its record's partition counts as read from now on.
    pub fn delivering(&mut self, message: &serde_json::Value) {
        if let Some(slot) = record_of(message).and_then(|(p, _)| self.delivered.get_mut(p as usize)) {
            *slot = true;
        }
    }

    /// `world.commit_offset(partition, offset)` with `offsets = "broker"`: the log takes the
    /// offset as the group's committed offset, or refuses it (out of range, or a partition whose
    /// record the run has not delivered). Past [`LOG_COMMITS_PER_RUN_MAX`] recorded commits the
    /// log still answers but records nothing more.
    pub fn commit_by_consumer(&mut self, partition: i64, offset: i64) -> CommitAnswer {
        let known = usize::try_from(partition).ok().and_then(|p| self.delivered.get(p).copied());
        if known == Some(false) {
            return CommitAnswer::NotDelivered;
        }
        let group = self.config.group.clone();
        match self.commit(&group, partition, offset) {
            Ok(None) => CommitAnswer::Committed,
            Ok(Some(why)) => CommitAnswer::Refused(why),
            // The group is the exercise's, checked when it loaded: no other error can come.
            Err(_) => CommitAnswer::Refused(CommitRefusal::UnknownPartition),
        }
    }

    pub fn config(&self) -> &LogConfig {
        &self.config
    }

    /// The group's committed offset of `partition`.
    pub fn committed(&self, partition: u32) -> Offset {
        self.log.committed(&self.config.group, partition)
    }

    /// A commit the consumer made (or the harness read from its database); the refusal, if the
    /// log refused it. A repeated commit of the same offset changes nothing and is not recorded;
    /// past [`LOG_COMMITS_PER_RUN_MAX`] commits in the run's log, nothing more is recorded.
    pub fn commit(
        &mut self,
        group: &str,
        partition: i64,
        offset: i64,
    ) -> Result<Option<CommitRefusal>, String> {
        let unchanged = u32::try_from(partition)
            .ok()
            .filter(|p| *p < self.log.partition_count())
            .is_some_and(|p| i64::try_from(self.log.committed(group, p)).ok() == Some(offset));
        if unchanged || self.log.trace().len() >= LOG_COMMITS_PER_RUN_MAX + self.config.records {
            return Ok(None);
        }
        self.log.commit(group, partition, offset).map_err(|e| e.to_string())
    }
}

impl World {
    /// The run's log, when the exercise declares one.
    pub fn log(&self) -> Option<&LogWorld> {
        self.log.as_ref()
    }

    /// The run's log, to commit to.
    pub fn log_mut(&mut self) -> Option<&mut LogWorld> {
        self.log.as_mut()
    }

    /// `world.commit_offset(partition, offset)`: `None` when the exercise declares no log whose
    /// offsets the log keeps (`offsets = "broker"`); `Err` past [`OUTSIDE_CALLS_PER_RUN_MAX`]
    /// (mails, publications and offset commits together).
    pub fn commit_offset(&mut self, partition: i64, offset: i64) -> Option<Result<CommitAnswer, CallLimit>> {
        if self.log.as_ref()?.config.offsets != OffsetStore::Broker {
            return None;
        }
        if self.outside_calls() >= OUTSIDE_CALLS_PER_RUN_MAX {
            return Some(Err(CallLimit));
        }
        self.offset_commits += 1;
        Some(Ok(self.log.as_mut()?.commit_by_consumer(partition, offset)))
    }

    /// A delivery of `message` begins: its record's partition counts as read.
    pub fn delivering(&mut self, message: &serde_json::Value) {
        if let Some(log) = self.log.as_mut() {
            log.delivering(message);
        }
    }
}

/// Creates the observer's tables [`OFFSETS_TABLE`] and [`COMMITS_TABLE`] (in `temp`).
pub fn create_observer_tables(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS log_offsets (grp TEXT, partition INTEGER, committed INTEGER);
         CREATE TEMP TABLE IF NOT EXISTS log_commits (
             seq INTEGER, grp TEXT, partition INTEGER, offset INTEGER, previous INTEGER, refused TEXT)",
    )
}

/// Reads the committed offsets from the consumer's database (`offsets = "database"`) into the
/// run's log, then writes the observer's tables.
pub fn show_to_observer(conn: &rusqlite::Connection, world: &mut World) -> rusqlite::Result<()> {
    create_observer_tables(conn)?;
    let Some(log) = world.log.as_mut() else { return Ok(()) };
    if let Some(sql) = log.config.committed.clone() {
        // The consumer wrote these rows: at most one per partition is read, and a value that is
        // not an integer (a text, a blob) is no offset the log could take: it is left to the state
        // comparison and the invariants, which see the consumer's table as it is.
        let mut statement = conn.prepare_cached(&sql)?;
        let rows: Vec<(Value, Value)> = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .take(LOG_PARTITIONS_MAX as usize)
            .collect::<rusqlite::Result<_>>()?;
        let group = log.config.group.clone();
        for (partition, offset) in rows {
            let (Value::Integer(partition), Value::Integer(offset)) = (partition, offset) else { continue };
            // A refusal is recorded in the log's trace and shown below; it is the consumer's doing.
            let _ = log.commit(&group, partition, offset);
        }
    }
    conn.execute_batch("DELETE FROM temp.log_offsets; DELETE FROM temp.log_commits;")?;
    let group = log.config.group.clone();
    let mut offsets =
        conn.prepare_cached("INSERT INTO temp.log_offsets (grp, partition, committed) VALUES (?1, ?2, ?3)")?;
    for p in 0..log.log.partition_count() {
        offsets.execute(rusqlite::params![group, p, log.committed(p) as i64])?;
    }
    let mut commits = conn.prepare_cached(
        "INSERT INTO temp.log_commits (seq, grp, partition, offset, previous, refused) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (seq, entry) in log.log.trace().iter().enumerate() {
        match &entry.event {
            LogEvent::Committed { group, partition, offset, from } => {
                commits.execute(rusqlite::params![
                    seq as i64,
                    group,
                    partition,
                    *offset as i64,
                    *from as i64,
                    None::<String>
                ])?;
            }
            LogEvent::CommitRefused { group, partition, offset, why } => {
                let why = serde_json::to_string(why).unwrap_or_default();
                commits.execute(rusqlite::params![
                    seq as i64,
                    group,
                    partition,
                    offset,
                    None::<i64>,
                    Some(why)
                ])?;
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::WorldConfig;
    use super::*;

    fn config(offsets: OffsetStore, committed: Option<&str>) -> LogConfig {
        LogConfig {
            partitions: 3,
            first_offset: 40,
            group: "statistik".into(),
            offsets,
            committed: committed.map(str::to_string),
            records: 3,
        }
    }

    #[test]
    fn each_message_is_the_record_of_a_partition_of_its_own() {
        let mut c = config(OffsetStore::Database, Some("SELECT 1, 2"));
        let mut a = serde_json::json!({"id": 7, "body": {}});
        let mut b = serde_json::json!({"id": 8, "body": {}});
        c.place(&mut [&mut a, &mut b]).expect("placed");
        assert_eq!((record_of(&a), record_of(&b)), (Some((0, 40)), Some((1, 40))));
        let mut more: Vec<serde_json::Value> = (0..4).map(|i| serde_json::json!({"id": i})).collect();
        let mut refs: Vec<&mut serde_json::Value> = more.iter_mut().collect();
        assert!(c.place(&mut refs).unwrap_err().contains("fewer than the 4 messages"));
        assert!(config(OffsetStore::Database, None).problem().is_some());
        assert!(LogConfig { partitions: 0, ..c.clone() }.problem().is_some());
        assert!(c.problem().is_none());
    }

    #[test]
    fn a_log_that_keeps_the_offsets_takes_commits_of_delivered_partitions_and_refuses_the_rest() {
        assert!(config(OffsetStore::Broker, Some("SELECT 1, 2")).problem().is_some(), "no query");
        let c = config(OffsetStore::Broker, None);
        assert!(c.problem().is_none());
        let mut world = World::new(WorldConfig { log: Some(c), ..WorldConfig::default() });
        assert_eq!(world.commit_offset(0, 41), Some(Ok(CommitAnswer::NotDelivered)));
        world.delivering(&serde_json::json!({"id": 1, "partition": 0, "offset": 40}));
        assert_eq!(world.commit_offset(0, 41), Some(Ok(CommitAnswer::Committed)));
        assert_eq!(world.commit_offset(0, 41), Some(Ok(CommitAnswer::Committed)), "held already");
        let refused = |why| Some(Ok(CommitAnswer::Refused(why)));
        assert_eq!(world.commit_offset(0, 42), refused(CommitRefusal::BeyondEnd { end: 41 }));
        assert_eq!(world.commit_offset(0, 39), refused(CommitRefusal::BeforeStart { start: 40 }));
        assert_eq!(world.commit_offset(0, i64::MIN), refused(CommitRefusal::Negative));
        assert_eq!(world.commit_offset(-1, 41), refused(CommitRefusal::UnknownPartition));
        assert_eq!(world.commit_offset(i64::MAX, 41), refused(CommitRefusal::UnknownPartition));
        assert_eq!(world.log().expect("a log").committed(0), 41, "the log keeps what it held");
        assert_eq!(
            CommitAnswer::Refused(CommitRefusal::BeyondEnd { end: 41 }).name(),
            "400 refused: beyond-end"
        );
        assert_eq!(CommitAnswer::Committed.status(), 0);
        assert_eq!(CommitAnswer::NotDelivered.status(), 3);
        for _ in 8..OUTSIDE_CALLS_PER_RUN_MAX {
            world.commit_offset(0, 41);
        }
        assert_eq!(world.commit_offset(0, 41), Some(Err(CallLimit)), "the outside-call limit");
        let database = World::new(WorldConfig {
            log: Some(config(OffsetStore::Database, Some("SELECT 1, 2"))),
            ..WorldConfig::default()
        });
        assert_eq!({ database }.commit_offset(0, 41), None, "the database keeps these offsets");
    }

    #[test]
    fn the_database_offsets_are_mirrored_and_a_move_back_is_visible() {
        let c = config(OffsetStore::Database, Some("SELECT partition, naechster FROM offsets"));
        let mut world = World::new(WorldConfig { log: Some(c), ..WorldConfig::default() });
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        conn.execute_batch(
            "CREATE TABLE offsets (partition INTEGER, naechster INTEGER); INSERT INTO offsets VALUES (0, 40)",
        )
        .expect("schema");
        show_to_observer(&conn, &mut world).expect("shown");
        conn.execute("UPDATE offsets SET naechster = 41", []).expect("commit");
        show_to_observer(&conn, &mut world).expect("shown");
        conn.execute("UPDATE offsets SET naechster = 40", []).expect("move back");
        show_to_observer(&conn, &mut world).expect("shown");
        conn.execute("UPDATE offsets SET naechster = 99", []).expect("beyond the end");
        show_to_observer(&conn, &mut world).expect("shown");
        let rows: Vec<(i64, Option<i64>, Option<String>)> = conn
            .prepare("SELECT offset, previous, refused FROM log_commits ORDER BY seq")
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
            .expect("read");
        assert_eq!(
            rows,
            vec![
                (41, Some(40), None),
                (40, Some(41), None),
                (99, None, Some("{\"beyond-end\":{\"end\":41}}".into()))
            ]
        );
        let moved_back: i64 = conn
            .query_row("SELECT count(*) FROM log_commits WHERE offset < previous", [], |r| r.get(0))
            .expect("count");
        assert_eq!(moved_back, 1);
        assert_eq!(world.log().expect("a log").committed(0), 40);
    }
}
