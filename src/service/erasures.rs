//! The erasure log beside the store: one line per erasure of a learner (`erasures.jsonl` in the
//! data directory, JSON lines, mode 0600), with when, through which client, and the learner's keyed
//! hash ([`crate::service::privacy::learner_key`]), never the id in clear. It lives outside the
//! database file, so a backup does not hold it: when a backup taken before an erasure is restored,
//! `pruefstein restore --erasures FILE` reads this log and erases the learner again
//! ([`crate::service::backup::reapply_erasures`]).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::limits::ERASURE_LOG_BYTES_MAX;
use crate::service::learner::Learner;
use crate::service::privacy::learner_key;
use crate::service::store::Millis;

/// The log's file in the data directory.
pub(crate) const ERASURE_LOG_FILE: &str = "erasures.jsonl";

/// One erasure, as the log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Erasure {
    /// When the erasure was done (milliseconds since the epoch), as in the audit log.
    pub at: Millis,
    /// The client it was done through; none: every client (the operator).
    pub client_id: Option<i64>,
    /// The learner's keyed hash.
    pub learner_key: String,
}

/// Appends `erasure` to the log in `data_dir` and flushes it to disk.
pub(crate) fn append(data_dir: &Path, erasure: &Erasure) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(erasure).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(data_dir.join(ERASURE_LOG_FILE))?;
    file.write_all(&line)?;
    file.sync_data()
}

/// Records the erasure of `learner` through `client_id` (none: every client) at `at` in the log of
/// `data_dir`, under the learner's keyed hash.
pub(crate) fn record(
    data_dir: &Path,
    report_key: &[u8],
    learner: &Learner,
    client_id: Option<i64>,
    at: Millis,
) -> std::io::Result<()> {
    append(data_dir, &Erasure { at, client_id, learner_key: learner_key(report_key, learner) })
}

/// The erasures in the log at `path`; a line that is not an erasure, or a log larger than
/// [`ERASURE_LOG_BYTES_MAX`], is refused naming the line or the limit.
pub(crate) fn read(path: &Path) -> Result<Vec<Erasure>, String> {
    let shown = path.display();
    let size = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?.len();
    if size > ERASURE_LOG_BYTES_MAX {
        return Err(format!(
            "{shown} holds {size} bytes, more than an erasure log may (ERASURE_LOG_BYTES_MAX, \
             {ERASURE_LOG_BYTES_MAX} bytes): is it the erasure log?"
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut erasures = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let erasure: Erasure = serde_json::from_str(line)
            .map_err(|e| format!("{shown}, line {}: not an erasure ({e})", n + 1))?;
        if erasure.learner_key.len() != 64 || !erasure.learner_key.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{shown}, line {}: the learner key is not a keyed hash", n + 1));
        }
        erasures.push(erasure);
    }
    Ok(erasures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_appended_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let one = Erasure { at: 5, client_id: Some(2), learner_key: "ab".repeat(32) };
        let two = Erasure { at: 7, client_id: None, learner_key: "cd".repeat(32) };
        append(dir.path(), &one).unwrap();
        append(dir.path(), &two).unwrap();
        let path = dir.path().join(ERASURE_LOG_FILE);
        assert_eq!(read(&path).unwrap(), vec![one, two]);
        use std::os::unix::fs::MetadataExt;
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
    }

    #[test]
    fn a_hostile_log_is_refused_naming_the_line_or_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        for (text, said) in [
            ("{\"at\":1,\"client_id\":null,\"learner_key\":\"x\"}\n", "line 1: the learner key"),
            ("\n{\"at\":\"soon\"}\n", "line 2: not an erasure"),
            ("\u{0}\u{0}", "line 1: not an erasure"),
        ] {
            std::fs::write(&path, text).unwrap();
            let refused = read(&path).unwrap_err();
            assert!(refused.contains(said), "{refused}");
        }
        std::fs::write(&path, vec![b'\n'; ERASURE_LOG_BYTES_MAX as usize + 1]).unwrap();
        assert!(read(&path).unwrap_err().contains("ERASURE_LOG_BYTES_MAX"));
        assert!(read(&dir.path().join("absent")).is_err());
    }
}
