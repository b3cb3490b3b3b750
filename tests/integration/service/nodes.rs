//! Several nodes on one PostgreSQL database (`--database postgres://…`): two `pruefstein serve`
//! processes share the queue and the results, a request waiting on one node wakes when the other
//! finishes the job (`LISTEN/NOTIFY`), a retried POST gets the same submission on either node, and
//! `/readyz` fails, saying why, when the database is unreachable. The databases are throwaway
//! ones (`pruefstein::service::store::postgres::scratch`).

use std::time::{Duration, Instant};

use pruefstein::service::store::postgres::{LeaseClock, PgStore, scratch};
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

/// Counts one query's rows (its first column, as text) on the shared database.
fn texts(url: &str, sql: &'static str) -> Vec<String> {
    PgStore::open(url, "test-reader", LeaseClock::Database).unwrap().query_texts(sql).unwrap()
}

fn count(url: &str, sql: &'static str) -> usize {
    texts(url, sql)[0].parse().unwrap()
}

/// The reliability proof on three nodes: three `pruefstein serve` processes on one PostgreSQL,
/// 1,000 submissions (answers and wasm consumers, with idempotency keys; a fifth posted twice, the
/// retry sent to another node than the first try), `kill -9` of one node mid-way (restarted later)
/// and every database connection of the nodes terminated once (`pg_terminate_backend`). Every
/// accepted submission has exactly one result, every retried POST got the same id on any node,
/// every webhook event was seen at least once with a stable id and a valid signature.
#[test]
fn three_nodes_kill_9_and_lost_connections_lose_nothing_and_duplicate_nothing() {
    const TOTAL: usize = 1_000;
    let url = scratch::database();
    let dir = tempfile::tempdir().unwrap();
    // Short leases, so that the dead node's jobs go to the others within the test's time.
    let args = ["--allow-private-callbacks", "--webhook-backoff-ms", "50", "--job-lease-ms", "2000"];
    let start = |name: &str| {
        let mut all = vec!["--database", url.as_str(), "--node-id", name, "--isolation", "thread"];
        all.extend(args);
        Server::start(&dir.path().join(name), &all)
    };
    let mut nodes = [start("node-a"), start("node-b"), start("node-c")];
    let out =
        Command::new(BIN).args(["client", "add", "lms", "--json", "--database", &url]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let client: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (token, secret) = (client["token"].as_str().unwrap(), client["webhook_secret"].as_str().unwrap());
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

    // Posts one request to node `first`, and on no answer (a dead node, a lost connection: 5xx) to
    // the next, as a client behind a load balancer would, until one accepts it.
    let ports: Vec<u16> = nodes.iter().map(|n| n.port).collect();
    let post = |key: &str, body: &Value, first: usize| -> String {
        let mut attempt = 0;
        let value = poll("an answer to a POST", Duration::from_secs(90), || {
            let port = ports[(first + attempt) % ports.len()];
            attempt += 1;
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
                500 | 503 => None,
                other => panic!("POST {key}: {other} {}", r.text()),
            }
        });
        value["id"].as_str().unwrap().to_string()
    };

    let ids: Mutex<BTreeMap<String, Vec<String>>> = Mutex::new(BTreeMap::new());
    let accepted = AtomicUsize::new(0);
    let open_at_kill = std::thread::scope(|scope| {
        for t in 0..6 {
            let (requests, ids, accepted, post) = (&requests, &ids, &accepted, &post);
            scope.spawn(move || {
                for (i, (key, body)) in requests.iter().enumerate().skip(t).step_by(6) {
                    let id = post(key, body, i % 3);
                    ids.lock().unwrap().entry(key.clone()).or_default().push(id);
                    accepted.fetch_add(1, Ordering::SeqCst);
                    // A fifth is posted twice, the retry to another node.
                    if i % 5 == 0 {
                        let id = post(key, body, i % 3 + 1);
                        ids.lock().unwrap().entry(key.clone()).or_default().push(id);
                    }
                }
            });
        }
        let reach = |share: usize| {
            poll("submissions accepted", Duration::from_secs(120), || {
                (accepted.load(Ordering::SeqCst) >= TOTAL * share / 6).then_some(())
            })
        };
        reach(2);
        nodes[1].kill();
        let open = count(&url, "SELECT count(*)::TEXT FROM jobs");
        let held = count(&url, "SELECT count(*)::TEXT FROM jobs WHERE leased AND leased_by = 'node-b'");
        eprintln!("at the kill: {open} open jobs, {held} leased by the killed node");
        reach(3);
        // Every connection of every node, at once: transactions in flight fail, pools reconnect.
        // Only this test's database: the scratch server is shared with tests running beside it,
        // whose nodes' connections are not this test's to cut.
        scratch::run_sql(
            &url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE application_name LIKE 'pruefstein node-%' AND datname = current_database() \
             AND pid <> pg_backend_pid()",
        )
        .unwrap();
        reach(4);
        nodes[1].spawn();
        open
    });
    assert!(open_at_kill > 0, "the kill came while submissions were still queued or being graded");

    let ids = ids.into_inner().unwrap();
    assert_eq!(ids.len(), TOTAL);
    let mut distinct = BTreeSet::new();
    for (key, got) in &ids {
        assert!(got.iter().all(|id| id == &got[0]), "{key} got different ids on different nodes: {got:?}");
        distinct.insert(got[0].clone());
    }
    assert_eq!(distinct.len(), TOTAL, "every key has its own submission");
    assert!(ids.values().filter(|v| v.len() > 1).count() >= TOTAL / 5);

    poll("every submission graded", Duration::from_secs(240), || {
        (count(&url, "SELECT count(*)::TEXT FROM results") == TOTAL).then_some(())
    });
    let by_event = poll("every webhook event", Duration::from_secs(180), || {
        let mut by_event: HashMap<String, Vec<Received>> = HashMap::new();
        for r in receiver.received() {
            by_event.entry(r.id.clone()).or_default().push(r);
        }
        (by_event.len() == TOTAL).then_some(by_event)
    });
    assert_eq!(count(&url, "SELECT count(*)::TEXT FROM submissions"), TOTAL, "no submission stored twice");
    assert_eq!(count(&url, "SELECT count(*)::TEXT FROM results WHERE status = 'graded'"), TOTAL);
    assert_eq!(count(&url, "SELECT count(*)::TEXT FROM jobs"), 0);
    assert_eq!(count(&url, "SELECT count(*)::TEXT FROM outbox"), TOTAL, "one event per submission");
    for id in &distinct {
        let deliveries = by_event.get(&format!("evt_{id}")).unwrap_or_else(|| panic!("no event for {id}"));
        for delivery in deliveries {
            assert!(signature_valid(secret, delivery), "bad signature on {id}");
            assert_eq!(delivery.body, deliveries[0].body, "a redelivered event has the same body");
        }
        let payload: Value = serde_json::from_slice(&deliveries[0].body).unwrap();
        assert_eq!(payload["data"]["id"], id.as_str());
        assert_eq!(payload["data"]["status"], "graded");
    }
    // The results are the graders' verdicts: correct consumers pass, mutants fail.
    let verdicts: HashMap<String, String> = texts(
        &url,
        "SELECT DISTINCT encode(sha256(s.payload), 'hex') || ' ' || r.verdict \
         FROM submissions s JOIN results r ON r.submission_id = s.id WHERE s.kind = 'module'",
    )
    .into_iter()
    .map(|line| {
        let (sha, verdict) = line.split_once(' ').unwrap();
        (sha.to_string(), verdict.to_string())
    })
    .collect();
    for module in modules {
        let sha = pruefstein::submission::sha256_hex(exercise_file(module).as_bytes());
        let expected = if module.starts_with("solutions/") { "passed" } else { "failed" };
        assert_eq!(verdicts.get(&sha).map(String::as_str), Some(expected), "{module}");
    }
    // The running nodes lost their connections (their listeners said so, and came back); the killed
    // node was down then.
    for node in [&nodes[0], &nodes[2]] {
        node.log_until("the node to log its lost listener", |log| log.contains("\"event\":\"listen_lost\""));
    }
    assert!(nodes.iter().all(|n| !n.log_text().contains("panicked")));
    let retried = count(&url, "SELECT count(*)::TEXT FROM results WHERE attempts > 1");
    eprintln!("results graded on a second or later attempt: {retried}");
}

/// Two nodes serve different versions of one exercise (a teacher's change that reached one node
/// only): each submission is graded by the version of the node that accepted it, whichever node
/// leases it; `/readyz` on each node names the difference; open jobs of a version that a living
/// node serves are left to it (and `/readyz` says so), and once that node withdraws, they are
/// graded by the version served now, which the result records.
#[test]
fn two_nodes_with_different_exercise_versions_never_grade_one_exercise_two_ways() {
    use pruefstein::service::store::{Intake, NewSubmission, Store};
    use pruefstein::submission::Submission;

    let url = scratch::database();
    let dir = tempfile::tempdir().unwrap();
    // Node b's exercises: the repository's, with exercise 1's statement changed by its teacher.
    let changed = dir.path().join("exercises-b");
    copy_tree(&repo().join("exercises"), &changed);
    let statement = changed.join(PREDICTION).join("statement.en.md");
    let text = std::fs::read_to_string(&statement).unwrap();
    std::fs::write(&statement, format!("{text}\nA sentence the teacher added.\n")).unwrap();
    let version = |dir: &std::path::Path| {
        pruefstein::graders::load(&dir.join(PREDICTION)).unwrap().content_hash().to_string()
    };
    let (v_a, v_b) = (version(&repo().join("exercises")), version(&changed));
    assert_ne!(v_a, v_b);

    let a = node(dir.path(), &url, "node-a");
    let changed_arg = changed.to_str().unwrap();
    let b = Server::start(
        &dir.path().join("node-b"),
        &["--database", &url, "--node-id", "node-b", "--isolation", "thread", "--exercises", changed_arg],
    );
    let token = client(&url, "lms");
    let short = |v: &str| v[..12].to_string();
    let ready = a.get("/readyz", "").text();
    assert!(
        ready.contains(&format!(
            "exercise {PREDICTION}: this node serves version {}, node node-b serves version {}",
            short(&v_a),
            short(&v_b)
        )),
        "{ready}"
    );
    assert!(b.get("/readyz", "").text().contains(&format!("node node-a serves version {}", short(&v_a))));

    // Both nodes lease from one queue: each result is of the accepting node's version.
    for round in 0..8 {
        let (accepting, expected) = if round % 2 == 0 { (&a, &v_a) } else { (&b, &v_b) };
        let body = json!({"exercise": PREDICTION, "learner": format!("l{round}"), "answer": "(2, 2, 0)"});
        let posted = accepting.post_json("/api/v1/submissions", &token, &body, None);
        assert_eq!(posted.status, 202, "{}", posted.text());
        let id = posted.json()["id"].as_str().unwrap().to_string();
        let graded = a.get(&format!("/api/v1/submissions/{id}?wait=30s"), &token).json();
        assert_eq!(graded["status"], "graded", "{graded}");
        assert_eq!(graded["exercise_hash"].as_str(), Some(expected.as_str()), "round {round}: {graded}");
    }

    // A third node (this test) announces a version of its own and accepts a job under it, but
    // grades nothing: a and b leave the job to it while it lives.
    let c = PgStore::open(&url, "node-c", LeaseClock::Database).unwrap();
    let v_c = "c".repeat(64);
    c.announce_node(&[(PREDICTION.to_string(), v_c.clone())], 0).unwrap();
    let lms = c.list_clients().unwrap().into_iter().find(|r| r.name == "lms").unwrap();
    let new = NewSubmission {
        client_id: lms.id,
        exercise: PREDICTION.into(),
        learner: "carla".into(),
        submission: Submission::Answer("(2, 2, 0)".into()),
        callback_url: None,
        metadata: None,
        idempotency_key: None,
        request_hash: "carla".into(),
        exercise_hash: Some(v_c.clone()),
    };
    let Intake::Created(record) = c.submit(&new, 100, 0).unwrap() else { panic!("not accepted") };
    let id = format!("sub_{}", record.id);
    let left = format!(
        "exercise {PREDICTION}: 1 open job was accepted under version cccccccccccc, which this node leaves to node node-c"
    );
    for n in [&a, &b] {
        let ready = n.get("/readyz", "").text();
        assert!(ready.contains(&left), "{ready}");
    }
    // Other submissions are graded meanwhile: the nodes are not stuck behind the job.
    let other = json!({"exercise": PREDICTION, "learner": "dora", "answer": "(2, 2, 0)"});
    let posted = a.post_json("/api/v1/submissions?wait=30s", &token, &other, None).json();
    assert_eq!(posted["status"], "graded", "{posted}");
    let waiting = a.get(&format!("/api/v1/submissions/{id}"), &token).json();
    assert_eq!(waiting["status"], "queued", "left to node-c: {waiting}");
    // node-c stops: its job is graded by a version a living node serves, and says which.
    c.withdraw_node().unwrap();
    // Under load a grading thread may hold the lease longer than one wait: wait again, bounded.
    let graded = poll("node-c's job to be graded", Duration::from_secs(150), || {
        let r = a.get(&format!("/api/v1/submissions/{id}?wait=30s"), &token).json();
        (r["status"] == "graded").then_some(r)
    });
    let graded_under = graded["exercise_hash"].as_str().unwrap().to_string();
    assert!(graded_under == v_a || graded_under == v_b, "{graded}");
    let metrics = [a.get("/metrics", "").text(), b.get("/metrics", "").text()].concat();
    assert!(metrics.contains("pruefstein_version_mismatches_total{action=\"graded\"} 1"), "{metrics}");
}
