//! The SQLite [`Store`]: one database file in WAL mode in the data directory, created and migrated on
//! first start. Reads use a small pool of connections, which WAL lets run beside the writer.
//!
//! Writes go to one writer thread that owns the write connection and commits in groups: it takes
//! every write that is waiting (up to [`GROUP_COMMIT_MAX`]), runs each in its own savepoint inside one
//! `BEGIN IMMEDIATE` transaction, commits once, and only then answers each caller. With
//! `synchronous = FULL` a commit costs an fsync (milliseconds); grouping lets many callers share it,
//! and nobody hears "stored" before it is durable. A write that fails rolls back its own savepoint
//! only; the others of its group still commit.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::store::*;
use crate::limits::GROUP_COMMIT_MAX;
use crate::submission::Submission;

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

/// Schema migrations, applied in order; `PRAGMA user_version` counts the applied ones.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE clients (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,
    webhook_secret TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    client_id INTEGER NOT NULL REFERENCES clients(id),
    exercise TEXT NOT NULL,
    learner TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('answer', 'module')),
    payload BLOB NOT NULL,
    sha256 TEXT NOT NULL,
    callback_url TEXT,
    metadata TEXT,
    idempotency_key TEXT,
    request_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX submissions_idempotency_key ON submissions (client_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX submissions_created ON submissions (created_at) WHERE idempotency_key IS NOT NULL;
-- Open jobs only: a job's row is deleted when its result is written.
CREATE TABLE jobs (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    leased INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_until INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE results (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    status TEXT NOT NULL CHECK (status IN ('graded', 'failed')),
    verdict TEXT,
    points INTEGER,
    max_points INTEGER,
    report TEXT,
    failure TEXT,
    attempts INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    grade_ms INTEGER
);
CREATE TABLE outbox (
    event_id TEXT PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    client_id INTEGER NOT NULL REFERENCES clients(id),
    url TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_dead ON outbox (client_id, created_at) WHERE state = 'dead';
"#,
    r#"
-- An event being sent: its next attempt time is the sender's lease. At start, every lease is one
-- of a dead process and is given back at once.
ALTER TABLE outbox ADD COLUMN leased INTEGER NOT NULL DEFAULT 0;
"#,
];

pub struct SqliteStore {
    path: PathBuf,
    writer: Mutex<std::sync::mpsc::Sender<WriteOp>>,
    readers: Mutex<Vec<Connection>>,
}

/// Runs after the group's commit with its outcome (an error message if the commit failed).
type Finish = Box<dyn FnOnce(Option<String>) + Send>;

/// A write waiting for the writer thread.
struct WriteOp {
    /// Runs the write inside the group's transaction and returns what to do after the commit.
    run: Box<dyn FnOnce(&rusqlite::Transaction<'_>) -> Finish + Send>,
    /// Called instead when the group's transaction could not even begin.
    abort: Box<dyn FnOnce(String) + Send>,
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
        let mut writer = Connection::open(&path)?;
        configure(&writer, durability)?;
        migrate(&mut writer)?;
        let (sender, receiver) = std::sync::mpsc::channel::<WriteOp>();
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || group_commit_loop(writer, receiver))
            .map_err(|e| StoreError::DataDir { path: path.display().to_string(), message: e.to_string() })?;
        Ok(SqliteStore { path, writer: Mutex::new(sender), readers: Mutex::new(Vec::new()) })
    }

    fn enqueue(&self, op: WriteOp) {
        let sender = self.writer.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Err(std::sync::mpsc::SendError(op)) = sender.send(op) {
            (op.abort)("the database writer has stopped".into());
        }
    }

    /// Runs `f` in the next group commit; `then` gets its result once the group is committed (or
    /// the error). `then` runs on the writer thread: it must be quick.
    fn write_then<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
        then: impl FnOnce(Result<T, StoreError>) + Send + 'static,
    ) {
        let then =
            Arc::new(Mutex::new(Some(Box::new(then) as Box<dyn FnOnce(Result<T, StoreError>) + Send>)));
        let on_abort = then.clone();
        self.enqueue(WriteOp {
            run: Box::new(move |tx| {
                let result = in_savepoint(tx, f);
                Box::new(move |commit_error: Option<String>| {
                    let result = match commit_error {
                        None => result,
                        Some(message) => Err(StoreError::Commit(message)),
                    };
                    if let Some(then) = then.lock().unwrap_or_else(|p| p.into_inner()).take() {
                        then(result);
                    }
                })
            }),
            abort: Box::new(move |message| {
                if let Some(then) = on_abort.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    then(Err(StoreError::Commit(message)));
                }
            }),
        });
    }

    /// Runs `f` in the next group commit and waits until that is committed.
    fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        self.write_then(f, move |result| {
            let _ = sender.send(result);
        });
        receiver.recv().unwrap_or_else(|_| Err(StoreError::Commit("the database writer has stopped".into())))
    }

    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
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

/// Runs one write in its own savepoint: its failure undoes only its own changes.
fn in_savepoint<T>(
    tx: &rusqlite::Transaction<'_>,
    f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    tx.execute_batch("SAVEPOINT op")?;
    let result = f(tx);
    let end = if result.is_ok() { "RELEASE op" } else { "ROLLBACK TO op; RELEASE op" };
    tx.execute_batch(end)?;
    result
}

/// The writer thread: waits for a write, takes every other one waiting, commits them together.
fn group_commit_loop(mut conn: Connection, receiver: std::sync::mpsc::Receiver<WriteOp>) {
    while let Ok(first) = receiver.recv() {
        let mut group = vec![first];
        while group.len() < GROUP_COMMIT_MAX {
            match receiver.try_recv() {
                Ok(op) => group.push(op),
                Err(_) => break,
            }
        }
        let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
            Ok(tx) => tx,
            Err(e) => {
                for op in group {
                    (op.abort)(e.to_string());
                }
                continue;
            }
        };
        let finishes: Vec<Finish> = group.into_iter().map(|op| (op.run)(&tx)).collect();
        let error = tx.commit().err().map(|e| e.to_string());
        for finish in finishes {
            finish(error.clone());
        }
    }
}

/// Leases one job inside a transaction and reads what its worker needs.
fn lease_one(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    attempt: u32,
    lease_ms: u64,
    now: Millis,
) -> Result<LeasedJob, StoreError> {
    tx.prepare_cached(
        "UPDATE jobs SET leased = 1, attempts = ?2, lease_until = ?3 WHERE submission_id = ?1",
    )?
    .execute(params![id, attempt, now + lease_ms as i64])?;
    let job = tx
        .prepare_cached(
            "SELECT client_id, exercise, learner, kind, payload, callback_url, sha256, metadata, \
             idempotency_key, created_at FROM submissions WHERE id = ?1",
        )?
        .query_row([id], |r| {
            let kind: String = r.get(3)?;
            let payload: Vec<u8> = r.get(4)?;
            Ok((
                (r.get(0)?, r.get(1)?, r.get(2)?, kind, payload, r.get(5)?),
                (r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?),
            ))
        })?;
    let (
        (client_id, exercise, learner, kind, payload, callback_url),
        (sha256, metadata, idempotency_key, created_at),
    ) = job;
    let submission = match kind.as_str() {
        "answer" => Submission::Answer(
            String::from_utf8(payload)
                .map_err(|_| StoreError::Corrupt(format!("the answer of submission {id} is not UTF-8")))?,
        ),
        _ => Submission::Module(payload),
    };
    Ok(LeasedJob {
        submission_id: id,
        client_id,
        attempt,
        exercise,
        learner,
        submission,
        sha256,
        callback_url,
        metadata,
        idempotency_key,
        created_at,
    })
}

/// Stores a job's result and event and deletes the job, unless the submission has a result already.
fn complete_one(
    tx: &rusqlite::Transaction<'_>,
    job: &LeasedJob,
    outcome: &JobOutcome,
    event: Option<&NewEvent>,
    now: Millis,
) -> Result<bool, StoreError> {
    {
        let inserted = match outcome {
            JobOutcome::Graded { verdict, points, max_points, report, grade_ms } => tx
                .prepare_cached(
                    "INSERT INTO results (submission_id, status, verdict, points, max_points, report, attempts, \
                     finished_at, grade_ms) VALUES (?1, 'graded', ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
                     ON CONFLICT (submission_id) DO NOTHING",
                )?
                .execute(params![
                    job.submission_id,
                    verdict,
                    points,
                    max_points,
                    report,
                    job.attempt,
                    now,
                    *grade_ms as i64
                ])?,
            JobOutcome::Failed { reason } => tx
                .prepare_cached(
                    "INSERT INTO results (submission_id, status, failure, attempts, finished_at) \
                     VALUES (?1, 'failed', ?2, ?3, ?4) ON CONFLICT (submission_id) DO NOTHING",
                )?
                .execute(params![job.submission_id, reason, job.attempt, now])?,
        };
        if inserted == 1
            && let Some(event) = event
        {
            tx.prepare_cached(
                "INSERT INTO outbox (event_id, submission_id, client_id, url, payload, state, next_attempt_at, \
                 created_at) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6)",
            )?
            .execute(params![event.event_id, job.submission_id, job.client_id, event.url, event.payload, now])?;
        }
        tx.prepare_cached("DELETE FROM jobs WHERE submission_id = ?1")?.execute([job.submission_id])?;
        Ok(inserted == 1)
    }
}

fn configure(conn: &Connection, durability: Durability) -> Result<(), StoreError> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Corrupt(format!("cannot switch the database to WAL mode (it is {mode})")));
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

/// Brings the schema up to date, one migration per transaction. The version is read inside each
/// write transaction, so two processes starting on a new data directory at once (a server and
/// `pruefstein client add`) apply every migration exactly once: the second waits for the first's
/// lock, then sees the new version.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: usize = tx.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize;
        if version > MIGRATIONS.len() {
            return Err(StoreError::Corrupt(format!(
                "the database has schema version {version}, newer than this program's {}",
                MIGRATIONS.len()
            )));
        }
        let Some(sql) = MIGRATIONS.get(version) else {
            return Ok(());
        };
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (version + 1) as i64)?;
        tx.commit()?;
    }
}

fn client_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ClientRecord> {
    Ok(ClientRecord {
        id: row.get(0)?,
        name: row.get(1)?,
        webhook_secret: row.get(2)?,
        created_at: row.get(3)?,
        revoked_at: row.get(4)?,
    })
}

const CLIENT_COLUMNS: &str = "id, name, webhook_secret, created_at, revoked_at";

const SUBMISSION_QUERY: &str = "SELECT s.id, s.client_id, s.exercise, s.learner, s.kind, s.sha256, \
     s.callback_url, s.metadata, s.idempotency_key, s.request_hash, s.created_at, \
     j.leased, j.attempts, j.lease_until, \
     r.status, r.verdict, r.points, r.max_points, r.report, r.failure, r.attempts, r.finished_at, r.grade_ms \
     FROM submissions s LEFT JOIN jobs j ON j.submission_id = s.id \
     LEFT JOIN results r ON r.submission_id = s.id WHERE s.id = ?1";

fn load_submission(conn: &Connection, id: i64) -> Result<Option<SubmissionRecord>, StoreError> {
    let found = conn
        .query_row(SUBMISSION_QUERY, [id], |row| {
            let leased: Option<i64> = row.get(11)?;
            let job_attempts: Option<u32> = row.get(12)?;
            let result_status: Option<String> = row.get(14)?;
            let result = match &result_status {
                Some(_) => Some(ResultRecord {
                    verdict: row.get(15)?,
                    points: row.get(16)?,
                    max_points: row.get(17)?,
                    report: row.get(18)?,
                    failure: row.get(19)?,
                    finished_at: row.get(21)?,
                    grade_ms: row.get::<_, Option<i64>>(22)?.map(|ms| ms.max(0) as u64),
                }),
                None => None,
            };
            let status = match (result_status.as_deref(), leased) {
                (Some("graded"), _) => Status::Graded,
                (Some(_), _) => Status::Failed,
                (None, Some(1)) => Status::Running,
                (None, _) => Status::Queued,
            };
            let attempts = match result_status {
                Some(_) => row.get::<_, u32>(20)?,
                None => job_attempts.unwrap_or(0),
            };
            Ok(SubmissionRecord {
                id: row.get(0)?,
                client_id: row.get(1)?,
                exercise: row.get(2)?,
                learner: row.get(3)?,
                kind: row.get(4)?,
                sha256: row.get(5)?,
                callback_url: row.get(6)?,
                metadata: row.get(7)?,
                idempotency_key: row.get(8)?,
                request_hash: row.get(9)?,
                created_at: row.get(10)?,
                status,
                attempts,
                result,
            })
        })
        .optional()?;
    Ok(found)
}

fn event_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<OutboxEvent> {
    let state: String = row.get(5)?;
    Ok(OutboxEvent {
        event_id: row.get(0)?,
        submission_id: row.get(1)?,
        client_id: row.get(2)?,
        url: row.get(3)?,
        payload: row.get(4)?,
        state: match state.as_str() {
            "delivered" => EventState::Delivered,
            "dead" => EventState::Dead,
            _ => EventState::Pending,
        },
        attempts: row.get(6)?,
        next_attempt_at: row.get(7)?,
        last_error: row.get(8)?,
        created_at: row.get(9)?,
    })
}

const EVENT_COLUMNS: &str = "event_id, submission_id, client_id, url, payload, state, attempts, next_attempt_at, last_error, created_at";

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
        self.write(move |tx| {
            let exists: Option<i64> =
                tx.query_row("SELECT id FROM clients WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
            if exists.is_some() {
                return Err(StoreError::Conflict(format!("a client named {name:?} exists already")));
            }
            tx.execute(
                "INSERT INTO clients (name, token_hash, webhook_secret, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![name, token_hash, webhook_secret, now],
            )?;
            Ok(ClientRecord {
                id: tx.last_insert_rowid(),
                name,
                webhook_secret,
                created_at: now,
                revoked_at: None,
            })
        })
    }

    fn list_clients(&self) -> Result<Vec<ClientRecord>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare(&format!("SELECT {CLIENT_COLUMNS} FROM clients ORDER BY name"))?;
            let rows = stmt.query_map([], client_from_row)?.collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
    }

    fn revoke_client(&self, name: &str, now: Millis) -> Result<bool, StoreError> {
        let name = name.to_string();
        self.write(move |tx| {
            let exists: Option<i64> =
                tx.query_row("SELECT id FROM clients WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
            if exists.is_none() {
                return Ok(false);
            }
            tx.execute(
                "UPDATE clients SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL",
                params![name, now],
            )?;
            Ok(true)
        })
    }

    fn client_by_token_hash(&self, token_hash: &str) -> Result<Option<ClientRecord>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached(&format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE token_hash = ?1"))?
                .query_row([token_hash], client_from_row)
                .optional()?)
        })
    }

    fn client_by_id(&self, id: i64) -> Result<Option<ClientRecord>, StoreError> {
        self.read(|conn| {
            Ok(conn
                .prepare_cached(&format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE id = ?1"))?
                .query_row([id], client_from_row)
                .optional()?)
        })
    }

    fn setting_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError> {
        let (key, default) = (key.to_string(), default.to_string());
        self.write(move |tx| {
            tx.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?1, ?2)", params![key, default])?;
            Ok(tx.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0))?)
        })
    }

    fn submit(&self, new: &NewSubmission, queue_max: u64, now: Millis) -> Result<Intake, StoreError> {
        let new = new.clone();
        self.write(move |tx| {
            if let Some(key) = &new.idempotency_key {
                let earlier: Option<i64> = tx
                    .prepare_cached(
                        "SELECT id FROM submissions WHERE client_id = ?1 AND idempotency_key = ?2",
                    )?
                    .query_row(params![new.client_id, key], |r| r.get(0))
                    .optional()?;
                if let Some(id) = earlier {
                    let record = load_submission(tx, id)?
                        .ok_or_else(|| StoreError::Corrupt(format!("submission {id} vanished")))?;
                    return Ok(if record.request_hash == new.request_hash {
                        Intake::Existing(record)
                    } else {
                        Intake::KeyReused(record)
                    });
                }
            }
            let depth: u64 = tx.query_row("SELECT count(*) FROM jobs", [], |r| r.get::<_, i64>(0))? as u64;
            if depth >= queue_max {
                return Ok(Intake::QueueFull { depth });
            }
            let (kind, payload): (&str, &[u8]) = match &new.submission {
                Submission::Answer(text) => ("answer", text.as_bytes()),
                Submission::Module(bytes) => ("module", bytes),
            };
            tx.prepare_cached(
                "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, callback_url, \
                 metadata, idempotency_key, request_hash, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![
                new.client_id,
                new.exercise,
                new.learner,
                kind,
                payload,
                new.submission.sha256(),
                new.callback_url,
                new.metadata,
                new.idempotency_key,
                new.request_hash,
                now
            ])?;
            let id = tx.last_insert_rowid();
            tx.prepare_cached("INSERT INTO jobs (submission_id) VALUES (?1)")?.execute([id])?;
            let record = load_submission(tx, id)?
                .ok_or_else(|| StoreError::Corrupt(format!("submission {id} vanished")))?;
            Ok(Intake::Created(record))
        })
    }

    fn submission(&self, id: i64) -> Result<Option<SubmissionRecord>, StoreError> {
        self.read(|conn| load_submission(conn, id))
    }

    fn lease_jobs(
        &self,
        max: usize,
        share: usize,
        lease_ms: u64,
        now: Millis,
    ) -> Result<Vec<LeasedJob>, StoreError> {
        self.write(move |tx| {
            let due: i64 = tx
                .prepare_cached("SELECT count(*) FROM jobs WHERE lease_until <= ?1")?
                .query_row([now], |r| r.get(0))?;
            let take = (due as usize).div_ceil(share.max(1)).clamp(0, max.max(1));
            let next = tx
                .prepare_cached(
                    "SELECT submission_id, attempts FROM jobs WHERE lease_until <= ?1 \
                     ORDER BY submission_id LIMIT ?2",
                )?
                .query_map(params![now, take as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, u32>(1)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            next.into_iter().map(|(id, attempts)| lease_one(tx, id, attempts + 1, lease_ms, now)).collect()
        })
    }

    fn complete_job(
        &self,
        job: LeasedJob,
        outcome: JobOutcome,
        event: Option<NewEvent>,
        now: Millis,
        then: Box<dyn FnOnce(Result<bool, StoreError>) + Send>,
    ) {
        self.write_then(move |tx| complete_one(tx, &job, &outcome, event.as_ref(), now), then);
    }

    fn renew_lease(
        &self,
        submission_id: i64,
        attempt: u32,
        lease_ms: u64,
        now: Millis,
    ) -> Result<bool, StoreError> {
        self.write(move |tx| {
            let renewed = tx
                .prepare_cached(
                    "UPDATE jobs SET lease_until = ?3 WHERE submission_id = ?1 AND attempts = ?2 AND leased = 1",
                )?
                .execute(params![submission_id, attempt, now + lease_ms as i64])?;
            Ok(renewed == 1)
        })
    }

    fn release_job(&self, job: &LeasedJob, count_attempt: bool) -> Result<(), StoreError> {
        let (id, attempt) = (job.submission_id, job.attempt);
        self.write(move |tx| {
            tx.execute(
                "UPDATE jobs SET leased = 0, lease_until = 0, attempts = attempts - ?3 \
                 WHERE submission_id = ?1 AND attempts = ?2",
                params![id, attempt, if count_attempt { 0 } else { 1 }],
            )?;
            Ok(())
        })
    }

    fn defer_job(&self, job: &LeasedJob, until: Millis, count_attempt: bool) -> Result<(), StoreError> {
        let (id, attempt) = (job.submission_id, job.attempt);
        self.write(move |tx| {
            // Not leased, but not due before `until` (a waiting job is due at lease_until).
            tx.execute(
                "UPDATE jobs SET leased = 0, lease_until = ?3, attempts = attempts - ?4 \
                 WHERE submission_id = ?1 AND attempts = ?2",
                params![id, attempt, until, if count_attempt { 0 } else { 1 }],
            )?;
            Ok(())
        })
    }

    fn release_all_leases(&self) -> Result<u64, StoreError> {
        self.write(move |tx| {
            let jobs = tx.execute("UPDATE jobs SET leased = 0, lease_until = 0 WHERE leased = 1", [])?;
            let events = tx.execute(
                "UPDATE outbox SET leased = 0, next_attempt_at = 0 WHERE leased = 1 AND state = 'pending'",
                [],
            )?;
            Ok((jobs + events) as u64)
        })
    }

    fn lease_events(&self, limit: usize, lease_ms: u64, now: Millis) -> Result<Vec<OutboxEvent>, StoreError> {
        self.write(move |tx| {
            let events = tx
                .prepare_cached(&format!(
                    "SELECT {EVENT_COLUMNS} FROM outbox WHERE state = 'pending' AND next_attempt_at <= ?1 \
                     ORDER BY next_attempt_at LIMIT ?2"
                ))?
                .query_map(params![now, limit as i64], event_from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            let mut update =
                tx.prepare_cached("UPDATE outbox SET next_attempt_at = ?2, leased = 1 WHERE event_id = ?1")?;
            for event in &events {
                update.execute(params![event.event_id, now + lease_ms as i64])?;
            }
            Ok(events)
        })
    }

    fn record_delivery(&self, event_id: &str, delivery: &Delivery, now: Millis) -> Result<(), StoreError> {
        let (event_id, delivery) = (event_id.to_string(), delivery.clone());
        self.write(move |tx| {
            match delivery {
                Delivery::Delivered => tx.execute(
                    "UPDATE outbox SET state = 'delivered', attempts = attempts + 1, delivered_at = ?2, \
                     last_error = NULL, leased = 0 WHERE event_id = ?1",
                    params![event_id, now],
                )?,
                Delivery::Retry { at, error } => tx.execute(
                    "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?2, last_error = ?3, leased = 0 \
                     WHERE event_id = ?1",
                    params![event_id, at, error],
                )?,
                Delivery::Dead { error } => tx.execute(
                    "UPDATE outbox SET state = 'dead', attempts = attempts + 1, last_error = ?2, leased = 0 \
                     WHERE event_id = ?1",
                    params![event_id, error],
                )?,
            };
            Ok(())
        })
    }

    fn dead_events(&self, client_id: i64, limit: usize) -> Result<Vec<OutboxEvent>, StoreError> {
        self.read(|conn| {
            let events = conn
                .prepare_cached(&format!(
                    "SELECT {EVENT_COLUMNS} FROM outbox WHERE state = 'dead' AND client_id = ?1 \
                     ORDER BY created_at, event_id LIMIT ?2"
                ))?
                .query_map(params![client_id, limit as i64], event_from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(events)
        })
    }

    fn redeliver(&self, client_id: i64, event_id: &str, now: Millis) -> Result<Option<bool>, StoreError> {
        let event_id = event_id.to_string();
        self.write(move |tx| {
            let state: Option<String> = tx
                .query_row(
                    "SELECT state FROM outbox WHERE event_id = ?1 AND client_id = ?2",
                    params![event_id, client_id],
                    |r| r.get(0),
                )
                .optional()?;
            match state.as_deref() {
                None => Ok(None),
                Some("dead") => {
                    tx.execute(
                        "UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ?2 WHERE event_id = ?1",
                        params![event_id, now],
                    )?;
                    Ok(Some(true))
                }
                Some(_) => Ok(Some(false)),
            }
        })
    }

    fn flush(&self) -> Result<(), StoreError> {
        // The writer takes writes in order: once this one is committed, every earlier one is.
        self.write(|_| Ok(()))
    }

    fn forget_idempotency_keys(&self, before: Millis) -> Result<u64, StoreError> {
        self.write(move |tx| {
            Ok(tx.execute(
                "UPDATE submissions SET idempotency_key = NULL WHERE idempotency_key IS NOT NULL AND created_at < ?1",
                [before],
            )? as u64)
        })
    }

    fn stats(&self) -> Result<Stats, StoreError> {
        self.read(|conn| {
            let (queued, running): (i64, i64) = conn.query_row(
                "SELECT coalesce(sum(leased = 0), 0), coalesce(sum(leased = 1), 0) FROM jobs",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let pending: i64 =
                conn.query_row("SELECT count(*) FROM outbox WHERE state = 'pending'", [], |r| r.get(0))?;
            let dead: i64 =
                conn.query_row("SELECT count(*) FROM outbox WHERE state = 'dead'", [], |r| r.get(0))?;
            Ok(Stats {
                jobs_queued: queued as u64,
                jobs_running: running as u64,
                events_pending: pending as u64,
                events_dead: dead as u64,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Several processes (here: threads with their own connections) opening a new data directory
    /// at once: each migration runs once, and every opener sees the finished schema.
    #[test]
    fn concurrent_first_opens_migrate_once() {
        let dir = tempfile::tempdir().unwrap();
        let openers: Vec<_> = (0..8)
            .map(|_| {
                let path = dir.path().to_path_buf();
                std::thread::spawn(move || SqliteStore::open(&path, Durability::Normal).map(|_| ()))
            })
            .collect();
        for opener in openers {
            opener.join().unwrap().unwrap();
        }
        let conn = Connection::open(dir.path().join(DATABASE_FILE)).unwrap();
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version as usize, MIGRATIONS.len());
    }

    fn lease(store: &SqliteStore, now: Millis) -> Option<LeasedJob> {
        store.lease_jobs(1, 1, 1_000, now).unwrap().into_iter().next()
    }

    fn complete(
        store: &SqliteStore,
        job: &LeasedJob,
        outcome: &JobOutcome,
        event: Option<&NewEvent>,
        now: Millis,
    ) -> bool {
        let (sender, receiver) = std::sync::mpsc::channel();
        store.complete_job(
            job.clone(),
            outcome.clone(),
            event.cloned(),
            now,
            Box::new(move |r| sender.send(r.unwrap()).unwrap()),
        );
        receiver.recv().unwrap()
    }

    fn store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        (dir, store)
    }

    fn new_submission(client_id: i64, key: Option<&str>, answer: &str) -> NewSubmission {
        NewSubmission {
            client_id,
            exercise: "01-visibility-timeout".into(),
            learner: "l1".into(),
            submission: Submission::Answer(answer.into()),
            callback_url: Some("http://127.0.0.1:1/hook".into()),
            metadata: None,
            idempotency_key: key.map(str::to_string),
            request_hash: crate::submission::sha256_hex(answer.as_bytes()),
        }
    }

    #[test]
    fn idempotency_key_same_and_different_request() {
        let (_dir, store) = store();
        let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
        let Intake::Created(first) =
            store.submit(&new_submission(client.id, Some("k"), "(1)"), 10, 1).unwrap()
        else {
            panic!("not created")
        };
        let Intake::Existing(again) =
            store.submit(&new_submission(client.id, Some("k"), "(1)"), 10, 2).unwrap()
        else {
            panic!("not the same submission")
        };
        assert_eq!(first.id, again.id);
        assert!(matches!(
            store.submit(&new_submission(client.id, Some("k"), "(2)"), 10, 3).unwrap(),
            Intake::KeyReused(_)
        ));
        // Without a key, every request is new.
        assert!(matches!(
            store.submit(&new_submission(client.id, None, "(1)"), 10, 4).unwrap(),
            Intake::Created(_)
        ));
        assert!(matches!(
            store.submit(&new_submission(client.id, None, "(1)"), 2, 5).unwrap(),
            Intake::QueueFull { depth: 2 }
        ));
    }

    #[test]
    fn lease_expires_then_one_result_and_one_event() {
        let (_dir, store) = store();
        let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
        store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
        let first = lease(&store, 10).unwrap();
        assert_eq!(first.attempt, 1);
        // Leased: nobody else gets it until the lease expires.
        assert!(lease(&store, 500).is_none());
        let second = lease(&store, 1_010).unwrap();
        assert_eq!((second.submission_id, second.attempt), (first.submission_id, 2));
        let outcome = JobOutcome::Failed { reason: "r".into() };
        let event = NewEvent { event_id: "evt_1".into(), url: "http://x/".into(), payload: "{}".into() };
        assert!(complete(&store, &second, &outcome, Some(&event), 1_020));
        // The first worker comes back late: no second result, no second event.
        assert!(!complete(&store, &first, &outcome, Some(&event), 1_030));
        let record = store.submission(first.submission_id).unwrap().unwrap();
        assert_eq!(record.status, Status::Failed);
        assert_eq!(record.attempts, 2);
        assert_eq!(store.lease_events(10, 100, 2_000).unwrap().len(), 1);
        assert!(lease(&store, 5_000).is_none());
    }

    #[test]
    fn a_deferred_job_waits_queued_until_its_time_and_counts_only_when_asked() {
        let (_dir, store) = store();
        let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
        store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
        let first = lease(&store, 10).unwrap();
        store.defer_job(&first, 2_000, false).unwrap();
        let record = store.submission(first.submission_id).unwrap().unwrap();
        assert_eq!((record.status, record.attempts), (Status::Queued, 0), "waiting, not running");
        assert_eq!(store.stats().unwrap().jobs_queued, 1);
        assert!(lease(&store, 1_999).is_none(), "not due before its time");
        let again = lease(&store, 2_000).unwrap();
        assert_eq!(again.attempt, 1, "an uncounted wait is no attempt");
        store.defer_job(&again, 3_000, true).unwrap();
        assert!(lease(&store, 2_999).is_none());
        assert_eq!(lease(&store, 3_000).unwrap().attempt, 2, "a counted wait is one");
    }

    #[test]
    fn a_renewed_lease_holds_its_job_and_a_stale_attempt_cannot_renew() {
        let (_dir, store) = store();
        let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
        store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
        let first = lease(&store, 0).unwrap();
        let id = first.submission_id;
        // Heartbeats keep the job leased long past its first lease of 1 000 ms.
        for now in [800, 1_600, 2_400, 3_200] {
            assert!(store.renew_lease(id, first.attempt, 1_000, now).unwrap());
            assert!(lease(&store, now + 999).is_none(), "graded twice at {now}: its lease ran out");
        }
        assert_eq!(store.submission(id).unwrap().unwrap().attempts, 1);
        // Without a heartbeat the lease runs out and another attempt takes the job ...
        let second = lease(&store, 4_200).unwrap();
        assert_eq!(second.attempt, 2);
        // ... and the first, come back, is fenced out: it cannot take the lease back.
        assert!(!store.renew_lease(id, first.attempt, 1_000, 4_300).unwrap());
        assert!(store.renew_lease(id, second.attempt, 1_000, 4_300).unwrap());
        // A finished job has no lease to renew.
        assert!(complete(&store, &second, &JobOutcome::Failed { reason: "r".into() }, None, 4_400));
        assert!(!store.renew_lease(id, second.attempt, 1_000, 4_500).unwrap());
    }

    #[test]
    fn leases_are_shared_between_workers_and_a_failed_write_spares_its_group() {
        let (_dir, store) = store();
        let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
        for i in 0..5 {
            store.submit(&new_submission(client.id, None, &format!("({i})")), 10, 0).unwrap();
        }
        // Five due jobs, two workers: this one takes three, the next two, then none is left.
        assert_eq!(store.lease_jobs(16, 2, 1_000, 0).unwrap().len(), 3);
        assert_eq!(store.lease_jobs(16, 2, 1_000, 0).unwrap().len(), 1);
        assert_eq!(store.lease_jobs(16, 2, 1_000, 0).unwrap().len(), 1);
        assert!(store.lease_jobs(16, 2, 1_000, 0).unwrap().is_empty());
        // A write that fails (a duplicate client name) rolls back alone.
        assert!(matches!(store.add_client("lms", "h2", "s", 0), Err(StoreError::Conflict(_))));
        assert_eq!(store.list_clients().unwrap().len(), 1);
        assert!(store.add_client("lms-2", "h2", "s", 0).is_ok());
    }

    #[test]
    fn idempotency_keys_are_forgotten_after_the_retention_only() {
        let (_dir, store) = store();
        let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
        store.submit(&new_submission(client.id, Some("old"), "(1)"), 10, 1_000).unwrap();
        store.submit(&new_submission(client.id, Some("new"), "(1)"), 10, 5_000).unwrap();
        assert_eq!(store.forget_idempotency_keys(2_000).unwrap(), 1);
        // The old key is free again; the new one still finds its submission.
        assert!(matches!(
            store.submit(&new_submission(client.id, Some("old"), "(1)"), 10, 6_000).unwrap(),
            Intake::Created(_)
        ));
        assert!(matches!(
            store.submit(&new_submission(client.id, Some("new"), "(1)"), 10, 6_000).unwrap(),
            Intake::Existing(_)
        ));
    }

    #[test]
    fn dead_events_are_redelivered_once_asked() {
        let (_dir, store) = store();
        let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
        store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
        let job = lease(&store, 0).unwrap();
        let event = NewEvent { event_id: "evt_1".into(), url: "http://x/".into(), payload: "{}".into() };
        complete(&store, &job, &JobOutcome::Failed { reason: "r".into() }, Some(&event), 0);
        let leased = store.lease_events(10, 100, 0).unwrap();
        assert_eq!(leased.len(), 1);
        assert!(
            store.lease_events(10, 100, 50).unwrap().is_empty(),
            "leased events are not handed out twice"
        );
        store.record_delivery("evt_1", &Delivery::Dead { error: "500".into() }, 60).unwrap();
        assert_eq!(store.dead_events(client.id, 10).unwrap().len(), 1);
        assert_eq!(store.redeliver(client.id + 1, "evt_1", 70).unwrap(), None, "another client's event");
        assert_eq!(store.redeliver(client.id, "evt_1", 70).unwrap(), Some(true));
        assert_eq!(store.redeliver(client.id, "evt_1", 70).unwrap(), Some(false));
        let again = store.lease_events(10, 100, 70).unwrap();
        assert_eq!(again[0].event_id, "evt_1");
        assert_eq!(again[0].attempts, 0);
    }
}
