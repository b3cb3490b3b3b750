//! The webhook outbox: leasing due events for the senders, recording how an attempt ended, the dead
//! letters of a client, and redelivering one.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::error::Sql;
use crate::service::store::{Delivery, EventState, Millis, OutboxEvent};

fn event_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<OutboxEvent> {
    let state: String = row.get(5)?;
    Ok(OutboxEvent {
        event_id: row.get(0)?,
        submission_id: row.get(1)?,
        client_id: row.get(2)?,
        url: row.get(3)?,
        payload: row.get(4)?,
        state: match state.as_str() {
            "delivered" => EventState::Delivered,
            "dead" => EventState::Dead,
            _ => EventState::Pending,
        },
        attempts: row.get(6)?,
        next_attempt_at: row.get(7)?,
        last_error: row.get(8)?,
        created_at: row.get(9)?,
    })
}

const EVENT_COLUMNS: &str = "event_id, submission_id, client_id, url, payload, state, attempts, next_attempt_at, last_error, created_at";

/// Leases up to `limit` due events, pushing their next attempt `lease_ms` ahead.
pub(super) fn lease(
    tx: &Transaction<'_>,
    node: &str,
    limit: usize,
    lease_ms: u64,
    now: Millis,
) -> Sql<Vec<OutboxEvent>> {
    let events = tx
        .prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM outbox WHERE state = 'pending' AND next_attempt_at <= ?1 \
             ORDER BY next_attempt_at LIMIT ?2"
        ))?
        .query_map(params![now, limit as i64], event_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    let mut update = tx.prepare_cached(
        "UPDATE outbox SET next_attempt_at = ?2, leased = 1, leased_by = ?3 WHERE event_id = ?1",
    )?;
    for event in &events {
        update.execute(params![event.event_id, now + lease_ms as i64, node])?;
    }
    Ok(events)
}

/// Records how one delivery attempt ended.
pub(super) fn record_delivery(
    tx: &Transaction<'_>,
    event_id: &str,
    delivery: &Delivery,
    now: Millis,
) -> Sql<()> {
    match delivery {
        Delivery::Delivered => tx.execute(
            "UPDATE outbox SET state = 'delivered', attempts = attempts + 1, delivered_at = ?2, \
             last_error = NULL, leased = 0 WHERE event_id = ?1",
            params![event_id, now],
        )?,
        Delivery::Retry { at, error } => tx.execute(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?2, last_error = ?3, leased = 0 \
             WHERE event_id = ?1",
            params![event_id, at, error],
        )?,
        Delivery::Dead { error } => tx.execute(
            "UPDATE outbox SET state = 'dead', attempts = attempts + 1, last_error = ?2, leased = 0 \
             WHERE event_id = ?1",
            params![event_id, error],
        )?,
    };
    Ok(())
}

/// A client's dead events, oldest first.
pub(super) fn dead(conn: &Connection, client_id: i64, limit: usize) -> Sql<Vec<OutboxEvent>> {
    let events = conn
        .prepare_cached(&format!(
            "SELECT {EVENT_COLUMNS} FROM outbox WHERE state = 'dead' AND client_id = ?1 \
             ORDER BY created_at, event_id LIMIT ?2"
        ))?
        .query_map(params![client_id, limit as i64], event_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(events)
}

/// Makes a dead event of this client pending again: None if there is none, Some(false) if not dead.
pub(super) fn redeliver(
    tx: &Transaction<'_>,
    client_id: i64,
    event_id: &str,
    now: Millis,
) -> Sql<Option<bool>> {
    let state: Option<String> = tx
        .query_row(
            "SELECT state FROM outbox WHERE event_id = ?1 AND client_id = ?2",
            params![event_id, client_id],
            |r| r.get(0),
        )
        .optional()?;
    match state.as_deref() {
        None => Ok(None),
        Some("dead") => {
            tx.execute(
                "UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ?2 WHERE event_id = ?1",
                params![event_id, now],
            )?;
            Ok(Some(true))
        }
        Some(_) => Ok(Some(false)),
    }
}
