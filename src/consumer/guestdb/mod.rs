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

use std::collections::{BTreeMap, HashMap};
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
use crate::limits::{
    SQL_CACHED_STATEMENT_TEXT_BYTES_MAX, SQL_PARAMETERS_MAX, SQL_STATEMENTS_CACHED_PER_CONNECTION,
    SQL_WALL_MS_PER_STATEMENT,
};

mod authorizer;
#[allow(unsafe_code)] // reading the counters of the connection that runs a function
mod counters;
mod errors;
/// The status codes `db.*` calls return (shown by name in traces).
pub use crate::report::consumer::status;

use self::authorizer::{authorize, drop_virtual_table_modules};

/// How a statement that found the database locked begins its error message.
pub(crate) const LOCKED_PREFIX: &str = "the database is locked by another transaction";

/// How often (in VM steps) the progress handler runs.
const PROGRESS_GRANULARITY: i32 = 1_000;
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
    /// How many progress-handler calls a statement may take ([`GuestDb::open`]'s step limit).
    max_calls: AtomicU64,
    /// No INSERT, UPDATE or DELETE has run on this connection since its instance began: `changes()`
    /// is 0, as on a new connection (see [`SpareConnections`]).
    changes_fresh: AtomicBool,
    /// `sqlite3_total_changes` when the instance began: `total_changes()` counts from there.
    total_changes_before: AtomicU64,
    /// The statement texts this connection prepared with the authorizer's consent, and whether
    /// each is transaction control: at most [`SQL_STATEMENTS_CACHED_PER_CONNECTION`] texts of at
    /// most [`SQL_CACHED_STATEMENT_TEXT_BYTES_MAX`] bytes (when full, it forgets them all).
    prepared: Mutex<HashMap<String, bool>>,
}

impl Guard {
    /// Whether `sql` was prepared on this connection before, and then whether it is transaction
    /// control.
    fn prepared_before(&self, sql: &str) -> Option<bool> {
        self.prepared.lock().ok()?.get(sql).copied()
    }

    /// Remembers `sql`, just prepared with the authorizer's consent, when it is short enough to be
    /// cached (a longer one is prepared anew every time).
    fn remember_prepared(&self, sql: &str) {
        if sql.len() > SQL_CACHED_STATEMENT_TEXT_BYTES_MAX {
            return;
        }
        if let Ok(mut prepared) = self.prepared.lock() {
            if prepared.len() >= SQL_STATEMENTS_CACHED_PER_CONNECTION {
                prepared.clear();
            }
            prepared.insert(sql.to_string(), self.transaction_control.load(Ordering::Relaxed));
        }
    }
}

/// A guest's statement: prepared for this call, or taken from the connection's statement cache.
enum Prepared<'c> {
    Once(rusqlite::Statement<'c>),
    Cached(rusqlite::CachedStatement<'c>),
}

impl<'c> std::ops::Deref for Prepared<'c> {
    type Target = rusqlite::Statement<'c>;

    fn deref(&self) -> &Self::Target {
        match self {
            Prepared::Once(stmt) => stmt,
            Prepared::Cached(stmt) => stmt,
        }
    }
}

impl std::ops::DerefMut for Prepared<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Prepared::Once(stmt) => stmt,
            Prepared::Cached(stmt) => stmt,
        }
    }
}

/// Guest connections to one run database that their instances no longer use, kept for the next
/// instances on it: opening a connection, applying its settings and parsing the schema is most of
/// what starting an instance cost.
///
/// A connection comes back only after its transaction is rolled back (a crash has rolled it back
/// already), and is handed out as a new connection would be: no transaction, no lock, no pending
/// parameters or errors, fresh statement limits, and the connection's own counters as a new
/// connection reads them: `last_insert_rowid()` 0, `changes()` 0 until a write runs,
/// `total_changes()` counting from 0 (the functions are the connection's own, [`counters`]). What
/// else a connection keeps (PRAGMA settings, temporary tables) a guest cannot change.
#[derive(Default)]
pub(crate) struct SpareConnections {
    spare: Mutex<Vec<Spare>>,
}

/// A kept connection, the state its callbacks share, and the tables its authorizer allows.
type Spare = (Connection, Arc<Guard>, Arc<[String]>);

impl SpareConnections {
    /// How many connections wait here.
    pub(crate) fn len(&self) -> usize {
        self.spare.lock().map_or(0, |spare| spare.len())
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A kept connection for a guest allowed `tables`, reset to what a new one is.
    fn take(&self, tables: &[String]) -> Option<(Connection, Arc<Guard>)> {
        let mut spare = self.spare.lock().ok()?;
        let index = spare.iter().position(|(_, _, allowed)| **allowed == *tables)?;
        let (conn, guard, _) = spare.swap_remove(index);
        drop(spare);
        counters::reset(&conn, &guard);
        Some((conn, guard))
    }

    /// Keeps `conn` for a later instance when it is idle and there is room; otherwise it closes.
    fn put_back(&self, conn: Connection, guard: Arc<Guard>, tables: Arc<[String]>) {
        if !conn.is_autocommit() {
            return;
        }
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < crate::limits::SPARE_CONNECTIONS_PER_RUN_DB_MAX
        {
            spare.push((conn, guard, tables));
        }
    }
}

impl Drop for GuestDb {
    /// The instance is gone: its connection goes back to the run database's spares, without a
    /// transaction (SQLite would discard an open one when the connection closed).
    fn drop(&mut self) {
        let Some(spares) = self.spares.take() else { return };
        self.rollback();
        if let Some(conn) = self.conn.take() {
            spares.put_back(conn, Arc::clone(&self.guard), Arc::clone(&self.tables));
        }
    }
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
    /// Open until the value is dropped (then it goes back to `spares`, or is closed).
    conn: Option<Connection>,
    guard: Arc<Guard>,
    /// The tables the authorizer lets the guest touch.
    tables: Arc<[String]>,
    /// Where the connection goes when the instance is gone, for the next instance on the same
    /// database (none: it is closed).
    spares: Option<Arc<SpareConnections>>,
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
        let (conn, guard) = Self::connect(path, &tables)?;
        Ok(Self::with_connection(conn, guard, tables, step_limit, None))
    }

    /// [`GuestDb::open`] for an instance on a run's database: takes a connection another instance
    /// on it left in `spares` (reset to what a new connection is) when there is one, and leaves its
    /// own there when it is dropped.
    pub(crate) fn open_reusing(
        spares: &Arc<SpareConnections>,
        path: &Path,
        tables: Arc<[String]>,
        step_limit: u64,
    ) -> rusqlite::Result<GuestDb> {
        let (conn, guard) = match spares.take(&tables) {
            Some(spare) => spare,
            None => Self::connect(path, &tables)?,
        };
        Ok(Self::with_connection(conn, guard, tables, step_limit, Some(Arc::clone(spares))))
    }

    fn with_connection(
        conn: Connection,
        guard: Arc<Guard>,
        tables: Arc<[String]>,
        step_limit: u64,
        spares: Option<Arc<SpareConnections>>,
    ) -> GuestDb {
        guard.max_calls.store(step_limit.div_ceil(PROGRESS_GRANULARITY as u64), Ordering::Relaxed);
        GuestDb {
            conn: Some(conn),
            guard,
            tables,
            spares,
            pending: BTreeMap::new(),
            pending_error: None,
            last_error: String::new(),
            last_error_code: 0,
            last_changes: 0,
            step_limit,
            deadline: None,
            submission_binds: false,
        }
    }

    /// The connection (open while the value lives).
    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("a guest's connection is open until its GuestDb is dropped")
    }

    /// A new hardened connection and the state its callbacks share.
    fn connect(path: &Path, tables: &Arc<[String]>) -> rusqlite::Result<(Connection, Arc<Guard>)> {
        let tables = Arc::clone(tables);
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
        conn.set_prepared_statement_cache_capacity(SQL_STATEMENTS_CACHED_PER_CONNECTION);
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
            (Limit::SQLITE_LIMIT_VARIABLE_NUMBER, l::SQL_PARAMETERS_MAX as i32),
            (Limit::SQLITE_LIMIT_FUNCTION_ARG, l::SQL_FUNCTION_ARGS_MAX as i32),
            (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, l::SQL_LIKE_PATTERN_BYTES_MAX as i32),
            (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, l::SQL_TRIGGER_DEPTH_MAX as i32),
            (Limit::SQLITE_LIMIT_COLUMN, l::SQL_COLUMNS_MAX as i32),
        ];
        for (limit, value) in limits {
            conn.set_limit(limit, value)?;
        }
        let guard = Arc::new(Guard { changes_fresh: AtomicBool::new(true), ..Guard::default() });
        counters::install(&conn, &guard)?;
        let progress_guard = Arc::clone(&guard);
        conn.progress_handler(
            PROGRESS_GRANULARITY,
            Some(move || {
                let calls = progress_guard.steps.fetch_add(1, Ordering::Relaxed) + 1;
                if calls > progress_guard.max_calls.load(Ordering::Relaxed) {
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
        Ok((conn, guard))
    }

    /// Sets the submission's deadline: from now on no statement runs past it.
    pub(crate) fn set_deadline(&mut self, deadline: Deadline) {
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

    pub(crate) fn bind(&mut self, index: i32, value: SqlValue) {
        if !(1..=SQL_PARAMETERS_MAX as i32).contains(&index) {
            self.pending_error.get_or_insert(format!(
                "bind index {index} is invalid: parameters are numbered from 1 to {SQL_PARAMETERS_MAX}"
            ));
            return;
        }
        self.pending.insert(index, value);
    }

    /// Records a problem with a bind call; reported by the next statement.
    pub(crate) fn bind_error(&mut self, message: String) {
        self.pending_error.get_or_insert(message);
    }

    pub(crate) fn last_error(&self) -> &str {
        &self.last_error
    }

    /// SQLite's extended result code of the last failed statement (0 after a success, or for a
    /// failure that is not SQLite's).
    pub(crate) fn last_error_code(&self) -> i32 {
        self.last_error_code
    }

    /// Replaces the last error a guest reads with `db.last_error` (a lock wait given up for a
    /// reason SQLite does not know).
    pub(crate) fn set_last_error(&mut self, message: String) {
        self.last_error = message;
    }

    pub(crate) fn changes(&self) -> u64 {
        self.last_changes
    }

    /// True while a transaction is open.
    pub(crate) fn in_transaction(&self) -> bool {
        !self.conn().is_autocommit()
    }

    /// Rolls back an open transaction (the harness does this when a delivery ends with one open).
    pub(crate) fn rollback(&mut self) {
        if self.in_transaction() {
            // The harness's own statement: no limit may stop it (an expired deadline would leave
            // the lock held). The authorizer allows transaction control; a failure leaves the
            // transaction to be discarded when the connection closes.
            self.arm(None);
            let _ = self.conn().execute_batch("ROLLBACK");
        }
    }

    /// Runs one statement with the pending parameters. With `want_row`, returns the first column of
    /// the first row as an integer (status NO_ROW when there is none).
    pub fn run(&mut self, sql: &str, want_row: bool) -> StatementResult {
        let params = self.take_params();
        self.run_with_params(sql, want_row, params)
    }

    /// Takes the parameters bound for the next statement.
    pub(crate) fn take_params(&mut self) -> BTreeMap<i32, SqlValue> {
        std::mem::take(&mut self.pending)
    }

    /// Runs one statement with `params` (a statement retried after a lock wait runs with the same
    /// parameters again).
    pub(crate) fn run_with_params(
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
        result.committed = self.guard.committed.load(Ordering::Relaxed) && self.conn().is_autocommit();
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
        if let Some(error) = self.pending_error.take() {
            return failed_result(status::ERROR, error, false, false);
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
        // A statement text this connection prepared before (with the authorizer's verdict and
        // NO_VTAB, on the same schema) comes from the connection's statement cache: the authorizer
        // would allow it again, and whether it is transaction control is remembered. Any other is
        // prepared with NO_VTAB: a statement that uses any virtual table (json_each,
        // pragma_table_info, ...) fails to prepare, whatever the authorizer sees.
        let known = self.guard.prepared_before(sql);
        let prepared = match known {
            Some(_) => self.conn().prepare_cached(sql).map(Prepared::Cached),
            None => self
                .conn()
                .prepare_with_flags(sql, rusqlite::PrepFlags::SQLITE_PREPARE_NO_VTAB)
                .map(Prepared::Once),
        };
        let mut stmt = match prepared {
            Ok(stmt) => {
                match known {
                    Some(control) => self.guard.transaction_control.store(control, Ordering::Relaxed),
                    None => self.guard.remember_prepared(sql),
                }
                stmt
            }
            Err(error) => {
                let (status, message) = self.describe_error(sql, &error);
                return StatementResult {
                    wall_limit_hit: self.wall_limit_hit(),
                    error_code: extended_code(&error),
                    ..failed_result(status, message, false, self.step_limit_hit())
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
                return failed_result(status::ERROR, message, is_write, false);
            }
            if let Err(error) = stmt.raw_bind_parameter(index as usize, value) {
                return failed_result(status::ERROR, error.to_string(), is_write, false);
            }
        }
        let mut rows = stmt.raw_query();
        let stepped = step(&mut rows, want_row);
        drop(rows);
        drop(stmt);
        if is_write {
            // SQLite counts `changes()` anew with every INSERT, UPDATE or DELETE that ran.
            self.guard.changes_fresh.store(false, Ordering::Relaxed);
        }
        self.result_of(sql, stepped, is_write, want_row)
    }

    /// The result of a statement that was prepared and stepped: its error described, or its
    /// changes and (when a row is wanted) its first column as an integer.
    fn result_of(
        &self,
        sql: &str,
        stepped: rusqlite::Result<FirstRow>,
        is_write: bool,
        want_row: bool,
    ) -> StatementResult {
        match stepped {
            Err(error) => {
                let (status, message) = self.describe_error(sql, &error);
                StatementResult {
                    wall_limit_hit: self.wall_limit_hit(),
                    error_code: extended_code(&error),
                    ..failed_result(status, message, is_write, self.step_limit_hit())
                }
            }
            Ok(first) => {
                let changes = if is_write { self.conn().changes() } else { 0 };
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

/// The result of a statement that failed before or while it ran.
fn failed_result(status: i32, error: String, is_write: bool, step_limit_hit: bool) -> StatementResult {
    StatementResult {
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
    }
}

/// Steps a statement: to its first row's first column when a row is wanted, else to its end.
fn step(rows: &mut rusqlite::Rows<'_>, want_row: bool) -> rusqlite::Result<FirstRow> {
    if want_row {
        return match rows.next()? {
            Some(row) => match row.get_ref(0)? {
                ValueRef::Integer(value) => Ok(FirstRow::Integer(value)),
                other => Ok(FirstRow::Other(other.data_type())),
            },
            None => Ok(FirstRow::None),
        };
    }
    while rows.next()?.is_some() {}
    Ok(FirstRow::None)
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

    /// The first column of `sql`'s first row.
    fn value(db: &mut GuestDb, sql: &str) -> i64 {
        let result = db.run(sql, true);
        assert_eq!(result.status, status::OK, "{sql}: {:?}", result.error);
        result.row.unwrap_or_else(|| panic!("{sql} has a row"))
    }

    /// A connection an ended instance left behind reads as a new one: no transaction (an open one
    /// is rolled back, as a closed connection's would be), and `last_insert_rowid()`, `changes()`
    /// and `total_changes()` as a new connection reads them, before and after its first write;
    /// while a connection from `GuestDb::open` reads the same.
    #[test]
    fn a_reused_connection_reads_as_a_new_one() {
        let (dir, mut first) = db();
        let path = dir.path().join("t.db");
        let tables: Arc<[String]> = vec!["t".to_string()].into();
        let spares = Arc::new(SpareConnections::default());
        let open = || {
            GuestDb::open_reusing(&spares, &path, Arc::clone(&tables), crate::limits::SQL_STEPS_PER_STATEMENT)
                .expect("open")
        };
        let counters = "SELECT last_insert_rowid() * 10000 + changes() * 100 + total_changes()";
        // What a new connection reads, before and after one write.
        assert_eq!(value(&mut first, counters), 0);
        assert_eq!(first.run("INSERT INTO t VALUES ('a', 1)", false).status, status::OK);
        let after_one_write = value(&mut first, counters);
        assert_eq!(after_one_write, 10101);
        drop(first);

        let mut used = open();
        for sql in
            ["INSERT INTO t VALUES ('b', 2)", "INSERT INTO t VALUES ('c', 3)", "UPDATE t SET v = v + 1"]
        {
            assert_eq!(used.run(sql, false).status, status::OK, "{sql}");
        }
        assert_eq!(used.run("BEGIN", false).status, status::OK);
        assert_eq!(used.run("INSERT INTO t VALUES ('d', 4)", false).status, status::OK);
        assert!(used.in_transaction());
        drop(used); // ends with its transaction open
        assert_eq!(spares.len(), 1, "the connection is kept");

        let mut reused = open();
        assert!(spares.is_empty(), "the kept connection is taken");
        assert!(!reused.in_transaction());
        assert_eq!(value(&mut reused, "SELECT count(*) FROM t WHERE k = 'd'"), 0, "rolled back");
        assert_eq!(value(&mut reused, counters), 0, "as a new connection");
        assert_eq!(reused.run("INSERT INTO t VALUES ('e', 5)", false).status, status::OK);
        assert_eq!(value(&mut reused, counters) % 10000, after_one_write % 10000);
        // A failed write counts as a write: changes() is 0 after it, as SQLite has it.
        assert_eq!(reused.run("INSERT INTO t VALUES ('e', 6)", false).status, status::DUPLICATE);
        assert_eq!(value(&mut reused, "SELECT changes()"), 0);
    }

    /// A statement text run again comes from the connection's statement cache and behaves as when
    /// it was first prepared: parameters not bound this time are NULL (not the last call's), a
    /// transaction statement is not a write, and a denied statement stays denied.
    #[test]
    fn a_statement_run_again_behaves_as_the_first_time() {
        let (_dir, mut db) = db();
        let insert = "INSERT INTO t VALUES (?1, ?2)";
        for round in 0..3 {
            db.bind(1, SqlValue::Text(format!("k{round}")));
            if round == 0 {
                db.bind(2, SqlValue::Integer(7));
            }
            let result = db.run(insert, false);
            assert_eq!((result.status, result.is_write, result.changes), (status::OK, true, 1), "{round}");
            let begin = db.run("BEGIN IMMEDIATE", false);
            assert_eq!((begin.status, begin.is_write, begin.opened_transaction), (status::OK, false, true));
            let commit = db.run("COMMIT", false);
            assert_eq!((commit.status, commit.is_write), (status::OK, false));
            assert!(error(&mut db, "SELECT name FROM sqlite_master").contains("not part of this exercise"));
        }
        assert_eq!(
            value(&mut db, "SELECT count(*) FROM t WHERE v IS NULL"),
            2,
            "unbound parameters are NULL"
        );
        assert_eq!(value(&mut db, "SELECT count(*) FROM t WHERE v = 7"), 1);
    }

    /// However many texts a guest sends, and however long, the connection keeps a bounded number
    /// of short ones prepared; each statement still gives its own result.
    #[test]
    fn the_statements_a_connection_keeps_are_bounded_in_number_and_length() {
        let (_dir, mut db) = db();
        let long = format!("SELECT 1 /* {} */", "x".repeat(SQL_CACHED_STATEMENT_TEXT_BYTES_MAX));
        for round in 0..2 {
            for n in 0..(3 * SQL_STATEMENTS_CACHED_PER_CONNECTION as i64) {
                assert_eq!(value(&mut db, &format!("SELECT {n}")), n, "round {round}");
            }
            assert_eq!(value(&mut db, &long), 1);
            let kept = db.guard.prepared.lock().expect("prepared").clone();
            assert!(kept.len() <= SQL_STATEMENTS_CACHED_PER_CONNECTION, "{}", kept.len());
            assert!(!kept.contains_key(&long), "a long text is not kept");
        }
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
