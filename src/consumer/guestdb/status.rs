//! ABI v1 status codes: what `db.exec` and `db.query_int` return, and their names in the trace.
//! The mapping of SQLite's errors onto them is in `errors.rs`.

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
