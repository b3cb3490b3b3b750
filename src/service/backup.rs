//! `pruefstein backup DEST` and `pruefstein restore SRC`: the SQLite store copied while the service
//! runs, and put into a new data directory.
//!
//! A backup is SQLite's `VACUUM INTO` on a read transaction of its own: one consistent snapshot of
//! the database (every write committed before it began, none after), written compact, without free
//! pages (so without the bytes of rows deleted before). It reads beside the server, which holds the
//! data directory's lock and goes on writing (WAL lets a reader and the writer run together); the
//! backup does not take that lock. The copy is written to a private temporary file beside `DEST`,
//! checked (`PRAGMA integrity_check`), flushed to disk and only then renamed to `DEST`: a backup
//! killed at any moment leaves the store and the backup before it as they were (and at most a
//! temporary file, which the next backup removes).
//!
//! A restore takes the data directory's lock, refuses a directory that holds anything, copies the
//! backup in the same way (temporary file, check, rename) and opens it as the store once, so that a
//! backup written by a newer version is refused with what to do.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags};

use std::collections::BTreeSet;

use crate::limits::BACKUPS_KEPT_MAX;
use crate::service::erasures::Erasure;
use crate::service::learner::Learner;
use crate::service::privacy::{self, Actor};
use crate::service::store::sqlite::{DATABASE_FILE, Durability, SqliteStore};
use crate::service::store::{AuditAction, LearnerFound, Millis, Store};
use crate::service::{clock, data_dir};

/// The tables a backup reports the rows of.
pub(crate) const COUNTED_TABLES: [&str; 9] = [
    "clients",
    "submissions",
    "jobs",
    "results",
    "result_versions",
    "outbox",
    "lti_contexts",
    "jobe_files",
    "audit_log",
];

/// What a checked copy holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub path: PathBuf,
    pub bytes: u64,
    /// Rows per table of [`COUNTED_TABLES`].
    pub rows: Vec<(&'static str, u64)>,
}

/// The temporary file a copy to `dest` is written to first.
fn partial_of(dest: &Path) -> Result<PathBuf> {
    let name = dest.file_name().with_context(|| format!("{} names no file", dest.display()))?;
    let mut partial = name.to_os_string();
    partial.push(".partial");
    Ok(dest.with_file_name(partial))
}

/// Checks the database at `path` and counts its rows.
fn check(path: &Path) -> Result<Vec<(&'static str, u64)>> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let verdict: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
    if verdict != "ok" {
        anyhow::bail!("{} fails SQLite's integrity check: {verdict}", path.display());
    }
    let mut rows = Vec::with_capacity(COUNTED_TABLES.len());
    for table in COUNTED_TABLES {
        let n: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .with_context(|| format!("{} has no table {table}: not a Prüfstein store", path.display()))?;
        rows.push((table, n.max(0) as u64));
    }
    Ok(rows)
}

/// Flushes the file at `path` and its directory to disk.
fn sync(path: &Path) -> Result<()> {
    std::fs::File::open(path)?.sync_all()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Writes a consistent copy of the database at `source` (a live store) to `dest`, through a
/// temporary file that is checked, flushed and renamed.
pub fn backup(source: &Path, dest: &Path) -> Result<Copied> {
    if dest.is_dir() {
        anyhow::bail!("{} is a directory: name the backup file in it", dest.display());
    }
    if !source.is_file() {
        anyhow::bail!("there is no store at {}", source.display());
    }
    let partial = partial_of(dest)?;
    // A temporary file left by a backup that was killed: never a good backup.
    match std::fs::remove_file(&partial) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("cannot remove {}", partial.display()));
        }
        _ => {}
    }
    // Created private and empty: `VACUUM INTO` fills an empty file and keeps its mode.
    data_dir::open_private_file(&partial).with_context(|| format!("cannot create {}", partial.display()))?;
    let conn = Connection::open_with_flags(source, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .with_context(|| format!("cannot open the store {}", source.display()))?;
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    let target = partial.to_str().with_context(|| format!("{} is not UTF-8", partial.display()))?;
    conn.execute("VACUUM INTO ?1", [target]).with_context(|| format!("cannot copy the store to {target}"))?;
    drop(conn);
    let rows = check(&partial)?;
    sync(&partial)?;
    std::fs::rename(&partial, dest)
        .with_context(|| format!("cannot rename {} to {}", partial.display(), dest.display()))?;
    sync(dest)?;
    Ok(Copied { path: dest.to_path_buf(), bytes: std::fs::metadata(dest)?.len(), rows })
}

/// Puts the backup `source` into the empty (or absent) data directory `data_dir`, holding its lock.
pub(crate) fn restore(
    source: &Path,
    data_dir: &Path,
    lock: impl FnOnce(&Path) -> Result<std::fs::File>,
) -> Result<Copied> {
    check(source).with_context(|| format!("{} is not a good backup", source.display()))?;
    // Locked first, so that no server starts on the directory while it is filled.
    let _lock = lock(data_dir)?;
    let lock_file = std::ffi::OsStr::new(crate::service::shared::LOCK_FILE);
    let mut entries =
        std::fs::read_dir(data_dir).with_context(|| format!("cannot read {}", data_dir.display()))?;
    if entries.any(|entry| entry.map_or(true, |e| e.file_name() != lock_file)) {
        anyhow::bail!(
            "{} is not empty: a restore goes into an empty data directory only, so that it never \
             replaces a store. Stop the service, move the directory away (keep it until the restored \
             store is proven), and restore into a new one",
            data_dir.display()
        );
    }
    let dest = data_dir.join(DATABASE_FILE);
    let partial = partial_of(&dest)?;
    {
        let mut from =
            std::fs::File::open(source).with_context(|| format!("cannot read {}", source.display()))?;
        let mut to = data_dir::open_private_file(&partial)?;
        std::io::copy(&mut from, &mut to)?;
    }
    let rows = check(&partial)?;
    sync(&partial)?;
    std::fs::rename(&partial, &dest)?;
    sync(&dest)?;
    // Opened once as the store: its schema is one this version reads (migrated if older).
    SqliteStore::open(data_dir, Durability::Full).context("the restored store does not open")?;
    Ok(Copied { path: dest.clone(), bytes: std::fs::metadata(&dest)?.len(), rows })
}

/// Where a backup to `dest` goes: `dest`, or when it is a directory a new file in it named by the
/// time (`pruefstein-20261207T144643123Z.db`), which [`prune`] counts among the directory's backups.
pub(crate) fn target(dest: &Path, now: Millis) -> PathBuf {
    if !dest.is_dir() {
        return dest.to_path_buf();
    }
    let stamp: String =
        clock::rfc3339(now).chars().filter(|c| c.is_ascii_digit() || *c == 'T' || *c == 'Z').collect();
    dest.join(format!("{BACKUP_PREFIX}{stamp}.db"))
}

/// How the backups [`target`] names in a directory begin.
const BACKUP_PREFIX: &str = "pruefstein-";

/// Whether `name` is one of the backups [`target`] names.
fn is_timed_backup(name: &str) -> bool {
    name.strip_prefix(BACKUP_PREFIX).and_then(|rest| rest.strip_suffix(".db")).is_some_and(|stamp| {
        !stamp.is_empty() && stamp.bytes().all(|b| b.is_ascii_digit() || b == b'T' || b == b'Z')
    })
}

/// Refuses a number of backups to keep that keeps none, or more than [`BACKUPS_KEPT_MAX`].
pub(crate) fn check_keep(keep: usize) -> Result<()> {
    if keep == 0 || keep > BACKUPS_KEPT_MAX {
        anyhow::bail!("--keep {keep}: keep between 1 and {BACKUPS_KEPT_MAX} backups (BACKUPS_KEPT_MAX)");
    }
    Ok(())
}

/// Removes the oldest of the backups [`target`] named in `dir` but the `keep` newest; returns the
/// removed files. Other files in `dir` are never touched.
pub(crate) fn prune(dir: &Path, keep: usize) -> Result<Vec<PathBuf>> {
    check_keep(keep)?;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| is_timed_backup(name))
        .collect();
    // The names hold the time, so their order is the backups' order; the newest first.
    names.sort_unstable_by(|a, b| b.cmp(a));
    let mut removed = Vec::new();
    for name in names.into_iter().skip(keep) {
        let path = dir.join(name);
        std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        removed.push(path);
    }
    if !removed.is_empty() {
        sync(dir)?;
    }
    Ok(removed)
}

/// The learner ids the store at `db` holds anything of: its submissions' learners, and the ids an
/// LTI launch record's subject is known by (`lti:{platform}:{subject}` and the hashed form).
fn learners_in(db: &Path) -> Result<BTreeSet<String>> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("cannot open {}", db.display()))?;
    let mut learners = BTreeSet::new();
    let mut submitted = conn.prepare("SELECT DISTINCT learner FROM submissions")?;
    for learner in submitted.query_map([], |r| r.get::<_, String>(0))? {
        learners.insert(learner?);
    }
    let mut launched = conn.prepare("SELECT DISTINCT platform_id, subject FROM lti_contexts")?;
    for row in launched.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
        let (platform, subject) = row?;
        learners.insert(format!("lti:{platform}:{subject}"));
        learners
            .insert(format!("lti:{platform}:sha256:{}", crate::submission::sha256_hex(subject.as_bytes())));
    }
    Ok(learners)
}

/// Erases again, in the restored store at `data_dir`, every learner of the erasure `log` whose
/// erasure the store does not know (its audit log has no such entry: the backup was taken before
/// it). An erasure the backup knows is not repeated: what the learner submitted after it is theirs.
/// Returns the learners erased.
pub(crate) fn reapply_erasures(
    data_dir: &Path,
    store: &dyn Store,
    report_key: &[u8],
    log: &[Erasure],
    now: Millis,
) -> Result<usize> {
    let mut known = BTreeSet::new();
    let mut after = 0;
    loop {
        let page = store.audit_log(after, 1000)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for entry in page.into_iter().filter(|e| e.action == AuditAction::Erase) {
            known.insert((entry.subject, entry.at, entry.client_id));
        }
    }
    let pending: Vec<&Erasure> =
        log.iter().filter(|e| !known.contains(&(e.learner_key.clone(), e.at, e.client_id))).collect();
    if pending.is_empty() {
        return Ok(0);
    }
    let mut erased = 0;
    for id in learners_in(&data_dir.join(DATABASE_FILE))? {
        let Ok(learner) = Learner::parse(&id) else { continue };
        let key = privacy::learner_key(report_key, &learner);
        for erasure in pending.iter().filter(|e| e.learner_key == key) {
            let actor = Actor { name: "restore".to_string(), client_id: erasure.client_id };
            if let LearnerFound::Found(_) = privacy::erase(store, report_key, &learner, &actor, now)? {
                erased += 1;
            }
        }
    }
    Ok(erased)
}

impl std::fmt::Display for Copied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}: {} bytes, integrity ok", self.path.display(), self.bytes)?;
        for (table, n) in &self.rows {
            writeln!(f, "  {table:<16} {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::Store;

    #[test]
    fn a_backup_is_checked_and_restored_only_into_an_empty_directory() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let store = SqliteStore::open(&data, Durability::Normal).unwrap();
        store.add_client("lms", "hash", "whsec_x", 0).unwrap();
        let dest = dir.path().join("backup.db");
        let copied = backup(&data.join(DATABASE_FILE), &dest).unwrap();
        assert_eq!(copied.rows[0], ("clients", 1));
        assert!(!partial_of(&dest).unwrap().exists());
        use std::os::unix::fs::MetadataExt;
        assert_eq!(std::fs::metadata(&dest).unwrap().mode() & 0o777, 0o600, "private");
        let no_lock = |dir: &Path| {
            data_dir::create_dir(dir)?;
            Ok(tempfile::tempfile()?)
        };
        let refused = restore(&dest, &data, no_lock).unwrap_err().to_string();
        assert!(refused.contains("is not empty"), "{refused}");
        let fresh = dir.path().join("fresh");
        let restored = restore(&dest, &fresh, no_lock).unwrap();
        assert_eq!(restored.rows, copied.rows);
        let reopened = SqliteStore::open(&fresh, Durability::Normal).unwrap();
        assert_eq!(reopened.list_clients().unwrap()[0].name, "lms");
        std::fs::write(dir.path().join("junk.db"), b"not a database at all, not at all").unwrap();
        let junk = restore(&dir.path().join("junk.db"), &dir.path().join("other"), no_lock).unwrap_err();
        assert!(format!("{junk:#}").contains("not a good backup"), "{junk:#}");
        assert!(!dir.path().join("other").exists(), "nothing was created");
        let locked = dir.path().join("locked");
        drop(crate::service::run::lock_data_dir(&locked).unwrap());
        assert!(
            restore(&dest, &locked, crate::service::run::lock_data_dir).is_ok(),
            "its lock file alone is empty"
        );
    }
}
