//! The connection's own counters as SQL functions of the guest's connection: `changes()` and
//! `total_changes()` count from the start of the instance using the connection, as on a new one.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rusqlite::Connection;
use rusqlite::functions::{Context, FunctionFlags};

use super::Guard;

/// Defines `changes()` and `total_changes()` on `conn` (an application's function takes the
/// place of SQLite's built-in one of the same name).
pub(super) fn install(conn: &Connection, guard: &Arc<Guard>) -> rusqlite::Result<()> {
    // Not innocuous, as SQLite's own: with the schema untrusted, no view or trigger calls them.
    let flags = FunctionFlags::SQLITE_UTF8;
    let changes_guard = Arc::clone(guard);
    conn.create_scalar_function("changes", 0, flags, move |ctx| {
        if changes_guard.changes_fresh.load(Ordering::Relaxed) {
            return Ok(0i64);
        }
        Ok(running(ctx)?.changes() as i64)
    })?;
    let total_guard = Arc::clone(guard);
    conn.create_scalar_function("total_changes", 0, flags, move |ctx| {
        let total = running(ctx)?.total_changes();
        Ok(total.saturating_sub(total_guard.total_changes_before.load(Ordering::Relaxed)) as i64)
    })?;
    Ok(())
}

/// The connection running the function `ctx` belongs to.
fn running<'c>(ctx: &'c Context<'_>) -> rusqlite::Result<rusqlite::functions::ConnectionRef<'c>> {
    // SAFETY: the reference is only read from (its change counters) while the function runs on
    // the connection, on this thread; it is neither kept, sent, closed nor used to run
    // statements.
    unsafe { ctx.get_connection() }
}

/// Resets what a kept connection shows of earlier instances: the last rowid, `changes()` and
/// `total_changes()` read as on a new connection. (The per-statement state of the guard, its
/// steps, stops, denials and commit flag, is reset before every statement anyway.)
pub(super) fn reset(conn: &Connection, guard: &Guard) {
    // SAFETY: sets a counter of an open connection that no statement is using.
    unsafe { rusqlite::ffi::sqlite3_set_last_insert_rowid(conn.handle(), 0) };
    guard.changes_fresh.store(true, Ordering::Relaxed);
    guard.total_changes_before.store(conn.total_changes(), Ordering::Relaxed);
}
