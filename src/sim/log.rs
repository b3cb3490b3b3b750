//! An event log with partitions and consumer groups (Kafka's model, simplified for teaching).
//!
//! A record is appended to one partition and gets the next *offset* there (0, 1, 2, ...); records
//! are never deleted, and reading does not remove them. A *consumer group* reads the log; each
//! group keeps one *committed offset* per partition: the offset of the next record the group will
//! read after a restart (so after processing offset 7 the group commits 8, `offset + 1`). Two groups
//! each see every record (fan-out); the consumers of one group share the partitions (competing
//! consumers: partition `p` belongs to the `p mod n`-th of its `n` members, in joining order).
//!
//! A consumer reads from its in-memory *position*, which runs ahead of the committed offset. When
//! it crashes, the position is lost: its partitions resume from the committed offset, and every
//! record after it comes again. A commit beyond the partition's end, into an unknown partition or
//! below zero is refused; a commit that moves the offset back is taken (Kafka takes it too) and
//! the trace says so. Time is a step counter: every operation is one step. Nothing here is random.

use std::collections::BTreeMap;

use super::{Tick, TraceEntry};
use crate::limits::{LOG_GROUPS_MAX, LOG_NAME_BYTES_MAX, LOG_PARTITIONS_MAX, LOG_RECORDS_MAX};
use crate::text::Text;

/// A record's position within its partition, counting from 0.
pub type Offset = u64;

/// One record as a consumer receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<B> {
    pub partition: u32,
    pub offset: Offset,
    pub body: B,
    /// How often the reading group has received this record, this time included.
    pub deliveries: u32,
}

/// Why the log refused an operation, in words a student reads (each names its limit or rule).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("a log has 1 to {LOG_PARTITIONS_MAX} partitions, not {0} (limit \"partitions of a log\")")]
    Partitions(i64),
    #[error("the log holds at most {LOG_RECORDS_MAX} records (limit \"records of a log\")")]
    Full,
    #[error("partition {0} does not exist (the log has partitions 0 to {1})")]
    UnknownPartition(i64, u32),
    #[error("a log has at most {LOG_GROUPS_MAX} consumer groups (limit \"consumer groups of a log\")")]
    TooManyGroups,
    #[error(
        "a group or consumer name is 1 to {LOG_NAME_BYTES_MAX} bytes long (limit \"length of a group name\")"
    )]
    Name,
}

/// Why a commit was refused; the committed offset stays where it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommitRefusal {
    /// Below zero: there is no such offset.
    Negative,
    /// Below the log's first offset: those records are gone.
    BeforeStart { start: Offset },
    /// Beyond the partition's end (the offset after its last record): nothing there was read.
    BeyondEnd { end: Offset },
    /// No such partition.
    UnknownPartition,
}

/// One thing that happened in the log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum LogEvent {
    Appended {
        partition: u32,
        offset: Offset,
    },
    /// A consumer received a record (`deliveries` > 1: the group has received it before).
    Polled {
        group: String,
        consumer: String,
        partition: u32,
        offset: Offset,
        deliveries: u32,
    },
    /// A consumer found nothing new in its partitions.
    PolledNothing {
        group: String,
        consumer: String,
    },
    /// The group's committed offset of a partition moved (`from` is where it was).
    Committed {
        group: String,
        partition: u32,
        offset: Offset,
        from: Offset,
    },
    /// A commit was refused (`offset` as asked, which may be negative).
    CommitRefused {
        group: String,
        partition: i64,
        offset: i64,
        why: CommitRefusal,
    },
    /// A consumer crashed: its partitions resume from the committed offsets.
    Crashed {
        group: String,
        consumer: String,
        resumes: Vec<(u32, Offset)>,
    },
    /// A remark by whoever drives the simulation.
    Note {
        text: Text,
    },
}

#[derive(Debug, Clone, Default)]
struct Group {
    committed: Vec<Offset>,
    /// The members' read position per partition (ahead of `committed` until they commit).
    position: Vec<Offset>,
    /// Members in joining order.
    members: Vec<String>,
    /// How often each record was received by this group, per partition and offset.
    received: Vec<Vec<u32>>,
}

/// The log. `B` is the record body (the scenario scripts use `String`).
#[derive(Debug, Clone)]
pub struct EventLog<B> {
    /// The offset of every partition's first record (older ones are gone, as after retention).
    start: Offset,
    partitions: Vec<Vec<B>>,
    groups: BTreeMap<String, Group>,
    records: usize,
    now: Tick,
    trace: Vec<TraceEntry<LogEvent>>,
}

impl<B: Clone> EventLog<B> {
    pub(crate) fn new(partitions: i64) -> Result<Self, LogError> {
        Self::starting_at(partitions, 0)
    }

    /// A log whose partitions begin at offset `start` (the records before it are gone, as after
    /// retention); a new group reads from `start`.
    pub(crate) fn starting_at(partitions: i64, start: Offset) -> Result<Self, LogError> {
        let n = u32::try_from(partitions)
            .ok()
            .filter(|n| (1..=LOG_PARTITIONS_MAX).contains(n))
            .ok_or(LogError::Partitions(partitions))?;
        Ok(EventLog {
            start,
            partitions: vec![Vec::new(); n as usize],
            groups: BTreeMap::new(),
            records: 0,
            now: 0,
            trace: Vec::new(),
        })
    }

    pub(crate) fn partition_count(&self) -> u32 {
        self.partitions.len() as u32
    }

    /// The offset after the last record of `partition` (its number of records).
    pub(crate) fn end(&self, partition: u32) -> Offset {
        self.start + self.partitions.get(partition as usize).map_or(0, |p| p.len() as Offset)
    }

    pub(crate) fn trace(&self) -> &[TraceEntry<LogEvent>] {
        &self.trace
    }

    /// The body at (`partition`, `offset`).
    pub(crate) fn body(&self, partition: u32, offset: Offset) -> Option<&B> {
        self.partitions.get(partition as usize)?.get(usize::try_from(offset.checked_sub(self.start)?).ok()?)
    }

    fn record(&mut self, event: LogEvent) {
        self.now += 1;
        self.trace.push(TraceEntry { tick: self.now, event });
    }

    fn partition_index(&self, partition: i64) -> Result<u32, LogError> {
        u32::try_from(partition)
            .ok()
            .filter(|p| *p < self.partition_count())
            .ok_or(LogError::UnknownPartition(partition, self.partition_count() - 1))
    }

    /// Appends `body` to `partition`; returns its offset.
    pub(crate) fn append(&mut self, partition: i64, body: B) -> Result<Offset, LogError> {
        let p = self.partition_index(partition)?;
        if self.records >= LOG_RECORDS_MAX {
            return Err(LogError::Full);
        }
        let records = &mut self.partitions[p as usize];
        records.push(body);
        let offset = self.start + records.len() as Offset - 1;
        self.records += 1;
        self.record(LogEvent::Appended { partition: p, offset });
        Ok(offset)
    }

    /// The partition a key's records go to: FNV-1a over its bytes, modulo the partitions (the same
    /// key always lands in the same partition, so its records keep their order).
    pub(crate) fn partition_of(&self, key: &str) -> u32 {
        let hash = key
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        (hash % u64::from(self.partition_count())) as u32
    }

    fn group_mut(&mut self, name: &str) -> Result<&mut Group, LogError> {
        if name.is_empty() || name.len() > LOG_NAME_BYTES_MAX {
            return Err(LogError::Name);
        }
        if !self.groups.contains_key(name) && self.groups.len() >= LOG_GROUPS_MAX {
            return Err(LogError::TooManyGroups);
        }
        let (n, start) = (self.partitions.len(), self.start);
        Ok(self.groups.entry(name.to_string()).or_insert_with(|| Group {
            committed: vec![start; n],
            position: vec![start; n],
            members: Vec::new(),
            received: vec![Vec::new(); n],
        }))
    }

    /// The partitions `consumer` reads in `group` (joining the group first if it is not a member).
    pub(crate) fn assignment(&mut self, group: &str, consumer: &str) -> Result<Vec<u32>, LogError> {
        if consumer.is_empty() || consumer.len() > LOG_NAME_BYTES_MAX {
            return Err(LogError::Name);
        }
        let partitions = self.partition_count();
        let g = self.group_mut(group)?;
        if !g.members.iter().any(|m| m == consumer) {
            g.members.push(consumer.to_string());
        }
        let n = g.members.len() as u32;
        let me = g.members.iter().position(|m| m == consumer).unwrap_or(0) as u32;
        Ok((0..partitions).filter(|p| p % n == me).collect())
    }

    /// The next record for `consumer` of `group`: the lowest-numbered of its partitions that has
    /// one at its position; the position moves past it (the committed offset does not).
    pub(crate) fn poll(&mut self, group: &str, consumer: &str) -> Result<Option<Record<B>>, LogError> {
        let mine = self.assignment(group, consumer)?;
        let ends: Vec<Offset> = (0..self.partition_count()).map(|p| self.end(p)).collect();
        let start = self.start;
        let g = self.group_mut(group)?;
        let Some(p) = mine.into_iter().find(|&p| g.position[p as usize] < ends[p as usize]) else {
            self.record(LogEvent::PolledNothing { group: group.into(), consumer: consumer.into() });
            return Ok(None);
        };
        let offset = g.position[p as usize];
        g.position[p as usize] += 1;
        let counts = &mut g.received[p as usize];
        let slot = (offset - start) as usize;
        if counts.len() <= slot {
            counts.resize(slot + 1, 0);
        }
        counts[slot] += 1;
        let deliveries = counts[slot];
        let body = self.partitions[p as usize][slot].clone();
        self.record(LogEvent::Polled {
            group: group.into(),
            consumer: consumer.into(),
            partition: p,
            offset,
            deliveries,
        });
        Ok(Some(Record { partition: p, offset, body, deliveries }))
    }

    /// Commits `offset` as `group`'s committed offset of `partition` (the next record to read);
    /// returns the refusal when the log does not take it.
    pub(crate) fn commit(
        &mut self,
        group: &str,
        partition: i64,
        offset: i64,
    ) -> Result<Option<CommitRefusal>, LogError> {
        self.group_mut(group)?;
        let why = match (self.partition_index(partition), Offset::try_from(offset)) {
            (Err(_), _) => Some(CommitRefusal::UnknownPartition),
            (Ok(_), Err(_)) => Some(CommitRefusal::Negative),
            (Ok(_), Ok(o)) if o < self.start => Some(CommitRefusal::BeforeStart { start: self.start }),
            (Ok(p), Ok(o)) if o > self.end(p) => Some(CommitRefusal::BeyondEnd { end: self.end(p) }),
            (Ok(_), Ok(_)) => None,
        };
        if let Some(why) = why {
            self.record(LogEvent::CommitRefused { group: group.into(), partition, offset, why });
            return Ok(Some(why));
        }
        let (p, o) = (partition as u32, offset as Offset);
        let g = self.group_mut(group)?;
        let from = std::mem::replace(&mut g.committed[p as usize], o);
        // A commit ahead of the position (before the record was read) moves the position too.
        g.position[p as usize] = g.position[p as usize].max(o);
        self.record(LogEvent::Committed { group: group.into(), partition: p, offset: o, from });
        Ok(None)
    }

    /// `group`'s committed offset of `partition` (the log's start before any commit).
    pub(crate) fn committed(&self, group: &str, partition: u32) -> Offset {
        self.groups
            .get(group)
            .and_then(|g| g.committed.get(partition as usize).copied())
            .unwrap_or(self.start)
    }

    /// `consumer` of `group` crashes: its partitions' positions fall back to the committed offsets.
    pub(crate) fn crash(&mut self, group: &str, consumer: &str) -> Result<(), LogError> {
        let mine = self.assignment(group, consumer)?;
        let g = self.group_mut(group)?;
        let mut resumes = Vec::with_capacity(mine.len());
        for p in mine {
            g.position[p as usize] = g.committed[p as usize];
            resumes.push((p, g.committed[p as usize]));
        }
        self.record(LogEvent::Crashed { group: group.into(), consumer: consumer.into(), resumes });
        Ok(())
    }

    /// Records `group` received more than once.
    pub(crate) fn redelivered(&self, group: &str) -> usize {
        self.groups.get(group).map_or(0, |g| g.received.iter().flatten().filter(|&&n| n > 1).count())
    }

    /// Records `group` has received at least once, over all partitions.
    pub(crate) fn received(&self, group: &str) -> usize {
        self.groups.get(group).map_or(0, |g| g.received.iter().flatten().filter(|&&n| n > 0).count())
    }

    /// A remark in the trace.
    pub(crate) fn note(&mut self, text: Text) {
        self.record(LogEvent::Note { text });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(partitions: i64, records: &[(i64, &str)]) -> EventLog<String> {
        let mut log = EventLog::new(partitions).expect("valid");
        for (p, body) in records {
            log.append(*p, (*body).to_string()).expect("appended");
        }
        log
    }

    fn offsets(log: &mut EventLog<String>, group: &str, consumer: &str) -> Vec<(u32, Offset)> {
        std::iter::from_fn(|| log.poll(group, consumer).expect("poll"))
            .map(|r| (r.partition, r.offset))
            .collect()
    }

    #[test]
    fn two_groups_each_see_every_record_and_members_of_one_group_share_the_partitions() {
        let mut log = log_of(2, &[(0, "a"), (1, "b"), (0, "c")]);
        assert_eq!(offsets(&mut log, "rechnung", "r1"), vec![(0, 0), (0, 1), (1, 0)]);
        assert_eq!(offsets(&mut log, "statistik", "s1").len(), 3, "fan-out: the second group sees all");
        let mut shared = log_of(2, &[(0, "a"), (1, "b"), (0, "c")]);
        assert_eq!(shared.assignment("g", "k1").expect("join"), vec![0, 1]);
        assert_eq!(shared.assignment("g", "k2").expect("join"), vec![1]);
        assert_eq!(offsets(&mut shared, "g", "k1"), vec![(0, 0), (0, 1)], "k1 keeps partition 0 only");
        assert_eq!(offsets(&mut shared, "g", "k2"), vec![(1, 0)], "competing: each record once in the group");
    }

    #[test]
    fn a_crash_resumes_from_the_committed_offset_and_redelivers_what_came_after() {
        let mut log = log_of(1, &[(0, "a"), (0, "b"), (0, "c")]);
        log.poll("g", "k").expect("poll");
        log.commit("g", 0, 1).expect("commit");
        log.poll("g", "k").expect("poll");
        log.poll("g", "k").expect("poll");
        log.crash("g", "k").expect("crash");
        assert_eq!(offsets(&mut log, "g", "k"), vec![(0, 1), (0, 2)], "offsets 1 and 2 come again");
        assert_eq!(log.redelivered("g"), 2);
        assert_eq!(log.committed("g", 0), 1);
    }

    #[test]
    fn a_commit_before_processing_skips_the_record_after_a_crash() {
        let mut log = log_of(1, &[(0, "a")]);
        let record = log.poll("g", "k").expect("poll").expect("a record");
        log.commit("g", 0, record.offset as i64 + 1).expect("commit");
        log.crash("g", "k").expect("crash before processing");
        assert_eq!(offsets(&mut log, "g", "k"), vec![], "the record is never processed");
    }

    #[test]
    fn commits_out_of_range_are_refused_and_a_commit_back_is_recorded() {
        let mut log = log_of(2, &[(0, "a")]);
        assert_eq!(log.commit("g", 0, -1), Ok(Some(CommitRefusal::Negative)));
        assert_eq!(log.commit("g", 0, 2), Ok(Some(CommitRefusal::BeyondEnd { end: 1 })));
        assert_eq!(log.commit("g", 0, i64::MAX), Ok(Some(CommitRefusal::BeyondEnd { end: 1 })));
        assert_eq!(log.commit("g", 7, 0), Ok(Some(CommitRefusal::UnknownPartition)));
        assert_eq!(log.commit("g", -1, 0), Ok(Some(CommitRefusal::UnknownPartition)));
        assert_eq!(log.committed("g", 0), 0);
        assert_eq!(log.commit("g", 0, 1), Ok(None));
        assert_eq!(log.commit("g", 0, 0), Ok(None));
        let last = &log.trace().last().expect("an event").event;
        assert_eq!(last, &LogEvent::Committed { group: "g".into(), partition: 0, offset: 0, from: 1 });
    }

    #[test]
    fn a_log_after_retention_starts_at_its_first_offset() {
        let mut log = EventLog::starting_at(2, 40).expect("valid");
        assert_eq!(log.append(1, "a".to_string()), Ok(40));
        assert_eq!(log.append(1, "b".to_string()), Ok(41));
        assert_eq!(log.committed("g", 1), 40);
        assert_eq!(offsets(&mut log, "g", "k"), vec![(1, 40), (1, 41)]);
        assert_eq!(log.commit("g", 1, 39), Ok(Some(CommitRefusal::BeforeStart { start: 40 })));
        assert_eq!(log.commit("g", 1, 42), Ok(None));
        assert_eq!(log.body(1, 41).map(String::as_str), Some("b"));
        assert_eq!(log.body(1, 39), None);
    }

    #[test]
    fn bounds_are_named() {
        assert_eq!(EventLog::<String>::new(0).unwrap_err(), LogError::Partitions(0));
        assert!(EventLog::<String>::new(i64::from(LOG_PARTITIONS_MAX) + 1).is_err());
        let mut log = log_of(1, &[]);
        for _ in 0..LOG_RECORDS_MAX {
            log.append(0, String::new()).expect("within the limit");
        }
        assert_eq!(log.append(0, String::new()), Err(LogError::Full));
        assert!(log.append(1, String::new()).is_err());
        for g in 0..LOG_GROUPS_MAX {
            log.commit(&format!("g{g}"), 0, 0).expect("within the limit");
        }
        assert_eq!(log.commit("one-more", 0, 0), Err(LogError::TooManyGroups));
        assert_eq!(log.poll(&"x".repeat(LOG_NAME_BYTES_MAX + 1), "k"), Err(LogError::Name));
        assert_eq!(log.partition_of("kunde-1"), 0);
    }
}
