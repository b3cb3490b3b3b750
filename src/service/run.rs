//! `pruefstein serve`: takes the data directory, opens the store, starts the grading threads, the
//! webhook senders, the exercise watcher, the maintenance thread and the HTTP server, and stops
//! them in order at SIGTERM or SIGINT.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::service::catalogue::Catalogue;
use crate::service::config::Config;
use crate::service::shared::{LOCK_FILE, Shared, open_store};
use crate::service::store::{self, Notice};
use crate::service::{clock, data_dir, http, reload, secrets, versions, webhook, worker};

/// Takes the data directory's lock: one server per data directory. The lock (`flock` on Unix) is
/// held as long as the returned file is open, and the operating system drops it with the process.
/// The directory and the lock file are created private ([`data_dir`]).
pub(crate) fn lock_data_dir(data_dir: &Path) -> Result<std::fs::File> {
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
pub(crate) fn serve(config: Config, rotation: &secrets::Rotation) -> Result<()> {
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

    let result = actix_web::rt::System::new().block_on(http::server::run_http(shared.clone()));

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

/// Renews this node's announcement every [`NODE_HEARTBEAT_MS`](crate::limits::NODE_HEARTBEAT_MS),
/// forgets old idempotency keys every hour and, with `--retention-days`, sweeps old data (see
/// [`crate::service::retention`]), until shutdown.
fn maintenance_loop(shared: &Shared) {
    const FORGET_EVERY: Duration = Duration::from_secs(3600);
    let heartbeat = Duration::from_millis(crate::limits::NODE_HEARTBEAT_MS);
    let mut seen = shared.work.generation();
    let mut next_forget = std::time::Instant::now();
    let mut next_announce = std::time::Instant::now() + heartbeat;
    // The first retention sweep at start, then every RETENTION_SWEEP_EVERY_MS.
    let mut next_sweep = std::time::Instant::now();
    while shared.accepting.load(Ordering::SeqCst) {
        let now = std::time::Instant::now();
        if now >= next_forget {
            let before = clock::now_ms() - crate::limits::IDEMPOTENCY_KEY_RETENTION_MS as i64;
            if let Err(e) = shared.store.forget_idempotency_keys(before) {
                tracing::error!(event = "maintenance_failed", error = %e);
            }
            next_forget = now + FORGET_EVERY;
        }
        if let Some(days) = shared.config.retention_days
            && now >= next_sweep
        {
            crate::service::retention::run(shared.store.as_ref(), &shared.metrics, days, clock::now_ms());
            next_sweep = now + Duration::from_millis(crate::limits::RETENTION_SWEEP_EVERY_MS);
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

#[cfg(test)]
mod tests {
    use super::*;

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
