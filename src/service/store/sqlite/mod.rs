//! The SQLite [`Store`]: one database file in WAL mode in the data directory, created and migrated on
//! first start ([`migrate`]). Reads use a small pool of connections, which WAL lets run beside the
//! writer; writes go to the group-commit [`writer`], one savepoint per write.
//!
//! The SQL is grouped by what it serves: `clients` (and settings), `intake`, `jobs` (the queue
//! and its leases), `results`, `outbox`. This file only routes each [`Store`] method to a read
//! connection or to the writer.

mod clients;
pub(crate) mod error;
mod intake;
mod jobs;
mod lti;
pub(crate) mod migrate;
mod nodes;
mod outbox;
mod privacy;
mod results;
mod teachers;
pub(crate) mod writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;

use self::error::{During, Sql};
use self::writer::Writer;
use super::*;
use crate::submission::Submission;

/// The database file inside the data directory.
pub const DATABASE_FILE: &str = "pruefstein.db";
/// SQLite's write-ahead log beside the database (it takes the database file's mode).
pub(crate) const WAL_FILE: &str = "pruefstein.db-wal";
/// SQLite's shared-memory index of the log (it takes the database file's mode too).
pub(crate) const SHM_FILE: &str = "pruefstein.db-shm";

/// How hard SQLite works to keep a commit through a power cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Durability {
    /// `synchronous = FULL`: a commit survives a power cut (the default).
    #[default]
    Full,
    /// `synchronous = NORMAL`: a commit survives a crash of the process, not of the machine.
    Normal,
}

impl std::str::FromStr for Durability {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "full" => Ok(Durability::Full),
            "normal" => Ok(Durability::Normal),
            other => Err(format!("unknown durability {other:?}: use \"full\" or \"normal\"")),
        }
    }
}

/// The node id of a store opened without one: the only process on its data directory.
pub(crate) const LOCAL_NODE: &str = "local";

pub struct SqliteStore {
    path: PathBuf,
    /// The node whose leases this store takes and gives back.
    node: std::sync::Arc<str>,
    writer: Writer,
    readers: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).finish_non_exhaustive()
    }
}

/// Read connections kept open for reuse (more are opened when needed and closed after use).
const READERS_KEPT: usize = 16;

impl SqliteStore {
    /// Opens (creating and migrating if needed) the database in `data_dir`.
    pub fn open(data_dir: &Path, durability: Durability) -> Result<SqliteStore, StoreError> {
        let data_dir_error = |path: &Path, e: std::io::Error| StoreError::DataDir {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        crate::service::data_dir::create_dir(data_dir).map_err(|e| data_dir_error(data_dir, e))?;
        let path = data_dir.join(DATABASE_FILE);
        // Created private before SQLite opens it: SQLite gives the log and its index the same mode.
        crate::service::data_dir::open_private_file(&path).map_err(|e| StoreError::Database {
            operation: "open the database",
            message: format!("{}: {e}", path.display()),
        })?;
        let mut conn = Connection::open(&path).during("open the database")?;
        configure(&conn, durability).during("configure the database")?;
        migrate::migrate(&mut conn).during("migrate the database")?;
        let writer = Writer::start(conn)
            .map_err(|e| StoreError::DataDir { path: path.display().to_string(), message: e.to_string() })?;
        Ok(SqliteStore { path, node: LOCAL_NODE.into(), writer, readers: Mutex::new(Vec::new()) })
    }

    /// The same store, taking and giving back leases as `node`.
    pub(crate) fn with_node(mut self, node: &str) -> SqliteStore {
        self.node = node.into();
        self
    }

    /// Runs `f` on a read connection; a failure names `operation`.
    fn read<T>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&Connection) -> Sql<T>,
    ) -> Result<T, StoreError> {
        self.read_sql(f).during(operation)
    }

    fn read_sql<T>(&self, f: impl FnOnce(&Connection) -> Sql<T>) -> Sql<T> {
        let pooled = self.readers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let conn = match pooled {
            Some(conn) => conn,
            None => {
                let conn = Connection::open(&self.path)?;
                conn.busy_timeout(std::time::Duration::from_secs(5))?;
                conn.pragma_update(None, "query_only", true)?;
                plan_once(&conn)?;
                conn
            }
        };
        let value = f(&conn);
        let mut readers = self.readers.lock().unwrap_or_else(|p| p.into_inner());
        if readers.len() < READERS_KEPT {
            readers.push(conn);
        }
        value
    }
}

/// Plans a statement once, when it is prepared, whatever values are bound to it later. Without
/// this, SQLite re-prepares (parses and plans anew) a statement such as the submission query, whose
/// `s.id = ?1` meets a LEFT JOIN, every time a new value is bound: a cached statement saved nothing,
/// and the parse took the global allocator's lock for every node of the syntax tree. The store's
/// queries are key lookups whose best plan does not depend on the values.
fn plan_once(conn: &Connection) -> Sql<()> {
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(())
}

fn configure(conn: &Connection, durability: Durability) -> Sql<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    plan_once(conn)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(
            StoreError::Corrupt(format!("cannot switch the database to WAL mode (it is {mode})")).into()
        );
    }
    conn.pragma_update(
        None,
        "synchronous",
        match durability {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
        },
    )?;
    conn.pragma_update(None, "foreign_keys", true)?;
    // Deleted rows are overwritten with zeros, not left in free pages: an erased learner's bytes
    // are gone from the file once the log is checkpointed.
    conn.pragma_update(None, "secure_delete", true)?;
    Ok(())
}

impl Store for SqliteStore {
    fn add_client(
        &self,
        name: &str,
        token_hash: &str,
        webhook_secret: &str,
        now: Millis,
    ) -> Result<ClientRecord, StoreError> {
        let (name, token_hash, webhook_secret) =
            (name.to_string(), token_hash.to_string(), webhook_secret.to_string());
        self.writer.write("add a client", move |tx| clients::add(tx, name, token_hash, webhook_secret, now))
    }

    fn list_clients(&self) -> Result<Vec<ClientRecord>, StoreError> {
        self.read("list the clients", clients::list)
    }

    fn revoke_client(&self, name: &str, now: Millis) -> Result<bool, StoreError> {
        let name = name.to_string();
        self.writer.write("revoke a client", move |tx| clients::revoke(tx, &name, now))
    }

    fn client_by_token_hash(
        &self,
        token_hash: &str,
        scope: TokenScope,
        now: Millis,
    ) -> Result<Option<ClientRecord>, StoreError> {
        self.read("find a client by its token", |conn| clients::by_token_hash(conn, token_hash, scope, now))
    }

    fn rotate_client_token(
        &self,
        name: &str,
        new_hash: &str,
        old_valid_until: Millis,
        now: Millis,
    ) -> Result<bool, StoreError> {
        let (name, new_hash) = (name.to_string(), new_hash.to_string());
        self.writer.write("rotate a client's token", move |tx| {
            clients::rotate_token(tx, &name, &new_hash, old_valid_until, now)
        })
    }

    fn add_client_token(
        &self,
        name: &str,
        token_hash: &str,
        scope: TokenScope,
        now: Millis,
    ) -> Result<bool, StoreError> {
        let (name, token_hash) = (name.to_string(), token_hash.to_string());
        self.writer
            .write("add a client's token", move |tx| clients::add_token(tx, &name, &token_hash, scope, now))
    }

    fn remove_client(&self, name: &str, now: Millis) -> Result<bool, StoreError> {
        let name = name.to_string();
        self.writer.write("remove a client", move |tx| clients::remove(tx, &name, now))
    }

    fn client_by_id(&self, id: i64) -> Result<Option<ClientRecord>, StoreError> {
        self.read("find a client", |conn| clients::by_id(conn, id))
    }

    fn setting_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError> {
        let (key, default) = (key.to_string(), default.to_string());
        self.writer.write("read a setting", move |tx| clients::setting_or_insert(tx, &key, &default))
    }

    fn put_setting(&self, key: &str, value: Option<&str>) -> Result<(), StoreError> {
        let (key, value) = (key.to_string(), value.map(str::to_string));
        self.writer.write("store a setting", move |tx| clients::put_setting(tx, &key, value.as_deref()))
    }

    fn submit(&self, new: &NewSubmission, queue_max: u64, now: Millis) -> Result<Intake, StoreError> {
        let new = new.clone();
        self.writer.write("store a submission", move |tx| intake::submit(tx, &new, queue_max, now))
    }

    fn submission(&self, id: i64) -> Result<Option<SubmissionRecord>, StoreError> {
        self.read("read a submission", |conn| results::load_submission(conn, id))
    }

    fn lease_jobs(
        &self,
        max: usize,
        share: usize,
        lease_ms: u64,
        now: Millis,
    ) -> Result<Vec<LeasedJob>, StoreError> {
        let node = self.node.clone();
        self.writer.write("lease jobs", move |tx| jobs::lease(tx, &node, max, share, lease_ms, now))
    }

    fn renew_lease(
        &self,
        submission_id: i64,
        attempt: u32,
        lease_ms: u64,
        now: Millis,
    ) -> Result<bool, StoreError> {
        self.writer.write("renew a lease", move |tx| jobs::renew(tx, submission_id, attempt, lease_ms, now))
    }

    fn complete_job(
        &self,
        job: LeasedJob,
        outcome: JobOutcome,
        event: Option<NewEvent>,
        now: Millis,
        then: Box<dyn FnOnce(Result<bool, StoreError>) + Send>,
    ) {
        self.writer.write_then(
            "complete a job",
            move |tx| results::complete(tx, &job, &outcome, event.as_ref(), now),
            then,
        );
    }

    fn release_job(&self, job: &LeasedJob, count_attempt: bool) -> Result<(), StoreError> {
        let (id, attempt) = (job.submission_id, job.attempt);
        self.writer.write("release a job", move |tx| jobs::release(tx, id, attempt, count_attempt))
    }

    fn defer_job(&self, job: &LeasedJob, until: Millis, count_attempt: bool) -> Result<(), StoreError> {
        let (id, attempt) = (job.submission_id, job.attempt);
        self.writer.write("defer a job", move |tx| jobs::defer(tx, id, attempt, until, count_attempt))
    }

    fn release_own_leases(&self) -> Result<u64, StoreError> {
        let node = self.node.clone();
        self.writer.write("release this node's leases", move |tx| jobs::release_own(tx, &node))
    }

    fn lease_events(&self, limit: usize, lease_ms: u64, now: Millis) -> Result<Vec<OutboxEvent>, StoreError> {
        let node = self.node.clone();
        self.writer.write("lease webhook events", move |tx| outbox::lease(tx, &node, limit, lease_ms, now))
    }

    fn record_delivery(&self, event_id: &str, delivery: &Delivery, now: Millis) -> Result<(), StoreError> {
        let (event_id, delivery) = (event_id.to_string(), delivery.clone());
        self.writer.write("record a webhook delivery", move |tx| {
            outbox::record_delivery(tx, &event_id, &delivery, now)
        })
    }

    fn dead_events(&self, client_id: i64, limit: usize) -> Result<Vec<OutboxEvent>, StoreError> {
        self.read("list dead webhook events", |conn| outbox::dead(conn, client_id, limit))
    }

    fn redeliver(&self, client_id: i64, event_id: &str, now: Millis) -> Result<Option<bool>, StoreError> {
        let event_id = event_id.to_string();
        self.writer
            .write("redeliver a webhook event", move |tx| outbox::redeliver(tx, client_id, &event_id, now))
    }

    fn flush(&self) -> Result<(), StoreError> {
        // The writer takes writes in order: once this one is committed, every earlier one is.
        self.writer.write("flush the writer", |_| Ok(()))
    }

    fn forget_idempotency_keys(&self, before: Millis) -> Result<u64, StoreError> {
        self.writer.write("forget idempotency keys", move |tx| intake::forget_idempotency_keys(tx, before))
    }

    fn stats(&self) -> Result<Stats, StoreError> {
        self.read("count jobs and events", jobs::stats)
    }

    fn set_teacher(&self, name: &str, teacher: bool) -> Result<bool, StoreError> {
        let name = name.to_string();
        self.writer.write("make a client a teacher", move |tx| clients::set_teacher(tx, &name, teacher))
    }

    fn list_submissions(
        &self,
        client_id: i64,
        filter: &SubmissionFilter,
        after: i64,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        self.read("list submissions", |conn| teachers::list(conn, client_id, filter, after, limit))
    }

    fn result_versions(&self, submission_id: i64) -> Result<Vec<ResultRecord>, StoreError> {
        self.read("read result versions", |conn| teachers::versions(conn, submission_id))
    }

    fn latest_submissions(
        &self,
        exercise: &str,
        filter: &RegradeFilter,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        self.read("find the latest submissions", |conn| teachers::latest(conn, exercise, filter, limit))
    }

    fn submission_payload(&self, id: i64) -> Result<Option<Submission>, StoreError> {
        self.read("read a submission's bytes", |conn| teachers::payload(conn, id))
    }

    fn queue_regrades(&self, ids: &[i64], exercise_hash: Option<&str>) -> Result<RegradesQueued, StoreError> {
        let ids = ids.to_vec();
        let hash = exercise_hash.map(str::to_string);
        self.writer.write("queue regrades", move |tx| teachers::queue_regrades(tx, &ids, hash.as_deref()))
    }

    fn exercise_submissions(
        &self,
        exercise: &str,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        self.read("read an exercise's submissions", |conn| {
            teachers::exercise_submissions(conn, exercise, limit)
        })
    }
    fn learner_submissions(
        &self,
        client_id: i64,
        exercise: &str,
        learner: &str,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        self.read("list a learner's submissions", |conn| {
            results::learner_submissions(conn, client_id, exercise, learner, limit)
        })
    }

    fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.read("read a setting", |conn| lti::setting(conn, key))
    }

    fn add_platform(
        &self,
        platform: &NewPlatform,
        api_client_id: i64,
        now: Millis,
    ) -> Result<PlatformRecord, StoreError> {
        let platform = platform.clone();
        self.writer
            .write("add an LTI platform", move |tx| lti::add_platform(tx, platform, api_client_id, now))
    }

    fn list_platforms(&self) -> Result<Vec<PlatformRecord>, StoreError> {
        self.read("list the LTI platforms", lti::list_platforms)
    }

    fn update_platform(&self, platform: &NewPlatform) -> Result<bool, StoreError> {
        let platform = platform.clone();
        self.writer.write("update an LTI platform", move |tx| lti::update_platform(tx, &platform))
    }

    fn remove_platform(&self, name: &str, now: Millis) -> Result<bool, StoreError> {
        let name = name.to_string();
        self.writer.write("remove an LTI platform", move |tx| lti::remove_platform(tx, &name, now))
    }

    fn put_lti_state(
        &self,
        state: &str,
        entry: &LtiState,
        expires_at: Millis,
        evict: Option<&str>,
        now: Millis,
    ) -> Result<(), StoreError> {
        let (state, entry, evict) = (state.to_string(), entry.clone(), evict.map(str::to_string));
        self.writer.write("keep an LTI login", move |tx| {
            lti::put_state(tx, &state, &entry, expires_at, evict.as_deref(), now)
        })
    }

    fn take_lti_state(&self, state: &str, now: Millis) -> Result<Option<LtiState>, StoreError> {
        let state = state.to_string();
        self.writer.write("take an LTI login", move |tx| lti::take_state(tx, &state, now))
    }

    fn lti_context(
        &self,
        platform_id: i64,
        subject: &str,
        exercise: &str,
        lineitem: &str,
        now: Millis,
    ) -> Result<LtiContext, StoreError> {
        let (subject, exercise, lineitem) = (subject.to_string(), exercise.to_string(), lineitem.to_string());
        self.writer.write("keep an LTI launch context", move |tx| {
            lti::context(tx, platform_id, &subject, &exercise, &lineitem, now)
        })
    }

    fn lti_context_by_id(&self, id: i64) -> Result<Option<LtiContext>, StoreError> {
        self.read("read an LTI launch context", |conn| lti::context_by_id(conn, id))
    }

    fn set_lti_course(&self, context_id: i64, course: &str) -> Result<(), StoreError> {
        let course = course.to_string();
        self.writer.write("record an LTI course", move |tx| {
            tx.prepare_cached("UPDATE lti_contexts SET course = ?1 WHERE id = ?2")?
                .execute(rusqlite::params![course, context_id])?;
            Ok(())
        })
    }

    fn lti_course_contexts(&self, platform_id: i64, course: &str) -> Result<Vec<i64>, StoreError> {
        self.read("read an LTI course's contexts", |conn| {
            let ids = conn
                .prepare_cached(
                    "SELECT id FROM lti_contexts WHERE platform_id = ?1 AND course = ?2 ORDER BY id",
                )?
                .query_map(rusqlite::params![platform_id, course], |r| r.get(0))?
                .collect::<Result<Vec<i64>, _>>()?;
            Ok(ids)
        })
    }

    fn put_jobe_file(
        &self,
        client_id: i64,
        file_id: &str,
        contents: &[u8],
        limits: (usize, u64),
        now: Millis,
    ) -> Result<(), StoreError> {
        let (file_id, contents) = (file_id.to_string(), contents.to_vec());
        self.writer.write("keep an uploaded file", move |tx| {
            nodes::put_jobe_file(tx, client_id, &file_id, &contents, limits, now)
        })
    }

    fn jobe_file(&self, client_id: i64, file_id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.read("read an uploaded file", |conn| nodes::jobe_file(conn, client_id, file_id))
    }

    fn announce_node(&self, versions: &[(String, String)], now: Millis) -> Result<(), StoreError> {
        let (node, versions) = (self.node.clone(), versions.to_vec());
        self.writer.write("announce this node", move |tx| nodes::announce(tx, &node, &versions, now))
    }

    fn withdraw_node(&self) -> Result<(), StoreError> {
        let node = self.node.clone();
        self.writer.write("withdraw this node", move |tx| nodes::withdraw(tx, &node))
    }

    fn version_census(&self, now: Millis) -> Result<VersionCensus, StoreError> {
        let alive_since = now - crate::limits::NODE_LIVENESS_MS as i64;
        self.read("read the exercise versions in use", |conn| nodes::census(conn, alive_since))
    }

    fn learner_data(&self, scope: &LearnerScope) -> Result<LearnerFound<LearnerData>, StoreError> {
        self.read("read a learner's data", |conn| privacy::learner_data(conn, scope))
    }

    fn erase_learner(
        &self,
        scope: &LearnerScope,
        audit: &AuditEntry,
        now: Millis,
    ) -> Result<LearnerFound<RowCounts>, StoreError> {
        let (scope, audit) = (scope.clone(), audit.clone());
        let erased =
            self.writer.write("erase a learner", move |tx| privacy::erase(tx, &scope, &audit, now))?;
        if matches!(erased, LearnerFound::Found(_))
            && !privacy::truncate_wal(&self.path).during("truncate the log")?
        {
            tracing::warn!(
                event = "wal_not_truncated",
                "a reader held the write-ahead log: the erased rows' old pages stay in it until the next checkpoint"
            );
        }
        Ok(erased)
    }

    fn submission_gone(&self, id: i64) -> Result<bool, StoreError> {
        self.read("read whether a submission is gone", |conn| privacy::gone(conn, id))
    }

    fn record_audit(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        let entry = entry.clone();
        self.writer.write("write the audit log", move |tx| privacy::record_audit(tx, &entry))
    }

    fn audit_log(&self, after: i64, limit: usize) -> Result<Vec<AuditEntry>, StoreError> {
        self.read("read the audit log", |conn| privacy::audit_log(conn, after, limit))
    }

    fn sweep_retention(&self, before: Millis, batch: usize, now: Millis) -> Result<RowCounts, StoreError> {
        self.writer.write("sweep old data", move |tx| privacy::sweep(tx, before, batch, now))
    }
}

#[cfg(test)]
mod tests;
