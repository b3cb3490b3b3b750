//! Learners' data on PostgreSQL: the same export, erasure, retention sweep, audit log and gone
//! submissions as SQLite's (`sqlite/privacy.rs`), in PostgreSQL's dialect. After an erasure the
//! store vacuums the tables it deleted from ([`VACUUM_AFTER_ERASURE`]), so that the dead rows are
//! removed rather than left for autovacuum.

use deadpool_postgres::GenericClient;

use super::error::Sql;
use super::queue::{SUBMISSION_QUERY, submission_from_row};
use super::records::{CONTEXT_COLUMNS, context_from_row};
use crate::service::store::privacy::{LEARNER_TABLES, SWEPT_TABLES};
use crate::service::store::{
    AuditAction, AuditEntry, LearnerData, LearnerFound, LearnerScope, LearnerSubmission, LtiContext,
    LtiSubject, Millis, ResultRecord, RowCounts, StoreError,
};

/// The statement run (outside a transaction) after an erasure.
pub(super) const VACUUM_AFTER_ERASURE: &str =
    "VACUUM outbox, jobs, result_versions, results, submissions, lti_contexts";

pub(super) async fn learner_data<C: GenericClient>(
    c: &C,
    scope: &LearnerScope,
) -> Sql<LearnerFound<LearnerData>> {
    let sql = format!(
        "{SUBMISSION_QUERY} WHERE s.learner = $1 AND ($2::BIGINT IS NULL OR s.client_id = $2) ORDER BY s.id"
    );
    let rows = c.query(sql.as_str(), &[&scope.learner, &scope.client_id]).await?;
    let mut submissions = Vec::with_capacity(rows.len());
    for row in &rows {
        let record = submission_from_row(row)?;
        let Some(submission) = super::records::submission_payload(c, record.id).await? else { continue };
        let versions = versions_with_reports(c, record.id).await?;
        submissions.push(LearnerSubmission { record, submission, versions });
    }
    let lti_contexts = learner_contexts(c, scope).await?;
    if submissions.is_empty() && lti_contexts.is_empty() {
        return not_found(c, scope).await;
    }
    Ok(LearnerFound::Found(LearnerData { submissions, lti_contexts }))
}

async fn versions_with_reports<C: GenericClient>(c: &C, submission_id: i64) -> Sql<Vec<ResultRecord>> {
    let columns = "status, verdict, points, max_points, report, failure, finished_at, grade_ms, \
                   exercise_hash, grader_version";
    let sql = format!(
        "SELECT version, {columns} FROM (SELECT 1 AS version, {columns} FROM results WHERE submission_id = $1 \
         UNION ALL SELECT version, {columns} FROM result_versions WHERE submission_id = $1) v ORDER BY version"
    );
    let rows = c.query(sql.as_str(), &[&submission_id]).await?;
    let versions = rows
        .iter()
        .map(|r| {
            Ok(ResultRecord {
                version: r.try_get::<_, i32>(0)?.max(0) as u32,
                verdict: r.try_get(2)?,
                points: r.try_get::<_, Option<i64>>(3)?.map(|p| p.max(0) as u32),
                max_points: r.try_get::<_, Option<i64>>(4)?.map(|p| p.max(0) as u32),
                report: r.try_get(5)?,
                failure: r.try_get(6)?,
                finished_at: r.try_get(7)?,
                grade_ms: r.try_get::<_, Option<i64>>(8)?.map(|ms| ms.max(0) as u64),
                exercise_hash: r.try_get(9)?,
                grader_version: r.try_get(10)?,
            })
        })
        .collect::<Result<_, tokio_postgres::Error>>()?;
    Ok(versions)
}

async fn learner_contexts<C: GenericClient>(c: &C, scope: &LearnerScope) -> Sql<Vec<LtiContext>> {
    let Some((platform_id, subject)) = &scope.lti else { return Ok(Vec::new()) };
    let owner: Option<i64> = c
        .query_opt("SELECT api_client_id FROM lti_platforms WHERE id = $1", &[platform_id])
        .await?
        .map(|r| r.try_get(0))
        .transpose()?;
    if owner.is_none() || scope.client_id.is_some_and(|client| owner != Some(client)) {
        return Ok(Vec::new());
    }
    let (sql, plain) = match subject {
        LtiSubject::Plain(subject) => (
            format!(
                "SELECT {CONTEXT_COLUMNS} FROM lti_contexts WHERE platform_id = $1 AND subject = $2 ORDER BY id"
            ),
            Some(subject.as_str()),
        ),
        LtiSubject::Sha256(_) => (
            format!(
                "SELECT {CONTEXT_COLUMNS} FROM lti_contexts WHERE platform_id = $1 AND ($2::TEXT IS NULL) ORDER BY id"
            ),
            None,
        ),
    };
    let rows = c.query(sql.as_str(), &[platform_id, &plain]).await?;
    let mut contexts = Vec::new();
    for row in &rows {
        let context = context_from_row(row)?;
        let named = match subject {
            LtiSubject::Plain(_) => true,
            LtiSubject::Sha256(hash) => crate::submission::sha256_hex(context.subject.as_bytes()) == *hash,
        };
        if named {
            contexts.push(context);
        }
    }
    Ok(contexts)
}

async fn not_found<C: GenericClient, T>(c: &C, scope: &LearnerScope) -> Sql<LearnerFound<T>> {
    let at: Option<i64> = c
        .query_one(
            "SELECT max(at) FROM audit_log WHERE action = 'erase' AND subject = $1 \
             AND ($2::BIGINT IS NULL OR client_id IS NULL OR client_id = $2)",
            &[&scope.learner_key, &scope.client_id],
        )
        .await?
        .try_get(0)?;
    Ok(at.map_or(LearnerFound::Unknown, |at| LearnerFound::Erased { at }))
}

async fn delete_submission<C: GenericClient>(
    tx: &C,
    id: i64,
    counts: &mut RowCounts,
    now: Millis,
) -> Sql<()> {
    for table in ["outbox", "jobs", "result_versions", "results"] {
        let deleted = tx.execute(&*format!("DELETE FROM {table} WHERE submission_id = $1"), &[&id]).await?;
        *counts.entry(table.to_string()).or_default() += deleted;
    }
    let deleted = tx.execute("DELETE FROM submissions WHERE id = $1", &[&id]).await?;
    *counts.entry("submissions".to_string()).or_default() += deleted;
    tx.execute(
        "INSERT INTO gone_submissions (submission_id, gone_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        &[&id, &now],
    )
    .await?;
    Ok(())
}

pub(super) async fn erase<C: GenericClient>(
    tx: &C,
    scope: &LearnerScope,
    audit: &AuditEntry,
    now: Millis,
) -> Sql<LearnerFound<RowCounts>> {
    // FOR UPDATE: a job completing at the same moment waits, then finds its submission gone.
    let rows = tx
        .query(
            "SELECT id FROM submissions WHERE learner = $1 AND ($2::BIGINT IS NULL OR client_id = $2) \
             ORDER BY id FOR UPDATE",
            &[&scope.learner, &scope.client_id],
        )
        .await?;
    let ids = rows.iter().map(|r| r.try_get::<_, i64>(0)).collect::<Result<Vec<_>, _>>()?;
    let contexts = learner_contexts(tx, scope).await?;
    if ids.is_empty() && contexts.is_empty() {
        return not_found(tx, scope).await;
    }
    let mut counts: RowCounts = LEARNER_TABLES.iter().map(|table| (table.to_string(), 0)).collect();
    for id in ids {
        delete_submission(tx, id, &mut counts, now).await?;
    }
    for context in &contexts {
        let deleted = tx.execute("DELETE FROM lti_contexts WHERE id = $1", &[&context.id]).await?;
        *counts.entry("lti_contexts".to_string()).or_default() += deleted;
    }
    record_audit(
        tx,
        &AuditEntry {
            counts: counts.clone(),
            action: AuditAction::Erase,
            subject: scope.learner_key.clone(),
            ..audit.clone()
        },
    )
    .await?;
    Ok(LearnerFound::Found(counts))
}

pub(super) async fn gone<C: GenericClient>(c: &C, id: i64) -> Sql<bool> {
    Ok(c.query_opt("SELECT 1 FROM gone_submissions WHERE submission_id = $1", &[&id]).await?.is_some())
}

pub(super) async fn record_audit<C: GenericClient>(tx: &C, entry: &AuditEntry) -> Sql<()> {
    tx.execute(
        "INSERT INTO audit_log (at, actor, client_id, action, subject, counts) VALUES ($1, $2, $3, $4, $5, $6)",
        &[&entry.at, &entry.actor, &entry.client_id, &entry.action.name(), &entry.subject, &entry.counts_json()],
    )
    .await?;
    Ok(())
}

pub(super) async fn audit_log<C: GenericClient>(c: &C, after: i64, limit: usize) -> Sql<Vec<AuditEntry>> {
    let rows = c
        .query(
            "SELECT id, at, actor, client_id, action, subject, counts FROM audit_log WHERE id > $1 \
             ORDER BY id LIMIT $2",
            &[&after, &(limit as i64)],
        )
        .await?;
    let mut entries = Vec::with_capacity(rows.len());
    for r in &rows {
        let action: String = r.try_get(4)?;
        let action = AuditAction::of(&action)
            .ok_or_else(|| StoreError::Corrupt(format!("an audit log entry's action {action:?}")))?;
        entries.push(AuditEntry {
            id: r.try_get(0)?,
            at: r.try_get(1)?,
            actor: r.try_get(2)?,
            client_id: r.try_get(3)?,
            action,
            subject: r.try_get(5)?,
            counts: AuditEntry::parse_counts(r.try_get(6)?)?,
        });
    }
    Ok(entries)
}

pub(super) async fn sweep<C: GenericClient>(
    tx: &C,
    before: Millis,
    batch: usize,
    now: Millis,
) -> Sql<RowCounts> {
    let limit = batch as i64;
    // SKIP LOCKED: a submission another transaction holds (a grading completing) waits for the next sweep.
    let rows = tx
        .query(
            "SELECT s.id FROM submissions s WHERE s.created_at < $1 \
             AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.submission_id = s.id) \
             ORDER BY s.created_at, s.id LIMIT $2 FOR UPDATE SKIP LOCKED",
            &[&before, &limit],
        )
        .await?;
    let mut counts = SWEPT_TABLES.iter().map(|table| (table.to_string(), 0)).collect::<RowCounts>();
    for row in &rows {
        delete_submission(tx, row.try_get(0)?, &mut counts, now).await?;
    }
    let others = [
        (
            "outbox",
            "DELETE FROM outbox WHERE event_id IN (SELECT event_id FROM outbox WHERE created_at < $1 \
             AND NOT leased LIMIT $2 FOR UPDATE SKIP LOCKED)",
        ),
        (
            "jobe_files",
            "DELETE FROM jobe_files WHERE (client_id, file_id) IN (SELECT client_id, file_id FROM jobe_files \
             WHERE stored_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
        ),
        (
            "lti_contexts",
            "DELETE FROM lti_contexts WHERE id IN (SELECT id FROM lti_contexts WHERE created_at < $1 \
             LIMIT $2 FOR UPDATE SKIP LOCKED)",
        ),
    ];
    for (table, sql) in others {
        let deleted = tx.execute(sql, &[&before, &limit]).await?;
        *counts.entry(table.to_string()).or_default() += deleted;
    }
    Ok(counts)
}
