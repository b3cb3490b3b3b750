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
    let before: Vec<i64> = accepted.lock().unwrap().clone();
    let dest = dir.path().join("backup.db");
    let (ok, said) = run(&["backup", dest.to_str().unwrap()], &data);
    let during = accepted.lock().unwrap().len();
    stop.store(true, Ordering::SeqCst);
    submitter.join().unwrap();
    assert!(ok, "{said}");
    assert!(said.contains("integrity ok") && said.contains("submissions"), "{said}");
    assert!(during > before.len(), "submissions arrived while the backup ran");
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
