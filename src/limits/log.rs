//! The event log ([`crate::sim::log`]): how many partitions and records one log may hold, in a
//! prediction script and in an exercise's `[consumer.world.log]`.

/// Partitions of one event log. A log declared with more is refused when the exercise loads, and
/// a script's `Log(n)` with more stops with the limit named ("Partitionen eines Logs" /
/// "partitions of a log").
pub const LOG_PARTITIONS_MAX: u32 = 64;
/// Records one event log holds over all its partitions. The append past it is refused with the
/// limit named ("Einträge eines Logs" / "records of a log"); every record is kept for the
/// timeline, so this bounds the log's memory.
pub const LOG_RECORDS_MAX: usize = 10_000;
/// Consumer groups of one event log; a commit or poll that would add one more is refused with the
/// limit named ("Konsumentengruppen eines Logs" / "consumer groups of a log").
pub const LOG_GROUPS_MAX: usize = 16;
/// The longest group or consumer name, in bytes; a longer one is refused with the limit named
/// ("Länge eines Gruppennamens" / "length of a group name").
pub const LOG_NAME_BYTES_MAX: usize = 64;
/// Commits (and refused commits) one run's log records from the offsets a consumer writes; past
/// it the log keeps the offsets it has, and the consumer's own table still shows what it wrote.
/// Bounds the table `log_commits` the invariants read ("Offset-Commits pro Lauf" / "offset
/// commits per run").
pub const LOG_COMMITS_PER_RUN_MAX: usize = 1_000;
