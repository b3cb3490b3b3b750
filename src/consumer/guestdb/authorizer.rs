//! The guest connection's authorizer and its allow-list: reads and writes of the exercise's own
//! tables, transaction control and a named list of SQL functions; no ATTACH, PRAGMA, DDL, virtual or
//! table-valued tables, extension loading, time or randomness. Every denial carries its reason.

use rusqlite::Connection;
use rusqlite::hooks::{AuthAction, AuthContext};

/// Decides what the guest's connection may do. Returns the reason for a denial.
pub(super) fn authorize(ctx: &AuthContext<'_>, tables: &[String]) -> Result<(), String> {
    let known = |name: &str| tables.iter().any(|t| t.eq_ignore_ascii_case(name));
    let unknown_table = |name: &str| {
        format!("table \"{name}\" is not part of this exercise (its tables: {})", tables.join(", "))
    };
    match ctx.action {
        AuthAction::Select | AuthAction::Recursive => Ok(()),
        AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => Ok(()),
        // A read in a database ("main") must be of a table of the exercise: that excludes SQLite's
        // own tables and every virtual or table-valued table (json_each, pragma_table_info, dbstat,
        // fts tables). Reads without a database come from CTEs and subqueries; of those, only
        // SQLite's and the pragma tables are out of bounds.
        AuthAction::Read { table_name, .. } => {
            let lower = table_name.to_ascii_lowercase();
            let internal = lower.starts_with("sqlite_") || is_table_valued(&lower);
            if known(table_name) || (ctx.database_name.is_none() && !internal) {
                Ok(())
            } else if is_table_valued(&lower) {
                Err(format!(
                    "{table_name} (virtual and table-valued tables are not available; use the tables of \
                     schema.sql)"
                ))
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
            if ALLOWED_FUNCTIONS.contains(&name.as_str()) {
                Ok(())
            } else if TIME_FUNCTIONS.contains(&name.as_str()) {
                Err(format!(
                    "the function {name}() is not available: the time differs from run to run, so results \
                     would not be reproducible (take times from the message)"
                ))
            } else if RANDOM_FUNCTIONS.contains(&name.as_str()) {
                Err(format!("the function {name}() is not available (results must be reproducible)"))
            } else {
                Err(format!(
                    "the function {name}() is not available to consumers (allowed are SQL's ordinary \
                     scalar, aggregate, window and JSON functions; see ABI.md)"
                ))
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

/// The SQL functions a consumer may call (lower case; `->` and `->>` are the JSON operators). Every
/// other function is denied: an allow-list, so a function added to SQLite later (or compiled in
/// with an extension, like `fts3_tokenizer`, which hands out host pointers) is denied until it is
/// judged. Each one here is deterministic, and its cost is bounded by the length limits: the
/// costliest (`instr`, `replace`, `like`, `glob` over values of `SQL_VALUE_BYTES_MAX` bytes) stays
/// in milliseconds per call (BENCHMARKS.md). Left out on purpose: time (`date`, `time`,
/// `datetime`, `julianday`, `unixepoch`, `strftime`, `timediff`, `current_*`: `'now'` differs
/// between runs), randomness (`random`, `randomblob`), floating-point maths of the C library (`exp`,
/// `ln`, `pow`, `sin`, …: results may differ between machines), `json_pretty` (its output grows
/// with nesting depth), and everything that reaches outside the database (`load_extension`,
/// `sqlite_*`, `fts3_tokenizer`).
const ALLOWED_FUNCTIONS: &[&str] = &[
    // scalar
    "abs",
    "char",
    "coalesce",
    "concat",
    "concat_ws",
    "format",
    "glob",
    "hex",
    "if",
    "ifnull",
    "iif",
    "instr",
    "length",
    "like",
    "likelihood",
    "likely",
    "lower",
    "ltrim",
    "max",
    "min",
    "nullif",
    "octet_length",
    "printf",
    "quote",
    "replace",
    "round",
    "rtrim",
    "sign",
    "substr",
    "substring",
    "trim",
    "typeof",
    "unhex",
    "unicode",
    "unistr",
    "unlikely",
    "upper",
    "zeroblob",
    // the connection's own counters
    "changes",
    "last_insert_rowid",
    "total_changes",
    // exact arithmetic
    "ceil",
    "ceiling",
    "floor",
    "mod",
    "trunc",
    // aggregate
    "avg",
    "count",
    "group_concat",
    "string_agg",
    "sum",
    "total",
    // window
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    // JSON (scalar and aggregate; the table-valued json_each and json_tree are not functions)
    "json",
    "jsonb",
    "json_array",
    "jsonb_array",
    "json_array_length",
    "json_error_position",
    "json_extract",
    "jsonb_extract",
    "->",
    "->>",
    "json_insert",
    "jsonb_insert",
    "json_object",
    "jsonb_object",
    "json_patch",
    "jsonb_patch",
    "json_quote",
    "json_remove",
    "jsonb_remove",
    "json_replace",
    "jsonb_replace",
    "json_set",
    "jsonb_set",
    "json_type",
    "json_valid",
    "json_group_array",
    "jsonb_group_array",
    "json_group_object",
    "jsonb_group_object",
];

/// Functions that read the clock (named in the denial, so a student knows why).
const TIME_FUNCTIONS: &[&str] = &[
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
    "timediff",
    "current_date",
    "current_time",
    "current_timestamp",
];
/// Functions that draw random numbers.
const RANDOM_FUNCTIONS: &[&str] = &["random", "randomblob"];

/// Virtual and table-valued tables SQLite may know (for a clearer denial; every read in the database
/// outside the exercise's tables is denied anyway, and statements are prepared with NO_VTAB).
pub(super) fn is_table_valued(lower: &str) -> bool {
    lower.starts_with("pragma_")
        || lower.starts_with("json_")
        || lower.starts_with("jsonb_")
        || matches!(lower, "dbstat" | "fts3tokenize" | "fts5vocab" | "generate_series" | "carray")
}

/// Removes every virtual table module from the connection (json_each, json_tree, fts3, fts4, fts5,
/// rtree, dbstat...), so that none can be reached even through a path the authorizer does not see.
pub(super) fn drop_virtual_table_modules(conn: &Connection) {
    unsafe extern "C" {
        // Part of SQLite's API since 3.30; libsqlite3-sys compiles it but has no binding for it.
        fn sqlite3_drop_modules(
            db: *mut rusqlite::ffi::sqlite3,
            keep: *const *const std::ffi::c_char,
        ) -> std::ffi::c_int;
    }
    // SAFETY: the handle belongs to `conn`, which is open and used by this thread only; a null
    // list means "keep none".
    unsafe {
        sqlite3_drop_modules(conn.handle(), std::ptr::null());
    }
}

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
