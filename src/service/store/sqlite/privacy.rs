//! Learners' data on SQLite: everything of a learner read for an export, erased on request (every
//! row that names the learner or one of its submissions, in one transaction), the retention sweep's
//! batches, the audit log and the ids of submissions that are gone. The writer's connection has
//! `secure_delete` on (see `configure`), so deleted rows are overwritten in the database file; the
//! store truncates the write-ahead log after an erasure ([`truncate_wal`]).

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::error::Sql;
use super::lti::{CONTEXT_COLUMNS, context_from_row};
use super::results::{submission_from_row, submission_query};
use crate::service::store::privacy::{LEARNER_TABLES, SWEPT_TABLES};
use crate::service::store::{
    AuditAction, AuditEntry, LearnerData, LearnerFound, LearnerScope, LearnerSubmission, LtiContext,
    LtiSubject, Millis, ResultRecord, RowCounts, StoreError,
};

/// Everything stored of the learner in `scope`, or whether it was erased.
pub(super) fn learner_data(conn: &Connection, scope: &LearnerScope) -> Sql<LearnerFound<LearnerData>> {
    let records = conn
        .prepare_cached(&format!(
            "{} WHERE s.learner = ?1 AND (?2 IS NULL OR s.client_id = ?2) ORDER BY s.id",
            submission_query()
        ))?
        .query_map(params![scope.learner, scope.client_id], submission_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    let mut submissions = Vec::with_capacity(records.len());
    for record in records {
        let Some(submission) = super::teachers::payload(conn, record.id)? else { continue };
        let versions = versions_with_reports(conn, record.id)?;
        submissions.push(LearnerSubmission { record, submission, versions });
    }
    let lti_contexts = learner_contexts(conn, scope)?;
    if submissions.is_empty() && lti_contexts.is_empty() {
        return not_found(conn, scope);
    }
    Ok(LearnerFound::Found(LearnerData { submissions, lti_contexts }))
}

/// Every result version of a submission, oldest first, with its report.
fn versions_with_reports(conn: &Connection, submission_id: i64) -> Sql<Vec<ResultRecord>> {
    let columns = "status, verdict, points, max_points, report, failure, finished_at, grade_ms, \
                   exercise_hash, grader_version";
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
                report: r.get(5)?,
                failure: r.get(6)?,
                finished_at: r.get(7)?,
                grade_ms: r.get::<_, Option<i64>>(8)?.map(|ms| ms.max(0) as u64),
                exercise_hash: r.get(9)?,
                grader_version: r.get(10)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The LTI launch contexts that name the learner in `scope`: none unless the id is an LTI
/// learner's of a platform whose API client is in scope.
fn learner_contexts(conn: &Connection, scope: &LearnerScope) -> Sql<Vec<LtiContext>> {
    let Some((platform_id, subject)) = &scope.lti else { return Ok(Vec::new()) };
    let owner: Option<i64> = conn
        .prepare_cached("SELECT api_client_id FROM lti_platforms WHERE id = ?1")?
        .query_row([platform_id], |r| r.get(0))
        .optional()?;
    if owner.is_none() || scope.client_id.is_some_and(|client| owner != Some(client)) {
        return Ok(Vec::new());
    }
    let all = match subject {
        LtiSubject::Plain(subject) => conn
            .prepare_cached(&format!(
                "SELECT {CONTEXT_COLUMNS} FROM lti_contexts WHERE platform_id = ?1 AND subject = ?2 ORDER BY id"
            ))?
            .query_map(params![platform_id, subject], context_from_row)?
            .collect::<Result<Vec<_>, _>>()?,
        LtiSubject::Sha256(hash) => conn
            .prepare_cached(&format!(
                "SELECT {CONTEXT_COLUMNS} FROM lti_contexts WHERE platform_id = ?1 ORDER BY id"
            ))?
            .query_map([platform_id], context_from_row)?
            .filter(|context| {
                context
                    .as_ref()
                    .map_or(true, |c| crate::submission::sha256_hex(c.subject.as_bytes()) == *hash)
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(all)
}

/// Nothing of the learner is stored: erased (when), or unknown.
fn not_found<T>(conn: &Connection, scope: &LearnerScope) -> Sql<LearnerFound<T>> {
    let at: Option<Millis> = conn
        .prepare_cached(
            "SELECT max(at) FROM audit_log WHERE action = 'erase' AND subject = ?1 \
             AND (?2 IS NULL OR client_id IS NULL OR client_id = ?2)",
        )?
        .query_row(params![scope.learner_key, scope.client_id], |r| r.get(0))?;
    Ok(at.map_or(LearnerFound::Unknown, |at| LearnerFound::Erased { at }))
}

/// Deletes a submission and every row of it, counting them in `counts`, and records its id as gone.
fn delete_submission(tx: &Transaction<'_>, id: i64, counts: &mut RowCounts, now: Millis) -> Sql<()> {
    for table in ["outbox", "jobs", "result_versions", "results"] {
        let deleted =
            tx.prepare_cached(&format!("DELETE FROM {table} WHERE submission_id = ?1"))?.execute([id])?;
        *counts.entry(table.to_string()).or_default() += deleted as u64;
    }
    let deleted = tx.prepare_cached("DELETE FROM submissions WHERE id = ?1")?.execute([id])?;
    *counts.entry("submissions".to_string()).or_default() += deleted as u64;
    tx.prepare_cached(
        "INSERT INTO gone_submissions (submission_id, gone_at) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
    )?
    .execute(params![id, now])?;
    Ok(())
}

/// Erases the learner in `scope` and records the erasure (`audit`, with the counts) in the same
/// transaction; when nothing of the learner is stored, nothing changes.
pub(super) fn erase(
    tx: &Transaction<'_>,
    scope: &LearnerScope,
    audit: &AuditEntry,
    now: Millis,
) -> Sql<LearnerFound<RowCounts>> {
    let ids = tx
        .prepare_cached("SELECT id FROM submissions WHERE learner = ?1 AND (?2 IS NULL OR client_id = ?2)")?
        .query_map(params![scope.learner, scope.client_id], |r| r.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let contexts = learner_contexts(tx, scope)?;
    if ids.is_empty() && contexts.is_empty() {
        return not_found(tx, scope);
    }
    let mut counts: RowCounts = LEARNER_TABLES.iter().map(|table| (table.to_string(), 0)).collect();
    for id in ids {
        delete_submission(tx, id, &mut counts, now)?;
    }
    for context in &contexts {
        let deleted = tx.prepare_cached("DELETE FROM lti_contexts WHERE id = ?1")?.execute([context.id])?;
        *counts.entry("lti_contexts".to_string()).or_default() += deleted as u64;
    }
    let entry = AuditEntry {
        counts: counts.clone(),
        action: AuditAction::Erase,
        subject: scope.learner_key.clone(),
        ..audit.clone()
    };
    record_audit(tx, &entry)?;
    Ok(LearnerFound::Found(counts))
}

/// Whether the submission `id` was erased or swept.
pub(super) fn gone(conn: &Connection, id: i64) -> Sql<bool> {
    let found = conn
        .prepare_cached("SELECT 1 FROM gone_submissions WHERE submission_id = ?1")?
        .query_row([id], |_| Ok(()))
        .optional()?;
    Ok(found.is_some())
}

pub(super) fn record_audit(tx: &Transaction<'_>, entry: &AuditEntry) -> Sql<()> {
    tx.prepare_cached(
        "INSERT INTO audit_log (at, actor, client_id, action, subject, counts) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        entry.at,
        entry.actor,
        entry.client_id,
        entry.action.name(),
        entry.subject,
        entry.counts_json()
    ])?;
    Ok(())
}

pub(super) fn audit_log(conn: &Connection, after: i64, limit: usize) -> Sql<Vec<AuditEntry>> {
    let rows = conn
        .prepare_cached(
            "SELECT id, at, actor, client_id, action, subject, counts FROM audit_log WHERE id > ?1 \
             ORDER BY id LIMIT ?2",
        )?
        .query_map(params![after, limit as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut entries = Vec::with_capacity(rows.len());
    for (id, at, actor, client_id, action, subject, counts) in rows {
        let action = AuditAction::of(&action)
            .ok_or_else(|| StoreError::Corrupt(format!("an audit log entry's action {action:?}")))?;
        let counts = AuditEntry::parse_counts(&counts)?;
        entries.push(AuditEntry { id, at, actor, client_id, action, subject, counts });
    }
    Ok(entries)
}

/// One batch of the retention sweep: at most `batch` rows of each kind created before `before`
/// (submissions whose job is still open stay, whatever their age).
pub(super) fn sweep(tx: &Transaction<'_>, before: Millis, batch: usize, now: Millis) -> Sql<RowCounts> {
    let ids = tx
        .prepare_cached(
            "SELECT s.id FROM submissions s WHERE s.created_at < ?1 \
             AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.submission_id = s.id) \
             ORDER BY s.created_at, s.id LIMIT ?2",
        )?
        .query_map(params![before, batch as i64], |r| r.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let mut counts = SWEPT_TABLES.iter().map(|table| (table.to_string(), 0)).collect::<RowCounts>();
    for id in ids {
        delete_submission(tx, id, &mut counts, now)?;
    }
    let others = [
        (
            "outbox",
            "DELETE FROM outbox WHERE rowid IN (SELECT rowid FROM outbox WHERE created_at < ?1 AND leased = 0 LIMIT ?2)",
        ),
        (
            "jobe_files",
            "DELETE FROM jobe_files WHERE rowid IN (SELECT rowid FROM jobe_files WHERE stored_at < ?1 LIMIT ?2)",
        ),
        (
            "lti_contexts",
            "DELETE FROM lti_contexts WHERE id IN (SELECT id FROM lti_contexts WHERE created_at < ?1 LIMIT ?2)",
        ),
    ];
    for (table, sql) in others {
        let deleted = tx.prepare_cached(sql)?.execute(params![before, batch as i64])?;
        *counts.entry(table.to_string()).or_default() += deleted as u64;
    }
    Ok(counts)
}

/// Copies the write-ahead log into the database and truncates it to nothing, so that the bytes of
/// rows just erased are left neither in the log nor (with `secure_delete`) in the database's free
/// pages. Waits for readers as the busy timeout allows; false if one still held the log.
pub(super) fn truncate_wal(path: &Path) -> Sql<bool> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
    Ok(busy == 0)
}
