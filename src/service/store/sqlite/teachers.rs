//! What teachers need of the store: a client's submissions listed page by page (keyset on the id),
//! a submission's result versions, the latest submission of each learner of an exercise, regrade
//! jobs (one open job per submission), and an exercise's submissions for its analytics.

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Transaction, params, params_from_iter};

use super::error::Sql;
use super::results::{LATEST_VERDICT, submission_from_row, submission_query};
use crate::service::store::{
    RegradeFilter, RegradesQueued, ResultRecord, SubmissionFilter, SubmissionRecord,
};
use crate::submission::Submission;

/// The submission query without the report (listings show no reports).
fn without_report() -> String {
    let report = "iif(v.submission_id IS NULL, r.report, v.report),";
    debug_assert!(submission_query().contains(report), "the submission query selects the report");
    submission_query().replacen(report, "NULL,", 1)
}

pub(super) fn list(
    conn: &Connection,
    client_id: i64,
    filter: &SubmissionFilter,
    after: i64,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let sql = format!(
        "{} WHERE s.client_id = ?1 AND s.id > ?2 AND (?3 IS NULL OR s.exercise = ?3) \
         AND (?4 IS NULL OR s.learner = ?4) AND (?5 IS NULL OR {LATEST_VERDICT} = ?5) \
         AND (?6 IS NULL OR s.created_at >= ?6) ORDER BY s.id LIMIT ?7",
        without_report()
    );
    let rows = conn
        .prepare_cached(&sql)?
        .query_map(
            params![
                client_id,
                after,
                filter.exercise,
                filter.learner,
                filter.verdict,
                filter.since,
                limit as i64
            ],
            submission_from_row,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub(super) fn versions(conn: &Connection, submission_id: i64) -> Sql<Vec<ResultRecord>> {
    let columns =
        "status, verdict, points, max_points, failure, finished_at, grade_ms, exercise_hash, grader_version";
    let sql = format!(
        "SELECT version, {columns} FROM (SELECT 1 AS version, {columns} FROM results WHERE submission_id = ?1 \
         UNION ALL SELECT version, {columns} FROM result_versions WHERE submission_id = ?1) ORDER BY version"
    );
    let rows = conn
        .prepare_cached(&sql)?
        .query_map([submission_id], |r| {
            Ok(ResultRecord {
                version: r.get(0)?,
                verdict: r.get(2)?,
                points: r.get(3)?,
                max_points: r.get(4)?,
                report: None,
                failure: r.get(5)?,
                finished_at: r.get(6)?,
                grade_ms: r.get::<_, Option<i64>>(7)?.map(|ms| ms.max(0) as u64),
                exercise_hash: r.get(8)?,
                grader_version: r.get(9)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub(super) fn latest(
    conn: &Connection,
    exercise: &str,
    filter: &RegradeFilter,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let mut values: Vec<Value> = vec![
        Value::Text(exercise.to_string()),
        filter.verdict.clone().map_or(Value::Null, Value::Text),
        Value::Integer(limit.saturating_add(1) as i64),
    ];
    let learners = if filter.learners.is_empty() {
        String::new()
    } else {
        let marks: Vec<String> = (0..filter.learners.len()).map(|i| format!("?{}", i + 4)).collect();
        values.extend(filter.learners.iter().map(|l| Value::Text(l.clone())));
        format!(" AND s.learner IN ({})", marks.join(", "))
    };
    let sql = format!(
        "{} WHERE s.exercise = ?1 AND r.submission_id IS NOT NULL AND (?2 IS NULL OR {LATEST_VERDICT} = ?2){learners} \
         AND s.id = (SELECT max(t.id) FROM submissions t WHERE t.exercise = s.exercise \
         AND t.client_id = s.client_id AND t.learner = s.learner) ORDER BY s.id LIMIT ?3",
        submission_query()
    );
    let rows = conn
        .prepare(&sql)?
        .query_map(params_from_iter(values), submission_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub(super) fn payload(conn: &Connection, id: i64) -> Sql<Option<Submission>> {
    let found: Option<(String, Vec<u8>)> = conn
        .prepare_cached("SELECT kind, payload FROM submissions WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((kind, payload)) = found else { return Ok(None) };
    Ok(Some(crate::service::store::payload::stored_submission(id, &kind, payload)?))
}

pub(super) fn queue_regrades(
    tx: &Transaction<'_>,
    ids: &[i64],
    exercise_hash: Option<&str>,
) -> Sql<RegradesQueued> {
    let mut queued = RegradesQueued::default();
    for &id in ids {
        // Due at once; a submission with an open job (its first grading, or a regrade) keeps it.
        let inserted = tx
            .prepare_cached(
                "INSERT INTO jobs (submission_id, regrade, exercise_hash) VALUES (?1, 1, ?2) \
                 ON CONFLICT (submission_id) DO NOTHING",
            )?
            .execute(params![id, exercise_hash])?;
        if inserted == 1 { queued.queued.push(id) } else { queued.already_open.push(id) }
    }
    Ok(queued)
}

pub(super) fn exercise_submissions(
    conn: &Connection,
    exercise: &str,
    limit: usize,
) -> Sql<Vec<SubmissionRecord>> {
    let sql = format!("{} WHERE s.exercise = ?1 ORDER BY s.id LIMIT ?2", submission_query());
    let rows = conn
        .prepare_cached(&sql)?
        .query_map(params![exercise, limit.saturating_add(1) as i64], submission_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}
