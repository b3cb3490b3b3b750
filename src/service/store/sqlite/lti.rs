//! LTI 1.3: registered platforms, login initiations waiting for their launch (one use, with an
//! expiry), and launch contexts (a learner on an exercise with the line item for scores).

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::error::Sql;
use crate::service::store::{LtiContext, LtiState, Millis, NewPlatform, PlatformRecord, StoreError};

const PLATFORM_COLUMNS: &str =
    "id, name, issuer, client_id, auth_url, token_url, jwks_url, deployment_id, api_client_id, created_at";

fn platform_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<PlatformRecord> {
    Ok(PlatformRecord {
        id: row.get(0)?,
        platform: NewPlatform {
            name: row.get(1)?,
            issuer: row.get(2)?,
            client_id: row.get(3)?,
            auth_url: row.get(4)?,
            token_url: row.get(5)?,
            jwks_url: row.get(6)?,
            deployment_id: row.get(7)?,
        },
        api_client_id: row.get(8)?,
        created_at: row.get(9)?,
    })
}

pub(super) fn add_platform(
    tx: &Transaction<'_>,
    platform: NewPlatform,
    api_client_id: i64,
    now: Millis,
) -> Sql<PlatformRecord> {
    let taken: Option<String> = tx
        .query_row(
            "SELECT name FROM lti_platforms WHERE name = ?1 OR (issuer = ?2 AND client_id = ?3)",
            params![platform.name, platform.issuer, platform.client_id],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(name) = taken {
        return Err(StoreError::Conflict(format!(
            "the platform {name:?} has this name, or this issuer and client id, already"
        ))
        .into());
    }
    tx.execute(
        "INSERT INTO lti_platforms (name, issuer, client_id, auth_url, token_url, jwks_url, deployment_id, \
         api_client_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            platform.name,
            platform.issuer,
            platform.client_id,
            platform.auth_url,
            platform.token_url,
            platform.jwks_url,
            platform.deployment_id,
            api_client_id,
            now
        ],
    )?;
    Ok(PlatformRecord { id: tx.last_insert_rowid(), platform, api_client_id, created_at: now })
}

pub(super) fn update_platform(tx: &Transaction<'_>, platform: &NewPlatform) -> Sql<bool> {
    let taken: Option<String> = tx
        .query_row(
            "SELECT name FROM lti_platforms WHERE name <> ?1 AND issuer = ?2 AND client_id = ?3",
            params![platform.name, platform.issuer, platform.client_id],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(name) = taken {
        return Err(StoreError::Conflict(format!(
            "the platform {name:?} has this issuer and client id already"
        ))
        .into());
    }
    let changed = tx.execute(
        "UPDATE lti_platforms SET issuer = ?2, client_id = ?3, auth_url = ?4, token_url = ?5, jwks_url = ?6, \
         deployment_id = ?7 WHERE name = ?1",
        params![
            platform.name,
            platform.issuer,
            platform.client_id,
            platform.auth_url,
            platform.token_url,
            platform.jwks_url,
            platform.deployment_id
        ],
    )?;
    Ok(changed == 1)
}

pub(super) fn remove_platform(tx: &Transaction<'_>, name: &str, now: Millis) -> Sql<bool> {
    let Some((id, client)): Option<(i64, String)> = tx
        .query_row(
            "SELECT p.id, c.name FROM lti_platforms p JOIN clients c ON c.id = p.api_client_id WHERE p.name = ?1",
            [name],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?
    else {
        return Ok(false);
    };
    tx.execute("DELETE FROM lti_states WHERE platform_id = ?1", [id])?;
    tx.execute("DELETE FROM lti_contexts WHERE platform_id = ?1", [id])?;
    tx.execute("DELETE FROM lti_platforms WHERE id = ?1", [id])?;
    super::clients::remove(tx, &client, now)?;
    Ok(true)
}

pub(super) fn list_platforms(conn: &Connection) -> Sql<Vec<PlatformRecord>> {
    let platforms = conn
        .prepare_cached(&format!("SELECT {PLATFORM_COLUMNS} FROM lti_platforms ORDER BY name"))?
        .query_map([], platform_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(platforms)
}

pub(super) fn put_state(
    tx: &Transaction<'_>,
    state: &str,
    entry: &LtiState,
    expires_at: Millis,
    evict: Option<&str>,
    now: Millis,
) -> Sql<()> {
    tx.prepare_cached("DELETE FROM lti_states WHERE expires_at <= ?1")?.execute([now])?;
    if let Some(evict) = evict {
        tx.prepare_cached("DELETE FROM lti_states WHERE state = ?1")?.execute([evict])?;
    }
    tx.prepare_cached(
        "INSERT INTO lti_states (state, nonce, platform_id, expires_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![state, entry.nonce, entry.platform_id, expires_at])?;
    Ok(())
}

pub(super) fn take_state(tx: &Transaction<'_>, state: &str, now: Millis) -> Sql<Option<LtiState>> {
    let found = tx
        .query_row("SELECT nonce, platform_id, expires_at FROM lti_states WHERE state = ?1", [state], |r| {
            Ok((LtiState { nonce: r.get(0)?, platform_id: r.get(1)? }, r.get::<_, i64>(2)?))
        })
        .optional()?;
    tx.prepare_cached("DELETE FROM lti_states WHERE state = ?1")?.execute([state])?;
    Ok(found.filter(|(_, expires_at)| *expires_at > now).map(|(entry, _)| entry))
}

pub(super) const CONTEXT_COLUMNS: &str = "id, platform_id, subject, exercise, lineitem";

pub(super) fn context_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<LtiContext> {
    Ok(LtiContext {
        id: row.get(0)?,
        platform_id: row.get(1)?,
        subject: row.get(2)?,
        exercise: row.get(3)?,
        lineitem: row.get(4)?,
    })
}

pub(super) fn context(
    tx: &Transaction<'_>,
    platform_id: i64,
    subject: &str,
    exercise: &str,
    lineitem: &str,
    now: Millis,
) -> Sql<LtiContext> {
    tx.prepare_cached(
        "INSERT INTO lti_contexts (platform_id, subject, exercise, lineitem, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (platform_id, subject, exercise, lineitem) \
         DO UPDATE SET created_at = max(created_at, excluded.created_at)",
    )?
    .execute(params![platform_id, subject, exercise, lineitem, now])?;
    let context = tx.query_row(
        &format!(
            "SELECT {CONTEXT_COLUMNS} FROM lti_contexts \
             WHERE platform_id = ?1 AND subject = ?2 AND exercise = ?3 AND lineitem = ?4"
        ),
        params![platform_id, subject, exercise, lineitem],
        context_from_row,
    )?;
    Ok(context)
}

pub(super) fn context_by_id(conn: &Connection, id: i64) -> Sql<Option<LtiContext>> {
    let context = conn
        .query_row(
            &format!("SELECT {CONTEXT_COLUMNS} FROM lti_contexts WHERE id = ?1"),
            [id],
            context_from_row,
        )
        .optional()?;
    Ok(context)
}

pub(super) fn setting(conn: &Connection, key: &str) -> Sql<Option<String>> {
    let value =
        conn.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0)).optional()?;
    Ok(value)
}
