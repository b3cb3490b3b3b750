//! Several nodes on one PostgreSQL database (`--database postgres://…`): two `pruefstein serve`
//! processes share the queue and the results, a request waiting on one node wakes when the other
//! finishes the job (`LISTEN/NOTIFY`), a retried POST gets the same submission on either node, and
//! `/readyz` fails, saying why, when the database is unreachable. The databases are throwaway
//! ones (`pruefstein::service::store::postgres::scratch`).

use std::time::{Duration, Instant};

use pruefstein::service::store::postgres::scratch;
use serde_json::json;

use super::*;

/// Starts a node on `url` named `node`, with its own data directory under `dir`.
fn node(dir: &std::path::Path, url: &str, node: &str) -> Server {
    Server::start(&dir.join(node), &["--database", url, "--node-id", node, "--isolation", "thread"])
}

/// Adds an API client to the shared database: its token.
fn client(url: &str, name: &str) -> String {
    let out = Command::new(BIN).args(["client", "add", name, "--json", "--database", url]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    value["token"].as_str().unwrap().to_string()
}

#[test]
fn a_request_waiting_on_one_node_wakes_when_another_node_grades() {
    let url = scratch::database();
    let dir = tempfile::tempdir().unwrap();
    let a = node(dir.path(), &url, "node-a");
    let b = node(dir.path(), &url, "node-b");
    let token = client(&url, "lms");
    let submission = json!({"exercise": PREDICTION, "learner": "anna", "answer": "(2, 2, 0)"});
    for round in 0..3 {
        // Posted to b (whose grading threads wake at once), waited for on a.
        let posted = b.post_json("/api/v1/submissions", &token, &submission, Some(&format!("k-{round}")));
        assert_eq!(posted.status, 202, "{}", posted.text());
        let id = posted.json()["id"].as_str().unwrap().to_string();
        let started = Instant::now();
        let waited = a.get(&format!("/api/v1/submissions/{id}?wait=30s"), &token).json();
        let elapsed = started.elapsed();
        assert_eq!(waited["status"], "graded", "{waited}");
        // Without the notification, a would answer when its wait runs out (30 s).
        assert!(elapsed < Duration::from_secs(10), "a's wait took {elapsed:?}");
        // The same key on the other node: the same submission.
        let again = a.post_json("/api/v1/submissions", &token, &submission, Some(&format!("k-{round}")));
        assert_eq!((again.status, again.json()["id"].as_str()), (200, Some(id.as_str())));
    }
}

#[test]
fn readyz_fails_and_says_why_when_the_database_is_unreachable() {
    // A server of its own, to be stopped while the node runs.
    let server = scratch::ScratchServer::start_separate().unwrap();
    let url = server.create_database().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let a = node(dir.path(), &url, "node-a");
    assert_eq!(a.get("/readyz", "").status, 200);
    server.stop().unwrap();
    let answer = poll("readyz to fail", Duration::from_secs(30), || {
        Some(a.get("/readyz", "")).filter(|r| r.status == 503)
    });
    let text = answer.text();
    assert!(text.starts_with("store unavailable: database unreachable (count jobs and events)"), "{text}");
    // The database comes back: so does the node, without a restart.
    server.start().unwrap();
    poll("readyz to recover", Duration::from_secs(30), || {
        Some(()).filter(|_| a.get("/readyz", "").status == 200)
    });
}
