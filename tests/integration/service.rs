//! The grading service end to end: the real binary (`pruefstein serve`) on a free loopback port with
//! a fresh data directory, driven over HTTP. Covers the API contract (auth, limits, errors,
//! idempotency, waiting, report pages, catalogue, metrics, OpenAPI), webhook retries and the dead
//! list, and the reliability proof: 500 submissions, `kill -9` in the middle, restart, and nothing
//! lost, nothing twice, every event delivered with a stable id and a valid signature.
//!
//! The API contract is one focused test per promise, each against a fresh server of the shared
//! fixture (`support::server`), so that one broken promise does not hide the ones after it. No test
//! sleeps for time: every wait polls a condition with a deadline.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::support::http::{Response, request};
use crate::support::server::{COURSE_SECRET, Server};
use crate::support::{BIN, CONSUMER, PREDICTION, copy_tree, poll, repo};

fn exercise_file(path: &str) -> String {
    std::fs::read_to_string(repo().join("exercises").join(CONSUMER).join(path)).unwrap()
}

fn wat_submission(file: &str, learner: &str) -> Value {
    json!({"exercise": CONSUMER, "learner": learner, "wat": exercise_file(file)})
}

// ---------------------------------------------------------------------------------------------
// A webhook receiver on loopback.

#[derive(Debug, Clone)]
struct Received {
    id: String,
    timestamp: String,
    signature: String,
    body: Vec<u8>,
}

struct Receiver {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    policy: Policy,
}

/// How the receiver answers its n-th request (0-based): the status code.
type Policy = Arc<Mutex<Box<dyn FnMut(usize) -> u16 + Send>>>;

impl Receiver {
    fn start(policy: impl FnMut(usize) -> u16 + Send + 'static) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let policy: Policy = Arc::new(Mutex::new(Box::new(policy)));
        let (r, p) = (received.clone(), policy.clone());
        std::thread::spawn(move || {
            let mut n = 0usize;
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Some(request) = read_request(&mut stream) else { continue };
                let status = (p.lock().unwrap())(n);
                n += 1;
                r.lock().unwrap().push(request);
                let _ = stream.write_all(
                    format!("HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .as_bytes(),
                );
            }
        });
        Receiver { port, received, policy }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    fn set_policy(&self, policy: impl FnMut(usize) -> u16 + Send + 'static) {
        *self.policy.lock().unwrap() = Box::new(policy);
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Received> {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut raw = Vec::new();
    let mut buffer = [0u8; 8192];
    let split = loop {
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            return None;
        }
        raw.extend_from_slice(&buffer[..n]);
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
    };
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let header = |name: &str| {
        head.split("\r\n")
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    let length: usize = header("content-length").parse().ok()?;
    let mut body = raw[split + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&buffer[..n]);
    }
    Some(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body,
    })
}

/// Checks a Standard Webhooks signature with the client's secret.
fn signature_valid(secret: &str, r: &Received) -> bool {
    let key =
        base64::engine::general_purpose::STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    let mut message = format!("{}.{}.", r.id, r.timestamp).into_bytes();
    message.extend_from_slice(&r.body);
    let expected = format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD
            .encode(pruefstein::service::auth::hmac_sha256(&key, &message))
    );
    r.signature.split(' ').any(|s| s == expected)
}

// ---------------------------------------------------------------------------------------------
// The API contract: one focused test per promise, each against a fresh server of its own.

/// The server an API contract test talks to: fresh data, private callbacks allowed, one client.
struct Contract {
    server: Server,
    token: String,
    // Dropped after the server that writes into it.
    data: tempfile::TempDir,
}

fn contract() -> Contract {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path(), &["--allow-private-callbacks"]);
    let (token, _) = server.client("lms");
    Contract { server, token, data }
}

/// The submission the contract tests post first: a prediction with metadata.
fn anna() -> Value {
    json!({"exercise": PREDICTION, "learner": "anna", "answer": "(2, 2, 0)", "metadata": {"course": 7}})
}

/// Posts anna's answer with `key` and waits until it is graded: its id.
fn post_anna_graded(c: &Contract, key: &str) -> String {
    let r = c.server.post_json("/api/v1/submissions", &c.token, &anna(), Some(key));
    let id = r.json()["id"].as_str().unwrap().to_string();
    c.server.get(&format!("/api/v1/submissions/{id}?wait=10s"), &c.token);
    id
}

/// A mutant of exercise 03 posted with `?wait`: the answer with its failed report.
fn post_mutant_waiting(c: &Contract) -> Response {
    c.server.post_json(
        "/api/v1/submissions?wait=20s",
        &c.token,
        &wat_submission("mutants/no-dedup.wat", "ben"),
        None,
    )
}

/// Exercise 03's reference uploaded as a multipart file with `?wait`: the answer with its report.
fn post_reference_multipart(c: &Contract) -> Response {
    let boundary = "XyZ1234";
    let mut body = Vec::new();
    for (name, value) in [("exercise", CONSUMER), ("learner", "cem")] {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"reference.wat\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n{}\r\n--{boundary}--\r\n",
            exercise_file("solutions/reference.wat")
        )
        .as_bytes(),
    );
    let content_type = format!("multipart/form-data; boundary={boundary}");
    c.server.call("POST", "/api/v1/submissions?wait=20s", &c.token, &[("Content-Type", &content_type)], &body)
}

/// The path (with its token) of a submission's report page.
fn report_path(view: &Value) -> String {
    let url = view["links"]["report"].as_str().unwrap();
    url[url.find("/reports/").unwrap()..].to_string()
}

#[test]
fn requests_without_a_valid_token_get_401_as_problem_details() {
    let c = contract();
    let r = request(c.server.port, "GET", "/api/v1/exercises", &[], b"").unwrap();
    assert_eq!(r.status, 401);
    assert_eq!(r.header("content-type"), Some("application/problem+json"));
    assert_eq!(r.json()["status"], 401);
    assert!(r.json()["detail"].as_str().unwrap().contains("Bearer"));
    assert_eq!(c.server.get("/api/v1/exercises", "pst_wrong").status, 401);
}

#[test]
fn a_revoked_client_gets_403_and_is_listed_as_revoked() {
    let c = contract();
    let (revoked, _) = c.server.client("old-lms");
    assert_eq!(c.server.get("/api/v1/exercises", &revoked).status, 200);
    let out = Command::new(BIN)
        .args(["client", "revoke", "old-lms", "--data-dir"])
        .arg(c.data.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let r = c.server.get("/api/v1/exercises", &revoked);
    assert_eq!(r.status, 403);
    assert_eq!(r.json()["type"], "urn:pruefstein:problem:client-revoked");
    let list = Command::new(BIN).args(["client", "list", "--data-dir"]).arg(c.data.path()).output().unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    assert!(list.lines().any(|l| l.starts_with("lms\t") && l.ends_with("active")), "{list}");
    assert!(list.lines().any(|l| l.starts_with("old-lms\t") && l.contains("revoked")), "{list}");
}

#[test]
fn only_the_hash_of_a_token_is_stored() {
    let c = contract();
    let token = &c.token;
    let db = c.server.db();
    let hashes: Vec<String> = db
        .prepare("SELECT token_hash FROM clients")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(hashes.contains(&pruefstein::service::auth::token_hash(token)));
    drop(db);
    for file in std::fs::read_dir(c.data.path()).unwrap() {
        let bytes = std::fs::read(file.unwrap().path()).unwrap_or_default();
        assert!(!bytes.windows(token.len()).any(|w| w == token.as_bytes()), "a token is stored in clear");
    }
}

#[test]
fn a_body_over_the_limit_gets_413() {
    let c = contract();
    let big = vec![b' '; pruefstein::limits::REQUEST_BODY_BYTES_MAX + 1];
    let r =
        c.server.call("POST", "/api/v1/submissions", &c.token, &[("Content-Type", "application/json")], &big);
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.json()["type"], "urn:pruefstein:problem:body-too-large");
}

#[test]
fn malformed_json_and_a_submission_without_content_get_400_saying_what_was_expected() {
    let c = contract();
    let r = c.server.call(
        "POST",
        "/api/v1/submissions",
        &c.token,
        &[("Content-Type", "application/json")],
        b"{\"exercise\": ",
    );
    assert_eq!(r.status, 400);
    assert!(r.json()["detail"].as_str().unwrap().contains("\"learner\""), "{}", r.text());
    let r = c.server.post_json(
        "/api/v1/submissions",
        &c.token,
        &json!({"exercise": PREDICTION, "learner": "a"}),
        None,
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["type"], "urn:pruefstein:problem:no-submission");
}

#[test]
fn an_unknown_exercise_gets_404_naming_the_known_ones() {
    let c = contract();
    let r = c.server.post_json(
        "/api/v1/submissions",
        &c.token,
        &json!({"exercise": "99-nope", "learner": "a", "answer": "1"}),
        None,
    );
    assert_eq!(r.status, 404);
    assert!(r.json()["detail"].as_str().unwrap().contains(CONSUMER));
}

#[test]
fn the_wrong_kind_of_submission_and_a_callback_that_is_not_http_get_422() {
    let c = contract();
    let r = c.server.post_json(
        "/api/v1/submissions",
        &c.token,
        &json!({"exercise": CONSUMER, "learner": "a", "answer": "(1)"}),
        None,
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["type"], "urn:pruefstein:problem:wrong-submission-kind");
    let r = c.server.post_json(
        "/api/v1/submissions",
        &c.token,
        &json!({"exercise": PREDICTION, "learner": "a", "wat": "(module)"}),
        None,
    );
    assert_eq!(r.status, 422);
    let r = c.server.post_json(
        "/api/v1/submissions",
        &c.token,
        &json!({"exercise": PREDICTION, "learner": "a", "answer": "(1)", "callback_url": "file:///etc/passwd"}),
        None,
    );
    assert_eq!(r.status, 422);
}

#[test]
fn a_submission_is_accepted_with_its_links_and_graded_on_a_waiting_get() {
    let c = contract();
    let r = c.server.post_json("/api/v1/submissions", &c.token, &anna(), Some("key-1"));
    assert!(r.status == 202 || r.status == 200, "{}", r.text());
    let first = r.json();
    let id = first["id"].as_str().unwrap().to_string();
    assert!(first["links"]["self"].as_str().unwrap().ends_with(&format!("/api/v1/submissions/{id}")));
    assert!(r.header("location").is_some());
    let graded = c.server.get(&format!("/api/v1/submissions/{id}?wait=10s"), &c.token).json();
    assert_eq!(graded["status"], "graded");
    assert!(["passed", "failed"].contains(&graded["verdict"].as_str().unwrap()));
    assert_eq!(graded["metadata"]["course"], 7);
    assert_eq!(graded["report"]["exercise"], PREDICTION);
}

#[test]
fn an_idempotency_key_gives_the_same_submission_and_refuses_another_body() {
    let c = contract();
    let id = post_anna_graded(&c, "key-1");
    let again = c.server.post_json("/api/v1/submissions", &c.token, &anna(), Some("key-1"));
    assert_eq!(again.status, 200);
    assert_eq!(again.json()["id"], id.as_str());
    assert_eq!(again.json()["status"], "graded");
    let other = json!({"exercise": PREDICTION, "learner": "anna", "answer": "(1, 1, 1)"});
    let r = c.server.post_json("/api/v1/submissions", &c.token, &other, Some("key-1"));
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["type"], "urn:pruefstein:problem:idempotency-key-reused");
    assert_eq!(r.json()["submission_id"], id.as_str());
}

#[test]
fn another_client_has_its_own_key_space_and_cannot_read_the_submission() {
    let c = contract();
    let id = post_anna_graded(&c, "key-1");
    let (token2, _) = c.server.client("lms-2");
    assert_ne!(
        c.server.post_json("/api/v1/submissions", &token2, &anna(), Some("key-1")).json()["id"],
        id.as_str()
    );
    assert_eq!(c.server.get(&format!("/api/v1/submissions/{id}"), &token2).status, 404);
}

#[test]
fn waiting_on_the_post_answers_with_the_graded_report() {
    let c = contract();
    let r = post_mutant_waiting(&c);
    assert_eq!(r.status, 200, "{}", r.text());
    let failed = r.json();
    assert_eq!(failed["verdict"], "failed");
    assert!(failed["report"]["checks"].as_array().unwrap().iter().any(|c| c["passed"] == false));
    assert_eq!(
        c.server
            .post_json(
                "/api/v1/submissions?wait=soon",
                &c.token,
                &wat_submission("mutants/no-dedup.wat", "ben"),
                None
            )
            .status,
        400
    );
}

#[test]
fn a_module_uploaded_as_a_multipart_file_is_graded() {
    let c = contract();
    let r = post_reference_multipart(&c);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["verdict"], "passed");
}

#[test]
fn the_report_page_is_german_by_default_and_english_on_request() {
    let c = contract();
    let path = report_path(&post_mutant_waiting(&c).json());
    let de = request(c.server.port, "GET", &path, &[], b"").unwrap();
    assert_eq!(de.status, 200);
    assert!(de.header("content-type").unwrap().starts_with("text/html"));
    let page = de.text();
    assert!(
        page.contains("<html lang=\"de\">") && page.contains("NICHT BESTANDEN") && page.contains("Ablauf"),
        "{page}"
    );
    assert!(page.contains("Erwartet (Referenzlösung)") && page.contains("pruefstein grade"));
    assert!(!page.contains("<script"), "the page works without JavaScript");
    assert!(page.contains("@media print") && page.contains("width=device-width"));
    let en = request(c.server.port, "GET", &format!("{path}&lang=en"), &[], b"").unwrap().text();
    assert!(en.contains("<html lang=\"en\">") && en.contains("FAILED") && en.contains("Trace"), "{en}");
}

#[test]
fn a_report_page_opens_only_with_its_own_token() {
    let c = contract();
    let failed = post_mutant_waiting(&c).json();
    let passed = post_reference_multipart(&c).json();
    let path = report_path(&failed);
    let without = format!("/reports/{}", failed["id"].as_str().unwrap());
    assert_eq!(request(c.server.port, "GET", &without, &[], b"").unwrap().status, 404);
    assert_eq!(
        request(c.server.port, "GET", &format!("{without}?t=00112233445566778899aabbccddeeff"), &[], b"")
            .unwrap()
            .status,
        404
    );
    let other_id =
        format!("/reports/{}?t={}", passed["id"].as_str().unwrap(), &path[path.find("t=").unwrap() + 2..]);
    assert_eq!(
        request(c.server.port, "GET", &other_id, &[], b"").unwrap().status,
        404,
        "a token opens only its own report"
    );
}

#[test]
fn the_catalogue_lists_every_exercise_and_describes_a_consumer() {
    let c = contract();
    let list = c.server.get("/api/v1/exercises", &c.token).json();
    let slugs: Vec<&str> =
        list["exercises"].as_array().unwrap().iter().map(|e| e["slug"].as_str().unwrap()).collect();
    assert!(slugs.contains(&CONSUMER) && slugs.contains(&PREDICTION) && slugs.len() >= 4, "{slugs:?}");
    let consumer = c.server.get(&format!("/api/v1/exercises/{CONSUMER}?lang=en"), &c.token);
    assert_eq!(consumer.status, 200);
    let consumer = consumer.json();
    assert_eq!(consumer["submit"], "module");
    assert!(consumer["abi"]["href"].as_str().unwrap().ends_with("/docs/consumer-abi"));
    assert!(!consumer["statement"].as_str().unwrap().is_empty());
}

#[test]
fn the_starter_kits_are_served_without_their_worked_solutions_and_mutants() {
    let c = contract();
    let consumer = c.server.get(&format!("/api/v1/exercises/{CONSUMER}?lang=en"), &c.token).json();
    let kits = consumer["kits"].as_array().unwrap();
    let on_disk = std::fs::read_dir(repo().join("graders/consumer/kits"))
        .map(|d| d.filter(|e| e.as_ref().unwrap().path().is_dir()).count())
        .unwrap_or(0);
    assert_eq!(kits.len(), on_disk, "{kits:?}");
    for kit in kits {
        for file in kit["files"].as_array().unwrap() {
            assert!(!file["path"].as_str().unwrap().starts_with("examples/"), "{file}");
        }
    }
    if let Some(kit) = kits.first() {
        let href = kit["files"][0]["href"].as_str().unwrap();
        let path = &href[href.find("/kits/").unwrap()..];
        assert_eq!(request(c.server.port, "GET", path, &[], b"").unwrap().status, 200, "{path}");
        let name = kit["name"].as_str().unwrap();
        let hidden = format!("/kits/{name}/examples/correct.c");
        assert_eq!(request(c.server.port, "GET", &hidden, &[], b"").unwrap().status, 404);
        assert_eq!(
            request(c.server.port, "GET", &format!("/kits/{name}/../../ABI.md"), &[], b"").unwrap().status,
            404
        );
    }
}

#[test]
fn the_abi_guide_and_a_learners_statement_are_served() {
    let c = contract();
    let abi = request(c.server.port, "GET", "/docs/consumer-abi", &[], b"").unwrap();
    assert_eq!(abi.status, 200);
    assert!(abi.text().contains("verarbeite"));
    let statement =
        c.server.get(&format!("/api/v1/exercises/{PREDICTION}?learner=anna&lang=de"), &c.token).json();
    assert_eq!(statement["lang"], "de");
    assert_eq!(statement["submit"], "answer");
    assert!(statement["answer_example"].is_string());
}

#[test]
fn the_catalogue_refuses_an_unknown_exercise_and_an_unknown_language() {
    let c = contract();
    assert_eq!(c.server.get("/api/v1/exercises/99-nope", &c.token).status, 404);
    assert_eq!(c.server.get(&format!("/api/v1/exercises/{PREDICTION}?lang=fr"), &c.token).status, 400);
}

/// Nothing a student must not see: no reference solution, no mutant, no course secret, in any
/// answer a student's tool or browser gets (reports, report pages, the catalogue).
#[test]
fn no_answer_shows_the_reference_a_mutant_or_the_course_secret() {
    let c = contract();
    let mut seen_bodies: Vec<String> = Vec::new();
    let failed = post_mutant_waiting(&c);
    seen_bodies.push(failed.text());
    seen_bodies.push(post_reference_multipart(&c).text());
    let path = report_path(&failed.json());
    seen_bodies.push(request(c.server.port, "GET", &path, &[], b"").unwrap().text());
    seen_bodies.push(request(c.server.port, "GET", &format!("{path}&lang=en"), &[], b"").unwrap().text());
    seen_bodies
        .push(c.server.get(&format!("/api/v1/exercises/{CONSUMER}?lang=en"), &c.token).json().to_string());
    seen_bodies.push(
        c.server
            .get(&format!("/api/v1/exercises/{PREDICTION}?learner=anna&lang=de"), &c.token)
            .json()
            .to_string(),
    );
    seen_bodies.push(c.server.get("/api/v1/exercises", &c.token).json().to_string());

    let reference = exercise_file("solutions/reference.wat");
    let reference_line =
        reference.lines().map(str::trim).filter(|l| l.len() > 30).max_by_key(|l| l.len()).unwrap();
    for body in &seen_bodies {
        assert!(!body.contains(COURSE_SECRET), "the course secret leaked");
        assert!(!body.contains(reference_line), "the reference solution leaked: {reference_line}");
        assert!(!body.contains("mutants/") && !body.contains("dedup-in-memory"), "a mutant leaked");
    }
}

#[test]
fn health_and_metrics_are_served_and_count_gradings_by_verdict() {
    let c = contract();
    // Four submissions graded: anna's answer for two clients, the mutant, the reference.
    post_anna_graded(&c, "key-1");
    let (token2, _) = c.server.client("lms-2");
    let id2 = c.server.post_json("/api/v1/submissions", &token2, &anna(), Some("key-1")).json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    c.server.get(&format!("/api/v1/submissions/{id2}?wait=10s"), &token2);
    post_mutant_waiting(&c);
    post_reference_multipart(&c);

    assert_eq!(request(c.server.port, "GET", "/healthz", &[], b"").unwrap().status, 200);
    let metrics = request(c.server.port, "GET", "/metrics", &[], b"").unwrap();
    assert!(metrics.header("content-type").unwrap().starts_with("text/plain"));
    let metrics = metrics.text();
    let count = |name: &str| -> u64 {
        let line = metrics.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name} missing"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let verdicts = ["passed", "failed", "rejected", "failed_to_grade"]
        .map(|v| count(&format!("pruefstein_graded_total{{verdict=\"{v}\"}}")));
    assert_eq!(verdicts.iter().sum::<u64>(), 4, "{metrics}");
    assert!(verdicts[0] >= 1 && verdicts[1] >= 1, "{metrics}");
    for name in [
        "pruefstein_queue_depth{state=\"queued\"}",
        "pruefstein_grade_duration_seconds_bucket{le=\"+Inf\"}",
        "pruefstein_webhook_attempts_total{outcome=\"dead\"}",
        "pruefstein_webhook_events{state=\"dead\"} 0",
    ] {
        assert!(metrics.contains(name), "{name} missing in\n{metrics}");
    }
}

#[test]
fn the_openapi_document_describes_every_route() {
    let c = contract();
    let openapi = request(c.server.port, "GET", "/api/v1/openapi.json", &[], b"").unwrap().json();
    assert!(openapi["openapi"].as_str().unwrap().starts_with("3."));
    for path in [
        "/api/v1/submissions",
        "/api/v1/submissions/{id}",
        "/api/v1/exercises",
        "/api/v1/exercises/{slug}",
        "/api/v1/webhooks/dead",
        "/api/v1/webhooks/dead/{event_id}/redeliver",
        "/reports/{id}",
        "/metrics",
    ] {
        assert!(openapi["paths"][path].is_object(), "{path} missing in the OpenAPI document");
    }
    assert!(openapi["components"]["schemas"]["SubmissionView"].is_object());
}

/// A wrong prediction's page explains it with the simulated timeline, in both languages.
#[test]
fn a_wrong_predictions_page_shows_the_simulated_timeline() {
    let c = contract();
    let wrong = json!({"exercise": PREDICTION, "learner": "dora", "answer": "(9, 9, 9)"});
    let wrong = c.server.post_json("/api/v1/submissions?wait=10s", &c.token, &wrong, None).json();
    assert_eq!(wrong["verdict"], "failed");
    let path = report_path(&wrong);
    let de = request(c.server.port, "GET", &path, &[], b"").unwrap().text();
    assert!(de.contains("Zeitachse der Simulation") && de.contains("t=0"), "{de}");
    let en = request(c.server.port, "GET", &format!("{path}&lang=en"), &[], b"").unwrap().text();
    assert!(en.contains("Simulated timeline") && en.contains("Your answer"), "{en}");
}

#[test]
fn an_unknown_route_gets_404_as_problem_details() {
    let c = contract();
    let unknown = request(c.server.port, "GET", "/api/v2/nothing", &[], b"").unwrap();
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["type"], "urn:pruefstein:problem:no-route");
}

// ---------------------------------------------------------------------------------------------
// Webhooks, reliability, shutdown, reload.

#[test]
fn webhooks_are_retried_then_dead_then_redelivered() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        &[
            "--allow-private-callbacks",
            "--webhook-attempts",
            "3",
            "--webhook-backoff-ms",
            "20",
            "--webhook-seed",
            "5",
        ],
    );
    let (token, secret) = server.client("lms");

    // The receiver fails once with 500, then accepts: two attempts, the same event id.
    let flaky = Receiver::start(|n| if n == 0 { 500 } else { 204 });
    let body =
        json!({"exercise": PREDICTION, "learner": "a", "answer": "(2, 2, 0)", "callback_url": flaky.url()});
    let id = server.post_json("/api/v1/submissions", &token, &body, None).json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let received = poll("two webhook attempts", Duration::from_secs(30), || {
        let r = flaky.received();
        (r.len() >= 2).then_some(r)
    });
    assert_eq!(received[0].id, format!("evt_{id}"));
    assert_eq!(received[0].id, received[1].id, "the event id is stable across retries");
    assert_eq!(received[0].body, received[1].body);
    assert!(received.iter().all(|r| signature_valid(&secret, r)), "signatures are valid");
    let payload: Value = serde_json::from_slice(&received[1].body).unwrap();
    assert_eq!(payload["type"], "submission.graded");
    assert_eq!(payload["data"]["id"], id.as_str());
    assert_eq!(payload["data"]["status"], "graded");
    assert!(!signature_valid("whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", &received[0]));

    // A receiver that always fails: three attempts, then dead; redeliver sends it again.
    let down = Receiver::start(|_| 503);
    let body =
        json!({"exercise": PREDICTION, "learner": "b", "answer": "(2, 2, 0)", "callback_url": down.url()});
    let id = server.post_json("/api/v1/submissions", &token, &body, None).json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let event_id = format!("evt_{id}");
    let dead = poll("the event to be dead", Duration::from_secs(30), || {
        let list = server.get("/api/v1/webhooks/dead", &token).json();
        list["events"].as_array().unwrap().iter().find(|e| e["event_id"] == event_id.as_str()).cloned()
    });
    assert_eq!(dead["attempts"], 3);
    assert!(dead["last_error"].as_str().unwrap().contains("503"), "{dead}");
    assert_eq!(down.received().len(), 3);
    let metrics = request(server.port, "GET", "/metrics", &[], b"").unwrap().text();
    assert!(metrics.contains("pruefstein_webhook_events{state=\"dead\"} 1"), "{metrics}");
    // Another client cannot redeliver it; a non-dead event cannot be redelivered.
    let (token2, _) = server.client("lms-2");
    let redeliver = format!("/api/v1/webhooks/dead/{event_id}/redeliver");
    assert_eq!(server.call("POST", &redeliver, &token2, &[], b"").status, 404);
    down.set_policy(|_| 200);
    assert_eq!(server.call("POST", &redeliver, &token, &[], b"").status, 202);
    let again = poll("the redelivery", Duration::from_secs(30), || {
        let r = down.received();
        (r.len() >= 4).then_some(r)
    });
    assert!(again.iter().all(|r| r.id == event_id && signature_valid(&secret, r)));
    poll("the dead list to be empty", Duration::from_secs(30), || {
        let list = server.get("/api/v1/webhooks/dead", &token).json();
        list["events"].as_array().unwrap().is_empty().then_some(())
    });
    assert_eq!(server.call("POST", &redeliver, &token, &[], b"").status, 409);
}

#[test]
fn loopback_callbacks_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    for url in
        ["http://127.0.0.1:9/hook", "http://10.0.0.1/hook", "http://[::1]/hook", "http://169.254.169.254/"]
    {
        let body = json!({"exercise": PREDICTION, "learner": "a", "answer": "(1)", "callback_url": url});
        let r = server.post_json("/api/v1/submissions", &token, &body, None);
        assert_eq!(r.status, 422, "{url}: {}", r.text());
        assert_eq!(r.json()["type"], "urn:pruefstein:problem:bad-callback-url");
    }
}

/// The reliability proof: 500 submissions (answers and wasm consumers, with idempotency keys, a
/// fifth of them posted twice), `kill -9` mid-way, restart, wait. Every accepted submission has
/// exactly one result, every retried POST got the same id, the webhook receiver saw every event at
/// least once with a stable id and a valid signature; nothing lost, nothing twice.
#[test]
fn kill_9_loses_nothing_and_duplicates_nothing() {
    const TOTAL: usize = 500;
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--allow-private-callbacks", "--webhook-backoff-ms", "50"]);
    let (token, secret) = server.client("lms");
    let receiver = Receiver::start(|_| 200);

    let modules = [
        "solutions/reference.wat",
        "solutions/insert-or-ignore.wat",
        "mutants/no-dedup.wat",
        "mutants/dedup-in-memory.wat",
        "mutants/separate-autocommit.wat",
    ];
    let requests: Vec<(String, Value)> = (0..TOTAL)
        .map(|i| {
            let mut body = if i % 5 == 4 {
                wat_submission(modules[i / 5 % modules.len()], &format!("learner-{i}"))
            } else {
                json!({"exercise": PREDICTION, "learner": format!("learner-{i}"), "answer": "(2, 2, 0)"})
            };
            body["callback_url"] = json!(receiver.url());
            (format!("key-{i}"), body)
        })
        .collect();

    // Posts one request until it gets an answer, riding out the server's death.
    let port = server.port;
    let post = |key: &str, body: &Value| -> String {
        let value = poll("an answer to a POST", Duration::from_secs(60), || {
            let r = request(
                port,
                "POST",
                "/api/v1/submissions",
                &[
                    ("Authorization", &format!("Bearer {token}")),
                    ("Content-Type", "application/json"),
                    ("Idempotency-Key", key),
                ],
                body.to_string().as_bytes(),
            )
            .ok()?;
            match r.status {
                200 | 202 => Some(r.json()),
                503 => None,
                other => panic!("POST {key}: {other} {}", r.text()),
            }
        });
        value["id"].as_str().unwrap().to_string()
    };

    let ids: Mutex<BTreeMap<String, Vec<String>>> = Mutex::new(BTreeMap::new());
    let accepted = AtomicUsize::new(0);
    let open_at_kill = std::thread::scope(|scope| {
        for t in 0..4 {
            let (requests, ids, accepted, post) = (&requests, &ids, &accepted, &post);
            scope.spawn(move || {
                for (i, (key, body)) in requests.iter().enumerate().skip(t).step_by(4) {
                    let id = post(key, body);
                    ids.lock().unwrap().entry(key.clone()).or_default().push(id);
                    accepted.fetch_add(1, Ordering::SeqCst);
                    // A fifth is posted twice (a client that did not see the answer retries).
                    if i % 5 == 0 {
                        let id = post(key, body);
                        ids.lock().unwrap().entry(key.clone()).or_default().push(id);
                    }
                }
            });
        }
        poll("half of the submissions accepted", Duration::from_secs(60), || {
            (accepted.load(Ordering::SeqCst) >= TOTAL / 2).then_some(())
        });
        server.kill();
        let db = rusqlite::Connection::open(dir.path().join("pruefstein.db")).unwrap();
        let open: i64 = db.query_row("SELECT count(*) FROM jobs", [], |r| r.get(0)).unwrap();
        server.spawn();
        open
    });
    assert!(open_at_kill > 0, "the kill came while submissions were still queued or being graded");

    let ids = ids.into_inner().unwrap();
    assert_eq!(ids.len(), TOTAL);
    let mut distinct = BTreeSet::new();
    for (key, got) in &ids {
        assert!(got.iter().all(|id| id == &got[0]), "{key} got different ids: {got:?}");
        distinct.insert(got[0].clone());
    }
    assert_eq!(distinct.len(), TOTAL, "every key has its own submission");
    assert!(ids.values().filter(|v| v.len() > 1).count() >= TOTAL / 5);

    // Wait until everything is graded and every event delivered.
    poll("every submission graded", Duration::from_secs(90), || {
        let db = rusqlite::Connection::open(dir.path().join("pruefstein.db")).ok()?;
        let results: i64 = db.query_row("SELECT count(*) FROM results", [], |r| r.get(0)).ok()?;
        (results as usize == TOTAL).then_some(())
    });
    let by_event = poll("every webhook event", Duration::from_secs(60), || {
        let mut by_event: HashMap<String, Vec<Received>> = HashMap::new();
        for r in receiver.received() {
            by_event.entry(r.id.clone()).or_default().push(r);
        }
        (by_event.len() == TOTAL).then_some(by_event)
    });

    let db = rusqlite::Connection::open(dir.path().join("pruefstein.db")).unwrap();
    let submissions: i64 = db.query_row("SELECT count(*) FROM submissions", [], |r| r.get(0)).unwrap();
    assert_eq!(submissions as usize, TOTAL, "no submission was stored twice");
    let graded: i64 =
        db.query_row("SELECT count(*) FROM results WHERE status = 'graded'", [], |r| r.get(0)).unwrap();
    assert_eq!(graded as usize, TOTAL, "every submission has its result");
    let open_jobs: i64 = db.query_row("SELECT count(*) FROM jobs", [], |r| r.get(0)).unwrap();
    assert_eq!(open_jobs, 0);
    let events: i64 = db.query_row("SELECT count(*) FROM outbox", [], |r| r.get(0)).unwrap();
    assert_eq!(events as usize, TOTAL, "one event per submission");

    for id in &distinct {
        let deliveries = by_event.get(&format!("evt_{id}")).unwrap_or_else(|| panic!("no event for {id}"));
        for delivery in deliveries {
            assert!(signature_valid(&secret, delivery), "bad signature on {id}");
            assert_eq!(delivery.body, deliveries[0].body, "a redelivered event has the same body");
        }
        let payload: Value = serde_json::from_slice(&deliveries[0].body).unwrap();
        assert_eq!(payload["data"]["id"], id.as_str());
        assert_eq!(payload["data"]["status"], "graded");
    }
    // The results are the graders' verdicts: correct consumers pass, mutants fail.
    let mut verdicts: HashMap<String, String> = HashMap::new();
    let mut stmt = db
        .prepare("SELECT s.payload, r.verdict FROM submissions s JOIN results r ON r.submission_id = s.id WHERE s.kind = 'module'")
        .unwrap();
    for row in stmt.query_map([], |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?))).unwrap() {
        let (payload, verdict) = row.unwrap();
        verdicts.insert(pruefstein::submission::sha256_hex(&payload), verdict);
    }
    for module in modules {
        let sha = pruefstein::submission::sha256_hex(exercise_file(module).as_bytes());
        let expected = if module.starts_with("solutions/") { "passed" } else { "failed" };
        assert_eq!(verdicts.get(&sha).map(String::as_str), Some(expected), "{module}");
    }
}

// ---------------------------------------------------------------------------------------------
// The student report page in a real browser.

/// Where tests keep what a person may want to look at after a run (screenshots, PDFs).
fn artifact_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("artifacts").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A failing consumer's report opened in headless Chromium (Debian's `chromium`, driven by
/// playwright-core from `tests/browser`, both installed by `scripts/test`): in German and in
/// English the page shows the failing check, the timeline and the state diff; it raises no script
/// error and loads nothing that fails; it reads the same without JavaScript and in print; on a
/// phone-sized viewport nothing sticks out sideways. Screenshots and PDFs stay in
/// `target/tmp/artifacts/report-page/`.
#[test]
fn report_page_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let r = server.post_json(
        "/api/v1/submissions?wait=30s",
        &token,
        &wat_submission("mutants/no-dedup.wat", "browser"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let graded = r.json();
    assert_eq!(graded["verdict"], "failed");
    let url = graded["links"]["report"].as_str().unwrap().to_string();

    let artifacts = artifact_dir("report-page");
    let out = Command::new("node")
        .current_dir(repo().join("tests/browser"))
        .arg("check-report.mjs")
        .arg(&artifacts)
        .arg(format!("de={url}"))
        .arg(format!("en={url}&lang=en"))
        .output()
        .expect("node runs (scripts/test installs Node.js, Chromium and playwright-core)");
    assert!(
        out.status.success(),
        "the browser run failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();

    let expectations = [
        (
            "de",
            [
                "NICHT BESTANDEN",
                "Neue Nachricht",
                "fresh-message",
                "Ablauf",
                "Datenbankzustand",
                "fehlt in gesehen",
            ],
        ),
        ("en", ["FAILED", "Fresh message", "fresh-message", "Trace", "Database state", "missing in gesehen"]),
    ];
    for (lang, texts) in expectations {
        let page = &seen[lang];
        assert_eq!(page["status"], 200, "{lang}");
        assert_eq!(page["lang"], lang);
        assert_eq!(page["errors"], json!([]), "{lang}: the page raised errors");
        for text in texts {
            for view in ["text", "noScriptText", "printText"] {
                assert!(
                    page[view].as_str().unwrap().contains(text),
                    "{lang} {view} lacks {text:?}: {}",
                    page[view]
                );
            }
        }
        assert!(page["text"].as_str().unwrap().contains("pruefstein grade"), "{lang}: replay command");
        let phone = &page["phone"];
        assert_eq!(phone["viewportWidth"], 390, "{lang}: the page sets a device-width viewport");
        assert!(
            phone["scrollWidth"].as_u64().unwrap() <= 390,
            "{lang}: the page is wider than a phone: {phone}"
        );
        assert!(phone["bodyFontPx"].as_f64().unwrap() >= 14.0, "{lang}: text too small on a phone");
        for file in [format!("{lang}-desktop.png"), format!("{lang}-phone.png"), format!("{lang}.pdf")] {
            let size = std::fs::metadata(artifacts.join(&file)).map(|m| m.len()).unwrap_or(0);
            assert!(size > 10_000, "{file} was not written ({size} bytes)");
        }
    }
    // The two languages are two renderings of one report, not one page with a switch.
    assert_ne!(seen["de"]["text"], seen["en"]["text"]);
}

/// SIGTERM: the server stops taking work, finishes or gives back its leases, and exits cleanly;
/// after a restart every accepted submission is graded.
#[test]
fn sigterm_finishes_or_releases_leases() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--workers", "1"]);
    let (token, _) = server.client("lms");
    let mut ids = Vec::new();
    for i in 0..40 {
        let r = server.post_json(
            "/api/v1/submissions",
            &token,
            &wat_submission("solutions/reference.wat", &format!("l{i}")),
            None,
        );
        assert_eq!(r.status, 202, "{}", r.text());
        ids.push(r.json()["id"].as_str().unwrap().to_string());
    }
    let mut child = server.child.take().unwrap();
    // SAFETY: sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let status = poll("the server to exit", Duration::from_secs(30), || child.try_wait().unwrap());
    assert!(status.success(), "exit status {status}");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(log.contains("\"event\":\"shutting_down\"") && log.contains("\"event\":\"stopped\""), "{log}");
    let db = rusqlite::Connection::open(dir.path().join("pruefstein.db")).unwrap();
    let leased: i64 = db.query_row("SELECT count(*) FROM jobs WHERE leased = 1", [], |r| r.get(0)).unwrap();
    assert_eq!(leased, 0, "no lease is left behind");
    let graded: i64 = db.query_row("SELECT count(*) FROM results", [], |r| r.get(0)).unwrap();
    assert!((graded as usize) < ids.len(), "the shutdown came while work was queued");
    drop(db);

    server.spawn();
    for id in &ids {
        let r = server.get(&format!("/api/v1/submissions/{id}?wait=20s"), &token).json();
        assert_eq!(r["status"], "graded", "{id}");
        assert_eq!(r["verdict"], "passed");
        assert_eq!(r["attempts"], 1, "a released lease is not counted as an attempt");
    }
}

/// A job whose grading never finishes (its worker died every time) fails after the maximum number
/// of attempts with a stated reason, and the failure is reported like a result: API, webhook, page.
#[test]
fn a_job_that_never_finishes_fails_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--allow-private-callbacks"]);
    let (token, secret) = server.client("lms");
    let receiver = Receiver::start(|_| 200);
    server.kill();
    // What a server leaves behind that died while grading this job, JOB_ATTEMPTS_MAX times.
    let db = rusqlite::Connection::open(dir.path().join("pruefstein.db")).unwrap();
    let wat = exercise_file("solutions/reference.wat");
    db.execute(
        "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, callback_url, request_hash, created_at) \
         VALUES (1, ?1, 'l', 'module', ?2, ?3, ?4, 'h', 0)",
        rusqlite::params![CONSUMER, wat.as_bytes(), pruefstein::submission::sha256_hex(wat.as_bytes()), receiver.url()],
    )
    .unwrap();
    let id = db.last_insert_rowid();
    db.execute(
        "INSERT INTO jobs (submission_id, leased, attempts, lease_until) VALUES (?1, 1, ?2, 9999999999999)",
        rusqlite::params![id, pruefstein::limits::JOB_ATTEMPTS_MAX],
    )
    .unwrap();
    drop(db);

    server.spawn();
    let view = server.get(&format!("/api/v1/submissions/sub_{id}?wait=20s"), &token).json();
    assert_eq!(view["status"], "failed", "{view}");
    assert!(view["failure"].as_str().unwrap().contains("never finished"), "{view}");
    assert!(view["verdict"].is_null());
    let event = poll("the failure event", Duration::from_secs(30), || receiver.received().into_iter().next());
    assert!(signature_valid(&secret, &event));
    let payload: Value = serde_json::from_slice(&event.body).unwrap();
    assert_eq!(payload["type"], "submission.failed");
    let url = view["links"]["report"].as_str().unwrap();
    let page = request(server.port, "GET", &url[url.find("/reports/").unwrap()..], &[], b"").unwrap().text();
    assert!(page.contains("NICHT BEWERTBAR") && page.contains("never finished"), "{page}");
}

// ---------------------------------------------------------------------------------------------
// Exercise folders change while the service runs.

/// The value of one `pruefstein_exercise_reloads_total` counter.
fn reloads(server: &Server, outcome: &str) -> u64 {
    let metrics = request(server.port, "GET", "/metrics", &[], b"").unwrap().text();
    let prefix = format!("pruefstein_exercise_reloads_total{{outcome=\"{outcome}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no reload counter {outcome}: {metrics}"))
        .parse()
        .unwrap()
}

fn served(server: &Server, token: &str) -> Vec<String> {
    let list = server.get("/api/v1/exercises", token).json();
    list["exercises"].as_array().unwrap().iter().map(|e| e["slug"].as_str().unwrap().to_string()).collect()
}

/// A teacher adds an exercise folder to the running service: it is served after it passes `check`,
/// without a restart. A change that breaks it is rejected (counted, logged) and the last good
/// version stays served and graded; a removed folder is no longer served.
#[test]
fn exercise_folders_reload_while_running() {
    let dir = tempfile::tempdir().unwrap();
    let exercises = dir.path().join("exercises");
    copy_tree(&repo().join("exercises").join(PREDICTION), &exercises.join(PREDICTION));
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let server = Server::start(&dir.path().join("data"), &["--exercises", exercises.to_str().unwrap()]);
    let (token, _) = server.client("lms");
    assert_eq!(served(&server, &token), [PREDICTION]);

    // A new folder, prepared beside the watched one and moved in at once, as a careful teacher does.
    let staged = dir.path().join("staging");
    copy_tree(&repo().join("exercises").join(CONSUMER), &staged);
    std::fs::rename(&staged, exercises.join("lager-neu")).unwrap();
    poll("the new exercise to be served", Duration::from_secs(120), || {
        served(&server, &token).contains(&CONSUMER.to_string()).then_some(())
    });
    assert_eq!(reloads(&server, "loaded"), 1);
    let graded = |file: &str| {
        let r =
            server.post_json("/api/v1/submissions?wait=30s", &token, &wat_submission(file, "teacher"), None);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["verdict"].as_str().unwrap().to_string()
    };
    assert_eq!(graded("solutions/reference.wat"), "passed");
    assert_eq!(graded("mutants/no-dedup.wat"), "failed");
    // Replay commands name the folder as a student's checkout has it, never the server's path.
    let r = server.post_json(
        "/api/v1/submissions?wait=30s",
        &token,
        &wat_submission("mutants/no-dedup.wat", "replay"),
        None,
    );
    let text = r.text();
    assert!(text.contains("pruefstein grade exercises/lager-neu <module.wasm>"), "{text}");
    assert!(!text.contains(dir.path().to_str().unwrap()), "{text}");

    // A broken edit: rejected, and the last good version is still served and graded.
    std::fs::write(
        exercises.join("lager-neu/exercise.toml"),
        "slug = \"03-idempotenter-konsument\"\n[oops\n",
    )
    .unwrap();
    poll("the broken edit to be rejected", Duration::from_secs(60), || {
        (reloads(&server, "rejected") >= 1).then_some(())
    });
    assert!(served(&server, &token).contains(&CONSUMER.to_string()));
    assert_eq!(graded("solutions/reference.wat"), "passed");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(log.contains("exercise_rejected") && log.contains("exercise.toml"), "{log}");

    // An edit that loads but is not sound (its reference is the no-dedup mutant, so the mutants
    // it declares are no longer caught) is rejected as well.
    std::fs::copy(
        repo().join("exercises").join(CONSUMER).join("exercise.toml"),
        exercises.join("lager-neu/exercise.toml"),
    )
    .unwrap();
    poll("the repaired folder to be loaded again", Duration::from_secs(120), || {
        (reloads(&server, "loaded") >= 2).then_some(())
    });
    let rejected = reloads(&server, "rejected");
    std::fs::copy(
        repo().join("exercises").join(CONSUMER).join("mutants/no-dedup.wat"),
        exercises.join("lager-neu/solutions/reference.wat"),
    )
    .unwrap();
    poll("the unsound edit to be rejected", Duration::from_secs(120), || {
        (reloads(&server, "rejected") > rejected).then_some(())
    });
    assert_eq!(graded("mutants/no-dedup.wat"), "failed", "the last good version still grades");

    // Removed: no longer served; the others are untouched.
    std::fs::remove_dir_all(exercises.join("lager-neu")).unwrap();
    poll("the removed exercise to go", Duration::from_secs(60), || {
        (!served(&server, &token).contains(&CONSUMER.to_string())).then_some(())
    });
    assert_eq!(served(&server, &token), [PREDICTION]);
    assert_eq!(reloads(&server, "removed"), 1);
}

/// Exercise 04 (written only through `pruefstein new` and `check`, no grader code of its own) is
/// served and graded over HTTP like exercise 03: its reference passes, and each mutant fails the
/// check it declares in its first line (`;; expect-fail: CHECK`).
#[test]
fn the_authored_stock_exercise_is_graded_over_http() {
    const LAGER: &str = "04-lager";
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let folder = repo().join("exercises").join(LAGER);
    let listed = server.get(&format!("/api/v1/exercises/{LAGER}?lang=en"), &token);
    assert_eq!(listed.status, 200, "{}", listed.text());
    let grade = |file: &str| {
        let body = json!({
            "exercise": LAGER,
            "learner": "cem",
            "wat": std::fs::read_to_string(folder.join(file)).unwrap(),
        });
        let r = server.post_json("/api/v1/submissions?wait=30s", &token, &body, None);
        assert_eq!(r.status, 200, "{file}: {}", r.text());
        r.json()
    };
    let passed = grade("solutions/reference.wat");
    assert_eq!(passed["verdict"], "passed", "{passed}");

    let mut mutants: Vec<PathBuf> = std::fs::read_dir(folder.join("mutants"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wat"))
        .collect();
    mutants.sort();
    assert!(mutants.len() >= 2, "{mutants:?}");
    for mutant in mutants {
        let source = std::fs::read_to_string(&mutant).unwrap();
        let declared = source
            .lines()
            .find_map(pruefstein::consumer::expect_fail_on_line)
            .unwrap_or_else(|| panic!("{} declares no check", mutant.display()));
        let file = format!("mutants/{}", mutant.file_name().unwrap().to_str().unwrap());
        let failed = grade(&file);
        assert_eq!(failed["verdict"], "failed", "{file}");
        let failing: Vec<&str> = failed["report"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["passed"] == false)
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert!(failing.contains(&declared), "{file} must fail {declared}, failed {failing:?}");
    }
}

/// Settings come from a TOML file under the flags; a key the file does not know stops the start.
#[test]
fn configuration_file_is_read_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pruefstein.toml");
    std::fs::write(
        &config,
        "public_url = \"https://grading.example.org/\"\nworkers = 1\ndurability = \"normal\"\n",
    )
    .unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let server = Server::start(&data, &["--config", config.to_str().unwrap()]);
    let (token, _) = server.client("lms");
    let body = json!({"exercise": PREDICTION, "learner": "a", "answer": "(2, 2, 0)"});
    let view = server.post_json("/api/v1/submissions", &token, &body, None).json();
    assert!(
        view["links"]["report"].as_str().unwrap().starts_with("https://grading.example.org/reports/sub_"),
        "{view}"
    );
    drop(server);

    std::fs::write(&config, "bnid = \"0.0.0.0:1\"\n").unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bnid"), "{stderr}");
}
