//! Results: reading a submission with its job and result, and completing a job (its one result, its
//! webhook event and the job's deletion in one write).

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::error::Sql;
use crate::service::store::{
    JobOutcome, LeasedJob, Millis, NewEvent, ResultRecord, Status, SubmissionRecord,
};

/// Stores a job's result and event and deletes the job, unless the submission has a result already.
pub(super) fn complete(
    tx: &Transaction<'_>,
    job: &LeasedJob,
    outcome: &JobOutcome,
    event: Option<&NewEvent>,
    now: Millis,
) -> Sql<bool> {
    {
        let inserted = match outcome {
            JobOutcome::Graded { verdict, points, max_points, report, grade_ms } => tx
                .prepare_cached(
                    "INSERT INTO results (submission_id, status, verdict, points, max_points, report, attempts, \
                     finished_at, grade_ms) VALUES (?1, 'graded', ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
                     ON CONFLICT (submission_id) DO NOTHING",
                )?
                .execute(params![
                    job.submission_id,
                    verdict,
                    points,
                    max_points,
                    report,
                    job.attempt,
                    now,
                    *grade_ms as i64
                ])?,
            JobOutcome::Failed { reason } => tx
                .prepare_cached(
                    "INSERT INTO results (submission_id, status, failure, attempts, finished_at) \
                     VALUES (?1, 'failed', ?2, ?3, ?4) ON CONFLICT (submission_id) DO NOTHING",
                )?
                .execute(params![job.submission_id, reason, job.attempt, now])?,
        };
        if inserted == 1
            && let Some(event) = event
        {
            tx.prepare_cached(
                "INSERT INTO outbox (event_id, submission_id, client_id, url, payload, state, next_attempt_at, \
                 created_at) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6)",
            )?
            .execute(params![event.event_id, job.submission_id, job.client_id, event.url, event.payload, now])?;
        }
        tx.prepare_cached("DELETE FROM jobs WHERE submission_id = ?1")?.execute([job.submission_id])?;
        Ok(inserted == 1)
    }
}

const SUBMISSION_QUERY: &str = "SELECT s.id, s.client_id, s.exercise, s.learner, s.kind, s.sha256, \
     s.callback_url, s.metadata, s.idempotency_key, s.request_hash, s.created_at, \
     j.leased, j.attempts, j.lease_until, \
     r.status, r.verdict, r.points, r.max_points, r.report, r.failure, r.attempts, r.finished_at, r.grade_ms \
     FROM submissions s LEFT JOIN jobs j ON j.submission_id = s.id \
     LEFT JOIN results r ON r.submission_id = s.id";

/// A submission with its job's state and its result.
pub(super) fn load_submission(conn: &Connection, id: i64) -> Sql<Option<SubmissionRecord>> {
    let found =
        conn.query_row(&format!("{SUBMISSION_QUERY} WHERE s.id = ?1"), [id], record_from_row).optional()?;
    Ok(found)
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
        .query_map(params![client_id, exercise, learner, limit as i64], record_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(records)
}

fn record_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SubmissionRecord> {
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
        }),
        None => None,
    };
    let status = match (result_status.as_deref(), leased) {
        (Some("graded"), _) => Status::Graded,
        (Some(_), _) => Status::Failed,
        (None, Some(1)) => Status::Running,
        (None, _) => Status::Queued,
    };
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
