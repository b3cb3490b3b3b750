//! Clients (the callers of `/api/v1` and their hashed tokens) and settings (secrets generated once).

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::error::Sql;
use crate::service::store::{ClientRecord, Millis, StoreError, TokenScope};

const CLIENT_COLUMNS: &str = "id, name, webhook_secret, created_at, revoked_at, teacher";

fn client_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ClientRecord> {
    Ok(ClientRecord {
        id: row.get(0)?,
        name: row.get(1)?,
        webhook_secret: row.get(2)?,
        created_at: row.get(3)?,
        revoked_at: row.get(4)?,
        teacher: row.get::<_, i64>(5)? != 0,
    })
}

pub(super) fn add(
    tx: &Transaction<'_>,
    name: String,
    token_hash: String,
    webhook_secret: String,
    now: Millis,
) -> Sql<ClientRecord> {
    let exists: Option<i64> =
        tx.query_row("SELECT id FROM clients WHERE name = ?1", [&name], |r| r.get(0)).optional()?;
    if exists.is_some() {
        return Err(StoreError::Conflict(format!("a client named {name:?} exists already")).into());
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
        teacher: false,
    })
}

/// The clients, removed ones left out.
pub(super) fn list(conn: &Connection) -> Sql<Vec<ClientRecord>> {
    let mut stmt = conn
        .prepare(&format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE name NOT LIKE '~%' ORDER BY name"))?;
    let rows = stmt.query_map([], client_from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub(super) fn revoke(tx: &Transaction<'_>, name: &str, now: Millis) -> Sql<bool> {
    let exists: Option<i64> =
        tx.query_row("SELECT id FROM clients WHERE name = ?1", [name], |r| r.get(0)).optional()?;
    if exists.is_none() {
        return Ok(false);
    }
    tx.execute(
        "UPDATE clients SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL",
        params![name, now],
    )?;
    Ok(true)
}

pub(super) fn by_token_hash(
    conn: &Connection,
    token_hash: &str,
    scope: TokenScope,
    now: Millis,
) -> Sql<Option<ClientRecord>> {
    let current = conn
        .prepare_cached(&format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE token_hash = ?1"))?
        .query_row([token_hash], client_from_row)
        .optional()?;
    if current.is_some() {
        return Ok(current);
    }
    // The Jobe scope takes API tokens too; the API scope takes API tokens only.
    let scopes: &[&str] = match scope {
        TokenScope::Api => &["api", "api"],
        TokenScope::Jobe => &["api", "jobe"],
    };
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {} FROM client_tokens t JOIN clients c ON c.id = t.client_id \
             WHERE t.token_hash = ?1 AND t.scope IN (?2, ?3) AND (t.expires_at IS NULL OR t.expires_at > ?4)",
            CLIENT_COLUMNS.split(", ").map(|c| format!("c.{c}")).collect::<Vec<_>>().join(", ")
        ))?
        .query_row(params![token_hash, scopes[0], scopes[1], now], client_from_row)
        .optional()?)
}

/// The id of the unrevoked client `name`.
fn active_id(tx: &Transaction<'_>, name: &str) -> Sql<Option<i64>> {
    Ok(tx
        .query_row("SELECT id FROM clients WHERE name = ?1 AND revoked_at IS NULL", [name], |r| r.get(0))
        .optional()?)
}

pub(super) fn rotate_token(
    tx: &Transaction<'_>,
    name: &str,
    new_hash: &str,
    old_valid_until: Millis,
    now: Millis,
) -> Sql<bool> {
    let Some(id) = active_id(tx, name)? else { return Ok(false) };
    tx.execute(
        "DELETE FROM client_tokens WHERE client_id = ?1 AND expires_at IS NOT NULL AND expires_at <= ?2",
        params![id, now],
    )?;
    tx.execute(
        "INSERT INTO client_tokens (token_hash, client_id, scope, created_at, expires_at) \
         SELECT token_hash, id, 'api', ?2, ?3 FROM clients WHERE id = ?1",
        params![id, now, old_valid_until],
    )?;
    tx.execute("UPDATE clients SET token_hash = ?2 WHERE id = ?1", params![id, new_hash])?;
    Ok(true)
}

pub(super) fn add_token(
    tx: &Transaction<'_>,
    name: &str,
    token_hash: &str,
    scope: TokenScope,
    now: Millis,
) -> Sql<bool> {
    let Some(id) = active_id(tx, name)? else { return Ok(false) };
    tx.execute(
        "INSERT INTO client_tokens (token_hash, client_id, scope, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![token_hash, id, scope.name(), now],
    )?;
    Ok(true)
}

/// A removed client's name: `~` and its id, which no client name can be (names are letters,
/// digits, '-', '_' and '.'), so the name it had is free again.
pub(super) fn removed_name(id: i64) -> String {
    format!("~{id}")
}

pub(super) fn remove(tx: &Transaction<'_>, name: &str, now: Millis) -> Sql<bool> {
    let Some(id) =
        tx.query_row("SELECT id FROM clients WHERE name = ?1", [name], |r| r.get::<_, i64>(0)).optional()?
    else {
        return Ok(false);
    };
    tx.execute("DELETE FROM client_tokens WHERE client_id = ?1", [id])?;
    tx.execute(
        "UPDATE clients SET name = ?2, revoked_at = coalesce(revoked_at, ?3) WHERE id = ?1",
        params![id, removed_name(id), now],
    )?;
    Ok(true)
}

pub(super) fn by_id(conn: &Connection, id: i64) -> Sql<Option<ClientRecord>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE id = ?1"))?
        .query_row([id], client_from_row)
        .optional()?)
}

pub(super) fn setting_or_insert(tx: &Transaction<'_>, key: &str, default: &str) -> Sql<String> {
    tx.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?1, ?2)", params![key, default])?;
    Ok(tx.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0))?)
}

pub(super) fn put_setting(tx: &Transaction<'_>, key: &str, value: Option<&str>) -> Sql<()> {
    match value {
        Some(value) => tx.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?,
        None => tx.execute("DELETE FROM settings WHERE key = ?1", [key])?,
    };
    Ok(())
}

/// Makes a client a teacher or not; false if there is no such client.
pub(super) fn set_teacher(tx: &Transaction<'_>, name: &str, teacher: bool) -> Sql<bool> {
    Ok(tx.execute("UPDATE clients SET teacher = ?2 WHERE name = ?1", params![name, i64::from(teacher)])? == 1)
}
