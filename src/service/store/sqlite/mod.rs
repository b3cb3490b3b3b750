//! The SQLite [`Store`]: one database file in WAL mode in the data directory, created and migrated on
//! first start ([`migrate`]). Reads use a small pool of connections, which WAL lets run beside the
//! writer; writes go to the group-commit [`writer`], one savepoint per write.
//!
//! The SQL is grouped by what it serves: `clients` (and settings), `intake`, `jobs` (the queue
//! and its leases), `results`, `outbox`. This file only routes each [`Store`] method to a read
//! connection or to the writer.

mod clients;
pub mod error;
mod intake;
mod jobs;
pub mod migrate;
mod outbox;
mod results;
pub mod writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;

use self::error::{During, Sql};
use self::writer::Writer;
use super::*;

/// The database file inside the data directory.
pub const DATABASE_FILE: &str = "pruefstein.db";

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

pub struct SqliteStore {
    path: PathBuf,
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
        std::fs::create_dir_all(data_dir).map_err(|e| StoreError::DataDir {
            path: data_dir.display().to_string(),
            message: e.to_string(),
        })?;
        let path = data_dir.join(DATABASE_FILE);
        let mut conn = Connection::open(&path).during("open the database")?;
        configure(&conn, durability).during("configure the database")?;
        migrate::migrate(&mut conn).during("migrate the database")?;
        let writer = Writer::start(conn)
            .map_err(|e| StoreError::DataDir { path: path.display().to_string(), message: e.to_string() })?;
        Ok(SqliteStore { path, writer, readers: Mutex::new(Vec::new()) })
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

fn configure(conn: &Connection, durability: Durability) -> Sql<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
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

    fn client_by_token_hash(&self, token_hash: &str) -> Result<Option<ClientRecord>, StoreError> {
        self.read("find a client by its token", |conn| clients::by_token_hash(conn, token_hash))
    }

    fn client_by_id(&self, id: i64) -> Result<Option<ClientRecord>, StoreError> {
        self.read("find a client", |conn| clients::by_id(conn, id))
    }

    fn setting_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError> {
        let (key, default) = (key.to_string(), default.to_string());
        self.writer.write("read a setting", move |tx| clients::setting_or_insert(tx, &key, &default))
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
        self.writer.write("lease jobs", move |tx| jobs::lease(tx, max, share, lease_ms, now))
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

    fn release_all_leases(&self) -> Result<u64, StoreError> {
        self.writer.write("release every lease", jobs::release_all)
    }

    fn lease_events(&self, limit: usize, lease_ms: u64, now: Millis) -> Result<Vec<OutboxEvent>, StoreError> {
        self.writer.write("lease webhook events", move |tx| outbox::lease(tx, limit, lease_ms, now))
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
}

/// The marker that starts the stored payload of a source submission: `\0source:<language>\n`, then
/// the text. The submissions table knows the kinds answer and module; a module's payload starts
/// with `\0asm` (binary) or is text (WAT), so a payload with this marker is never a module.
const SOURCE_MARKER: &[u8] = b"\0source:";

fn source_payload(language: crate::submission::Language, text: &str) -> Vec<u8> {
    let mut payload = SOURCE_MARKER.to_vec();
    payload.extend_from_slice(language.name().as_bytes());
    payload.push(b'\n');
    payload.extend_from_slice(text.as_bytes());
    payload
}

/// A stored source submission's language and text; None for a module's payload.
fn parse_source_payload(payload: &[u8]) -> Option<Result<(crate::submission::Language, String), String>> {
    let rest = payload.strip_prefix(SOURCE_MARKER)?;
    let Some(newline) = rest.iter().position(|b| *b == b'\n') else {
        return Some(Err("the marker has no end".into()));
    };
    let parsed = std::str::from_utf8(&rest[..newline])
        .map_err(|_| "the language is not UTF-8".to_string())
        .and_then(|name| name.parse::<crate::submission::Language>())
        .and_then(|language| {
            String::from_utf8(rest[newline + 1..].to_vec())
                .map(|text| (language, text))
                .map_err(|_| "the text is not UTF-8".to_string())
        });
    Some(parsed)
}

#[cfg(test)]
mod tests;
