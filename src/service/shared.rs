//! What the HTTP handlers, grading threads, webhook senders and the maintenance thread share: the
//! service's state ([`Shared`]) with its wake-ups ([`Wakeup`]) and the requests waiting for a
//! submission to finish ([`Waiters`]), and [`open_store`], the store the configuration names.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use anyhow::Result;

use crate::service::catalogue::Catalogue;
use crate::service::config::Config;
use crate::service::metrics::Metrics;
use crate::service::store::postgres::{LeaseClock, PgStore};
use crate::service::store::sqlite::SqliteStore;
use crate::service::store::{self, Store};
use crate::service::{auth, clock, dryruns, lti, secrets};

/// The lock file that keeps a second server off the same data directory.
pub(crate) const LOCK_FILE: &str = "pruefstein.lock";

/// Everything the handlers, workers and senders share.
pub(crate) struct Shared {
    pub config: Config,
    pub store: Arc<dyn Store>,
    pub catalogue: Catalogue,
    pub metrics: Metrics,
    /// Signs and checks report, page and deep-linking links (the previous key too, for a while
    /// after a rotation).
    pub report_key: secrets::ReportKeys,
    /// The course secret in force: it derives each learner's variant.
    pub course_secret: String,
    /// Workers sleep here when the queue is empty; intake wakes them.
    pub work: Wakeup,
    /// The webhook senders sleep here; a completed job wakes them.
    pub outbox: Wakeup,
    pub waiters: Waiters,
    /// Cleared on shutdown: intake answers 503 and workers stop leasing.
    pub accepting: AtomicBool,
    /// LTI's caches: the tool's key, the platforms' keys, access tokens.
    pub lti: lti::Lti,
    /// When a grading thread last finished a job or found nothing to lease (ms since the epoch):
    /// `/readyz` says the node is stalled when jobs wait and this is too long ago.
    pub grading_progress: AtomicU64,
    /// Dry-run gradings waiting for a grading thread (they grade in the same pool).
    pub dry_runs: dryruns::DryRuns,
}

impl Shared {
    /// The service's state at start: nothing waiting, accepting, grading counted as progressing.
    pub(crate) fn new(
        config: Config,
        store: Arc<dyn Store>,
        catalogue: Catalogue,
        secrets: secrets::Secrets,
    ) -> Shared {
        Shared {
            store,
            catalogue,
            metrics: Metrics::default(),
            report_key: secrets.report,
            course_secret: secrets.course,
            work: Wakeup::default(),
            outbox: Wakeup::default(),
            waiters: Waiters::default(),
            accepting: AtomicBool::new(true),
            lti: lti::Lti::new(&config),
            grading_progress: AtomicU64::new(clock::now_ms().max(0) as u64),
            dry_runs: dryruns::DryRuns::default(),
            config,
        }
    }

    /// A grading thread finished a job or found nothing to lease.
    pub(crate) fn grading_progressed(&self) {
        self.grading_progress.store(clock::now_ms().max(0) as u64, Ordering::Relaxed);
    }

    /// Milliseconds since a grading thread last finished a job or found nothing to lease.
    pub(crate) fn since_grading_progress_ms(&self) -> u64 {
        (clock::now_ms().max(0) as u64).saturating_sub(self.grading_progress.load(Ordering::Relaxed))
    }

    /// What LTI's functions read of this state.
    pub(crate) fn lti_context(&self) -> lti::Context<'_> {
        lti::Context { store: self.store.as_ref(), lti: &self.lti, config: &self.config }
    }

    /// The student's report link, with its token.
    pub(crate) fn report_url(&self, id: i64) -> String {
        let public = crate::service::public_id::of(id);
        format!(
            "{}/reports/{public}?t={}",
            self.config.public_url,
            auth::report_token(self.report_key.current(), &public)
        )
    }
}

/// A counter with a condition variable: a cheap way for threads to sleep until there may be work.
#[derive(Debug, Default)]
pub(crate) struct Wakeup {
    generation: Mutex<u64>,
    condvar: Condvar,
}

impl Wakeup {
    pub(crate) fn notify(&self) {
        let mut generation = self.generation.lock().unwrap_or_else(|p| p.into_inner());
        *generation += 1;
        self.condvar.notify_all();
    }

    /// The current generation, to be passed to [`Wakeup::wait`].
    pub(crate) fn generation(&self) -> u64 {
        *self.generation.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sleeps until a notification after `seen`, or the timeout.
    pub(crate) fn wait(&self, seen: u64, timeout: Duration) {
        let guard = self.generation.lock().unwrap_or_else(|p| p.into_inner());
        let _ = self.condvar.wait_timeout_while(guard, timeout, |generation| *generation == seen);
    }
}

/// Requests waiting (`?wait=`) for a submission to be finished.
///
/// A request takes a [`mark`](Waiters::mark) before it reads or writes the submission, and
/// registers after: whatever finished in between is found among the submissions finished lately
/// (then the request reads the store once), so a result is never missed and, in the usual case, a
/// waiting request reads nothing after its intake: it answers with what the grading thread hands it.
#[derive(Debug, Default)]
pub(crate) struct Waiters {
    state: Mutex<WaitState>,
}

#[derive(Debug, Default)]
struct WaitState {
    waiting: HashMap<i64, Vec<FinishedSender>>,
    /// How many submissions have finished (the mark of the next one is this).
    finished: u64,
    /// The submissions finished lately, oldest first, each with its number: at most
    /// [`WAITERS_FINISHED_KEPT`](crate::limits::WAITERS_FINISHED_KEPT).
    lately: std::collections::VecDeque<(u64, i64)>,
    /// The number of the newest submission dropped from `lately` (0: none).
    forgotten_through: u64,
}

/// A registration: wait for the receiver, or read the store because the submission may have
/// finished since the mark.
pub(crate) enum Registration {
    Waiting(tokio::sync::oneshot::Receiver<Option<Arc<Finished>>>),
    FinishedSinceMark,
}

/// Where a waiting request learns that its submission is finished (and, if it can, what was stored).
type FinishedSender = tokio::sync::oneshot::Sender<Option<Arc<Finished>>>;

/// What a grading thread stored for a submission, handed to the requests waiting for it so that
/// they answer without reading back what was just written.
#[derive(Debug)]
pub(crate) struct Finished {
    pub status: store::Status,
    pub attempts: u32,
    pub result: store::ResultRecord,
}

impl Finished {
    /// `record` as it is now that this is stored.
    pub(crate) fn apply(&self, mut record: store::SubmissionRecord) -> store::SubmissionRecord {
        record.status = self.status;
        record.attempts = self.attempts;
        record.result = Some(self.result.clone());
        record
    }
}

impl Waiters {
    fn state(&self) -> std::sync::MutexGuard<'_, WaitState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the finished submissions stand now: take it before reading or writing the submission
    /// that a request will wait for, and hand it to [`register`](Waiters::register).
    pub(crate) fn mark(&self) -> u64 {
        self.state().finished
    }

    /// Registers interest in `id`: the receiver fires when its result is stored, with what was
    /// stored (none when the waiter must read it: the result was stored by an earlier grading or by
    /// another node). If `id` may have finished since `mark`, nothing is registered: read the store.
    pub(crate) fn register(&self, id: i64, mark: u64) -> Registration {
        let mut state = self.state();
        let finished_since = state.forgotten_through > mark
            || state.lately.iter().rev().take_while(|(n, _)| *n > mark).any(|(_, finished)| *finished == id);
        if finished_since {
            return Registration::FinishedSinceMark;
        }
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let list = state.waiting.entry(id).or_default();
        list.retain(|s| !s.is_closed());
        list.push(sender);
        Registration::Waiting(receiver)
    }

    pub(crate) fn finished(&self, id: i64, stored: Option<Finished>) {
        let senders = {
            let mut state = self.state();
            state.finished += 1;
            let number = state.finished;
            if state.lately.len() >= crate::limits::WAITERS_FINISHED_KEPT
                && let Some((forgotten, _)) = state.lately.pop_front()
            {
                state.forgotten_through = forgotten;
            }
            state.lately.push_back((number, id));
            state.waiting.remove(&id)
        };
        let stored = stored.map(Arc::new);
        for sender in senders.into_iter().flatten() {
            let _ = sender.send(stored.clone());
        }
    }
}

/// Opens the store the configuration names: the shared PostgreSQL database, or SQLite in the data
/// directory; either takes leases as this node.
pub(crate) fn open_store(config: &Config) -> Result<Arc<dyn Store>> {
    Ok(match &config.database {
        Some(url) => Arc::new(PgStore::open(url, &config.node_id, LeaseClock::Database)?),
        None => Arc::new(SqliteStore::open(&config.data_dir, config.durability)?.with_node(&config.node_id)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(registration: Registration) -> tokio::sync::oneshot::Receiver<Option<Arc<Finished>>> {
        match registration {
            Registration::Waiting(receiver) => receiver,
            Registration::FinishedSinceMark => panic!("told to read the store, though nothing finished"),
        }
    }

    /// A submission that finishes between a request's mark and its registration is not missed
    /// (the request is told to read the store); one that finishes after the registration is handed
    /// to the request; others finishing in between change neither.
    #[test]
    fn a_waiter_misses_no_submission_that_finished_since_its_mark() {
        let waiters = Waiters::default();
        waiters.finished(7, None);
        let mark = waiters.mark();
        waiters.finished(8, None);
        assert!(matches!(waiters.register(1, mark), Registration::Waiting(_)), "1 has not finished");
        assert!(matches!(waiters.register(7, mark), Registration::Waiting(_)), "7 finished before the mark");
        assert!(matches!(waiters.register(8, mark), Registration::FinishedSinceMark), "8 finished since");

        let mut receiver = waiting(waiters.register(2, waiters.mark()));
        waiters.finished(3, None);
        assert!(receiver.try_recv().is_err(), "woken by another submission");
        waiters.finished(2, None);
        assert!(matches!(receiver.try_recv(), Ok(None)), "not woken by its own");
    }

    /// When more submissions finished since the mark than are remembered, the request reads the
    /// store: the one it waits for may be among the forgotten.
    #[test]
    fn a_waiter_reads_the_store_when_finished_submissions_were_forgotten_since_its_mark() {
        let waiters = Waiters::default();
        let mark = waiters.mark();
        waiters.finished(1, None);
        for id in 2..(2 + crate::limits::WAITERS_FINISHED_KEPT as i64) {
            waiters.finished(id, None);
        }
        assert!(matches!(waiters.register(1, mark), Registration::FinishedSinceMark), "1 was forgotten");
        assert!(matches!(waiters.register(100_000, mark), Registration::FinishedSinceMark));
        assert!(matches!(waiters.register(100_000, waiters.mark()), Registration::Waiting(_)));
    }

    #[test]
    fn a_public_id_is_read_only_as_it_is_written() {
        assert_eq!(crate::service::public_id::parse(&crate::service::public_id::of(12)), Some(12));
        for wrong in [
            "12",
            "sub_",
            "sub_0",
            "sub_012",
            "sub_+1",
            "sub_-3",
            "SUB_1",
            "sub_1x",
            "sub_99999999999999999999",
        ] {
            assert_eq!(crate::service::public_id::parse(wrong), None, "{wrong}");
        }
    }
}
