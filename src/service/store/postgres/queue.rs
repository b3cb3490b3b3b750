//! The queue's SQL on PostgreSQL, where several nodes share it: intake (idempotency keys unique per
//! client, even for two nodes taking one key at once), leases as visibility timeouts taken with
//! `FOR UPDATE SKIP LOCKED` (a node never waits for the rows another node is leasing, and never
//! takes them), renewals fenced by the attempt number, one result with its webhook event and the
//! job's completion in one transaction, and the webhook outbox leased the same way as the jobs.
//!
//! Lease deadlines are computed in SQL from `$now`, which is the caller's time or, when it is NULL,
//! the database's clock (`pruefstein_now_ms()`, see [`super::LeaseClock`]).

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::error::Sql;
use crate::limits::NODE_LIVENESS_MS;
use crate::service::store::{
    Delivery, EventState, Intake, JobOutcome, LeasedJob, Millis, NewEvent, NewSubmission, OutboxEvent,
    ResultColumns, ResultRecord, Stats, Status, StoreError, SubmissionRecord,
};
use crate::submission::Submission;

/// The channel that tells listening nodes that jobs were queued; the payload names the node that
/// queued them (which woke its own grading threads already).
pub(super) const JOBS_CHANNEL: &str = "pruefstein_jobs";
/// The channel that tells listening nodes that a submission (its id the payload) is finished.
pub(super) const FINISHED_CHANNEL: &str = "pruefstein_finished";

/// `$n` as the lease clock's time: the caller's, or the database's when it is NULL.
pub(super) fn clock(n: u8) -> String {
    format!("coalesce(${n}::BIGINT, pruefstein_now_ms())")
}

pub(super) const SUBMISSION_QUERY: &str = "SELECT s.id, s.client_id, s.exercise, s.learner, s.kind, s.sha256, \
     s.callback_url, s.metadata, s.idempotency_key, s.request_hash, s.created_at, \
     j.leased, j.attempts, j.lease_until, \
     r.status, r.verdict, r.points, r.max_points, r.report, r.failure, r.attempts, r.finished_at, r.grade_ms, \
     r.version, r.exercise_hash, r.grader_version \
     FROM submissions s LEFT JOIN jobs j ON j.submission_id = s.id \
     LEFT JOIN latest_results r ON r.submission_id = s.id";

/// A count or id column that the schema keeps non-negative.
fn unsigned(value: Option<i64>) -> Option<u32> {
    value.map(|v| v.clamp(0, i64::from(u32::MAX)) as u32)
}

/// A row of the submission query as a record.
pub(super) fn submission_from_row(row: &Row) -> Result<SubmissionRecord, tokio_postgres::Error> {
    let leased: Option<bool> = row.try_get(11)?;
    let job_attempts: Option<i32> = row.try_get(12)?;
    let result_status: Option<String> = row.try_get(14)?;
    let result = match &result_status {
        Some(_) => Some(ResultRecord {
            verdict: row.try_get(15)?,
            points: unsigned(row.try_get(16)?),
            max_points: unsigned(row.try_get(17)?),
            report: row.try_get(18)?,
            failure: row.try_get(19)?,
            finished_at: row.try_get(21)?,
            grade_ms: row.try_get::<_, Option<i64>>(22)?.map(|ms| ms.max(0) as u64),
            version: row.try_get::<_, i32>(23)?.max(0) as u32,
            exercise_hash: row.try_get(24)?,
            grader_version: row.try_get(25)?,
        }),
        None => None,
    };
    let status = Status::of(result_status.as_deref(), leased == Some(true));
    let attempts = match result_status {
        Some(_) => row.try_get::<_, i32>(20)?,
        None => job_attempts.unwrap_or(0),
    };
    Ok(SubmissionRecord {
        id: row.try_get(0)?,
        client_id: row.try_get(1)?,
        exercise: row.try_get(2)?,
        learner: row.try_get(3)?,
        kind: row.try_get(4)?,
        sha256: row.try_get(5)?,
        callback_url: row.try_get(6)?,
        metadata: row.try_get(7)?,
        idempotency_key: row.try_get(8)?,
        request_hash: row.try_get(9)?,
        created_at: row.try_get(10)?,
        status,
        attempts: attempts.max(0) as u32,
        result,
    })
}

/// A submission with its job's state and its result.
pub(super) async fn load_submission<C: GenericClient>(c: &C, id: i64) -> Sql<Option<SubmissionRecord>> {
    let stmt = c.prepare_cached(&format!("{SUBMISSION_QUERY} WHERE s.id = $1")).await?;
    match c.query_opt(&stmt, &[&id]).await? {
        Some(row) => Ok(Some(submission_from_row(&row)?)),
        None => Ok(None),
    }
}

/// Accepts a submission and queues its job, or finds the earlier one with the same key.
///
/// The common case is one statement (its own transaction, one round trip): the submission, its
/// job and the word to the listening nodes, if the queue has room and the key is new. Two nodes may
/// take the same key at once: the unique index lets one insert, and the other (waiting for the
/// first to commit) inserts nothing. When nothing was inserted, the earlier submission with the
/// key is the answer, or else the queue is full.
pub(super) async fn submit<C: GenericClient>(
    c: &C,
    node: &str,
    new: &NewSubmission,
    queue_max: u64,
    now: Millis,
) -> Sql<Intake> {
    let source_payload;
    let (kind, payload): (&str, &[u8]) = match &new.submission {
        Submission::Answer(text) => ("answer", text.as_bytes()),
        Submission::Module(bytes) => ("module", bytes),
        // As in SQLite: a source is a module whose payload starts with the source marker.
        Submission::Source { language, text } => {
            source_payload = crate::service::store::payload::source_payload(*language, text);
            ("module", &source_payload)
        }
    };
    let sha256 = new.submission.sha256();
    let stmt = c
        .prepare_cached(&format!(
            "WITH stored AS ( \
                 INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, callback_url, \
                     metadata, idempotency_key, request_hash, created_at) \
                 SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 \
                 WHERE (SELECT count(*) FROM jobs) < $12 \
                 ON CONFLICT (client_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING \
                 RETURNING id), \
             queued AS (INSERT INTO jobs (submission_id, exercise_hash) SELECT id, $14 FROM stored) \
             SELECT id, pg_notify('{JOBS_CHANNEL}', $13) FROM stored"
        ))
        .await?;
    let stored = c
        .query_opt(
            &stmt,
            &[
                &new.client_id,
                &new.exercise,
                &new.learner,
                &kind,
                &payload,
                &sha256,
                &new.callback_url,
                &new.metadata,
                &new.idempotency_key,
                &new.request_hash,
                &now,
                &(queue_max.min(i64::MAX as u64) as i64),
                &node,
                &new.exercise_hash,
            ],
        )
        .await?;
    if let Some(row) = stored {
        return Ok(Intake::Created(SubmissionRecord {
            id: row.try_get(0)?,
            client_id: new.client_id,
            exercise: new.exercise.clone(),
            learner: new.learner.clone(),
            kind: kind.to_string(),
            sha256,
            callback_url: new.callback_url.clone(),
            metadata: new.metadata.clone(),
            idempotency_key: new.idempotency_key.clone(),
            request_hash: new.request_hash.clone(),
            created_at: now,
            status: Status::Queued,
            attempts: 0,
            result: None,
        }));
    }
    if let Some(key) = &new.idempotency_key
        && let Some(intake) = earlier(c, new, key).await?
    {
        return Ok(intake);
    }
    let depth: i64 = c.query_one("SELECT count(*) FROM jobs", &[]).await?.try_get(0)?;
    Ok(Intake::QueueFull { depth: depth.max(0) as u64 })
}

/// The submission that took `key` earlier, as intake's answer.
async fn earlier<C: GenericClient>(tx: &C, new: &NewSubmission, key: &str) -> Sql<Option<Intake>> {
    let stmt =
        tx.prepare_cached("SELECT id FROM submissions WHERE client_id = $1 AND idempotency_key = $2").await?;
    let Some(row) = tx.query_opt(&stmt, &[&new.client_id, &key]).await? else { return Ok(None) };
    let id: i64 = row.try_get(0)?;
    let record = load_submission(tx, id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("submission {id} vanished")))?;
    Ok(Some(if record.request_hash == new.request_hash {
        Intake::Existing(record)
    } else {
        Intake::KeyReused(record)
    }))
}

/// Forgets idempotency keys older than `before`.
pub(super) async fn forget_idempotency_keys<C: GenericClient>(tx: &C, before: Millis) -> Sql<u64> {
    Ok(tx
        .execute(
            "UPDATE submissions SET idempotency_key = NULL WHERE idempotency_key IS NOT NULL AND created_at < $1",
            &[&before],
        )
        .await?)
}

/// Leases the due jobs divided by `share`, rounded up, at most `max`, oldest first (first gradings
/// before regrades), counting an attempt each: in one statement. `SKIP LOCKED` passes over the
/// rows another node is leasing at this moment, so that nodes never queue up behind each other.
pub(super) async fn lease_jobs<C: GenericClient>(
    tx: &C,
    node: &str,
    max: usize,
    share: usize,
    lease_ms: u64,
    now: Option<Millis>,
) -> Sql<Vec<LeasedJob>> {
    // As on SQLite (`sqlite::jobs`): the jobs of no recorded exercise version, of a version this
    // node serves, or of a version no living node serves.
    let leasable = "(j.exercise_hash IS NULL \
         OR EXISTS (SELECT 1 FROM node_exercises m WHERE m.node_id = $5 AND m.exercise = s.exercise \
             AND m.content_hash = j.exercise_hash) \
         OR NOT EXISTS (SELECT 1 FROM node_exercises o JOIN nodes n ON n.node_id = o.node_id \
             WHERE o.exercise = s.exercise AND o.content_hash = j.exercise_hash \
             AND n.seen_at > clock.now - $6::BIGINT))";
    let sql = format!(
        "WITH clock AS (SELECT {now} AS now), \
         next AS ( \
             SELECT j.submission_id FROM jobs j JOIN submissions s ON s.id = j.submission_id, clock \
             WHERE j.lease_until <= clock.now AND {leasable} \
             ORDER BY j.regrade, j.submission_id \
             LIMIT (SELECT least($2::BIGINT, ceil(count(*)::NUMERIC / $3::BIGINT)::BIGINT) \
                    FROM jobs j JOIN submissions s ON s.id = j.submission_id, clock \
                    WHERE j.lease_until <= clock.now AND {leasable}) \
             FOR UPDATE OF j SKIP LOCKED), \
         leased AS ( \
             UPDATE jobs j SET leased = true, attempts = j.attempts + 1, \
                 lease_until = (SELECT now FROM clock) + $4::BIGINT, leased_by = $5 \
             FROM next WHERE j.submission_id = next.submission_id \
             RETURNING j.submission_id, j.attempts, j.regrade, j.exercise_hash) \
         SELECT l.submission_id, l.attempts, l.regrade, \
             (SELECT max(version) FROM latest_results v WHERE v.submission_id = l.submission_id), \
             s.client_id, s.exercise, s.learner, s.kind, s.payload, s.callback_url, s.sha256, s.metadata, \
             s.idempotency_key, s.created_at, l.exercise_hash, \
             EXISTS (SELECT 1 FROM node_exercises o JOIN nodes n ON n.node_id = o.node_id, clock \
                 WHERE o.exercise = s.exercise AND o.content_hash = l.exercise_hash \
                 AND n.seen_at > clock.now - $6::BIGINT) \
         FROM leased l JOIN submissions s ON s.id = l.submission_id \
         ORDER BY l.regrade, l.submission_id",
        now = clock(1)
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let liveness = NODE_LIVENESS_MS as i64;
    let rows = tx
        .query(
            &stmt,
            &[&now, &(max.max(1) as i64), &(share.max(1) as i64), &(lease_ms as i64), &node, &liveness],
        )
        .await?;
    rows.iter().map(leased_job).collect()
}

fn leased_job(row: &Row) -> Sql<LeasedJob> {
    let id: i64 = row.try_get(0)?;
    let regrade: bool = row.try_get(2)?;
    let latest: Option<i32> = row.try_get(3)?;
    // A regrade writes the version after the latest; no other job of this submission is open.
    let version = if regrade { latest.unwrap_or(1).max(1) as u32 + 1 } else { 1 };
    let kind: String = row.try_get(7)?;
    let payload: Vec<u8> = row.try_get(8)?;
    Ok(LeasedJob {
        submission_id: id,
        client_id: row.try_get(4)?,
        attempt: row.try_get::<_, i32>(1)?.max(0) as u32,
        exercise: row.try_get(5)?,
        learner: row.try_get(6)?,
        submission: crate::service::store::payload::stored_submission(id, &kind, payload)?,
        sha256: row.try_get(10)?,
        callback_url: row.try_get(9)?,
        metadata: row.try_get(11)?,
        idempotency_key: row.try_get(12)?,
        created_at: row.try_get(13)?,
        regrade,
        version,
        exercise_hash: row.try_get(14)?,
        recorded_version_served: row.try_get(15)?,
    })
}

/// Renews the lease of `attempt`; false if the job was leased again since or is finished.
pub(super) async fn renew<C: GenericClient>(
    tx: &C,
    submission_id: i64,
    attempt: u32,
    lease_ms: u64,
    now: Option<Millis>,
) -> Sql<bool> {
    let stmt = tx
        .prepare_cached(&format!(
            "UPDATE jobs SET lease_until = {} + $4 \
             WHERE submission_id = $2 AND attempts = $3 AND leased",
            clock(1)
        ))
        .await?;
    let renewed = tx.execute(&stmt, &[&now, &submission_id, &(attempt as i32), &(lease_ms as i64)]).await?;
    Ok(renewed == 1)
}

/// Gives a lease back (if `attempt` still holds it), counting the attempt or not, due again `delay`
/// after now (zero: at once).
pub(super) async fn release<C: GenericClient>(
    tx: &C,
    id: i64,
    attempt: u32,
    count_attempt: bool,
    due: Option<(Option<Millis>, i64)>,
) -> Sql<()> {
    let uncount = if count_attempt { 0i32 } else { 1 };
    match due {
        None => {
            tx.execute(
                "UPDATE jobs SET leased = false, lease_until = 0, leased_by = NULL, attempts = attempts - $3 \
                 WHERE submission_id = $1 AND attempts = $2",
                &[&id, &(attempt as i32), &uncount],
            )
            .await?
        }
        Some((now, delay)) => {
            // Not leased, but not due before now + delay (a waiting job is due at lease_until).
            tx.execute(
                &*format!(
                    "UPDATE jobs SET leased = false, lease_until = {} + $5, leased_by = NULL, \
                     attempts = attempts - $4 WHERE submission_id = $2 AND attempts = $3",
                    clock(1)
                ),
                &[&now, &id, &(attempt as i32), &uncount, &delay],
            )
            .await?
        }
    };
    Ok(())
}

/// Gives back the leases of jobs and webhook events that `node` holds; returns how many.
pub(super) async fn release_own<C: GenericClient>(tx: &C, node: &str) -> Sql<u64> {
    let jobs = tx
        .execute(
            "UPDATE jobs SET leased = false, lease_until = 0, leased_by = NULL WHERE leased AND leased_by = $1",
            &[&node],
        )
        .await?;
    let events = tx
        .execute(
            "UPDATE outbox SET leased = false, next_attempt_at = 0, leased_by = NULL \
             WHERE leased AND state = 'pending' AND leased_by = $1",
            &[&node],
        )
        .await?;
    if jobs > 0 {
        tx.execute(&*format!("SELECT pg_notify('{JOBS_CHANNEL}', $1)"), &[&node]).await?;
    }
    Ok(jobs + events)
}

/// Stores a job's result and event and deletes the job, telling the listening nodes that the
/// submission is finished. A first grading stores nothing if the submission has a result already;
/// a regrade nothing if its version exists already (graded twice after a crash).
pub(super) async fn complete<C: GenericClient>(
    tx: &C,
    job: &LeasedJob,
    outcome: &JobOutcome,
    event: Option<&NewEvent>,
    now: Millis,
) -> Sql<bool> {
    // An erased (or swept) submission: the grading's result must not bring any of it back. The
    // row lock waits for an erasure under way, then finds the submission gone.
    let stmt = tx.prepare_cached("SELECT 1 FROM submissions WHERE id = $1 FOR SHARE").await?;
    if tx.query_opt(&stmt, &[&job.submission_id]).await?.is_none() {
        return Ok(false);
    }
    let columns = outcome.columns();
    let previous = if job.regrade { latest_verdict_and_points(tx, job.submission_id).await? } else { None };
    let inserted = insert_result(tx, job, &columns, now).await? == 1;
    // A regrade's event only when the verdict or the points changed from the latest version.
    let changed = !job.regrade
        || previous.is_none_or(|previous| previous != (columns.verdict.map(str::to_string), columns.points));
    if inserted
        && changed
        && let Some(event) = event
    {
        let stmt = tx
            .prepare_cached(
                "INSERT INTO outbox (event_id, submission_id, client_id, url, payload, state, next_attempt_at, \
                 created_at) VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6) ON CONFLICT (event_id) DO NOTHING",
            )
            .await?;
        tx.execute(
            &stmt,
            &[&event.event_id, &job.submission_id, &job.client_id, &event.url, &event.payload, &now],
        )
        .await?;
    }
    if job.regrade {
        // A stale worker (its version written already) leaves a regrade queued since then alone.
        if inserted {
            let stmt = tx.prepare_cached("DELETE FROM jobs WHERE submission_id = $1").await?;
            tx.execute(&stmt, &[&job.submission_id]).await?;
        }
    } else {
        // Not a regrade queued since (a first grading completed twice, the second late).
        let stmt = tx.prepare_cached("DELETE FROM jobs WHERE submission_id = $1 AND NOT regrade").await?;
        tx.execute(&stmt, &[&job.submission_id]).await?;
    }
    if inserted {
        let stmt =
            tx.prepare_cached(&format!("SELECT pg_notify('{FINISHED_CHANNEL}', $1::BIGINT::TEXT)")).await?;
        tx.execute(&stmt, &[&job.submission_id]).await?;
    }
    Ok(inserted)
}

/// The verdict and points of a submission's latest result, if it has one.
async fn latest_verdict_and_points<C: GenericClient>(
    tx: &C,
    submission_id: i64,
) -> Sql<Option<(Option<String>, Option<i64>)>> {
    let stmt =
        tx.prepare_cached("SELECT verdict, points FROM latest_results WHERE submission_id = $1").await?;
    Ok(tx
        .query_opt(&stmt, &[&submission_id])
        .await?
        .map(|row| {
            Ok::<_, tokio_postgres::Error>((
                row.try_get::<_, Option<String>>(0)?,
                row.try_get::<_, Option<i64>>(1)?,
            ))
        })
        .transpose()?)
}

/// Writes the result: a first grading's row in `results`, a regrade's version in
/// `result_versions`; either at most once (a second completion writes nothing). The rows written.
async fn insert_result<C: GenericClient>(
    tx: &C,
    job: &LeasedJob,
    columns: &ResultColumns<'_>,
    now: Millis,
) -> Sql<u64> {
    let attempt = job.attempt as i32;
    let ResultColumns {
        status,
        verdict,
        points,
        max_points,
        report,
        failure,
        grade_ms,
        exercise_hash,
        grader_version,
    } = columns;
    if job.regrade {
        let stmt = tx
            .prepare_cached(
                "INSERT INTO result_versions (submission_id, version, status, verdict, points, max_points, \
                 report, failure, attempts, finished_at, grade_ms, exercise_hash, grader_version) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
                 ON CONFLICT (submission_id, version) DO NOTHING",
            )
            .await?;
        Ok(tx
            .execute(
                &stmt,
                &[
                    &job.submission_id,
                    &(job.version as i32),
                    status,
                    verdict,
                    points,
                    max_points,
                    report,
                    failure,
                    &attempt,
                    &now,
                    grade_ms,
                    exercise_hash,
                    grader_version,
                ],
            )
            .await?)
    } else {
        let stmt = tx
            .prepare_cached(
                "INSERT INTO results (submission_id, status, verdict, points, max_points, report, failure, \
                 attempts, finished_at, grade_ms, exercise_hash, grader_version) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                 ON CONFLICT (submission_id) DO NOTHING",
            )
            .await?;
        Ok(tx
            .execute(
                &stmt,
                &[
                    &job.submission_id,
                    status,
                    verdict,
                    points,
                    max_points,
                    report,
                    failure,
                    &attempt,
                    &now,
                    grade_ms,
                    exercise_hash,
                    grader_version,
                ],
            )
            .await?)
    }
}

/// The queue's and the outbox's counts.
pub(super) async fn stats<C: GenericClient>(c: &C) -> Sql<Stats> {
    let stmt = c
        .prepare_cached(
            "SELECT (SELECT count(*) FILTER (WHERE NOT leased) FROM jobs), \
                    (SELECT count(*) FILTER (WHERE leased) FROM jobs), \
                    (SELECT count(*) FROM outbox WHERE state = 'pending'), \
                    (SELECT count(*) FROM outbox WHERE state = 'dead')",
        )
        .await?;
    let row = c.query_one(&stmt, &[]).await?;
    let count = |i: usize| row.try_get::<_, i64>(i).map(|n| n.max(0) as u64);
    Ok(Stats {
        jobs_queued: count(0)?,
        jobs_running: count(1)?,
        events_pending: count(2)?,
        events_dead: count(3)?,
    })
}

const EVENT_COLUMNS: &str = "event_id, submission_id, client_id, url, payload, state, attempts, next_attempt_at, last_error, created_at";

fn event_from_row(row: &Row) -> Result<OutboxEvent, tokio_postgres::Error> {
    let state: String = row.try_get(5)?;
    Ok(OutboxEvent {
        event_id: row.try_get(0)?,
        submission_id: row.try_get(1)?,
        client_id: row.try_get(2)?,
        url: row.try_get(3)?,
        payload: row.try_get(4)?,
        state: match state.as_str() {
            "delivered" => EventState::Delivered,
            "dead" => EventState::Dead,
            _ => EventState::Pending,
        },
        attempts: row.try_get::<_, i32>(6)?.max(0) as u32,
        next_attempt_at: row.try_get(7)?,
        last_error: row.try_get(8)?,
        created_at: row.try_get(9)?,
    })
}

/// Leases up to `limit` due events, pushing their next attempt `lease_ms` ahead: the same
/// visibility timeout as the jobs', with `SKIP LOCKED` between the nodes' senders.
pub(super) async fn lease_events<C: GenericClient>(
    tx: &C,
    node: &str,
    limit: usize,
    lease_ms: u64,
    now: Option<Millis>,
) -> Sql<Vec<OutboxEvent>> {
    let sql = format!(
        "WITH clock AS (SELECT {now} AS now), \
         next AS ( \
             SELECT o.event_id FROM outbox o, clock \
             WHERE o.state = 'pending' AND o.next_attempt_at <= clock.now \
             ORDER BY o.next_attempt_at LIMIT $2 FOR UPDATE OF o SKIP LOCKED), \
         old AS (SELECT {EVENT_COLUMNS} FROM outbox WHERE event_id IN (SELECT event_id FROM next)), \
         leased AS ( \
             UPDATE outbox o SET next_attempt_at = (SELECT now FROM clock) + $3, leased = true, leased_by = $4 \
             FROM next WHERE o.event_id = next.event_id RETURNING o.event_id) \
         SELECT {EVENT_COLUMNS} FROM old WHERE event_id IN (SELECT event_id FROM leased) \
         ORDER BY next_attempt_at, event_id",
        now = clock(1)
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let rows = tx.query(&stmt, &[&now, &(limit as i64), &(lease_ms as i64), &node]).await?;
    Ok(rows.iter().map(event_from_row).collect::<Result<_, _>>()?)
}

/// Records how one delivery attempt ended.
pub(super) async fn record_delivery<C: GenericClient>(
    tx: &C,
    event_id: &str,
    delivery: &Delivery,
    now: Millis,
) -> Sql<()> {
    match delivery {
        Delivery::Delivered => {
            tx.execute(
                "UPDATE outbox SET state = 'delivered', attempts = attempts + 1, delivered_at = $2, \
                 last_error = NULL, leased = false, leased_by = NULL WHERE event_id = $1",
                &[&event_id, &now],
            )
            .await?
        }
        Delivery::Retry { at, error } => {
            tx.execute(
                "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = $2, last_error = $3, \
                 leased = false, leased_by = NULL WHERE event_id = $1",
                &[&event_id, at, error],
            )
            .await?
        }
        Delivery::Dead { error } => {
            tx.execute(
                "UPDATE outbox SET state = 'dead', attempts = attempts + 1, last_error = $2, leased = false, \
                 leased_by = NULL WHERE event_id = $1",
                &[&event_id, error],
            )
            .await?
        }
    };
    Ok(())
}

/// A client's dead events, oldest first.
pub(super) async fn dead_events<C: GenericClient>(
    c: &C,
    client_id: i64,
    limit: usize,
) -> Sql<Vec<OutboxEvent>> {
    let rows = c
        .query(
            &*format!(
                "SELECT {EVENT_COLUMNS} FROM outbox WHERE state = 'dead' AND client_id = $1 \
                 ORDER BY created_at, event_id LIMIT $2"
            ),
            &[&client_id, &(limit as i64)],
        )
        .await?;
    Ok(rows.iter().map(event_from_row).collect::<Result<_, _>>()?)
}

/// Makes a dead event of this client pending again: None if there is none, Some(false) if not dead.
pub(super) async fn redeliver<C: GenericClient>(
    tx: &C,
    client_id: i64,
    event_id: &str,
    now: Millis,
) -> Sql<Option<bool>> {
    let state: Option<String> = tx
        .query_opt(
            "SELECT state FROM outbox WHERE event_id = $1 AND client_id = $2 FOR UPDATE",
            &[&event_id, &client_id],
        )
        .await?
        .map(|row| row.try_get(0))
        .transpose()?;
    match state.as_deref() {
        None => Ok(None),
        Some("dead") => {
            tx.execute(
                "UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = $2 WHERE event_id = $1",
                &[&event_id, &now],
            )
            .await?;
            Ok(Some(true))
        }
        Some(_) => Ok(Some(false)),
    }
}
