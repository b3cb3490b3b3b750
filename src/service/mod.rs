//! The grading service (`pruefstein serve`): an HTTP API on actix-web for learning platforms, with
//! idempotent intake, a durable leased job queue, signed webhooks through an outbox, and student
//! report pages. Grading uses the same [`crate::grade::grade`] as the command line, in a pool of
//! worker processes (one per grading thread, see [`crate::isolation`]), never on the async executor.
//!
//! Files: [`config`] (flags, environment, TOML), [`store`] (the durable state, a trait) with
//! [`store::sqlite`] (its SQLite implementation, the default) and [`store::postgres`] (several nodes
//! on one PostgreSQL), [`http`] (the HTTP routes and handlers, one module
//! per resource), [`worker`] (grading threads), [`webhook`] (the outbox sender), [`html`] (the report page), [`auth`] (tokens and signatures),
//! [`problem`] (RFC 9457 errors), [`metrics`], [`log`] (the `tracing` set-up), [`clock`], [`lti`]
//! (LTI 1.3: platforms, keys, launch checks, score passback).

pub mod analytics;
pub mod auth;
pub mod catalogue;
pub mod clock;
pub mod config;
pub mod config_reference;
pub mod dashboard;
pub mod data_dir;
pub mod dryruns;
pub mod html;
pub mod http;
pub mod learner;
pub mod log;
pub mod lti;
pub mod metrics;
pub mod problem;
pub mod regrade;
pub mod reload;
pub mod secrets;
pub mod similarity;
pub mod slot;
pub mod store;
pub mod versions;
pub mod webhook;
pub mod worker;

/// The SQLite backend, where callers have always found it.
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};

use self::catalogue::Catalogue;
use self::config::Config;
use self::metrics::Metrics;
use self::store::postgres::{LeaseClock, PgStore};
use self::store::sqlite::SqliteStore;
use self::store::{Notice, Store};

/// The lock file that keeps a second server off the same data directory.
pub const LOCK_FILE: &str = "pruefstein.lock";

/// Everything the handlers, workers and senders share.
pub struct Shared {
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
    pub fn new(
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
    pub fn grading_progressed(&self) {
        self.grading_progress.store(clock::now_ms().max(0) as u64, Ordering::Relaxed);
    }

    /// Milliseconds since a grading thread last finished a job or found nothing to lease.
    pub fn since_grading_progress_ms(&self) -> u64 {
        (clock::now_ms().max(0) as u64).saturating_sub(self.grading_progress.load(Ordering::Relaxed))
    }

    /// The public id of a submission.
    pub fn public_id(id: i64) -> String {
        format!("sub_{id}")
    }

    /// The internal id of a public one: exactly what `public_id` writes (`sub_12`; the pattern the
    /// OpenAPI document declares), nothing else (no bare number, sign or leading zero).
    pub fn parse_id(public: &str) -> Option<i64> {
        let digits = public.strip_prefix("sub_")?;
        if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<i64>().ok()
    }

    /// The student's report link, with its token.
    pub fn report_url(&self, id: i64) -> String {
        let public = Shared::public_id(id);
        format!(
            "{}/reports/{public}?t={}",
            self.config.public_url,
            auth::report_token(self.report_key.current(), &public)
        )
    }
}

/// A counter with a condition variable: a cheap way for threads to sleep until there may be work.
#[derive(Debug, Default)]
pub struct Wakeup {
    generation: Mutex<u64>,
    condvar: Condvar,
}

impl Wakeup {
    pub fn notify(&self) {
        let mut generation = self.generation.lock().unwrap_or_else(|p| p.into_inner());
        *generation += 1;
        self.condvar.notify_all();
    }

    /// The current generation, to be passed to [`Wakeup::wait`].
    pub fn generation(&self) -> u64 {
        *self.generation.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sleeps until a notification after `seen`, or the timeout.
    pub fn wait(&self, seen: u64, timeout: Duration) {
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
pub struct Waiters {
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
pub enum Registration {
    Waiting(tokio::sync::oneshot::Receiver<Option<Arc<Finished>>>),
    FinishedSinceMark,
}

/// Where a waiting request learns that its submission is finished (and, if it can, what was stored).
type FinishedSender = tokio::sync::oneshot::Sender<Option<Arc<Finished>>>;

/// What a grading thread stored for a submission, handed to the requests waiting for it so that
/// they answer without reading back what was just written.
#[derive(Debug)]
pub struct Finished {
    pub status: store::Status,
    pub attempts: u32,
    pub result: store::ResultRecord,
}

impl Finished {
    /// `record` as it is now that this is stored.
    pub fn apply(&self, mut record: store::SubmissionRecord) -> store::SubmissionRecord {
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
    pub fn mark(&self) -> u64 {
        self.state().finished
    }

    /// Registers interest in `id`: the receiver fires when its result is stored, with what was
    /// stored (none when the waiter must read it: the result was stored by an earlier grading or by
    /// another node). If `id` may have finished since `mark`, nothing is registered: read the store.
    pub fn register(&self, id: i64, mark: u64) -> Registration {
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

    pub fn finished(&self, id: i64, stored: Option<Finished>) {
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

/// Takes the data directory's lock: one server per data directory. The lock (`flock` on Unix) is
/// held as long as the returned file is open, and the operating system drops it with the process.
/// The directory and the lock file are created private ([`data_dir`]).
fn lock_data_dir(data_dir: &Path) -> Result<std::fs::File> {
    data_dir::create_dir(data_dir).with_context(|| format!("cannot create {}", data_dir.display()))?;
    let path = data_dir.join(LOCK_FILE);
    let file =
        data_dir::open_private_file(&path).with_context(|| format!("cannot open {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {
            anyhow::bail!("another pruefstein server uses the data directory {}", data_dir.display())
        }
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock the data directory {}", data_dir.display()))
        }
    }
}

/// Warns about what an operator should change: a data directory or file that group or others may
/// read, and a service running as root.
fn warn_about_the_data_dir(config: &Config, lock: &std::fs::File) {
    let files = [LOCK_FILE, store::sqlite::DATABASE_FILE, store::sqlite::WAL_FILE, store::sqlite::SHM_FILE];
    for loose in data_dir::loose_modes(&config.data_dir, &files) {
        tracing::warn!(
            event = "data_dir_mode_loose",
            path = %loose.path.display(),
            mode = format!("{:o}", loose.mode),
            "{} has mode {:o}: group or others may read the LTI key, secrets and learners' code; \
             set it to {:o} (chmod go-rwx)",
            loose.path.display(),
            loose.mode,
            if loose.path == config.data_dir { data_dir::DIR_MODE } else { data_dir::FILE_MODE },
        );
    }
    if data_dir::created_by_root(lock) {
        tracing::warn!(
            event = "running_as_root",
            "the service runs as root: run it as a user of its own (the systemd unit in \
             deploy/ does), so that a fault in it cannot reach the rest of the machine"
        );
    }
}

/// Opens the store the configuration names: the shared PostgreSQL database, or SQLite in the data
/// directory; either takes leases as this node.
pub fn open_store(config: &Config) -> Result<Arc<dyn Store>> {
    Ok(match &config.database {
        Some(url) => Arc::new(PgStore::open(url, &config.node_id, LeaseClock::Database)?),
        None => Arc::new(SqliteStore::open(&config.data_dir, config.durability)?.with_node(&config.node_id)),
    })
}

/// What a node does when a shared store tells it what another node did: grading threads look for
/// the queued jobs, and requests waiting for a finished submission answer. (The webhook senders are
/// not woken: the node that finished the job wakes its own, which lease its event.)
fn hear(shared: &std::sync::Weak<Shared>, notice: Notice) {
    let Some(shared) = shared.upgrade() else { return };
    match notice {
        Notice::JobsQueued => shared.work.notify(),
        Notice::Finished(id) => shared.waiters.finished(id, None),
    }
}

/// Runs the service until SIGTERM or SIGINT, with the secrets rotated that `rotation` names.
pub fn serve(config: Config, rotation: &secrets::Rotation) -> Result<()> {
    let lock = lock_data_dir(&config.data_dir)?;
    let store = open_store(&config)?;
    warn_about_the_data_dir(&config, &lock);
    // This node's leases left are those of its earlier run, which is dead (one process per node
    // id); other nodes' leases run out by themselves.
    let released = store.release_own_leases()?;
    let secrets = secrets::resolve(store.as_ref(), &config, rotation, clock::now_ms())?;
    let catalogue = Catalogue::load(&config.exercises, &config.graders)?;
    tracing::info!(
        event = "starting",
        bind = %config.bind,
        data_dir = %config.data_dir.display(),
        store = if config.database.is_some() { "postgres" } else { "sqlite" },
        node = %config.node_id,
        exercises = %catalogue.slugs().join(","),
        workers = config.workers,
        released_leases = released,
    );
    let shared = Arc::new(Shared::new(config, store, catalogue, secrets));

    // The versions this node serves, before it leases a job (see `versions`).
    versions::announce(&shared)?;
    // Other nodes on a shared store wake this one's threads and waiting requests.
    let weak = Arc::downgrade(&shared);
    shared.store.listen(Arc::new(move |notice| hear(&weak, notice)))?;

    // Teachers add and change exercise folders while the service runs.
    let watcher = reload::watch(&shared)?;
    let workers = worker::start(&shared)?;
    let senders = webhook::start(&shared)?;
    let maintenance = {
        let shared = shared.clone();
        std::thread::Builder::new().name("maintenance".into()).spawn(move || maintenance_loop(&shared))?
    };

    let result = actix_web::rt::System::new().block_on(http::run_http(shared.clone()));

    // Stop taking work; workers finish the grading they hold, then leave.
    shared.accepting.store(false, Ordering::SeqCst);
    shared.work.notify();
    shared.outbox.notify();
    let deadline = std::time::Instant::now() + Duration::from_millis(crate::limits::SHUTDOWN_GRACE_MS);
    for handle in workers.into_iter().chain(senders).chain(std::iter::once(maintenance)) {
        while !handle.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if handle.is_finished() {
            let _ = handle.join();
        }
    }
    drop(watcher);
    // Completions the workers handed over are committed before the process ends.
    if let Err(e) = shared.store.flush() {
        tracing::error!(event = "flush_failed", error = %e);
    }
    // The jobs of versions only this node served go to the others now, not when it is missed.
    if let Err(e) = shared.store.withdraw_node() {
        tracing::error!(event = "withdraw_failed", error = %e);
    }
    tracing::info!(event = "stopped");
    result
}

/// Renews this node's announcement every [`NODE_HEARTBEAT_MS`](crate::limits::NODE_HEARTBEAT_MS)
/// and forgets old idempotency keys every hour, until shutdown.
fn maintenance_loop(shared: &Shared) {
    const FORGET_EVERY: Duration = Duration::from_secs(3600);
    let heartbeat = Duration::from_millis(crate::limits::NODE_HEARTBEAT_MS);
    let mut seen = shared.work.generation();
    let mut next_forget = std::time::Instant::now();
    let mut next_announce = std::time::Instant::now() + heartbeat;
    while shared.accepting.load(Ordering::SeqCst) {
        let now = std::time::Instant::now();
        if now >= next_forget {
            let before = clock::now_ms() - crate::limits::IDEMPOTENCY_KEY_RETENTION_MS as i64;
            if let Err(e) = shared.store.forget_idempotency_keys(before) {
                tracing::error!(event = "maintenance_failed", error = %e);
            }
            next_forget = now + FORGET_EVERY;
        }
        if now >= next_announce {
            // A failure is logged; the next beat tries again.
            let _ = versions::announce(shared);
            next_announce = now + heartbeat;
        }
        // Wakes at shutdown (and on intake, which is harmless).
        shared.work.wait(seen, Duration::from_secs(1));
        seen = shared.work.generation();
    }
}

/// `pruefstein client add|list|revoke`.
pub mod clients {
    use super::*;

    /// Adds a client (a teacher's, if `teacher`) and returns its token (to be shown once) and its
    /// record.
    pub fn add(config: &Config, name: &str, teacher: bool) -> Result<(String, store::ClientRecord)> {
        let name = name.trim();
        if name.is_empty()
            || name.len() > crate::limits::CLIENT_NAME_BYTES_MAX
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            anyhow::bail!(
                "a client name is 1 to {} letters, digits, '-', '_' or '.'",
                crate::limits::CLIENT_NAME_BYTES_MAX
            );
        }
        let store = open_store(config)?;
        let token = auth::new_token().map_err(anyhow::Error::msg)?;
        let secret = auth::new_webhook_secret().map_err(anyhow::Error::msg)?;
        let mut record = store.add_client(name, &auth::token_hash(&token), &secret, clock::now_ms())?;
        if teacher {
            store.set_teacher(name, true)?;
            record.teacher = true;
        }
        Ok((token, record))
    }

    pub fn list(config: &Config) -> Result<Vec<store::ClientRecord>> {
        Ok(open_store(config)?.list_clients()?)
    }

    pub fn revoke(config: &Config, name: &str) -> Result<bool> {
        Ok(open_store(config)?.revoke_client(name, clock::now_ms())?)
    }

    /// Gives a client a new token (returned, to be shown once); the one before stays valid for
    /// `grace_ms` (at most [`crate::limits::CLIENT_TOKEN_GRACE_MS_MAX`]). None: no such active client.
    pub fn rotate(config: &Config, name: &str, grace_ms: u64) -> Result<Option<String>> {
        if grace_ms > crate::limits::CLIENT_TOKEN_GRACE_MS_MAX {
            anyhow::bail!(
                "the grace period may be at most {} days (client_token_grace_ms_max)",
                crate::limits::CLIENT_TOKEN_GRACE_MS_MAX / 86_400_000
            );
        }
        let token = auth::new_token().map_err(anyhow::Error::msg)?;
        let now = clock::now_ms();
        let rotated = open_store(config)?.rotate_client_token(
            name,
            &auth::token_hash(&token),
            now + grace_ms as i64,
            now,
        )?;
        Ok(rotated.then_some(token))
    }

    /// A key for the client valid on the Jobe-compatible endpoint only (at most
    /// [`crate::limits::JOBE_KEY_CHARS_MAX`] characters, for CodeRunner's key field). None: no such
    /// active client.
    pub fn jobe_key(config: &Config, name: &str) -> Result<Option<String>> {
        let key = auth::new_jobe_key().map_err(anyhow::Error::msg)?;
        let added = open_store(config)?.add_client_token(
            name,
            &auth::token_hash(&key),
            store::TokenScope::Jobe,
            clock::now_ms(),
        )?;
        Ok(added.then_some(key))
    }

    /// Removes a client: revoked, its tokens gone, its name free again; its submissions stay.
    pub fn remove(config: &Config, name: &str) -> Result<bool> {
        Ok(open_store(config)?.remove_client(name, clock::now_ms())?)
    }
}

/// `pruefstein platform add|list`.
pub mod platforms {
    use super::*;
    use crate::service::store::{NewPlatform, PlatformRecord};

    /// Checks a registration: a name as for clients, http(s) URLs, values of sane length.
    pub fn validate(platform: &NewPlatform) -> Result<()> {
        let name = &platform.name;
        if name.is_empty()
            || name.len() + 4 > crate::limits::CLIENT_NAME_BYTES_MAX
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            anyhow::bail!(
                "a platform name is 1 to {} letters, digits, '-', '_' or '.'",
                crate::limits::CLIENT_NAME_BYTES_MAX - 4
            );
        }
        for (flag, url) in [
            ("--issuer", &platform.issuer),
            ("--auth-url", &platform.auth_url),
            ("--token-url", &platform.token_url),
            ("--jwks-url", &platform.jwks_url),
        ] {
            if url.len() > crate::limits::LTI_PARAM_BYTES_MAX || lti::origin(url).is_none() {
                anyhow::bail!("{flag} {url:?} is not an http or https URL");
            }
        }
        for (flag, value) in
            [("--client-id", Some(&platform.client_id)), ("--deployment-id", platform.deployment_id.as_ref())]
        {
            if let Some(value) = value
                && (value.is_empty()
                    || value.len() > crate::limits::LTI_PARAM_BYTES_MAX
                    || value.chars().any(char::is_control))
            {
                anyhow::bail!(
                    "{flag} must be 1 to {} bytes without control characters",
                    crate::limits::LTI_PARAM_BYTES_MAX
                );
            }
        }
        Ok(())
    }

    /// The notes for a registration whose URLs name a non-public address (an IP literal: names
    /// are resolved only when the service connects): the service reaches them only with
    /// `--allow-private-callbacks`.
    pub fn private_notes(platform: &NewPlatform) -> Vec<String> {
        [
            ("--issuer", &platform.issuer),
            ("--token-url", &platform.token_url),
            ("--jwks-url", &platform.jwks_url),
        ]
        .into_iter()
        .filter(|(_, url)| {
            webhook::parse_target(url, false).is_err() && webhook::parse_target(url, true).is_ok()
        })
        .map(|(flag, url)| {
            format!(
                "note: {flag} {url} is on a loopback or private address: the service fetches the \
                     platform's keys and posts scores there only when it runs with \
                     --allow-private-callbacks"
            )
        })
        .collect()
    }

    /// Registers a platform with an API client of its own (`lti-NAME`); returns that client's
    /// token (to be shown once) and the registration.
    pub fn add(config: &Config, platform: NewPlatform) -> Result<(String, PlatformRecord)> {
        validate(&platform)?;
        let store = open_store(config)?;
        if let Some(taken) = store.list_platforms()?.into_iter().find(|p| {
            p.platform.name == platform.name
                || (p.platform.issuer == platform.issuer && p.platform.client_id == platform.client_id)
        }) {
            anyhow::bail!(
                "the platform {:?} has this name, or this issuer and client id, already",
                taken.platform.name
            );
        }
        let token = auth::new_token().map_err(anyhow::Error::msg)?;
        let secret = auth::new_webhook_secret().map_err(anyhow::Error::msg)?;
        let now = clock::now_ms();
        let client =
            store.add_client(&format!("lti-{}", platform.name), &auth::token_hash(&token), &secret, now)?;
        let record = store.add_platform(&platform, client.id, now)?;
        Ok((token, record))
    }

    pub fn list(config: &Config) -> Result<Vec<PlatformRecord>> {
        Ok(open_store(config)?.list_platforms()?)
    }

    /// Changes a registration: `change` edits a copy of the one stored, which must still pass
    /// [`validate`]. None: no platform of that name.
    pub fn update(
        config: &Config,
        name: &str,
        change: impl FnOnce(&mut NewPlatform),
    ) -> Result<Option<NewPlatform>> {
        let store = open_store(config)?;
        let Some(record) = store.list_platforms()?.into_iter().find(|p| p.platform.name == name) else {
            return Ok(None);
        };
        let mut platform = record.platform;
        change(&mut platform);
        validate(&platform)?;
        Ok(store.update_platform(&platform)?.then_some(platform))
    }

    /// Removes a registration, its pending logins and launch contexts, and its API client.
    pub fn remove(config: &Config, name: &str) -> Result<bool> {
        Ok(open_store(config)?.remove_platform(name, clock::now_ms())?)
    }
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
        assert_eq!(Shared::parse_id(&Shared::public_id(12)), Some(12));
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
            assert_eq!(Shared::parse_id(wrong), None, "{wrong}");
        }
    }

    #[test]
    fn a_data_directory_has_one_server_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_data_dir(dir.path()).unwrap();
        let second = lock_data_dir(dir.path()).unwrap_err().to_string();
        assert!(second.contains("another pruefstein server uses the data directory"), "{second}");
        drop(first);
        lock_data_dir(dir.path()).expect("the lock is free again once its holder is gone");
    }
}
