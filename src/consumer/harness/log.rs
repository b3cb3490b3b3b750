//! The crash check on an event log (`[consumer.world.log]`): after a crash the log resumes at the
//! group's committed offset, so a record is delivered again only when that offset has not moved
//! past it. The moment of the crash is said in the log's words ("nach dem Verarbeiten, vor dem
//! Offset-Commit").

use super::Harness;
use crate::consumer::checks::catalogue::problem;
use crate::consumer::checks::texts::{Problem, Prose};
use crate::consumer::rundb::RunDb;
use crate::consumer::state::State;
use crate::consumer::world::log::{OffsetStore, record_of};
use crate::report::roles::Role;
use crate::text::Text;

/// Where a crash left a record of the log.
pub(super) struct LogAfterCrash {
    pub partition: u32,
    pub offset: u64,
    pub committed: u64,
    /// The log keeps the offsets itself (`offsets = "broker"`), apart from the database.
    pub keeps_offsets: bool,
    /// What the log does next, in words, for the trace.
    pub note: Text,
}

impl LogAfterCrash {
    /// The log resumes past the record: it is never delivered again.
    pub(crate) fn skips(&self) -> bool {
        self.committed > self.offset
    }

    /// The crash check's failure when the log skips the record after the crash at `place`.
    pub(crate) fn skipped(&self, place: Text) -> Problem {
        let number = |n: u64| Text::same(n.to_string());
        let fill = [
            ("place", place),
            ("partition", number(u64::from(self.partition))),
            ("offset", number(self.offset)),
            ("committed", number(self.committed)),
        ];
        let prose = if self.keeps_offsets { Prose::CrashLogSkippedInLog } else { Prose::CrashLogSkipped };
        problem(prose, &fill)
    }
}

impl Harness<'_> {
    /// Whether a table of the database the exercise's effect is shown in differs between `before`
    /// and `after` (the record was processed, at least in part). What happened outside (a log's
    /// offsets, read by an `outside` query) is no processing.
    pub(super) fn effect_changed(&self, before: &State, after: &State) -> bool {
        let (before, after) = (self.inside(before), self.inside(after));
        self.roles.names(Role::Effect).iter().any(|table| before.get(table) != after.get(table))
    }

    /// Where the crash left `message`'s record, read after the state (which mirrors the committed
    /// offsets into the run's log); `None` without a log. `durable` says whether the effect of
    /// the delivery survived the crash ([`Harness::effect_changed`]).
    pub(super) fn log_after_crash(
        &self,
        db: &RunDb,
        message: &serde_json::Value,
        durable: bool,
    ) -> Option<LogAfterCrash> {
        let (partition, offset) = record_of(message)?;
        let world = db.world().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let log = world.log()?;
        let committed = log.committed(partition);
        let keeps_offsets = log.config().offsets == OffsetStore::Broker;
        let note = match (committed > offset, durable) {
            (true, false) => text_of(
                "Absturz nach dem Offset-Commit, vor dem Verarbeiten",
                "crash after the offset commit, before processing",
                (partition, offset, committed),
                ("das Log liest bei Offset", "the log reads on at offset"),
            ),
            (true, true) => text_of(
                "Absturz nach dem Verarbeiten und dem Offset-Commit",
                "crash after processing and the offset commit",
                (partition, offset, committed),
                ("das Log liest bei Offset", "the log reads on at offset"),
            ),
            (false, true) => text_of(
                "Absturz nach dem Verarbeiten, vor dem Offset-Commit",
                "crash after processing, before the offset commit",
                (partition, offset, committed),
                ("das Log stellt erneut zu ab Offset", "the log redelivers from offset"),
            ),
            (false, false) => text_of(
                "Absturz vor dem Verarbeiten und vor dem Offset-Commit",
                "crash before processing and before the offset commit",
                (partition, offset, committed),
                ("das Log stellt erneut zu ab Offset", "the log redelivers from offset"),
            ),
        };
        Some(LogAfterCrash { partition, offset, committed, keeps_offsets, note })
    }
}

fn text_of(de: &str, en: &str, (partition, offset, committed): (u32, u64, u64), next: (&str, &str)) -> Text {
    Text {
        de: format!(
            "Log: {de} (Partition {partition}, Offset {offset}; festgeschrieben ist Offset {committed}): {} {committed}",
            next.0
        ),
        en: format!(
            "log: {en} (partition {partition}, offset {offset}; committed offset {committed}): {} {committed}",
            next.1
        ),
    }
}
