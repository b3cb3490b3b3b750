//! Intake: accepting a submission and queueing its job in one write, with idempotency keys (the
//! same key and request find the earlier submission) and the queue's depth limit.

use rusqlite::{OptionalExtension, Transaction, params};

use super::error::Sql;
use super::results::load_submission;
use crate::service::store::{Intake, Millis, NewSubmission, StoreError};
use crate::submission::Submission;

/// Accepts a submission and queues its job, or finds the earlier one with the same key.
pub(super) fn submit(tx: &Transaction<'_>, new: &NewSubmission, queue_max: u64, now: Millis) -> Sql<Intake> {
    if let Some(key) = &new.idempotency_key {
        let earlier: Option<i64> = tx
            .prepare_cached("SELECT id FROM submissions WHERE client_id = ?1 AND idempotency_key = ?2")?
            .query_row(params![new.client_id, key], |r| r.get(0))
            .optional()?;
        if let Some(id) = earlier {
            let record = load_submission(tx, id)?
                .ok_or_else(|| StoreError::Corrupt(format!("submission {id} vanished")))?;
            return Ok(if record.request_hash == new.request_hash {
                Intake::Existing(record)
            } else {
                Intake::KeyReused(record)
            });
        }
    }
    let depth: u64 = tx.query_row("SELECT count(*) FROM jobs", [], |r| r.get::<_, i64>(0))? as u64;
    if depth >= queue_max {
        return Ok(Intake::QueueFull { depth });
    }
    let source_payload;
    let (kind, payload): (&str, &[u8]) = match &new.submission {
        Submission::Answer(text) => ("answer", text.as_bytes()),
        Submission::Module(bytes) => ("module", bytes),
        // The table's kinds are answer and module: a source is stored as a module whose payload
        // starts with a marker no module starts with (see `store::payload`).
        Submission::Source { language, text } => {
            source_payload = crate::service::store::payload::source_payload(*language, text);
            ("module", &source_payload)
        }
    };
    tx.prepare_cached(
        "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, callback_url, \
         metadata, idempotency_key, request_hash, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        new.client_id,
        new.exercise,
        new.learner,
        kind,
        payload,
        new.submission.sha256(),
        new.callback_url,
        new.metadata,
        new.idempotency_key,
        new.request_hash,
        now
    ])?;
    let id = tx.last_insert_rowid();
    tx.prepare_cached("INSERT INTO jobs (submission_id, exercise_hash) VALUES (?1, ?2)")?
        .execute(params![id, new.exercise_hash])?;
    let record =
        load_submission(tx, id)?.ok_or_else(|| StoreError::Corrupt(format!("submission {id} vanished")))?;
    Ok(Intake::Created(record))
}

/// Forgets idempotency keys older than `before`.
pub(super) fn forget_idempotency_keys(tx: &Transaction<'_>, before: Millis) -> Sql<u64> {
    Ok(tx.execute(
        "UPDATE submissions SET idempotency_key = NULL WHERE idempotency_key IS NOT NULL AND created_at < ?1",
        [before],
    )? as u64)
}
