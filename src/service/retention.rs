//! The retention sweep (`--retention-days N`): what is older than N days is deleted, in batches of
//! at most [`RETENTION_BATCH_ROWS_MAX`] rows of each kind, each batch one short transaction of the
//! store ([`Store::sweep_retention`]), so that intake and grading never wait long behind it. A
//! submission whose job is still queued or running stays, whatever its age. Each sweep counts
//! itself and its rows in the metrics, writes one log line and one audit log entry.

use crate::limits::{RETENTION_BATCH_ROWS_MAX, RETENTION_BATCHES_MAX};
use crate::service::metrics::Metrics;
use crate::service::privacy::{self, Actor};
use crate::service::store::{AuditAction, Millis, RowCounts, Store, StoreError};

const DAY_MS: i64 = 24 * 3600 * 1000;

/// What one sweep did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Swept {
    /// Rows deleted per table.
    pub rows: RowCounts,
    pub batches: usize,
    /// The time before which rows were deleted.
    pub before: Millis,
}

impl Swept {
    pub(crate) fn total(&self) -> u64 {
        self.rows.values().sum()
    }
}

/// Deletes what was created more than `days` days before `now`, batch after batch until a batch
/// finds less than a full batch of every kind (or [`RETENTION_BATCHES_MAX`] batches ran).
pub(crate) fn sweep(store: &dyn Store, days: u32, now: Millis) -> Result<Swept, StoreError> {
    let before = now - i64::from(days) * DAY_MS;
    let mut swept = Swept { rows: RowCounts::new(), batches: 0, before };
    while swept.batches < RETENTION_BATCHES_MAX {
        let batch = store.sweep_retention(before, RETENTION_BATCH_ROWS_MAX, now)?;
        swept.batches += 1;
        let full = batch.values().any(|n| *n as usize >= RETENTION_BATCH_ROWS_MAX);
        for (table, n) in batch {
            *swept.rows.entry(table).or_default() += n;
        }
        if !full {
            break;
        }
    }
    Ok(swept)
}

/// One sweep of the running service: swept, counted, logged and recorded in the audit log.
pub(crate) fn run(store: &dyn Store, metrics: &Metrics, days: u32, now: Millis) {
    let started = std::time::Instant::now();
    match sweep(store, days, now) {
        Ok(swept) => {
            metrics.retention_sweeps.inc();
            metrics.retention_rows.inc_by(swept.total());
            tracing::info!(
                event = "retention_sweep",
                retention_days = days,
                before = %crate::service::clock::rfc3339(swept.before),
                batches = swept.batches,
                rows = swept.total(),
                deleted = ?swept.rows,
                ms = started.elapsed().as_millis() as u64,
            );
            if swept.total() > 0 {
                let actor = Actor { name: "retention".to_string(), client_id: None };
                privacy::record(store, &actor, AuditAction::Retention, &format!("{days} days"), swept.rows);
            }
        }
        Err(e) => tracing::error!(event = "retention_sweep_failed", error = %e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::sqlite::{Durability, SqliteStore};
    use crate::service::store::{Intake, JobOutcome, NewSubmission};
    use crate::submission::Submission;

    fn submit(store: &dyn Store, client: i64, at: Millis) -> i64 {
        let new = NewSubmission {
            client_id: client,
            exercise: "01-visibility-timeout".into(),
            learner: "l".into(),
            submission: Submission::Answer(format!("({at})")),
            callback_url: None,
            metadata: None,
            idempotency_key: None,
            request_hash: at.to_string(),
            exercise_hash: None,
        };
        let Intake::Created(record) = store.submit(&new, u64::MAX, at).unwrap() else {
            panic!("not created")
        };
        let job = store.lease_jobs(1, 1, 1_000, at).unwrap().pop().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let outcome = JobOutcome::Failed { reason: "r".into() };
        store.complete_job(job, outcome, None, at, Box::new(move |r| tx.send(r.unwrap()).unwrap()));
        assert!(rx.recv().unwrap());
        record.id
    }

    /// The clock is the caller's: a sweep at day 10 with 3 days keeps what is younger than day 7,
    /// to the millisecond, and takes more than one batch when there is more than one batch of it.
    #[test]
    fn a_sweep_deletes_exactly_what_is_older_than_the_retention_in_batches() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        let client = store.add_client("a", "h", "whsec_x", 0).unwrap();
        let old: Vec<i64> =
            (0..RETENTION_BATCH_ROWS_MAX as i64 + 3).map(|n| submit(&store, client.id, n)).collect();
        let edge = 7 * DAY_MS;
        let just_old = submit(&store, client.id, edge - 1);
        let just_kept = submit(&store, client.id, edge);
        let swept = sweep(&store, 3, 10 * DAY_MS).unwrap();
        assert_eq!(swept.before, edge);
        assert_eq!(swept.rows["submissions"], old.len() as u64 + 1);
        assert_eq!(swept.batches, 2);
        assert!(store.submission(just_old).unwrap().is_none());
        assert!(store.submission(just_kept).unwrap().is_some());
        assert!(store.submission_gone(old[0]).unwrap());
        let again = sweep(&store, 3, 10 * DAY_MS).unwrap();
        assert_eq!((again.total(), again.batches), (0, 1));
    }
}
