//! The operator's commands on learners' data and the store: `pruefstein learner export|erase`,
//! `pruefstein audit`, `pruefstein backup` and `restore`, run against the store the configuration
//! names (beside a running server, but for a restore).

use std::path::Path;

use anyhow::{Context, Result};

use super::{LearnerCommand, StoreArgs};
use crate::service::config::{Config, ServeArgs};
use crate::service::learner::Learner;
use crate::service::privacy::{self, Actor};
use crate::service::shared::open_store;
use crate::service::store::{LearnerFound, Store};
use crate::service::{backup, clock, erasures, secrets};

/// The client named `name`, as the scope of a learner command; none: every client.
fn client_scope(store: &dyn Store, name: Option<&str>) -> Result<Option<i64>> {
    let Some(name) = name else { return Ok(None) };
    let client = store.list_clients()?.into_iter().find(|c| c.name == name);
    Ok(Some(client.with_context(|| format!("there is no client named {name:?}"))?.id))
}

/// `pruefstein learner export|erase`: 0 done, 1 nothing of the learner is stored.
pub(super) fn run_learner(command: LearnerCommand) -> Result<i32> {
    let (LearnerCommand::Export { serve, .. } | LearnerCommand::Erase { serve, .. }) = &command;
    let config = Config::resolve(serve)?;
    let store = open_store(&config)?;
    let key = secrets::current_report_key(store.as_ref(), &config)?;
    let (learner, client, erase) = match &command {
        LearnerCommand::Export { learner, client, .. } => (learner, client, false),
        LearnerCommand::Erase { learner, client, .. } => (learner, client, true),
    };
    let learner = Learner::parse(learner).map_err(|invalid| anyhow::anyhow!("{invalid}"))?;
    let actor = Actor::operator(client_scope(store.as_ref(), client.as_deref())?);
    let now = clock::now_ms();
    let shown = crate::text::for_terminal(learner.as_str());
    let found = if erase {
        let erased = privacy::erase(store.as_ref(), &key, &learner, &actor, now)?;
        if let (LearnerFound::Found(_), None) = (&erased, &config.database) {
            // Beside the SQLite store, so that a restored backup can be told of it (`restore --erasures`).
            erasures::record(&config.data_dir, &key, &learner, actor.client_id, now).with_context(|| {
                format!("erased, but not written to the erasure log {}", erasures::ERASURE_LOG_FILE)
            })?;
        }
        erased.map(|summary| serde_json::to_string_pretty(&summary))
    } else {
        privacy::export(store.as_ref(), &key, &learner, &actor, now)?
            .map(|export| serde_json::to_string_pretty(&export))
    };
    match found {
        LearnerFound::Found(json) => {
            let json = json?;
            // An export goes to a file as it is; an erasure's summary names no learner text.
            println!("{json}");
            if erase {
                eprintln!("erased {shown}: every submission, result and launch record of it is gone");
            }
            Ok(0)
        }
        LearnerFound::Erased { at } => {
            eprintln!("nothing of {shown} is stored: it was erased at {}", clock::rfc3339(at));
            Ok(if erase { 0 } else { 1 })
        }
        LearnerFound::Unknown => {
            anyhow::bail!(
                "nothing of the learner {shown} is stored (in the scope asked): nothing was changed"
            )
        }
    }
}

/// `pruefstein audit`.
pub(super) fn run_audit(after: i64, limit: usize, json: bool, serve: &ServeArgs) -> Result<i32> {
    let config = Config::store_only(serve.config.as_deref(), serve.data_dir.clone(), serve.database.clone())?;
    let store = open_store(&config)?;
    for entry in store.audit_log(after, limit)? {
        let client = entry.client_id.map_or_else(|| "*".to_string(), |id| id.to_string());
        if json {
            let line = serde_json::json!({
                "id": entry.id, "at": clock::rfc3339(entry.at), "actor": entry.actor, "client_id": entry.client_id,
                "action": entry.action.name(), "subject": entry.subject, "counts": entry.counts,
            });
            println!("{line}");
        } else {
            let counts: Vec<String> = entry.counts.iter().map(|(table, n)| format!("{table}={n}")).collect();
            let line = format!(
                "{}\t{}\t{}\tclient {client}\t{}\t{}\t{}",
                entry.id,
                clock::rfc3339(entry.at),
                entry.actor,
                entry.action.name(),
                entry.subject,
                counts.join(" ")
            );
            println!("{}", crate::text::for_terminal(&line));
        }
    }
    Ok(0)
}

/// The store's configuration; a PostgreSQL store has its own tools for what SQLite's needs here.
fn sqlite_store(store: StoreArgs, what: &str) -> Result<Config> {
    let config = Config::store_only(store.config.as_deref(), store.data_dir, store.database)?;
    if config.database.is_some() {
        anyhow::bail!(
            "the store is PostgreSQL: {what} it with pg_dump and pg_restore (README, \"Backup and restore\")"
        );
    }
    Ok(config)
}

/// `pruefstein backup DEST [--keep N]`.
pub(super) fn run_backup(dest: &Path, keep: Option<usize>, store: StoreArgs) -> Result<i32> {
    let config = sqlite_store(store, "back up")?;
    if let Some(keep) = keep {
        backup::check_keep(keep)?;
        if !dest.is_dir() {
            anyhow::bail!("--keep needs DEST to be a directory (of backups named by their time)");
        }
    }
    let source = config.data_dir.join(crate::service::store::sqlite::DATABASE_FILE);
    let copied = backup::backup(&source, &backup::target(dest, clock::now_ms()))?;
    print!("{}", crate::text::for_terminal(&copied.to_string()));
    if let Some(keep) = keep {
        for removed in backup::prune(dest, keep)? {
            println!(
                "removed {} (more than {keep} backups)",
                crate::text::for_terminal(&removed.display().to_string())
            );
        }
    }
    Ok(0)
}

/// `pruefstein restore SRC [--erasures FILE]`.
pub(super) fn run_restore(src: &Path, erasure_log: Option<&Path>, store: StoreArgs) -> Result<i32> {
    let config = sqlite_store(store, "restore")?;
    // Read first: a log that cannot be read stops the restore before anything is written.
    let log = erasure_log.map(erasures::read).transpose().map_err(|e| anyhow::anyhow!("--erasures {e}"))?;
    let copied = backup::restore(src, &config.data_dir, crate::service::run::lock_data_dir)?;
    print!("{}", crate::text::for_terminal(&copied.to_string()));
    let Some(log) = log else {
        eprintln!(
            "no --erasures given: a learner erased after this backup was taken is in the restored store \
             again; restore with --erasures OLD_DATA_DIR/{}",
            erasures::ERASURE_LOG_FILE
        );
        return Ok(0);
    };
    let store = open_store(&config)?;
    let key = secrets::current_report_key(store.as_ref(), &config)?;
    let erased = backup::reapply_erasures(&config.data_dir, store.as_ref(), &key, &log, clock::now_ms())?;
    // The log goes on in the restored directory, for the next restore.
    for erasure in &log {
        erasures::append(&config.data_dir, erasure)?;
    }
    println!(
        "erasures: {} in the log, {erased} learners erased again (erased after the backup was taken)",
        log.len()
    );
    Ok(0)
}
