//! The guest's SQLite connection, hardened: an authorizer that allows only reads and writes of the
//! exercise's own tables and transaction control (no ATTACH, PRAGMA, DDL, extension loading), one
//! statement per call, defensive mode, length limits, and a progress handler that stops a runaway
//! statement after a counted number of VM steps (counted, so the verdict is the same everywhere).
//!
//! It also maps SQLite's errors onto ABI v1's status codes and describes each statement for the
//! trace.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::state::SqlValue;

/// ABI v1 status codes.
pub mod status {
    pub const OK: i32 = 0;
    /// UNIQUE or PRIMARY KEY violated: the lesson's `IntegrityError` on the dedup table.
    pub const DUPLICATE: i32 = 1;
    /// Another constraint (CHECK, NOT NULL, FOREIGN KEY) violated.
    pub const CONSTRAINT: i32 = 2;
    /// Any other error (syntax, not allowed, limit).
    pub const ERROR: i32 = 3;
    /// `query_int` found no row.
    pub const NO_ROW: i32 = 4;

    pub fn name(code: i32) -> &'static str {
        match code {
            OK => "ok",
            DUPLICATE => "duplicate",
            CONSTRAINT => "constraint",
            ERROR => "error",
            NO_ROW => "no row",
            _ => "?",
        }
    }
}

/// How a statement that found the database locked begins its error message.
pub const LOCKED_PREFIX: &str = "the database is locked by another transaction";

/// How often (in VM steps) the progress handler runs.
const PROGRESS_GRANULARITY: i32 = 1_000;
/// Highest `?` index a guest may bind.
const PARAMETERS_MAX: i32 = 32;

/// State shared with the SQLite callbacks of one connection.
#[derive(Debug, Default)]
struct Guard {
    steps: AtomicU64,
    step_limit_hit: AtomicBool,
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
    /// The statement was stopped by the SQL step limit.
    pub step_limit_hit: bool,
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
    last_changes: u64,
    step_limit: u64,
}

impl GuestDb {
    /// Opens the guest's connection to the database file at `path`. `tables` are the only tables the
    /// guest may touch.
    pub fn open(path: &Path, tables: Arc<[String]>, step_limit: u64) -> rusqlite::Result<GuestDb> {
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // Host settings first, before the authorizer forbids PRAGMA.
        // The rollback journal stays in memory: a crash is simulated by closing the connection,
        // which rolls back exactly as a hot journal would be rolled back after a real kill.
        conn.execute_batch(
            "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY; PRAGMA foreign_keys = ON;",
        )?;
        conn.busy_timeout(std::time::Duration::ZERO)?;
        use rusqlite::config::DbConfig;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_FKEY, true)?;
        let limits = [
            (Limit::SQLITE_LIMIT_SQL_LENGTH, crate::limits::SQL_TEXT_BYTES_MAX as i32),
            (Limit::SQLITE_LIMIT_LENGTH, crate::limits::SQL_VALUE_BYTES_MAX as i32),
            (Limit::SQLITE_LIMIT_ATTACHED, 0),
            (Limit::SQLITE_LIMIT_EXPR_DEPTH, 100),
            (Limit::SQLITE_LIMIT_COMPOUND_SELECT, 50),
            (Limit::SQLITE_LIMIT_VARIABLE_NUMBER, PARAMETERS_MAX),
            (Limit::SQLITE_LIMIT_FUNCTION_ARG, 16),
            (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1_000),
            (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 10),
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
            last_changes: 0,
            step_limit,
        })
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
            // The authorizer allows transaction control; a failure leaves the transaction to be
            // discarded when the connection closes.
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
            step_limit_hit,
            busy: false,
            committed: false,
            opened_transaction: false,
        };
        if let Some(error) = self.pending_error.take() {
            return failed(status::ERROR, error, false, false);
        }
        self.guard.steps.store(0, Ordering::Relaxed);
        self.guard.step_limit_hit.store(false, Ordering::Relaxed);
        if let Ok(mut denied) = self.guard.denied.lock() {
            denied.clear();
        }
        self.guard.transaction_control.store(false, Ordering::Relaxed);
        let mut stmt = match self.conn.prepare(sql) {
            Ok(stmt) => stmt,
            Err(error) => {
                let (status, message) = self.describe_error(sql, &error);
                return failed(status, message, false, self.step_limit_hit());
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
                failed(status, message, is_write, self.step_limit_hit())
            }
            Ok(first) => {
                let changes = if is_write { self.conn.changes() } else { 0 };
                let ok = StatementResult {
                    status: status::OK,
                    changes,
                    is_write,
                    row: None,
                    error: None,
                    step_limit_hit: false,
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

    /// Maps an SQLite error onto a status code and a message a student understands.
    fn describe_error(&self, sql: &str, error: &rusqlite::Error) -> (i32, String) {
        if self.step_limit_hit() {
            return (
                status::ERROR,
                format!(
                    "statement stopped: it took more than {} SQL steps (limit \"SQL steps per statement\"); \
                     is there a query that never ends, such as a recursive CTE without a stop condition?",
                    self.step_limit
                ),
            );
        }
        if let rusqlite::Error::MultipleStatement = error {
            return (
                status::ERROR,
                "one statement per call: split the SQL into separate db.exec calls".into(),
            );
        }
        let message = match error {
            rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
            rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
            other => other.to_string(),
        };
        let denied = self
            .guard
            .denied
            .lock()
            .ok()
            .and_then(|d| d.iter().min_by_key(|(priority, _)| *priority).map(|(_, r)| r.clone()));
        let code = error.sqlite_error();
        let auth = code.is_some_and(|c| c.code == ErrorCode::AuthorizationForStatementDenied);
        if let (Some(reason), false) = (&denied, auth) {
            // Denied functions fail with a plain error, not SQLITE_AUTH.
            return (status::ERROR, format!("not allowed: {reason}"));
        }
        let Some(code) = code else {
            return (status::ERROR, message);
        };
        match code.code {
            ErrorCode::ConstraintViolation => {
                let duplicate = code.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || code.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY;
                (if duplicate { status::DUPLICATE } else { status::CONSTRAINT }, message)
            }
            ErrorCode::AuthorizationForStatementDenied => {
                // A schema change is denied at its first implied step (reading sqlite_schema), so
                // name the statement itself.
                if let Some(ddl) = schema_change(sql) {
                    return (
                        status::ERROR,
                        format!(
                            "not allowed: {ddl} (changing the schema is not allowed; use the tables of schema.sql)"
                        ),
                    );
                }
                let reason = denied.unwrap_or(message);
                (status::ERROR, format!("not allowed: {reason}"))
            }
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                (status::ERROR, format!("{LOCKED_PREFIX}: {message}"))
            }
            _ => (status::ERROR, message),
        }
    }
}

/// "DROP TABLE" for `drop table x`, when `sql` starts with a schema-changing keyword.
fn schema_change(sql: &str) -> Option<String> {
    let mut words = sql.split_whitespace().map(|w| w.to_ascii_uppercase());
    let first = words.next()?;
    match first.as_str() {
        "CREATE" | "DROP" | "ALTER" => {
            let mut second = words.next().unwrap_or_default();
            if matches!(second.as_str(), "TEMP" | "TEMPORARY" | "UNIQUE" | "VIRTUAL") {
                second = format!("{second} {}", words.next().unwrap_or_default());
            }
            Some(format!("{first} {second}"))
        }
        "REINDEX" | "ANALYZE" | "VACUUM" => Some(first),
        _ => None,
    }
}

enum FirstRow {
    None,
    Integer(i64),
    Other(rusqlite::types::Type),
}

/// Decides what the guest's connection may do. Returns the reason for a denial.
fn authorize(ctx: &AuthContext<'_>, tables: &[String]) -> Result<(), String> {
    let known = |name: &str| tables.iter().any(|t| t.eq_ignore_ascii_case(name));
    let unknown_table = |name: &str| {
        format!("table \"{name}\" is not part of this exercise (its tables: {})", tables.join(", "))
    };
    match ctx.action {
        AuthAction::Select | AuthAction::Recursive => Ok(()),
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => Ok(()),
        // Reads of names that are not tables of the schema come from CTEs and subqueries; only
        // SQLite's own tables (the schema, sequences, statistics) are out of bounds.
        AuthAction::Read { table_name, .. } => {
            if known(table_name) || !table_name.to_ascii_lowercase().starts_with("sqlite_") {
                Ok(())
            } else {
                Err(unknown_table(table_name))
            }
        }
        AuthAction::Insert { table_name }
        | AuthAction::Update { table_name, .. }
        | AuthAction::Delete { table_name } => {
            if known(table_name) {
                Ok(())
            } else {
                Err(unknown_table(table_name))
            }
        }
        AuthAction::Function { function_name } => {
            let name = function_name.to_ascii_lowercase();
            if DENIED_FUNCTIONS.contains(&name.as_str()) {
                Err(format!("the function {name}() is not available (results must be reproducible)"))
            } else {
                Ok(())
            }
        }
        AuthAction::Pragma { pragma_name, .. } => {
            Err(format!("PRAGMA {pragma_name} (PRAGMA is not allowed)"))
        }
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => {
            Err("ATTACH/DETACH (only the exercise's database is available)".into())
        }
        _ => Err(format!(
            "{} (changing the schema is not allowed; use the tables of schema.sql)",
            action_name(&ctx.action)
        )),
    }
}

/// Functions a consumer may not call: they would make results differ between runs, or reach
/// outside the database.
const DENIED_FUNCTIONS: &[&str] = &["random", "randomblob", "load_extension", "sqlite_offset"];

fn action_name(action: &AuthAction<'_>) -> String {
    let debug = format!("{action:?}");
    let name = debug.split([' ', '{', '(']).next().unwrap_or("this statement");
    // CreateTable -> CREATE TABLE
    let mut words = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            words.push(' ');
        }
        words.push(c.to_ascii_uppercase());
    }
    words
}
