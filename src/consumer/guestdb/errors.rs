//! The mapping of SQLite's errors onto ABI v1's status codes, with a message a student
//! understands: which limit stopped a statement, why a statement is not allowed, a constraint that
//! is a duplicate (the dedup table's) or another one.

use rusqlite::ErrorCode;

use super::authorizer::is_table_valued;
use super::{GuestDb, LOCKED_PREFIX, status};
use crate::deadline::format_ms;
use crate::limits::SQL_WALL_MS_PER_STATEMENT;

impl GuestDb {
    /// The limit that stopped the statement, if one did: its SQL steps, its own time, or the
    /// submission's.
    fn stopped_by_limit(&self) -> Option<(i32, String)> {
        if self.step_limit_hit() {
            return Some((
                status::ERROR,
                format!(
                    "statement stopped: it took more than {} SQL steps (limit \"SQL steps per statement\"); \
                     is there a query that never ends, such as a recursive CTE without a stop condition?",
                    self.step_limit
                ),
            ));
        }
        match (self.wall_limit_hit(), &self.deadline) {
            (Some(true), Some(deadline)) => {
                return Some((
                    status::ERROR,
                    format!(
                        "statement stopped: the time for the whole submission ran out ({})",
                        deadline.limit_name().en
                    ),
                ));
            }
            (Some(_), _) => {
                return Some((
                    status::ERROR,
                    format!(
                        "statement stopped: it ran longer than {} (limit \"SQL time per statement\"); does a \
                         query do heavy work on long strings, row after row?",
                        format_ms(SQL_WALL_MS_PER_STATEMENT)
                    ),
                ));
            }
            (None, _) => {}
        }
        None
    }

    /// Maps an SQLite error onto a status code and a message a student understands.
    pub(super) fn describe_error(&self, sql: &str, error: &rusqlite::Error) -> (i32, String) {
        if let Some(stopped) = self.stopped_by_limit() {
            return stopped;
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
        // Virtual table modules are dropped from the connection, so a table-valued table is not
        // found at all; say why rather than only that it is missing.
        if let Some(name) = message.strip_prefix("no such table: ")
            && is_table_valued(&name.to_ascii_lowercase())
        {
            return (
                status::ERROR,
                format!(
                    "not allowed: {name} (virtual and table-valued tables are not available; use the tables \
                     of schema.sql)"
                ),
            );
        }
        if message.contains("LIKE or GLOB pattern too complex") {
            return (
                status::ERROR,
                format!(
                    "{message}: limit \"LIKE pattern length\" ({} bytes)",
                    crate::limits::SQL_LIKE_PATTERN_BYTES_MAX
                ),
            );
        }
        let Some(code) = code else {
            return (status::ERROR, message);
        };
        describe_code(sql, code, message, denied)
    }
}

/// The status and message of an SQLite error by its code: a duplicate or another constraint, a
/// denied statement (a schema change named as such), a lock, or a limit of the database.
fn describe_code(
    sql: &str,
    code: &rusqlite::ffi::Error,
    message: String,
    denied: Option<String>,
) -> (i32, String) {
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
        ErrorCode::DiskFull => (
            status::ERROR,
            format!(
                "database full: limit \"scratch database size\" ({} bytes) reached; a consumer writes \
                 one row per message, not bulk data",
                crate::limits::SCRATCH_DB_BYTES_MAX
            ),
        ),
        ErrorCode::OutOfMemory => (
            status::ERROR,
            format!(
                "out of memory: limit \"SQL memory of the grading process\" ({} bytes) reached; the \
                 statement builds too large a result",
                crate::limits::GRADING_PROCESS_SQL_HEAP_BYTES_MAX
            ),
        ),
        ErrorCode::TooBig if message.contains("statement too long") => (
            status::ERROR,
            format!(
                "statement too long: limit \"SQL text length\" ({} bytes)",
                crate::limits::SQL_TEXT_BYTES_MAX
            ),
        ),
        ErrorCode::TooBig => (
            status::ERROR,
            format!(
                "value too long: limit \"SQL value length\" ({} bytes) for a string, blob or row",
                crate::limits::SQL_VALUE_BYTES_MAX
            ),
        ),
        _ => (status::ERROR, message),
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
