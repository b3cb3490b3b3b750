//! `pruefstein-sdk`: consumer ABI v1 of Prüfstein (graders/consumer/ABI.md) for Rust guests.
//!
//! Strings are `&str`; a failed statement is a [`DbError`], so `?` and `match` read like the
//! lesson's `try: ... except IntegrityError:`; [`transaction`] runs a closure between BEGIN and
//! COMMIT and turns its result into what `verarbeite` returns. Build for `wasm32-unknown-unknown`;
//! on any other target the host functions are replaced by an in-process fake, so the SDK's own logic
//! can be unit-tested with `cargo test`.

use std::fmt;

#[cfg(target_arch = "wasm32")]
mod abi {
    //! The host's functions, exactly as ABI v1 defines them.
    #[link(wasm_import_module = "msg")]
    extern "C" {
        #[link_name = "int"]
        pub fn msg_int(path: *const u8, path_len: i32) -> i64;
        #[link_name = "text"]
        pub fn msg_text(path: *const u8, path_len: i32, buf: *mut u8, cap: i32) -> i32;
    }
    #[link(wasm_import_module = "db")]
    extern "C" {
        pub fn bind_int(index: i32, value: i64);
        pub fn bind_text(index: i32, text: *const u8, len: i32);
        pub fn exec(sql: *const u8, sql_len: i32) -> i32;
        pub fn query_int(sql: *const u8, sql_len: i32, out: *mut i64) -> i32;
        pub fn changes() -> i64;
        pub fn last_error(buf: *mut u8, cap: i32) -> i32;
    }
    #[link(wasm_import_module = "env")]
    extern "C" {
        pub fn log(text: *const u8, len: i32);
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub mod fake;
#[cfg(not(target_arch = "wasm32"))]
use fake as abi;

/// Status codes of `db.exec` and `db.query_int`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The statement succeeded.
    Ok,
    /// A UNIQUE or PRIMARY KEY constraint failed: the lesson's IntegrityError on the dedup table.
    Duplicate,
    /// Another constraint failed (CHECK, NOT NULL, FOREIGN KEY).
    Constraint,
    /// Anything else: a syntax error, a statement that is not allowed, a limit.
    Error,
    /// `query_int` found no row.
    NoRow,
}

impl Status {
    pub const fn from_code(code: i32) -> Status {
        match code {
            0 => Status::Ok,
            1 => Status::Duplicate,
            2 => Status::Constraint,
            4 => Status::NoRow,
            _ => Status::Error,
        }
    }

    /// `Ok(())` for [`Status::Ok`], else the matching error.
    pub fn result(self) -> Result<(), DbError> {
        match self {
            Status::Ok => Ok(()),
            Status::Duplicate => Err(DbError::Duplicate),
            Status::Constraint => Err(DbError::Constraint),
            Status::Error => Err(DbError::Sql),
            Status::NoRow => Err(DbError::NoRow),
        }
    }
}

/// A failed statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbError {
    /// A UNIQUE or PRIMARY KEY constraint failed (the lesson's IntegrityError).
    Duplicate,
    /// Another constraint failed.
    Constraint,
    /// Any other error; [`last_error`] has the message.
    Sql,
    /// The query found no row.
    NoRow,
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DbError::Duplicate => "duplicate key",
            DbError::Constraint => "constraint failed",
            DbError::Sql => "SQL error",
            DbError::NoRow => "no row",
        })
    }
}

impl std::error::Error for DbError {}

/// What `verarbeite` returns to the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Outcome {
    /// Processed before, nothing done (the lesson's `return False`): the queue acks.
    AlreadyProcessed = 0,
    /// Processed (`return True`): the queue acks.
    Processed = 1,
}

/// The return value for an error: the queue does not ack, the message comes again.
pub const FAILED: i32 = 2;

fn len(s: &[u8]) -> i32 {
    i32::try_from(s.len()).unwrap_or(i32::MAX)
}

/// Reads a text the host writes only if it fits: first into 256 bytes, then into its full length.
fn read_text(mut fill: impl FnMut(*mut u8, i32) -> i32) -> String {
    let mut buf = vec![0u8; 256];
    let mut n = fill(buf.as_mut_ptr(), len(&buf));
    if n > len(&buf) {
        buf = vec![0u8; n as usize];
        n = fill(buf.as_mut_ptr(), len(&buf));
    }
    buf.truncate(n.clamp(0, len(&buf)) as usize);
    String::from_utf8_lossy(&buf).into_owned()
}

/// The integer at a dotted path such as `"id"` or `"body.punkte"`. A missing path ends the instance.
pub fn msg_int(path: &str) -> i64 {
    unsafe { abi::msg_int(path.as_ptr(), len(path.as_bytes())) }
}

/// The text at a dotted path such as `"body.kunde"` (a number comes as its digits).
pub fn msg_text(path: &str) -> String {
    read_text(|buf, cap| unsafe { abi::msg_text(path.as_ptr(), len(path.as_bytes()), buf, cap) })
}

/// Binds parameter `index` (from 1) of the next statement to an integer.
pub fn bind_int(index: i32, value: i64) {
    unsafe { abi::bind_int(index, value) }
}

/// Binds parameter `index` (from 1) of the next statement to a text.
pub fn bind_text(index: i32, text: &str) {
    unsafe { abi::bind_text(index, text.as_ptr(), len(text.as_bytes())) }
}

/// Runs one SQL statement and returns its status.
pub fn exec_status(sql: &str) -> Status {
    Status::from_code(unsafe { abi::exec(sql.as_ptr(), len(sql.as_bytes())) })
}

/// Runs one SQL statement; a failure is the matching [`DbError`].
pub fn exec(sql: &str) -> Result<(), DbError> {
    exec_status(sql).result()
}

/// The first column of the first row of a query; [`DbError::NoRow`] if there is none.
pub fn query_int(sql: &str) -> Result<i64, DbError> {
    let mut out = 0i64;
    Status::from_code(unsafe { abi::query_int(sql.as_ptr(), len(sql.as_bytes()), &mut out) }).result()?;
    Ok(out)
}

/// Rows changed by the last successful statement.
pub fn changes() -> i64 {
    unsafe { abi::changes() }
}

/// The last statement's error message (empty if it succeeded).
pub fn last_error() -> String {
    read_text(|buf, cap| unsafe { abi::last_error(buf, cap) })
}

/// Appends a line to the delivery's log (shown in the report's trace).
pub fn log(text: &str) {
    unsafe { abi::log(text.as_ptr(), len(text.as_bytes())) }
}

pub fn begin() -> Result<(), DbError> {
    exec("BEGIN")
}

pub fn commit() -> Result<(), DbError> {
    exec("COMMIT")
}

pub fn rollback() {
    let _ = exec_status("ROLLBACK");
}

/// Runs `body` in one transaction, like Python's `with con:`, and returns what `verarbeite` returns:
/// `Ok(Outcome::Processed)` commits and gives 1; `Ok(Outcome::AlreadyProcessed)` rolls back and gives
/// 0; an error rolls back, is logged and gives [`FAILED`]. The transaction is never left open.
pub fn transaction<E: fmt::Display>(body: impl FnOnce() -> Result<Outcome, E>) -> i32 {
    if begin().is_err() {
        return FAILED;
    }
    match body() {
        Ok(Outcome::Processed) => {
            if commit().is_err() {
                rollback();
                return FAILED;
            }
            Outcome::Processed as i32
        }
        Ok(Outcome::AlreadyProcessed) => {
            rollback();
            Outcome::AlreadyProcessed as i32
        }
        Err(error) => {
            rollback();
            log(&error.to_string());
            FAILED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_map_to_errors() {
        assert_eq!(Status::from_code(0).result(), Ok(()));
        assert_eq!(Status::from_code(1).result(), Err(DbError::Duplicate));
        assert_eq!(Status::from_code(2).result(), Err(DbError::Constraint));
        assert_eq!(Status::from_code(3).result(), Err(DbError::Sql));
        assert_eq!(Status::from_code(4).result(), Err(DbError::NoRow));
        assert_eq!(Status::from_code(99), Status::Error);
    }

    #[test]
    fn processed_commits() {
        fake::reset(&[]);
        let result = transaction(|| {
            exec("INSERT INTO gesehen (msg_id) VALUES (?)")?;
            Ok::<_, DbError>(Outcome::Processed)
        });
        assert_eq!(result, 1);
        assert_eq!(fake::statements(), ["BEGIN", "INSERT INTO gesehen (msg_id) VALUES (?)", "COMMIT"]);
    }

    #[test]
    fn duplicate_rolls_back_and_returns_0() {
        fake::reset(&[("INSERT INTO gesehen (msg_id) VALUES (?)", 1)]);
        let result = transaction(|| match exec("INSERT INTO gesehen (msg_id) VALUES (?)") {
            Err(DbError::Duplicate) => Ok(Outcome::AlreadyProcessed),
            Err(e) => Err(e),
            Ok(()) => Ok(Outcome::Processed),
        });
        assert_eq!(result, 0);
        assert_eq!(fake::statements().last().map(String::as_str), Some("ROLLBACK"));
    }

    #[test]
    fn an_error_rolls_back_is_logged_and_returns_failed() {
        fake::reset(&[("UPDATE punkte SET stand = stand + 1", 2)]);
        let result = transaction(|| {
            exec("UPDATE punkte SET stand = stand + 1")?;
            Ok::<_, DbError>(Outcome::Processed)
        });
        assert_eq!(result, FAILED);
        assert_eq!(fake::statements(), ["BEGIN", "UPDATE punkte SET stand = stand + 1", "ROLLBACK"]);
        assert_eq!(fake::logs(), ["constraint failed"]);
    }

    #[test]
    fn a_failed_commit_rolls_back() {
        fake::reset(&[("COMMIT", 3)]);
        assert_eq!(transaction(|| Ok::<_, DbError>(Outcome::Processed)), FAILED);
        assert_eq!(fake::statements(), ["BEGIN", "COMMIT", "ROLLBACK"]);
    }

    #[test]
    fn long_texts_are_read_in_full() {
        let name = "x".repeat(1000);
        fake::reset(&[]);
        fake::set_text("body.kunde", &name);
        assert_eq!(msg_text("body.kunde"), name);
        assert_eq!(query_int("SELECT 1"), Ok(0));
    }
}
