//! The job queue and its leases: leasing due jobs (shared between the workers), renewing a lease
//! while grading (fenced by the attempt), giving a lease back or deferring a job, releasing every
//! lease of this node at start, and the queue's counts. A node leases only jobs of the exercise
//! versions it serves, or of versions no living node serves (see `nodes`).

use rusqlite::{Connection, Transaction, params};

use super::error::Sql;
use crate::limits::NODE_LIVENESS_MS;
use crate::service::store::{LeasedJob, Millis, Stats};

/// Which due jobs a node may lease (`?1` now, `?2` the node, `?3` the oldest announcement of a
/// living node): those of no recorded exercise version, of a version the node serves, or of a
/// version no living node serves (see `nodes`).
const LEASABLE: &str = "FROM jobs j JOIN submissions s ON s.id = j.submission_id \
     WHERE j.lease_until <= ?1 AND (j.exercise_hash IS NULL \
         OR EXISTS (SELECT 1 FROM node_exercises m WHERE m.node_id = ?2 AND m.exercise = s.exercise \
             AND m.content_hash = j.exercise_hash) \
         OR NOT EXISTS (SELECT 1 FROM node_exercises o JOIN nodes n ON n.node_id = o.node_id \
             WHERE o.exercise = s.exercise AND o.content_hash = j.exercise_hash AND n.seen_at > ?3))";

/// Leases the due jobs this node may grade, divided by `share`, rounded up, at most `max`, oldest
/// first.
pub(super) fn lease(
    tx: &Transaction<'_>,
    node: &str,
    max: usize,
    share: usize,
    lease_ms: u64,
    now: Millis,
) -> Sql<Vec<LeasedJob>> {
    let alive_since = now - NODE_LIVENESS_MS as i64;
    let due: i64 = tx
        .prepare_cached(&format!("SELECT count(*) {LEASABLE}"))?
        .query_row(params![now, node, alive_since], |r| r.get(0))?;
    let take = (due as usize).div_ceil(share.max(1)).clamp(0, max.max(1));
    let next = tx
        .prepare_cached(&format!(
            "SELECT j.submission_id, j.attempts {LEASABLE} ORDER BY j.regrade, j.submission_id LIMIT ?4"
        ))?
        .query_map(params![now, node, alive_since, take as i64], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, u32>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    next.into_iter()
        .map(|(id, attempts)| lease_one(tx, node, id, attempts + 1, lease_ms, now, alive_since))
        .collect()
}

/// Renews the lease of `attempt`; false if the job was leased again since or is finished.
pub(super) fn renew(
    tx: &Transaction<'_>,
    submission_id: i64,
    attempt: u32,
    lease_ms: u64,
    now: Millis,
) -> Sql<bool> {
    let renewed = tx
        .prepare_cached(
            "UPDATE jobs SET lease_until = ?3 WHERE submission_id = ?1 AND attempts = ?2 AND leased = 1",
        )?
        .execute(params![submission_id, attempt, now + lease_ms as i64])?;
    Ok(renewed == 1)
}

/// Gives a lease back, counting the attempt or not.
pub(super) fn release(tx: &Transaction<'_>, id: i64, attempt: u32, count_attempt: bool) -> Sql<()> {
    tx.execute(
        "UPDATE jobs SET leased = 0, lease_until = 0, attempts = attempts - ?3 \
         WHERE submission_id = ?1 AND attempts = ?2",
        params![id, attempt, if count_attempt { 0 } else { 1 }],
    )?;
    Ok(())
}

/// Gives a lease back and keeps the job waiting until `until`.
pub(super) fn defer(
    tx: &Transaction<'_>,
    id: i64,
    attempt: u32,
    until: Millis,
    count_attempt: bool,
) -> Sql<()> {
    // Not leased, but not due before `until` (a waiting job is due at lease_until).
    tx.execute(
        "UPDATE jobs SET leased = 0, lease_until = ?3, attempts = attempts - ?4 \
         WHERE submission_id = ?1 AND attempts = ?2",
        params![id, attempt, until, if count_attempt { 0 } else { 1 }],
    )?;
    Ok(())
}

/// Releases the leases of jobs and webhook events that `node` holds (and those taken before leases
/// recorded their node); returns how many.
pub(super) fn release_own(tx: &Transaction<'_>, node: &str) -> Sql<u64> {
    let jobs = tx.execute(
        "UPDATE jobs SET leased = 0, lease_until = 0, leased_by = NULL \
         WHERE leased = 1 AND (leased_by = ?1 OR leased_by IS NULL)",
        [node],
    )?;
    let events = tx.execute(
        "UPDATE outbox SET leased = 0, next_attempt_at = 0, leased_by = NULL \
         WHERE leased = 1 AND state = 'pending' AND (leased_by = ?1 OR leased_by IS NULL)",
        [node],
    )?;
    Ok((jobs + events) as u64)
}

/// The queue's and the outbox's counts.
pub(super) fn stats(conn: &Connection) -> Sql<Stats> {
    let (queued, running): (i64, i64) = conn.query_row(
        "SELECT coalesce(sum(leased = 0), 0), coalesce(sum(leased = 1), 0) FROM jobs",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let pending: i64 =
        conn.query_row("SELECT count(*) FROM outbox WHERE state = 'pending'", [], |r| r.get(0))?;
    let dead: i64 = conn.query_row("SELECT count(*) FROM outbox WHERE state = 'dead'", [], |r| r.get(0))?;
    Ok(Stats {
        jobs_queued: queued as u64,
        jobs_running: running as u64,
        events_pending: pending as u64,
        events_dead: dead as u64,
    })
}

/// Leases one job inside a transaction and reads what its worker needs.
fn lease_one(
    tx: &Transaction<'_>,
    node: &str,
    id: i64,
    attempt: u32,
    lease_ms: u64,
    now: Millis,
    alive_since: Millis,
) -> Sql<LeasedJob> {
    tx.prepare_cached(
        "UPDATE jobs SET leased = 1, attempts = ?2, lease_until = ?3, leased_by = ?4 WHERE submission_id = ?1",
    )?
    .execute(params![id, attempt, now + lease_ms as i64, node])?;
    // A regrade writes the version after the latest; no other job of this submission is open, so
    // no other version can be written meanwhile.
    let (regrade, latest, exercise_hash, recorded_version_served): (i64, Option<u32>, Option<String>, bool) = tx
        .prepare_cached(
            "SELECT j.regrade, (SELECT max(version) FROM latest_results WHERE submission_id = ?1), \
                 j.exercise_hash, EXISTS (SELECT 1 FROM node_exercises o JOIN nodes n ON n.node_id = o.node_id \
                     JOIN submissions s ON s.id = j.submission_id \
                     WHERE o.exercise = s.exercise AND o.content_hash = j.exercise_hash AND n.seen_at > ?2) \
             FROM jobs j WHERE j.submission_id = ?1",
        )?
        .query_row(params![id, alive_since], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    let regrade = regrade != 0;
    let version = if regrade { latest.unwrap_or(1) + 1 } else { 1 };
    let job = tx
        .prepare_cached(
            "SELECT client_id, exercise, learner, kind, payload, callback_url, sha256, metadata, \
             idempotency_key, created_at FROM submissions WHERE id = ?1",
        )?
        .query_row([id], |r| {
            let kind: String = r.get(3)?;
            let payload: Vec<u8> = r.get(4)?;
            Ok((
                (r.get(0)?, r.get(1)?, r.get(2)?, kind, payload, r.get(5)?),
                (r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?),
            ))
        })?;
    let (
        (client_id, exercise, learner, kind, payload, callback_url),
        (sha256, metadata, idempotency_key, created_at),
    ) = job;
    let submission = crate::service::store::payload::stored_submission(id, &kind, payload)?;
    Ok(LeasedJob {
        submission_id: id,
        client_id,
        attempt,
        exercise,
        learner,
        submission,
        sha256,
        callback_url,
        metadata,
        idempotency_key,
        created_at,
        regrade,
        version,
        exercise_hash,
        recorded_version_served,
    })
}
