//! The PostgreSQL [`Store`], for several nodes on one database (`--database postgres://…`): the same
//! schema shape and the same semantics as SQLite's, with leases as visibility timeouts taken by
//! `FOR UPDATE SKIP LOCKED` ([`queue`]), migrations under an advisory lock ([`migrate`]), lease
//! deadlines by the database's clock ([`LeaseClock`]) and `LISTEN/NOTIFY` to wake the nodes
//! ([`listen`]).
//!
//! The trait is synchronous and is called from blocking threads (and now and then from an async
//! handler), so the store runs its own small tokio runtime with `tokio-postgres` and a bounded
//! `deadpool-postgres` pool on it: a call hands its transaction to that runtime and blocks on a
//! channel for the outcome, which works from any thread. Each [`Store`] method is one transaction:
//! an explicit one when it runs several statements, the statement's own when it runs one.

pub(crate) mod error;
mod listen;
pub(crate) mod migrate;
mod nodes;
mod privacy;
mod queue;
mod records;
pub mod scratch;
pub(crate) mod tls;

use std::future::Future;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};

use self::error::{Failure, Sql};
use super::*;
use crate::limits;
use crate::submission::Submission;

/// Whose clock measures lease deadlines (jobs' `lease_until`, events' next attempt when leased).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseClock {
    /// The database's (`pruefstein_now_ms()`): one clock for every node, so that a node whose
    /// clock runs ahead cannot take a lease another node still holds. What `serve` uses.
    Database,
    /// The `now` the caller passes, as SQLite does: for tests that step time by hand.
    Caller,
}

/// Runs a transaction on the store's runtime: `in_transaction!(self, "operation", |tx| body)`,
/// where `body` uses `tx` (a `deadpool_postgres::Transaction`) and evaluates to `Sql<T>`; the
/// transaction commits if `body` succeeds and rolls back otherwise.
macro_rules! in_transaction {
    ($store:expr, $operation:expr, |$tx:ident| $body:expr) => {
        $store.run($operation, move |pool| async move {
            let mut client = pool.get().await?;
            let $tx = client.transaction().await?;
            let value = $body?;
            $tx.commit().await?;
            Ok::<_, Failure>(value)
        })
    };
}

/// Runs one statement that writes, without `BEGIN` and `COMMIT`: PostgreSQL runs a single statement
/// as its own transaction, so the explicit ones would only cost two round trips more.
/// `autocommit!(self, "operation", |c| body)`, where `body` uses `&c` (a pooled connection).
macro_rules! autocommit {
    ($store:expr, $operation:expr, |$c:ident| $body:expr) => {
        $store.run($operation, move |pool| async move {
            let $c = pool.get().await?;
            let value = $body?;
            Ok::<_, Failure>(value)
        })
    };
}

/// Runs one read on a pooled connection: `read!(self, "operation", |c| body)`.
macro_rules! read {
    ($store:expr, $operation:expr, |$c:ident| $body:expr) => {
        $store.run($operation, move |pool| async move {
            let client = pool.get().await?;
            let $c = &client;
            let value = $body?;
            Ok::<_, Failure>(value)
        })
    };
}

pub struct PgStore {
    /// The store's runtime: kept to be shut down without waiting when the store goes (which may be
    /// on one of its own threads, where waiting is not allowed).
    runtime: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
    pool: Pool,
    config: tokio_postgres::Config,
    node: Arc<str>,
    clock: LeaseClock,
    /// Completions handed over and not yet committed (see [`Store::flush`]).
    in_flight: Arc<(Mutex<usize>, Condvar)>,
    /// The TLS connector of every connection (`sslmode`, `sslrootcert`).
    tls: tls::RustlsConnect,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("node", &self.node)
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

/// Whether `database` names a PostgreSQL database (`postgres://` or `postgresql://`).
pub(crate) fn is_postgres_url(database: &str) -> bool {
    database.starts_with("postgres://") || database.starts_with("postgresql://")
}

impl PgStore {
    /// Connects to the database at `url` as `node`, and creates or migrates its schema.
    pub fn open(url: &str, node: &str, clock: LeaseClock) -> Result<PgStore, StoreError> {
        let (mut config, tls) = tls::configure(url)
            .map_err(|message| StoreError::Database { operation: "read the database URL", message })?;
        config.connect_timeout(Duration::from_millis(limits::PG_CONNECT_TIMEOUT_MS));
        config.options(format!("-c statement_timeout={}", limits::PG_STATEMENT_TIMEOUT_MS));
        config.application_name(format!("pruefstein {node}"));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("postgres")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Unavailable {
                operation: "start the database client",
                message: e.to_string(),
            })?;
        let manager = Manager::from_config(
            config.clone(),
            tls.clone(),
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(limits::PG_POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_millis(limits::PG_POOL_WAIT_MS)))
            .create_timeout(Some(Duration::from_millis(limits::PG_CONNECT_TIMEOUT_MS)))
            .build()
            .map_err(|e| StoreError::Unavailable {
                operation: "start the database client",
                message: e.to_string(),
            })?;
        let store = PgStore {
            handle: runtime.handle().clone(),
            runtime: Some(runtime),
            pool,
            config,
            node: node.into(),
            clock,
            in_flight: Arc::default(),
            tls,
        };
        store
            .run("migrate the database", |pool| async move {
                let mut client = pool.get().await?;
                migrate::migrate(&mut client).await
            })
            .map_err(|e| store.tls.settings().unencrypted_hint(e))?;
        Ok(store)
    }

    /// Runs `f` on the store's runtime and waits for its outcome; a failure names `operation`.
    fn run<T, F, Fut>(&self, operation: &'static str, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(Pool) -> Fut,
        Fut: Future<Output = Sql<T>> + Send + 'static,
    {
        let (send, receive) = std::sync::mpsc::sync_channel(1);
        let work = f(self.pool.clone());
        self.handle.spawn(async move {
            let _ = send.send(work.await);
        });
        match receive.recv() {
            Ok(outcome) => outcome.map_err(|e| e.during(operation)),
            Err(_) => {
                Err(StoreError::Unavailable { operation, message: "the database client stopped".into() })
            }
        }
    }

    /// The lease clock's `now`: the caller's, or none (the database's clock, read in SQL).
    fn lease_now(&self, now: Millis) -> Option<Millis> {
        match self.clock {
            LeaseClock::Database => None,
            LeaseClock::Caller => Some(now),
        }
    }

    /// Runs raw SQL (tests and the scratch server's checks): the rows' first columns as text.
    pub fn query_texts(&self, sql: &'static str) -> Result<Vec<String>, StoreError> {
        read!(self, "run a query", |c| texts(c, sql).await)
    }
}

/// The first column of every row of `sql`, as text.
async fn texts(c: &deadpool_postgres::Client, sql: &str) -> Sql<Vec<String>> {
    let rows = c.query(sql, &[]).await?;
    Ok(rows.iter().map(|r| r.try_get::<_, String>(0)).collect::<Result<_, _>>()?)
}

impl Drop for PgStore {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Store for PgStore {
    fn add_client(
        &self,
        name: &str,
        token_hash: &str,
        webhook_secret: &str,
        now: Millis,
    ) -> Result<ClientRecord, StoreError> {
        let (name, token_hash, webhook_secret) =
            (name.to_string(), token_hash.to_string(), webhook_secret.to_string());
        in_transaction!(self, "add a client", |tx| records::add_client(
            &tx,
            &name,
            &token_hash,
            &webhook_secret,
            now
        )
        .await)
    }

    fn list_clients(&self) -> Result<Vec<ClientRecord>, StoreError> {
        read!(self, "list the clients", |c| records::list_clients(c).await)
    }

    fn revoke_client(&self, name: &str, now: Millis) -> Result<bool, StoreError> {
        let name = name.to_string();
        in_transaction!(self, "revoke a client", |tx| records::revoke_client(&tx, &name, now).await)
    }

    fn client_by_token_hash(
        &self,
        token_hash: &str,
        scope: TokenScope,
        now: Millis,
    ) -> Result<Option<ClientRecord>, StoreError> {
        let token_hash = token_hash.to_string();
        read!(self, "find a client by its token", |c| records::client_by_token(c, &token_hash, scope, now)
            .await)
    }

    fn rotate_client_token(
        &self,
        name: &str,
        new_hash: &str,
        old_valid_until: Millis,
        now: Millis,
    ) -> Result<bool, StoreError> {
        let (name, new_hash) = (name.to_string(), new_hash.to_string());
        in_transaction!(self, "rotate a client's token", |tx| {
            records::rotate_client_token(&tx, &name, &new_hash, old_valid_until, now).await
        })
    }

    fn add_client_token(
        &self,
        name: &str,
        token_hash: &str,
        scope: TokenScope,
        now: Millis,
    ) -> Result<bool, StoreError> {
        let (name, token_hash) = (name.to_string(), token_hash.to_string());
        in_transaction!(self, "add a client's token", |tx| {
            records::add_client_token(&tx, &name, &token_hash, scope, now).await
        })
    }

    fn remove_client(&self, name: &str, now: Millis) -> Result<bool, StoreError> {
        let name = name.to_string();
        in_transaction!(self, "remove a client", |tx| records::remove_client(&tx, &name, now).await)
    }

    fn client_by_id(&self, id: i64) -> Result<Option<ClientRecord>, StoreError> {
        read!(self, "find a client", |c| records::client_by(c, "id", &id).await)
    }

    fn setting_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError> {
        let (key, default) = (key.to_string(), default.to_string());
        in_transaction!(self, "read a setting", |tx| records::setting_or_insert(&tx, &key, &default).await)
    }

    fn put_setting(&self, key: &str, value: Option<&str>) -> Result<(), StoreError> {
        let (key, value) = (key.to_string(), value.map(str::to_string));
        read!(self, "store a setting", |c| records::put_setting(c, &key, value.as_deref()).await)
    }

    fn submit(&self, new: &NewSubmission, queue_max: u64, now: Millis) -> Result<Intake, StoreError> {
        let (node, new) = (self.node.clone(), new.clone());
        autocommit!(self, "store a submission", |c| queue::submit(&c, &node, &new, queue_max, now).await)
    }

    fn submission(&self, id: i64) -> Result<Option<SubmissionRecord>, StoreError> {
        read!(self, "read a submission", |c| queue::load_submission(c, id).await)
    }

    fn lease_jobs(
        &self,
        max: usize,
        share: usize,
        lease_ms: u64,
        now: Millis,
    ) -> Result<Vec<LeasedJob>, StoreError> {
        let (node, now) = (self.node.clone(), self.lease_now(now));
        autocommit!(self, "lease jobs", |tx| queue::lease_jobs(&tx, &node, max, share, lease_ms, now).await)
    }

    fn renew_lease(
        &self,
        submission_id: i64,
        attempt: u32,
        lease_ms: u64,
        now: Millis,
    ) -> Result<bool, StoreError> {
        let now = self.lease_now(now);
        autocommit!(self, "renew a lease", |tx| queue::renew(&tx, submission_id, attempt, lease_ms, now)
            .await)
    }

    fn complete_job(
        &self,
        job: LeasedJob,
        outcome: JobOutcome,
        event: Option<NewEvent>,
        now: Millis,
        then: Box<dyn FnOnce(Result<bool, StoreError>) + Send>,
    ) {
        // Handed over without waiting, as SQLite's writer takes it: `flush` waits for it.
        let in_flight = self.in_flight.clone();
        *in_flight.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        let pool = self.pool.clone();
        self.handle.spawn(async move {
            let outcome = async {
                let mut client = pool.get().await?;
                let tx = client.transaction().await?;
                let stored = queue::complete(&tx, &job, &outcome, event.as_ref(), now).await?;
                tx.commit().await?;
                Ok::<_, Failure>(stored)
            }
            .await;
            then(outcome.map_err(|e| e.during("complete a job")));
            let mut count = in_flight.0.lock().unwrap_or_else(|p| p.into_inner());
            *count -= 1;
            in_flight.1.notify_all();
        });
    }

    fn release_job(&self, job: &LeasedJob, count_attempt: bool) -> Result<(), StoreError> {
        let (id, attempt) = (job.submission_id, job.attempt);
        autocommit!(self, "release a job", |tx| queue::release(&tx, id, attempt, count_attempt, None).await)
    }

    fn defer_job(&self, job: &LeasedJob, until: Millis, count_attempt: bool) -> Result<(), StoreError> {
        let (id, attempt) = (job.submission_id, job.attempt);
        // The wait is the caller's (`until` - now); its end is measured by the lease clock.
        let caller_now = crate::service::clock::now_ms();
        let due = match self.clock {
            LeaseClock::Database => (None, (until - caller_now).max(0)),
            LeaseClock::Caller => (Some(until), 0),
        };
        autocommit!(self, "defer a job", |tx| queue::release(&tx, id, attempt, count_attempt, Some(due))
            .await)
    }

    fn release_own_leases(&self) -> Result<u64, StoreError> {
        let node = self.node.clone();
        in_transaction!(self, "release this node's leases", |tx| queue::release_own(&tx, &node).await)
    }

    fn lease_events(&self, limit: usize, lease_ms: u64, now: Millis) -> Result<Vec<OutboxEvent>, StoreError> {
        let (node, now) = (self.node.clone(), self.lease_now(now));
        autocommit!(self, "lease webhook events", |tx| queue::lease_events(&tx, &node, limit, lease_ms, now)
            .await)
    }

    fn record_delivery(&self, event_id: &str, delivery: &Delivery, now: Millis) -> Result<(), StoreError> {
        let (event_id, delivery) = (event_id.to_string(), delivery.clone());
        autocommit!(self, "record a webhook delivery", |tx| queue::record_delivery(
            &tx, &event_id, &delivery, now
        )
        .await)
    }

    fn dead_events(&self, client_id: i64, limit: usize) -> Result<Vec<OutboxEvent>, StoreError> {
        read!(self, "list dead webhook events", |c| queue::dead_events(c, client_id, limit).await)
    }

    fn redeliver(&self, client_id: i64, event_id: &str, now: Millis) -> Result<Option<bool>, StoreError> {
        let event_id = event_id.to_string();
        in_transaction!(self, "redeliver a webhook event", |tx| queue::redeliver(
            &tx, client_id, &event_id, now
        )
        .await)
    }

    fn flush(&self) -> Result<(), StoreError> {
        let (count, condvar) = &*self.in_flight;
        let guard = count.lock().unwrap_or_else(|p| p.into_inner());
        let _ = condvar.wait_timeout_while(
            guard,
            Duration::from_millis(limits::PG_STATEMENT_TIMEOUT_MS * 2),
            |n| *n > 0,
        );
        Ok(())
    }

    fn forget_idempotency_keys(&self, before: Millis) -> Result<u64, StoreError> {
        autocommit!(self, "forget idempotency keys", |tx| queue::forget_idempotency_keys(&tx, before).await)
    }

    fn stats(&self) -> Result<Stats, StoreError> {
        read!(self, "count jobs and events", |c| queue::stats(c).await)
    }

    fn set_teacher(&self, name: &str, teacher: bool) -> Result<bool, StoreError> {
        let name = name.to_string();
        autocommit!(self, "make a client a teacher", |tx| records::set_teacher(&tx, &name, teacher).await)
    }

    fn list_submissions(
        &self,
        client_id: i64,
        filter: &SubmissionFilter,
        after: i64,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        let filter = filter.clone();
        read!(self, "list submissions", |c| records::list_submissions(c, client_id, &filter, after, limit)
            .await)
    }

    fn result_versions(&self, submission_id: i64) -> Result<Vec<ResultRecord>, StoreError> {
        read!(self, "read result versions", |c| records::result_versions(c, submission_id).await)
    }

    fn latest_submissions(
        &self,
        exercise: &str,
        filter: &RegradeFilter,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        let (exercise, filter) = (exercise.to_string(), filter.clone());
        read!(self, "find the latest submissions", |c| records::latest_submissions(
            c, &exercise, &filter, limit
        )
        .await)
    }

    fn submission_payload(&self, id: i64) -> Result<Option<Submission>, StoreError> {
        read!(self, "read a submission's bytes", |c| records::submission_payload(c, id).await)
    }

    fn queue_regrades(&self, ids: &[i64], exercise_hash: Option<&str>) -> Result<RegradesQueued, StoreError> {
        let (node, ids, hash) = (self.node.clone(), ids.to_vec(), exercise_hash.map(str::to_string));
        in_transaction!(self, "queue regrades", |tx| records::queue_regrades(
            &tx,
            &node,
            &ids,
            hash.as_deref()
        )
        .await)
    }

    fn exercise_submissions(
        &self,
        exercise: &str,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        let exercise = exercise.to_string();
        read!(self, "read an exercise's submissions", |c| records::exercise_submissions(c, &exercise, limit)
            .await)
    }

    fn learner_submissions(
        &self,
        client_id: i64,
        exercise: &str,
        learner: &str,
        limit: usize,
    ) -> Result<Vec<SubmissionRecord>, StoreError> {
        let (exercise, learner) = (exercise.to_string(), learner.to_string());
        read!(self, "list a learner's submissions", |c| records::learner_submissions(
            c, client_id, &exercise, &learner, limit
        )
        .await)
    }

    fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let key = key.to_string();
        read!(self, "read a setting", |c| records::setting(c, &key).await)
    }

    fn add_platform(
        &self,
        platform: &NewPlatform,
        api_client_id: i64,
        now: Millis,
    ) -> Result<PlatformRecord, StoreError> {
        let platform = platform.clone();
        in_transaction!(self, "add an LTI platform", |tx| records::add_platform(
            &tx,
            &platform,
            api_client_id,
            now
        )
        .await)
    }

    fn update_platform(&self, platform: &NewPlatform) -> Result<bool, StoreError> {
        let platform = platform.clone();
        in_transaction!(self, "update an LTI platform", |tx| records::update_platform(&tx, &platform).await)
    }

    fn remove_platform(&self, name: &str, now: Millis) -> Result<bool, StoreError> {
        let name = name.to_string();
        in_transaction!(self, "remove an LTI platform", |tx| records::remove_platform(&tx, &name, now).await)
    }

    fn list_platforms(&self) -> Result<Vec<PlatformRecord>, StoreError> {
        read!(self, "list the LTI platforms", |c| records::list_platforms(c).await)
    }

    fn put_lti_state(
        &self,
        state: &str,
        entry: &LtiState,
        expires_at: Millis,
        evict: Option<&str>,
        now: Millis,
    ) -> Result<(), StoreError> {
        let (state, entry, evict) = (state.to_string(), entry.clone(), evict.map(str::to_string));
        in_transaction!(self, "keep an LTI login", |tx| records::put_lti_state(
            &tx,
            &state,
            &entry,
            expires_at,
            evict.as_deref(),
            now
        )
        .await)
    }

    fn take_lti_state(&self, state: &str, now: Millis) -> Result<Option<LtiState>, StoreError> {
        let state = state.to_string();
        in_transaction!(self, "take an LTI login", |tx| records::take_lti_state(&tx, &state, now).await)
    }

    fn lti_context(
        &self,
        platform_id: i64,
        subject: &str,
        exercise: &str,
        lineitem: &str,
        now: Millis,
    ) -> Result<LtiContext, StoreError> {
        let (subject, exercise, lineitem) = (subject.to_string(), exercise.to_string(), lineitem.to_string());
        in_transaction!(self, "keep an LTI launch context", |tx| records::lti_context(
            &tx,
            platform_id,
            &subject,
            &exercise,
            &lineitem,
            now
        )
        .await)
    }

    fn lti_context_by_id(&self, id: i64) -> Result<Option<LtiContext>, StoreError> {
        read!(self, "read an LTI launch context", |c| records::lti_context_by_id(c, id).await)
    }

    fn set_lti_course(&self, context_id: i64, course: &str) -> Result<(), StoreError> {
        let course = course.to_string();
        in_transaction!(self, "record an LTI course", |tx| records::set_lti_course(&tx, context_id, &course)
            .await)
    }

    fn lti_course_contexts(&self, platform_id: i64, course: &str) -> Result<Vec<i64>, StoreError> {
        let course = course.to_string();
        read!(self, "read an LTI course's contexts", |c| records::lti_course_contexts(
            c,
            platform_id,
            &course
        )
        .await)
    }

    fn put_jobe_file(
        &self,
        client_id: i64,
        file_id: &str,
        contents: &[u8],
        limits: (usize, u64),
        now: Millis,
    ) -> Result<(), StoreError> {
        let (file_id, contents) = (file_id.to_string(), contents.to_vec());
        in_transaction!(self, "keep an uploaded file", |tx| nodes::put_jobe_file(
            &tx, client_id, &file_id, &contents, limits, now
        )
        .await)
    }

    fn jobe_file(&self, client_id: i64, file_id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let file_id = file_id.to_string();
        read!(self, "read an uploaded file", |c| nodes::jobe_file(c, client_id, &file_id).await)
    }

    fn announce_node(&self, versions: &[(String, String)], now: Millis) -> Result<(), StoreError> {
        let (node, versions, now) = (self.node.clone(), versions.to_vec(), self.lease_now(now));
        in_transaction!(self, "announce this node", |tx| nodes::announce(&tx, &node, &versions, now).await)
    }

    fn withdraw_node(&self) -> Result<(), StoreError> {
        let node = self.node.clone();
        in_transaction!(self, "withdraw this node", |tx| nodes::withdraw(&tx, &node).await)
    }

    fn version_census(&self, now: Millis) -> Result<VersionCensus, StoreError> {
        let now = self.lease_now(now);
        read!(self, "read the exercise versions in use", |c| nodes::census(c, now).await)
    }

    fn learner_data(&self, scope: &LearnerScope) -> Result<LearnerFound<LearnerData>, StoreError> {
        let scope = scope.clone();
        read!(self, "read a learner's data", |c| privacy::learner_data(c, &scope).await)
    }

    fn erase_learner(
        &self,
        scope: &LearnerScope,
        audit: &AuditEntry,
        now: Millis,
    ) -> Result<LearnerFound<RowCounts>, StoreError> {
        let (scope, audit) = (scope.clone(), audit.clone());
        let erased =
            in_transaction!(self, "erase a learner", |tx| privacy::erase(&tx, &scope, &audit, now).await)?;
        if matches!(erased, LearnerFound::Found(_)) {
            read!(self, "vacuum after an erasure", |c| c.batch_execute(privacy::VACUUM_AFTER_ERASURE).await)?;
        }
        Ok(erased)
    }

    fn submission_gone(&self, id: i64) -> Result<bool, StoreError> {
        read!(self, "read whether a submission is gone", |c| privacy::gone(c, id).await)
    }

    fn record_audit(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        let entry = entry.clone();
        autocommit!(self, "write the audit log", |c| privacy::record_audit(&c, &entry).await)
    }

    fn audit_log(&self, after: i64, limit: usize) -> Result<Vec<AuditEntry>, StoreError> {
        read!(self, "read the audit log", |c| privacy::audit_log(c, after, limit).await)
    }

    fn sweep_retention(&self, before: Millis, batch: usize, now: Millis) -> Result<RowCounts, StoreError> {
        in_transaction!(self, "sweep old data", |tx| privacy::sweep(&tx, before, batch, now).await)
    }

    fn listen(&self, hear: Arc<dyn Fn(Notice) + Send + Sync>) -> Result<(), StoreError> {
        self.handle.spawn(listen::listen(self.config.clone(), self.tls.clone(), self.node.clone(), hear));
        Ok(())
    }
}
