//! Results: reading a submission with its job and its latest result, and completing a job (its
//! result, its webhook event and the job's deletion in one write). A first grading writes version 1
//! to `results`; a regrade writes the next version to `result_versions` and never changes an
//! earlier one.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::error::Sql;
use crate::service::store::{
    JobOutcome, LeasedJob, Millis, NewEvent, ResultRecord, Status, SubmissionRecord,
};

/// Stores a job's result and event and deletes the job. A first grading stores nothing if the
/// submission has a result already; a regrade nothing if its version exists already (graded twice).
pub(super) fn complete(
    tx: &Transaction<'_>,
    job: &LeasedJob,
    outcome: &JobOutcome,
    event: Option<&NewEvent>,
    now: Millis,
) -> Sql<bool> {
    // An erased (or swept) submission: the grading's result must not bring any of it back.
    let exists = tx
        .prepare_cached("SELECT 1 FROM submissions WHERE id = ?1")?
        .query_row([job.submission_id], |_| Ok(()))
        .optional()?;
    if exists.is_none() {
        return Ok(false);
    }
    if job.regrade {
        return complete_regrade(tx, job, outcome, event, now);
    }
    {
        let c = outcome.columns();
        let inserted = tx
            .prepare_cached(
                "INSERT INTO results (submission_id, status, verdict, points, max_points, report, failure, \
                 attempts, finished_at, grade_ms, exercise_hash, grader_version) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
                 ON CONFLICT (submission_id) DO NOTHING",
            )?
            .execute(params![
                job.submission_id,
                c.status,
                c.verdict,
                c.points,
                c.max_points,
                c.report,
                c.failure,
                job.attempt,
                now,
                c.grade_ms,
                c.exercise_hash,
                c.grader_version
            ])?;
        if inserted == 1
            && let Some(event) = event
        {
            tx.prepare_cached(
                "INSERT INTO outbox (event_id, submission_id, client_id, url, payload, state, next_attempt_at, \
                 created_at) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6)",
            )?
            .execute(params![event.event_id, job.submission_id, job.client_id, event.url, event.payload, now])?;
        }
        // Not a regrade queued since (a first grading completed twice, the second late).
        tx.prepare_cached("DELETE FROM jobs WHERE submission_id = ?1 AND regrade = 0")?
            .execute([job.submission_id])?;
        Ok(inserted == 1)
    }
}

/// Stores a regrade's result as the job's version, its event only if the verdict or the points
/// changed from the latest version, and deletes the job.
fn complete_regrade(
    tx: &Transaction<'_>,
    job: &LeasedJob,
    outcome: &JobOutcome,
    event: Option<&NewEvent>,
    now: Millis,
) -> Sql<bool> {
    let previous: Option<(Option<String>, Option<u32>)> = tx
        .prepare_cached("SELECT verdict, points FROM latest_results WHERE submission_id = ?1")?
        .query_row([job.submission_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let c = outcome.columns();
    let inserted = tx
        .prepare_cached(
            "INSERT INTO result_versions (submission_id, version, status, verdict, points, max_points, \
             report, failure, attempts, finished_at, grade_ms, exercise_hash, grader_version) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) \
             ON CONFLICT (submission_id, version) DO NOTHING",
        )?
        .execute(params![
            job.submission_id,
            job.version,
            c.status,
            c.verdict,
            c.points,
            c.max_points,
            c.report,
            c.failure,
            job.attempt,
            now,
            c.grade_ms,
            c.exercise_hash,
            c.grader_version
        ])?;
    let changed = previous
        .is_none_or(|previous| previous != (c.verdict.map(str::to_string), c.points.map(|p| p as u32)));
    if inserted == 1
        && changed
        && let Some(event) = event
    {
        tx.prepare_cached(
            "INSERT INTO outbox (event_id, submission_id, client_id, url, payload, state, next_attempt_at, \
             created_at) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6) ON CONFLICT (event_id) DO NOTHING",
        )?
        .execute(params![
            event.event_id,
            job.submission_id,
            job.client_id,
            event.url,
            event.payload,
            now
        ])?;
    }
    // A stale worker (its version written already) leaves a regrade queued since then alone.
    if inserted == 1 {
        tx.prepare_cached("DELETE FROM jobs WHERE submission_id = ?1")?.execute([job.submission_id])?;
    }
    Ok(inserted == 1)
}

/// The latest result version's verdict, as the submission query computes it: for conditions of
/// queries that extend it.
pub(super) const LATEST_VERDICT: &str = "iif(v.submission_id IS NULL, r.verdict, v.verdict)";

/// A submission with its job and its latest result version: the first result (`results`) unless a
/// regrade wrote a later one (`result_versions`, its newest by the primary key). The same rows as a
/// join with the view `latest_results`, but looked up by key: a LEFT JOIN with that compound view
/// makes SQLite materialise the whole view for every read.
const SUBMISSION_QUERY: &str = "SELECT s.id, s.client_id, s.exercise, s.learner, s.kind, s.sha256, \
     s.callback_url, s.metadata, s.idempotency_key, s.request_hash, s.created_at, \
     j.leased, j.attempts, j.lease_until, \
     iif(v.submission_id IS NULL, r.status, v.status), iif(v.submission_id IS NULL, r.verdict, v.verdict), \
     iif(v.submission_id IS NULL, r.points, v.points), iif(v.submission_id IS NULL, r.max_points, v.max_points), \
     iif(v.submission_id IS NULL, r.report, v.report), iif(v.submission_id IS NULL, r.failure, v.failure), \
     iif(v.submission_id IS NULL, r.attempts, v.attempts), iif(v.submission_id IS NULL, r.finished_at, v.finished_at), \
     iif(v.submission_id IS NULL, r.grade_ms, v.grade_ms), \
     iif(v.submission_id IS NULL, iif(r.submission_id IS NULL, NULL, 1), v.version), \
     iif(v.submission_id IS NULL, r.exercise_hash, v.exercise_hash), \
     iif(v.submission_id IS NULL, r.grader_version, v.grader_version) \
     FROM submissions s LEFT JOIN jobs j ON j.submission_id = s.id \
     LEFT JOIN results r ON r.submission_id = s.id \
     LEFT JOIN result_versions v ON v.submission_id = s.id \
     AND v.version = (SELECT max(w.version) FROM result_versions w WHERE w.submission_id = s.id)";

/// A submission with its job's state and its result.
pub(super) fn load_submission(conn: &Connection, id: i64) -> Sql<Option<SubmissionRecord>> {
    let found = conn
        .prepare_cached(&format!("{SUBMISSION_QUERY} WHERE s.id = ?1"))?
        .query_row([id], submission_from_row)
        .optional()?;
    Ok(found)
}

/// The submission query's columns, for listings that add their own conditions.
pub(super) fn submission_query() -> &'static str {
    SUBMISSION_QUERY
}

/// A learner's submissions for one exercise through one client, newest first.
pub(super) fn learner_submissions(
    conn: &Connection,
    client_id: i64,
    exercise: &str,
    learner: &str,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let records = conn
        .prepare_cached(&format!(
            "{SUBMISSION_QUERY} WHERE s.client_id = ?1 AND s.exercise = ?2 AND s.learner = ?3 \
             ORDER BY s.id DESC LIMIT ?4"
        ))?
        .query_map(params![client_id, exercise, learner, limit as i64], submission_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(records)
}

/// A row of the submission query as a record.
pub(super) fn submission_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SubmissionRecord> {
    let leased: Option<i64> = row.get(11)?;
    let job_attempts: Option<u32> = row.get(12)?;
    let result_status: Option<String> = row.get(14)?;
    let result = match &result_status {
        Some(_) => Some(ResultRecord {
            verdict: row.get(15)?,
            points: row.get(16)?,
            max_points: row.get(17)?,
            report: row.get(18)?,
            failure: row.get(19)?,
            finished_at: row.get(21)?,
            grade_ms: row.get::<_, Option<i64>>(22)?.map(|ms| ms.max(0) as u64),
            version: row.get(23)?,
            exercise_hash: row.get(24)?,
            grader_version: row.get(25)?,
        }),
        None => None,
    };
    let status = Status::of(result_status.as_deref(), leased == Some(1));
    let attempts = match result_status {
        Some(_) => row.get::<_, u32>(20)?,
        None => job_attempts.unwrap_or(0),
    };
    Ok(SubmissionRecord {
        id: row.get(0)?,
        client_id: row.get(1)?,
        exercise: row.get(2)?,
        learner: row.get(3)?,
        kind: row.get(4)?,
        sha256: row.get(5)?,
        callback_url: row.get(6)?,
        metadata: row.get(7)?,
        idempotency_key: row.get(8)?,
        request_hash: row.get(9)?,
        created_at: row.get(10)?,
        status,
        attempts,
        result,
    })
}
