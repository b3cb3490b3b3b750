//! Backup and restore of the SQLite store while the service runs: every submission accepted before
//! a backup began is in it, while submissions keep arriving; a backup killed with `kill -9` leaves
//! the store and the backup before it as they were; a restore goes into an empty data directory
//! only, and a server starts on what it restored.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::support::server::Server;
use crate::support::{BIN, PREDICTION, poll};

fn ids_in(backup: &Path) -> Vec<i64> {
    let conn =
        rusqlite::Connection::open_with_flags(backup, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM submissions ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

fn integrity(db: &Path) -> String {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap()
}

fn run(args: &[&str], data: &Path) -> (bool, String) {
    let out = Command::new(BIN).args(args).arg("--data-dir").arg(data).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Backups taken at most until submissions arrived while one ran.
const BACKUP_ATTEMPTS: u32 = 10;

#[test]
fn a_backup_under_load_holds_every_submission_accepted_before_it_began_and_restores_into_an_empty_directory()
{
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Arc::new(Server::start(&data, &[]));
    let (token, _) = server.client("lms");
    let accepted = Arc::new(Mutex::new(Vec::<i64>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let submitter = {
        let (server, token, accepted, stop) = (server.clone(), token.clone(), accepted.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                n += 1;
                let body = json!({"exercise": PREDICTION, "learner": format!("l{n}"), "answer": "(2, 2, 0)"});
                let response = server.post_json("/api/v1/submissions", &token, &body, None);
                assert_eq!(response.status, 202, "{}", response.text());
                let id = response.json()["id"].as_str().unwrap().trim_start_matches("sub_").parse().unwrap();
                accepted.lock().unwrap().push(id);
            }
        })
    };
    poll("submissions to arrive", Duration::from_secs(60), || {
        (accepted.lock().unwrap().len() >= 20).then_some(())
    });
    // A backup that happened to end before the next submission arrived proves nothing about load:
    // it is taken again, a bounded number of times, until submissions arrived while one ran.
    let mut attempt = 0;
    let (before, dest, said) = loop {
        attempt += 1;
        let before: Vec<i64> = accepted.lock().unwrap().clone();
        let dest = dir.path().join(format!("backup-{attempt}.db"));
        let (ok, said) = run(&["backup", dest.to_str().unwrap()], &data);
        assert!(ok, "{said}");
        if accepted.lock().unwrap().len() > before.len() {
            break (before, dest, said);
        }
        assert!(attempt < BACKUP_ATTEMPTS, "no submission arrived while any of {attempt} backups ran");
    };
    stop.store(true, Ordering::SeqCst);
    submitter.join().unwrap();
    assert!(said.contains("integrity ok") && said.contains("submissions"), "{said}");
    let saved = ids_in(&dest);
    let missing: Vec<&i64> = before.iter().filter(|id| !saved.contains(id)).collect();
    assert!(missing.is_empty(), "accepted before the backup began, missing from it: {missing:?}");
    assert_eq!(integrity(&dest), "ok");

    let (ok, said) = run(&["restore", dest.to_str().unwrap()], &data);
    assert!(!ok && said.contains("another pruefstein server uses"), "the live directory is refused: {said}");
    let occupied = dir.path().join("occupied");
    std::fs::create_dir_all(&occupied).unwrap();
    std::fs::write(occupied.join("notes.txt"), b"keep").unwrap();
    let (ok, said) = run(&["restore", dest.to_str().unwrap()], &occupied);
    assert!(!ok && said.contains("is not empty"), "a directory that holds anything is refused: {said}");
    assert_eq!(std::fs::read(occupied.join("notes.txt")).unwrap(), b"keep");
    let restored = dir.path().join("restored");
    let (ok, said) = run(&["restore", dest.to_str().unwrap()], &restored);
    assert!(ok, "{said}");
    assert_eq!(ids_in(&restored.join("pruefstein.db")), saved);
    let again = Server::start(&restored, &[]);
    let first = format!("/api/v1/submissions/sub_{}", before[0]);
    assert_eq!(
        again.get(&first, &token).status,
        200,
        "the restored store serves the client and its submissions"
    );
}

#[test]
fn a_backup_killed_with_kill_9_leaves_the_store_and_the_last_good_backup() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    {
        // Ballast, so that a backup takes long enough to be killed in the middle.
        use pruefstein::service::store::{NewSubmission, Store, sqlite};
        let store = sqlite::SqliteStore::open(&data, sqlite::Durability::Normal).unwrap();
        let client = store.add_client("ballast", "hash", "whsec_x", 0).unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for n in 0..2_500 {
            let text: String = (0..32_768)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    char::from(b'a' + (seed % 26) as u8)
                })
                .collect();
            let new = NewSubmission {
                client_id: client.id,
                exercise: PREDICTION.into(),
                learner: format!("b{n}"),
                submission: pruefstein::submission::Submission::Answer(text),
                callback_url: None,
                metadata: None,
                idempotency_key: None,
                request_hash: n.to_string(),
                exercise_hash: None,
            };
            store.submit(&new, u64::MAX, 0).unwrap();
        }
    }
    let server = Server::start(&data, &[]);
    let dest = dir.path().join("backup.db");
    let (ok, said) = run(&["backup", dest.to_str().unwrap()], &data);
    assert!(ok, "{said}");
    let good = std::fs::read(&dest).unwrap();
    let partial = dir.path().join("backup.db.partial");
    let mut child = Command::new(BIN)
        .args(["backup", dest.to_str().unwrap(), "--data-dir"])
        .arg(&data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    poll("the backup to write its temporary file", Duration::from_secs(30), || {
        std::fs::metadata(&partial).is_ok_and(|m| m.len() > 0).then_some(())
    });
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "killed in the middle: {status:?}");
    assert!(std::fs::read(&dest).unwrap() == good, "the last good backup is untouched");
    assert_eq!(integrity(&dest), "ok");
    assert_eq!(integrity(&data.join("pruefstein.db")), "ok", "the store is intact");
    assert_eq!(server.get("/readyz", "").status, 200);
    let (ok, said) = run(&["backup", dest.to_str().unwrap()], &data);
    assert!(ok, "the next backup succeeds: {said}");
    assert!(!partial.exists(), "and leaves no temporary file");
}

/// In the erased learner's id: nothing else in the test contains it.
const CANARY: &str = "kanarienvogel-sicherung-3f9a";

fn holds_canary(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap_or_default();
        bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes())
    })
}

fn submissions_of(db: &Path, learner: &str) -> i64 {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row("SELECT count(*) FROM submissions WHERE learner = ?1", [learner], |r| r.get(0)).unwrap()
}

/// A backup, an erasure, a restore of that backup: the learner is erased again from the erasure
/// log beside the store (`--erasures`), and nothing of them is left in the restored files; the rest
/// of the course is restored. A backup taken after the erasure keeps what the learner submitted
/// after it. Without the log the learner comes back (and the restore says so).
#[test]
fn an_erasure_recorded_after_a_backup_is_applied_again_when_that_backup_is_restored() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start(&data, &[]);
    let (token, _) = server.client("lms");
    let grade = |learner: &str| {
        let body = json!({"exercise": PREDICTION, "learner": learner, "answer": "(2, 2, 0)"});
        let response = server.post_json("/api/v1/submissions?wait=30s", &token, &body, None);
        assert_eq!(response.json()["status"], "graded", "{}", response.text());
    };
    grade(CANARY);
    grade("berta");
    let backup = |name: &str| {
        let path = dir.path().join(name);
        let (ok, said) = run(&["backup", path.to_str().unwrap()], &data);
        assert!(ok, "{said}");
        path
    };
    let early = backup("early.db");
    let (status, _) = server.call_json("DELETE", &format!("/api/v1/learners/{CANARY}"), &token, &json!(null));
    assert_eq!(status, 200);
    // The learner comes back after the erasure: what they submit now is theirs.
    grade(CANARY);
    let later = backup("later.db");
    let log = data.join("erasures.jsonl");
    let log_text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(log_text.lines().count(), 1);
    assert!(!log_text.contains(CANARY), "the log names the learner only by a keyed hash");

    // Without the log, the early backup brings the learner back, and the restore says so.
    let bare = dir.path().join("bare");
    let (ok, said) = run(&["restore", early.to_str().unwrap()], &bare);
    assert!(ok && said.contains("no --erasures given"), "{said}");
    assert_eq!(submissions_of(&bare.join("pruefstein.db"), CANARY), 1);

    // With it, the learner is erased again: in no file of the restored directory.
    let restored = dir.path().join("restored");
    let (ok, said) =
        run(&["restore", early.to_str().unwrap(), "--erasures", log.to_str().unwrap()], &restored);
    assert!(ok && said.contains("1 in the log, 1 learners erased again"), "{said}");
    assert!(!holds_canary(&restored), "the canary is in a restored file");
    assert_eq!(submissions_of(&restored.join("pruefstein.db"), "berta"), 1, "the rest is restored");
    let (ok, audit) = run(&["audit"], &restored);
    assert!(ok && audit.contains("\trestore\t") && audit.contains("\terase\t"), "{audit}");
    assert_eq!(
        std::fs::read_to_string(restored.join("erasures.jsonl")).unwrap(),
        log_text,
        "the log goes on"
    );

    // A backup taken after the erasure knows it: the learner's later submission stays.
    let after = dir.path().join("after");
    let (ok, said) = run(&["restore", later.to_str().unwrap(), "--erasures", log.to_str().unwrap()], &after);
    assert!(ok && said.contains("1 in the log, 0 learners erased again"), "{said}");
    assert_eq!(submissions_of(&after.join("pruefstein.db"), CANARY), 1);

    // A log that is not one stops the restore before anything is written.
    std::fs::write(dir.path().join("junk.jsonl"), "not an erasure\n").unwrap();
    let refused = dir.path().join("refused");
    let junk = dir.path().join("junk.jsonl");
    let (ok, said) =
        run(&["restore", early.to_str().unwrap(), "--erasures", junk.to_str().unwrap()], &refused);
    assert!(!ok && said.contains("line 1: not an erasure"), "{said}");
    assert!(!refused.join("pruefstein.db").exists());
}

/// Backups into a directory are named by their time; `--keep N` keeps the N newest of them and
/// touches no other file.
#[test]
fn backups_into_a_directory_keep_the_newest_n_and_nothing_else_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let out = Command::new(BIN).args(["client", "add", "lms", "--data-dir"]).arg(&data).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let backups = dir.path().join("backups");
    std::fs::create_dir(&backups).unwrap();
    for other in ["notes.txt", "pruefstein-by-hand.db"] {
        std::fs::write(backups.join(other), "kept").unwrap();
    }
    let mut written = Vec::new();
    for _ in 0..3 {
        let (ok, said) = run(&["backup", backups.to_str().unwrap(), "--keep", "2"], &data);
        assert!(ok, "{said}");
        let path = said.lines().next().unwrap().split(": ").next().unwrap().to_string();
        assert!(path.contains("/pruefstein-") && path.ends_with("Z.db"), "{path}");
        assert_eq!(integrity(Path::new(&path)), "ok");
        written.push(path);
    }
    let mut left: Vec<String> =
        std::fs::read_dir(&backups).unwrap().map(|e| e.unwrap().path().display().to_string()).collect();
    left.sort();
    let mut expected = vec![
        backups.join("notes.txt").display().to_string(),
        backups.join("pruefstein-by-hand.db").display().to_string(),
        written[1].clone(),
        written[2].clone(),
    ];
    expected.sort();
    assert_eq!(left, expected, "the oldest timed backup went, nothing else");

    for args in [vec!["--keep", "0"], vec!["--keep", "2"]] {
        let target = if args[1] == "0" { backups.clone() } else { dir.path().join("one.db") };
        let mut all = vec!["backup", target.to_str().unwrap()];
        all.extend(args);
        let (ok, said) = run(&all, &data);
        assert!(!ok && said.contains("--keep"), "{said}");
    }
    assert_eq!(std::fs::read_dir(&backups).unwrap().count(), 4, "a refused --keep wrote no backup");
}
