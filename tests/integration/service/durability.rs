//! Nothing lost, nothing twice: `kill -9` in the middle of 500 submissions, SIGTERM while grading,
//! and a job that never finishes.

use super::*;

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

/// Queues `answers` answers and `consumers` consumer modules of client 1 behind the stopped
/// server's back (as a server leaves them that was stopped with a full queue) and returns their ids.
fn queue_behind_the_server(server: &Server, answers: usize, consumers: usize) -> Vec<i64> {
    let db = server.db();
    let wat = exercise_file("solutions/reference.wat");
    let mut ids = Vec::new();
    for n in 0..answers + consumers {
        let (exercise, kind, payload) = if n < answers {
            (PREDICTION, "answer", b"(2, 2, 0)".to_vec())
        } else {
            (CONSUMER, "module", wat.as_bytes().to_vec())
        };
        db.execute(
            "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, request_hash, created_at) \
             VALUES (1, ?1, ?2, ?3, ?4, ?5, 'h', 0)",
            rusqlite::params![exercise, format!("l{n}"), kind, payload, pruefstein::submission::sha256_hex(&payload)],
        )
        .unwrap();
        let id = db.last_insert_rowid();
        db.execute(
            "INSERT INTO jobs (submission_id, leased, attempts, lease_until) VALUES (?1, 0, 0, 0)",
            [id],
        )
        .unwrap();
        ids.push(id);
    }
    ids
}

/// Every queued submission graded once, in its first attempt.
fn assert_graded_once(server: &Server, token: &str, ids: &[i64]) {
    for id in ids {
        let view = server.get(&format!("/api/v1/submissions/sub_{id}?wait=30s"), token).json();
        assert_eq!(view["status"], "graded", "sub_{id}: {view}");
        assert_eq!(view["attempts"], 1, "sub_{id} was leased more than once: {view}");
    }
}

/// A grading thread takes the due jobs in batches, one round trip to the store for up to
/// `JOB_LEASE_BATCH_MAX` of them: 40 queued answers take three leases (16, 16, 8), not 40. A
/// thread gives its held jobs back when a grading in front of them is slow (a cold worker process
/// may be), and leases them again: at most twice as many leases then.
#[test]
fn a_grading_thread_leases_its_share_of_the_queue_in_one_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--workers", "1"]);
    let (token, _) = server.client("lms");
    server.kill();
    let ids = queue_behind_the_server(&server, 40, 0);
    server.spawn();
    assert_graded_once(&server, &token, &ids);
    let metrics = request(server.port, "GET", "/metrics", &[], b"").unwrap().text();
    let leases: usize = metrics
        .lines()
        .find_map(|l| l.strip_prefix("pruefstein_job_leases_total "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no lease count in\n{metrics}"));
    let batches = 40_usize.div_ceil(pruefstein::limits::JOB_LEASE_BATCH_MAX);
    let log = server.log_text();
    let expected =
        if log.contains("\"event\":\"held_given_back\"") { batches..=2 * batches } else { batches..=batches };
    assert!(expected.contains(&leases), "40 jobs, {leases} leases, expected {expected:?}:\n{log}");
}

/// The jobs a grading thread holds while it grades others keep their leases. One thread leases 16
/// consumers (a batch that takes longer than the lease), the other thread goes on leasing the
/// answers queued after them, oldest first: it would take every held consumer whose lease ran out.
/// None is taken, and every job is graded in its first attempt.
#[test]
fn held_jobs_keep_their_leases_while_the_batch_before_them_is_graded() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--workers", "2", "--job-lease-ms", "300"]);
    let (token, _) = server.client("lms");
    server.kill();
    let consumers = queue_behind_the_server(&server, 0, pruefstein::limits::JOB_LEASE_BATCH_MAX);
    let answers = queue_behind_the_server(&server, 400, 0);
    server.spawn();
    assert_graded_once(&server, &token, &consumers);
    assert_graded_once(&server, &token, &answers);
    // A lease that ran out shows as a second grading (attempt 2), whose result is not stored.
    let submissions = consumers.len() + answers.len();
    let log = server.log_until("every grading to be logged", |log| {
        log.matches("\"event\":\"graded\"").count() >= submissions
    });
    let mut gradings: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for line in log.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        if line["event"] == "graded" {
            let submission = line["submission"].as_str().unwrap_or_default().to_string();
            gradings.entry(submission).or_default().push(line["attempt"].as_u64().unwrap_or_default());
        }
    }
    assert_eq!(gradings.len(), consumers.len() + answers.len(), "{log}");
    let twice: Vec<_> = gradings.iter().filter(|(_, attempts)| attempts.as_slice() != [1]).collect();
    assert!(twice.is_empty(), "graded again after a held lease ran out: {twice:?}");
    assert!(!log.contains("\"event\":\"lease_lost\""), "{log}");
}
