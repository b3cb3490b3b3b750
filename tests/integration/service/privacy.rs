//! A learner's data on request, end to end: exported and erased over the API (a client reaches
//! only its own learners) and on the command line; after the erasure a canary planted in the
//! learner's id and source is found by no route, page, analytics, listing or export, nor in the
//! database file or its log; the other learner is unchanged; the erasure is in the audit log
//! without the learner's id. Hostile ids, another client's learner, an unknown learner and a
//! second erasure each get a clear answer and change nothing.

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::server::Server;
use crate::support::{BIN, CONSUMER, poll, repo};

/// In the learner's id and in the source: nothing else in the test contains it.
const CANARY: &str = "kanarienvogel-52c1e8";

/// A WebAssembly-text consumer (the exercise's reference) with `note` in a comment.
fn wat_with(note: &str) -> String {
    let wat =
        std::fs::read_to_string(repo().join("exercises").join(CONSUMER).join("solutions/reference.wat"))
            .unwrap();
    format!(";; {note}\n{wat}")
}

/// Submits and waits for the grade: the submission's view.
fn graded(server: &Server, token: &str, learner: &str, note: &str) -> Value {
    let body = json!({"exercise": CONSUMER, "learner": learner, "wat": wat_with(note)});
    let response = server.post_json("/api/v1/submissions?wait=60s", token, &body, None);
    let view = response.json();
    assert_eq!(view["status"], "graded", "{view}");
    view
}

fn path_of(url: &str) -> String {
    let start = url.find("/reports/").or_else(|| url.find("/api/")).unwrap();
    url[start..].to_string()
}

fn teacher(server: &Server) -> String {
    let out = Command::new(BIN)
        .args(["client", "add", "lehrer", "--teacher", "--token-only", "--data-dir"])
        .arg(&server.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn contains_canary(bytes: &[u8]) -> bool {
    bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes())
}

#[test]
fn an_erased_learner_is_gone_from_every_route_page_and_file_and_the_rest_of_the_course_stays() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let (other_token, _) = server.client("other-lms");
    let teacher = teacher(&server);
    let learner = format!("{CANARY} äö"); // percent-encoded in the path
    let encoded = format!("{CANARY}%20%C3%A4%C3%B6");
    let first = graded(&server, &token, &learner, CANARY);
    let second = graded(&server, &token, &learner, &format!("{CANARY} again"));
    let kept = graded(&server, &token, "berta", "berta's own");
    let report = path_of(first["links"]["report"].as_str().unwrap());
    assert_eq!(server.get(&report, "").status, 200);

    // The export: both submissions with their source, results and reports.
    let export = server.get(&format!("/api/v1/learners/{encoded}/export"), &token);
    assert_eq!(export.status, 200, "{}", export.text());
    let export = export.json();
    assert_eq!(export["learner"], learner.as_str());
    let submissions = export["submissions"].as_array().unwrap();
    assert_eq!(submissions.len(), 2);
    assert_eq!(submissions[0]["id"], first["id"]);
    assert!(submissions[0]["text"].as_str().unwrap().contains(CANARY), "the source as submitted");
    assert_eq!(submissions[1]["results"][0]["verdict"], "passed");
    assert!(submissions[1]["results"][0]["report"].is_object());
    assert!(submissions[1]["results"][0]["exercise_hash"].is_string());

    // Another client reaches nothing of it, and changes nothing; nor does a teacher's token, which
    // reaches its own client's learners only.
    for caller in [&other_token, &teacher] {
        for (method, path) in [
            ("GET", format!("/api/v1/learners/{encoded}/export")),
            ("DELETE", format!("/api/v1/learners/{encoded}")),
        ] {
            let (status, problem) = server.call_json(method, &path, caller, &Value::Null);
            assert_eq!(
                (status, problem["type"].as_str()),
                (404, Some("urn:pruefstein:problem:unknown-learner"))
            );
        }
    }
    assert_eq!(server.get(&report, "").status, 200, "still there");

    let (status, erased) =
        server.call_json("DELETE", &format!("/api/v1/learners/{encoded}"), &token, &Value::Null);
    assert_eq!(status, 200, "{erased}");
    assert_eq!(erased["rows"]["submissions"], 2);
    assert_eq!(erased["rows"]["results"], 2);

    // Gone: 410 where a link was handed out, nothing in listings, analytics or the export.
    for view in [&first, &second] {
        let id = view["id"].as_str().unwrap();
        let (status, problem) =
            server.call_json("GET", &format!("/api/v1/submissions/{id}"), &token, &Value::Null);
        assert_eq!(
            (status, problem["type"].as_str()),
            (410, Some("urn:pruefstein:problem:submission-erased"))
        );
        let page = server.get(&path_of(view["links"]["report"].as_str().unwrap()), "");
        assert_eq!(page.status, 410);
        assert!(!contains_canary(page.text().as_bytes()));
    }
    for (method, path) in [
        ("GET", format!("/api/v1/learners/{encoded}/export")),
        ("DELETE", format!("/api/v1/learners/{encoded}")),
    ] {
        let (status, problem) = server.call_json(method, &path, &token, &Value::Null);
        assert_eq!((status, problem["type"].as_str()), (410, Some("urn:pruefstein:problem:learner-erased")));
    }
    let mut seen = Vec::new();
    for path in [
        "/api/v1/submissions?limit=100".to_string(),
        format!("/api/v1/exercises/{CONSUMER}/analytics"),
        format!("/api/v1/exercises/{CONSUMER}/analytics?format=csv"),
        format!("/api/v1/exercises/{CONSUMER}/analytics?format=html"),
    ] {
        let caller = if path.contains("analytics") { &teacher } else { &token };
        let response = server.get(&path, caller);
        assert_eq!(response.status, 200, "{path}: {}", response.text());
        assert!(!contains_canary(response.text().as_bytes()), "{path} names the erased learner");
        seen.push(response.text());
    }
    assert!(seen[0].contains(kept["id"].as_str().unwrap()), "the other learner's submission is listed");
    let kept_view =
        server.get(&format!("/api/v1/submissions/{}", kept["id"].as_str().unwrap()), &token).json();
    assert_eq!(
        (kept_view["status"].as_str(), kept_view["verdict"].as_str()),
        (Some("graded"), Some("passed"))
    );

    // Nor in the files: the database, its log (truncated after the erasure).
    for name in ["pruefstein.db", "pruefstein.db-wal"] {
        let bytes = std::fs::read(dir.path().join(name)).unwrap_or_default();
        assert!(!contains_canary(&bytes), "{name} still holds the canary");
    }

    let regrade = format!("/api/v1/exercises/{CONSUMER}/regrade");
    let (status, queued) = server.call_json("POST", &regrade, &teacher, &json!({"learners": ["berta"]}));
    assert_eq!((status, queued["queued"].as_array().map(Vec::len)), (202, Some(1)), "{queued}");

    // The audit log records the erasure, the export, the analytics reads and the regrade, with no
    // learner in clear.
    let out = Command::new(BIN).args(["audit", "--json", "--data-dir"]).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = String::from_utf8(out.stdout).unwrap();
    let actions: Vec<String> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["action"].as_str().unwrap().to_string())
        .collect();
    assert!(actions.contains(&"export".to_string()) && actions.contains(&"erase".to_string()), "{log}");
    assert!(actions.contains(&"analytics".to_string()), "{log}");
    assert!(actions.contains(&"regrade".to_string()), "{log}");
    assert!(!contains_canary(log.as_bytes()), "{log}");
    let metrics = server.get("/metrics", "").text();
    assert!(metrics.contains("pruefstein_learners_erased_total 1"), "{metrics}");
    let log = server.log_until("the erasure's log line", |log| log.contains("learner_erased"));
    assert!(!contains_canary(log.as_bytes()), "the log names the learner: {log}");
}

#[test]
fn hostile_learner_ids_an_unknown_learner_and_a_missing_token_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let kept = graded(&server, &token, "anna", "anna");
    let too_long = "a".repeat(pruefstein::limits::LEARNER_CHARS_MAX + 1);
    for bad in ["%20%20", "an%07na", "an%E2%80%AEna", too_long.as_str()] {
        for (method, path) in
            [("GET", format!("/api/v1/learners/{bad}/export")), ("DELETE", format!("/api/v1/learners/{bad}"))]
        {
            let (status, problem) = server.call_json(method, &path, &token, &Value::Null);
            assert_eq!(
                (status, problem["type"].as_str()),
                (400, Some("urn:pruefstein:problem:bad-learner")),
                "{path}"
            );
        }
    }
    for path in ["/api/v1/learners/%FF%FE/export", "/api/v1/learners/%C3"] {
        let method = if path.ends_with("export") { "GET" } else { "DELETE" };
        let (status, problem) = server.call_json(method, path, &token, &Value::Null);
        assert_eq!(status, 400, "not UTF-8: {path}: {problem}");
    }
    for (method, path) in [("GET", "/api/v1/learners/niemand/export"), ("DELETE", "/api/v1/learners/niemand")]
    {
        let (status, problem) = server.call_json(method, path, &token, &Value::Null);
        assert_eq!(status, 404, "{problem}");
        assert!(problem["detail"].as_str().unwrap().contains("nothing was changed"));
        assert_eq!(server.call_json(method, path, "", &Value::Null).0, 401);
    }
    assert_eq!(server.call("PUT", "/api/v1/learners/anna", &token, &[], b"").status, 405);
    let again = server.get(&format!("/api/v1/submissions/{}", kept["id"].as_str().unwrap()), &token).json();
    assert_eq!(again["status"], "graded", "nothing was lost");
    assert_eq!(server.get("/api/v1/learners/anna/export", &token).status, 200);
    // A learner id with a slash, percent-encoded in the path, names that learner.
    graded(&server, &token, "kurs/anna", "slash");
    let export = server.get("/api/v1/learners/kurs%2Fanna/export", &token);
    assert_eq!(export.status, 200, "{}", export.text());
    assert_eq!(export.json()["learner"], "kurs/anna");
}

#[test]
fn the_operator_exports_and_erases_on_the_command_line_within_a_client_or_every_client() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (a, _) = server.client("lms-a");
    let (b, _) = server.client("lms-b");
    graded(&server, &a, CANARY, CANARY);
    let elsewhere = graded(&server, &b, CANARY, "through b");
    let run = |args: &[&str]| {
        let out = Command::new(BIN).args(args).arg("--data-dir").arg(dir.path()).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, export, _) = run(&["learner", "export", CANARY, "--client", "lms-a"]);
    assert_eq!(code, Some(0));
    let export: Value = serde_json::from_str(&export).unwrap();
    assert_eq!(export["submissions"].as_array().unwrap().len(), 1, "only lms-a's");
    let (code, _, error) = run(&["learner", "export", CANARY, "--client", "nobody"]);
    assert_ne!(code, Some(0));
    assert!(error.contains("no client named"), "{error}");
    let (code, _, error) = run(&["learner", "erase", "niemand"]);
    assert_ne!(code, Some(0));
    assert!(error.contains("nothing was changed"), "{error}");
    let (code, summary, _) = run(&["learner", "erase", CANARY, "--client", "lms-a"]);
    assert_eq!(code, Some(0));
    assert_eq!(serde_json::from_str::<Value>(&summary).unwrap()["rows"]["submissions"], 1);
    let id = elsewhere["id"].as_str().unwrap();
    assert_eq!(server.get(&format!("/api/v1/submissions/{id}"), &b).status, 200, "lms-b's learner stays");
    let (code, _, _) = run(&["learner", "erase", CANARY]);
    assert_eq!(code, Some(0), "every client's");
    assert_eq!(server.get(&format!("/api/v1/submissions/{id}"), &b).status, 410);
    let (code, _, said) = run(&["learner", "erase", CANARY]);
    assert_eq!(code, Some(0));
    assert!(said.contains("was erased at"), "{said}");
    poll("the database to stay readable", Duration::from_secs(5), || {
        (server.get("/readyz", "").status == 200).then_some(())
    });
}

/// `--retention-days`: the sweep at start deletes what is older than the retention (its report
/// links answer 410), keeps what is younger, counts itself in the metrics and logs a line; a
/// retention of 0 days is refused at start.
#[test]
fn the_retention_sweep_deletes_what_is_older_and_keeps_the_rest() {
    use pruefstein::service::store::{Intake, JobOutcome, NewSubmission, Store, sqlite};
    let dir = tempfile::tempdir().unwrap();
    let now = pruefstein::service::clock::now_ms();
    let day = 24 * 3600 * 1000;
    let (old, young) = {
        let store = sqlite::SqliteStore::open(dir.path(), sqlite::Durability::Normal).unwrap();
        let client =
            store.add_client("lms", &pruefstein::service::auth::token_hash("token-1"), "whsec_x", 0).unwrap();
        let submit = |at: i64| {
            let new = NewSubmission {
                client_id: client.id,
                exercise: crate::support::PREDICTION.into(),
                learner: "anna".into(),
                submission: pruefstein::submission::Submission::Answer("(2, 2, 0)".into()),
                callback_url: None,
                metadata: None,
                idempotency_key: None,
                request_hash: at.to_string(),
                exercise_hash: None,
            };
            let Intake::Created(record) = store.submit(&new, 100, at).unwrap() else { panic!("not created") };
            // Graded, so that no open job keeps it.
            let job = store.lease_jobs(1, 1, 60_000, at).unwrap().pop().unwrap();
            let (tx, rx) = std::sync::mpsc::channel();
            let outcome = JobOutcome::Failed { reason: "seeded".into() };
            store.complete_job(job, outcome, None, at, Box::new(move |r| tx.send(r.is_ok()).unwrap()));
            assert!(rx.recv().unwrap());
            record.id
        };
        (submit(now - 10 * day), submit(now - day))
    };
    let refused = Command::new(BIN)
        .args(["serve", "--retention-days", "0", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("retention-days must be 1 to"));
    let server = Server::start(dir.path(), &["--retention-days", "3"]);
    let log = server.log_until("the sweep's log line", |log| log.contains("retention_sweep"));
    assert!(log.contains("retention_sweep"), "{log}");
    let gone = server.get(&format!("/api/v1/submissions/sub_{old}"), "token-1");
    assert_eq!(gone.status, 410, "{}", gone.text());
    let kept = server.get(&format!("/api/v1/submissions/sub_{young}"), "token-1");
    assert_eq!(kept.status, 200, "{}", kept.text());
    let metrics = server.get("/metrics", "").text();
    assert!(metrics.contains("pruefstein_retention_sweeps_total 1"), "{metrics}");
    assert!(metrics.contains("pruefstein_retention_rows_total "), "{metrics}");
}
