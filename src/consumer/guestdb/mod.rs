//! The guest's SQLite connection, hardened: an authorizer that allows only reads and writes of the
//! exercise's own tables, transaction control and a named list of SQL functions (no ATTACH, PRAGMA,
//! DDL, virtual or table-valued tables, extension loading, time or randomness), one statement per
//! call, defensive mode, limits on lengths and sizes (so that the costliest single SQLite step stays
//! in milliseconds, and the database cannot outgrow [`crate::limits::SCRATCH_DB_BYTES_MAX`]), and a
//! progress handler that stops a runaway statement after a counted number of VM steps (counted, so
//! the verdict is the same everywhere)
//! and, as a wall-clock backstop, after [`crate::limits::SQL_WALL_MS_PER_STATEMENT`] or when the
//! submission's deadline passes, whichever comes first.
//!
//! This file is the connection; `authorizer.rs` holds the authorizer and its allow-list,
//! `errors.rs` the mapping of SQLite's errors onto ABI v1's status codes (`status.rs`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::state::SqlValue;
use crate::deadline::Deadline;
use crate::limits::SQL_WALL_MS_PER_STATEMENT;

mod authorizer;
mod errors;
/// The status codes `db.*` calls return (shown by name in traces).
pub use crate::report::consumer::status;

use self::authorizer::{authorize, drop_virtual_table_modules};

/// How a statement that found the database locked begins its error message.
pub const LOCKED_PREFIX: &str = "the database is locked by another transaction";

/// How often (in VM steps) the progress handler runs.
const PROGRESS_GRANULARITY: i32 = 1_000;
/// Highest `?` index a guest may bind.
const PARAMETERS_MAX: i32 = crate::limits::SQL_PARAMETERS_MAX as i32;
/// The page size of scratch databases (SQLite's default; the template is built with it).
const PAGE_BYTES: u64 = 4096;

/// State shared with the SQLite callbacks of one connection.
#[derive(Debug, Default)]
struct Guard {
    steps: AtomicU64,
    step_limit_hit: AtomicBool,
    /// The wall-clock moment the current statement is stopped at (none: host statements such as
    /// the harness's own ROLLBACK).
    wall_deadline: Mutex<Option<Instant>>,
    wall_limit_hit: AtomicBool,
    /// Reasons of the denials while preparing the current statement, with a priority: a
    /// statement-level reason (DROP TABLE) explains more than the table reads it implies.
    denied: Mutex<Vec<(u8, String)>>,
    /// The statement being prepared is transaction control (BEGIN, COMMIT, SAVEPOINT, ...).
    transaction_control: AtomicBool,
    /// A transaction committed while the current statement ran (SQLite's commit hook).
    committed: AtomicBool,
}

/// The result of one statement, for the guest and for the trace.
#[derive(Debug, Clone)]
pub struct StatementResult {
    pub status: i32,
    pub changes: u64,
    /// The statement modifies the database (INSERT, UPDATE, DELETE, REPLACE).
    pub is_write: bool,
    /// First column of the first row (`query_int`).
    pub row: Option<i64>,
    pub error: Option<String>,
    /// SQLite's extended result code of the failure (0: none, or a failure that is not SQLite's,
    /// such as a parameter bound to no placeholder).
    pub error_code: i32,
    /// The statement was stopped by the SQL step limit.
    pub step_limit_hit: bool,
    /// The statement was stopped by the wall clock: its own backstop, or the submission's
    /// deadline (the second value: true when the submission's time ran out).
    pub wall_limit_hit: Option<bool>,
    /// The database was locked by another connection's transaction.
    pub busy: bool,
    /// The statement made a transaction durable: SQLite committed while it ran, and no transaction is
    /// open afterwards. True for a write outside a transaction (autocommit), for the statement that
    /// ends a transaction by committing it (`COMMIT`, `END`, `RELEASE` of the outermost savepoint,
    /// whatever its spelling), and for a failed statement outside a transaction whose partial
    /// changes SQLite commits (`INSERT OR FAIL`). A `ROLLBACK` never is; neither is the end of a
    /// transaction that only read (SQLite has nothing to commit).
    pub committed: bool,
    /// The statement opened a transaction (`BEGIN`, a `SAVEPOINT` outside one): there was none
    /// before, there is one afterwards.
    pub opened_transaction: bool,
}

pub struct GuestDb {
    conn: Connection,
    guard: Arc<Guard>,
    pending: BTreeMap<i32, SqlValue>,
    pending_error: Option<String>,
    last_error: String,
    last_error_code: i32,
    last_changes: u64,
    step_limit: u64,
    /// The submission's deadline: no statement runs past it.
    deadline: Option<Deadline>,
    /// Whether the submission's deadline (not the statement's own backstop) bound the statement
    /// running now.
    submission_binds: bool,
}

impl GuestDb {
    /// Opens the guest's connection to the database at `path`: a file name, or a `file:` URI such as
    /// a run's database in memory ([`super::rundb::RunDb::uri`]). `tables` are the only tables the
    /// guest may touch.
    pub fn open(path: &Path, tables: Arc<[String]>, step_limit: u64) -> rusqlite::Result<GuestDb> {
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // Host settings first, before the authorizer forbids PRAGMA.
        // The rollback journal stays in memory: a crash is simulated by closing the connection,
        // which rolls back exactly as a hot journal would be rolled back after a real kill.
        // max_page_count bounds the database file (a write beyond it fails with SQLITE_FULL), and
        // cache_size the pages this connection keeps in memory. The guest cannot change either:
        // the authorizer denies PRAGMA.
        use crate::limits::{SCRATCH_DB_BYTES_MAX, SQL_CACHE_BYTES_MAX};
        conn.execute_batch(&format!(
            "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY; PRAGMA foreign_keys = ON; \
             PRAGMA max_page_count = {pages}; PRAGMA cache_size = -{cache_kib}; PRAGMA temp_store = {temp};",
            pages = SCRATCH_DB_BYTES_MAX / PAGE_BYTES,
            cache_kib = SQL_CACHE_BYTES_MAX / 1024,
            temp = temp_store(crate::sandbox::grading_process_limited())
        ))?;
        drop_virtual_table_modules(&conn);
        conn.busy_timeout(std::time::Duration::ZERO)?;
        use rusqlite::config::DbConfig;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_FKEY, true)?;
        use crate::limits as l;
        let limits = [
            (Limit::SQLITE_LIMIT_SQL_LENGTH, l::SQL_TEXT_BYTES_MAX as i32),
            (Limit::SQLITE_LIMIT_LENGTH, l::SQL_VALUE_BYTES_MAX as i32),
            (Limit::SQLITE_LIMIT_ATTACHED, 0),
            (Limit::SQLITE_LIMIT_EXPR_DEPTH, l::SQL_EXPR_DEPTH_MAX as i32),
            (Limit::SQLITE_LIMIT_COMPOUND_SELECT, l::SQL_COMPOUND_SELECT_MAX as i32),
            (Limit::SQLITE_LIMIT_VARIABLE_NUMBER, PARAMETERS_MAX),
            (Limit::SQLITE_LIMIT_FUNCTION_ARG, l::SQL_FUNCTION_ARGS_MAX as i32),
            (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, l::SQL_LIKE_PATTERN_BYTES_MAX as i32),
            (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 10),
            // One row of a table may not span more columns than a real schema needs.
            (Limit::SQLITE_LIMIT_COLUMN, 100),
        ];
        for (limit, value) in limits {
            conn.set_limit(limit, value)?;
        }
        let guard = Arc::new(Guard::default());
        let progress_guard = Arc::clone(&guard);
        let max_calls = step_limit.div_ceil(PROGRESS_GRANULARITY as u64);
        conn.progress_handler(
            PROGRESS_GRANULARITY,
            Some(move || {
                let calls = progress_guard.steps.fetch_add(1, Ordering::Relaxed) + 1;
                if calls > max_calls {
                    progress_guard.step_limit_hit.store(true, Ordering::Relaxed);
                    return true;
                }
                let until = progress_guard.wall_deadline.lock().ok().and_then(|d| *d);
                if until.is_some_and(|until| Instant::now() >= until) {
                    progress_guard.wall_limit_hit.store(true, Ordering::Relaxed);
                    return true;
                }
                false
            }),
        )?;
        let commit_guard = Arc::clone(&guard);
        conn.commit_hook(Some(move || {
            commit_guard.committed.store(true, Ordering::Relaxed);
            false // let the commit proceed
        }))?;
        let auth_guard = Arc::clone(&guard);
        conn.authorizer(Some(move |ctx: AuthContext<'_>| {
            if matches!(ctx.action, AuthAction::Transaction { .. } | AuthAction::Savepoint { .. }) {
                auth_guard.transaction_control.store(true, Ordering::Relaxed);
            }
            match authorize(&ctx, &tables) {
                Ok(()) => Authorization::Allow,
                Err(reason) => {
                    let priority = match ctx.action {
                        AuthAction::Read { .. }
                        | AuthAction::Insert { .. }
                        | AuthAction::Update { .. }
                        | AuthAction::Delete { .. } => 1,
                        _ => 0,
                    };
                    if let Ok(mut denied) = auth_guard.denied.lock() {
                        denied.push((priority, reason));
                    }
                    Authorization::Deny
                }
            }
        }))?;
        Ok(GuestDb {
            conn,
            guard,
            pending: BTreeMap::new(),
            pending_error: None,
            last_error: String::new(),
            last_error_code: 0,
            last_changes: 0,
            step_limit,
            deadline: None,
            submission_binds: false,
        })
    }

    /// Sets the submission's deadline: from now on no statement runs past it.
    pub fn set_deadline(&mut self, deadline: Deadline) {
        self.deadline = Some(deadline);
    }

    /// Arms (or, with `None`, disarms) the wall-clock stop for the next statement.
    fn arm(&mut self, until: Option<Instant>) {
        self.guard.steps.store(0, Ordering::Relaxed);
        self.guard.step_limit_hit.store(false, Ordering::Relaxed);
        self.guard.wall_limit_hit.store(false, Ordering::Relaxed);
        if let Ok(mut wall) = self.guard.wall_deadline.lock() {
            *wall = until;
        }
    }

    pub fn bind(&mut self, index: i32, value: SqlValue) {
        if !(1..=PARAMETERS_MAX).contains(&index) {
            self.pending_error.get_or_insert(format!(
                "bind index {index} is invalid: parameters are numbered from 1 to {PARAMETERS_MAX}"
            ));
            return;
        }
        self.pending.insert(index, value);
    }

    /// Records a problem with a bind call; reported by the next statement.
    pub fn bind_error(&mut self, message: String) {
        self.pending_error.get_or_insert(message);
    }

    /// The parameters bound for the next statement, for the trace.
    pub fn pending_params(&self) -> Vec<SqlValue> {
        self.pending.values().cloned().collect()
    }

    pub fn last_error(&self) -> &str {
        &self.last_error
    }

    /// SQLite's extended result code of the last failed statement (0 after a success, or for a
    /// failure that is not SQLite's).
    pub fn last_error_code(&self) -> i32 {
        self.last_error_code
    }

    /// Replaces the last error a guest reads with `db.last_error` (a lock wait given up for a
    /// reason SQLite does not know).
    pub fn set_last_error(&mut self, message: String) {
        self.last_error = message;
    }

    pub fn changes(&self) -> u64 {
        self.last_changes
    }

    /// True while a transaction is open.
    pub fn in_transaction(&self) -> bool {
        !self.conn.is_autocommit()
    }

    /// Rolls back an open transaction (the harness does this when a delivery ends with one open).
    pub fn rollback(&mut self) {
        if self.in_transaction() {
            // The harness's own statement: no limit may stop it (an expired deadline would leave
            // the lock held). The authorizer allows transaction control; a failure leaves the
            // transaction to be discarded when the connection closes.
            self.arm(None);
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    /// Runs one statement with the pending parameters. With `want_row`, returns the first column of
    /// the first row as an integer (status NO_ROW when there is none).
    pub fn run(&mut self, sql: &str, want_row: bool) -> StatementResult {
        let params = self.take_params();
        self.run_with_params(sql, want_row, params)
    }

    /// Takes the parameters bound for the next statement.
    pub fn take_params(&mut self) -> BTreeMap<i32, SqlValue> {
        std::mem::take(&mut self.pending)
    }

    /// Runs one statement with `params` (a statement retried after a lock wait runs with the same
    /// parameters again).
    pub fn run_with_params(
        &mut self,
        sql: &str,
        want_row: bool,
        params: BTreeMap<i32, SqlValue>,
    ) -> StatementResult {
        self.guard.committed.store(false, Ordering::Relaxed);
        let was_open = self.in_transaction();
        let mut result = self.run_inner(sql, want_row, params);
        result.opened_transaction = !was_open && self.in_transaction();
        // The hook also fires for a COMMIT that then fails (the database is busy); only a
        // transaction that really ended is durable.
        result.committed = self.guard.committed.load(Ordering::Relaxed) && self.conn.is_autocommit();
        result.busy = result.status == status::ERROR
            && result.error.as_deref().is_some_and(|e| e.starts_with(LOCKED_PREFIX));
        self.last_error = result.error.clone().unwrap_or_default();
        self.last_error_code = result.error_code;
        if result.status == status::OK {
            self.last_changes = result.changes;
        }
        result
    }

    fn run_inner(&mut self, sql: &str, want_row: bool, params: BTreeMap<i32, SqlValue>) -> StatementResult {
        let failed = |status: i32, error: String, is_write: bool, step_limit_hit: bool| StatementResult {
            status,
            changes: 0,
            is_write,
            row: None,
            error: Some(error),
            error_code: 0,
            step_limit_hit,
            wall_limit_hit: None,
            busy: false,
            committed: false,
            opened_transaction: false,
        };
        if let Some(error) = self.pending_error.take() {
            return failed(status::ERROR, error, false, false);
        }
        let own = Duration::from_millis(SQL_WALL_MS_PER_STATEMENT);
        let (until, submission_binds) = match &self.deadline {
            Some(deadline) => deadline.cap(own),
            None => (Instant::now() + own, false),
        };
        self.submission_binds = submission_binds;
        self.arm(Some(until));
        if let Ok(mut denied) = self.guard.denied.lock() {
            denied.clear();
        }
        self.guard.transaction_control.store(false, Ordering::Relaxed);
        // NO_VTAB: a statement that uses any virtual table (json_each, pragma_table_info, ...) fails
        // to prepare, whatever the authorizer sees.
        let mut stmt = match self.conn.prepare_with_flags(sql, rusqlite::PrepFlags::SQLITE_PREPARE_NO_VTAB) {
            Ok(stmt) => stmt,
            Err(error) => {
                let (status, message) = self.describe_error(sql, &error);
                return StatementResult {
                    wall_limit_hit: self.wall_limit_hit(),
                    error_code: extended_code(&error),
                    ..failed(status, message, false, self.step_limit_hit())
                };
            }
        };
        // BEGIN IMMEDIATE is not read-only to SQLite (it takes the write lock) but writes nothing.
        let is_write = !stmt.readonly() && !self.guard.transaction_control.load(Ordering::Relaxed);
        let count = stmt.parameter_count() as i32;
        for (index, value) in params {
            if index > count {
                let message =
                    format!("parameter ?{index} was bound, but the statement has only {count} parameter(s)");
                return failed(status::ERROR, message, is_write, false);
            }
            if let Err(error) = stmt.raw_bind_parameter(index as usize, value) {
                return failed(status::ERROR, error.to_string(), is_write, false);
            }
        }
        let mut rows = stmt.raw_query();
        let stepped: rusqlite::Result<FirstRow> = if want_row {
            match rows.next() {
                Ok(Some(row)) => match row.get_ref(0) {
                    Ok(ValueRef::Integer(value)) => Ok(FirstRow::Integer(value)),
                    Ok(other) => Ok(FirstRow::Other(other.data_type())),
                    Err(error) => Err(error),
                },
                Ok(None) => Ok(FirstRow::None),
                Err(error) => Err(error),
            }
        } else {
            loop {
                match rows.next() {
                    Ok(Some(_)) => continue,
                    Ok(None) => break Ok(FirstRow::None),
                    Err(error) => break Err(error),
                }
            }
        };
        drop(rows);
        drop(stmt);
        match stepped {
            Err(error) => {
                let (status, message) = self.describe_error(sql, &error);
                StatementResult {
                    wall_limit_hit: self.wall_limit_hit(),
                    error_code: extended_code(&error),
                    ..failed(status, message, is_write, self.step_limit_hit())
                }
            }
            Ok(first) => {
                let changes = if is_write { self.conn.changes() } else { 0 };
                let ok = StatementResult {
                    status: status::OK,
                    changes,
                    is_write,
                    row: None,
                    error: None,
                    error_code: 0,
                    step_limit_hit: false,
                    wall_limit_hit: None,
                    busy: false,
                    committed: false,
                    opened_transaction: false,
                };
                match (want_row, first) {
                    (false, _) => ok,
                    (true, FirstRow::Integer(value)) => StatementResult { row: Some(value), ..ok },
                    (true, FirstRow::None) => StatementResult {
                        status: status::NO_ROW,
                        error: Some("the query returned no row".into()),
                        ..ok
                    },
                    (true, FirstRow::Other(value_type)) => StatementResult {
                        status: status::ERROR,
                        error: Some(format!(
                            "the first column of the first row is {value_type}, not an integer"
                        )),
                        ..ok
                    },
                }
            }
        }
    }

    fn step_limit_hit(&self) -> bool {
        self.guard.step_limit_hit.load(Ordering::Relaxed)
    }

    /// Whether the wall clock stopped the statement, and if so whether the submission's deadline
    /// (true) or the statement's own backstop (false) did.
    fn wall_limit_hit(&self) -> Option<bool> {
        self.guard.wall_limit_hit.load(Ordering::Relaxed).then_some(self.submission_binds)
    }
}

enum FirstRow {
    None,
    Integer(i64),
    Other(rusqlite::types::Type),
}

/// Where a guest connection keeps its temporary tables: in memory only where SQLite's heap is capped
/// (a dedicated grading process), in files otherwise (the service process must not grow without
/// bound).
fn temp_store(heap_capped: bool) -> &'static str {
    if heap_capped { "MEMORY" } else { "FILE" }
}

/// SQLite's extended result code of `error`, or 0 when it is not SQLite's.
fn extended_code(error: &rusqlite::Error) -> i32 {
    error.sqlite_error().map(|e| e.extended_code).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, GuestDb) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.db");
        let setup = Connection::open(&path).expect("create");
        setup.execute_batch("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)").expect("schema");
        drop(setup);
        let tables: Arc<[String]> = vec!["t".to_string()].into();
        let db = GuestDb::open(&path, tables, crate::limits::SQL_STEPS_PER_STATEMENT).expect("open");
        (dir, db)
    }

    fn error(db: &mut GuestDb, sql: &str) -> String {
        let result = db.run(sql, false);
        assert_eq!(result.status, status::ERROR, "{sql} must fail");
        result.error.unwrap_or_default()
    }

    #[test]
    fn only_listed_functions_run() {
        let (_dir, mut db) = db();
        for sql in
            ["SELECT fts3_tokenizer('simple')", "SELECT load_extension('x')", "SELECT sqlite_version()"]
        {
            assert!(error(&mut db, sql).contains("is not available"), "{sql}");
        }
        assert!(error(&mut db, "SELECT date('now')").contains("the time differs"));
        assert!(error(&mut db, "SELECT randomblob(4)").contains("reproducible"));
        let ok = db.run("SELECT abs(-1) + instr('ab', 'b') + json_extract('[1]', '$[0]')", true);
        assert_eq!((ok.status, ok.row), (status::OK, Some(4)), "{:?}", ok.error);
    }

    #[test]
    fn virtual_and_table_valued_tables_are_denied() {
        let (_dir, mut db) = db();
        for sql in [
            "SELECT count(*) FROM json_each('[1]')",
            "SELECT value FROM json_tree('[1]')",
            "SELECT name FROM pragma_table_info('t')",
            "SELECT count(*) FROM pragma_database_list",
            "SELECT * FROM sqlite_schema",
            "SELECT count(*) FROM dbstat",
        ] {
            assert!(error(&mut db, sql).starts_with("not allowed: "), "{sql}");
        }
        let cte = db.run("WITH c(x) AS (SELECT 1) SELECT count(*) FROM c", true);
        assert_eq!((cte.status, cte.row), (status::OK, Some(1)), "CTEs stay readable: {:?}", cte.error);
        let sub = db.run("SELECT count(*) FROM (SELECT k FROM t)", true);
        assert_eq!(sub.status, status::OK, "subqueries stay readable: {:?}", sub.error);
    }

    #[test]
    fn temporary_tables_stay_in_files_unless_the_heap_is_capped() {
        assert_eq!(temp_store(false), "FILE");
        assert_eq!(temp_store(true), "MEMORY");
        // This test process never caps the heap: the service's process must not either.
        assert!(!crate::sandbox::grading_process_limited());
    }

    #[test]
    fn a_full_scratch_database_is_a_clear_error_and_writes_nothing() {
        let (_dir, mut db) = db();
        let message = error(
            &mut db,
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 4000) \
             INSERT INTO t (k, v) SELECT hex(zeroblob(4000)) || i, i FROM r",
        );
        assert!(message.starts_with("database full: limit \"scratch database size\""), "{message}");
        let count = db.run("SELECT count(*) FROM t", true);
        assert_eq!(count.row, Some(0), "the statement is undone");
        assert!(error(&mut db, "SELECT zeroblob(100000)").contains("limit \"SQL value length\""));
        assert!(error(&mut db, "PRAGMA max_page_count = 100000000").contains("PRAGMA is not allowed"));
    }
}
