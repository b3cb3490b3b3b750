//! The Jobe-compatible endpoint as Moodle CodeRunner uses it: the languages, a run whose module is
//! a file the server does not hold yet (404, then `PUT`, then the run again), a run with the module
//! as source code, and hostile requests; off unless the server is started with `--jobe`. Each answer
//! is the one real Jobe gives where CodeRunner tells them apart (`classes/jobesandbox.php`: 401 is
//! "submission limit reached", 403 a key problem, any text on stderr a runtime error, outcome 21 a
//! server overload), and the same exchanges are run through CodeRunner's own client where a
//! checkout of it is at hand (`coderunner_s_own_jobe_client_shows_what_jobe_would_show`).

use std::process::Stdio;

use super::*;
use crate::support::server::Launch;

const PREFIX: &str = "/jobe/index.php/restapi";

fn call(server: &Server, method: &str, path: &str, key: &str, body: &Value) -> Response {
    let payload = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
    let mut headers = vec![("Content-Type", "application/json; charset=utf-8")];
    if !key.is_empty() {
        headers.push(("X-API-KEY", key));
    }
    request(server.port, method, &format!("{PREFIX}{path}"), &headers, &payload).unwrap()
}

fn run_spec(source: &str, files: Value, exercise: Value) -> Value {
    json!({"run_spec": {
        "language_id": "pruefstein", "sourcecode": source, "sourcefilename": "answer.txt",
        "input": "", "file_list": files,
        "parameters": {"exercise": exercise, "learner": "cr-anna", "lang": "en"},
    }})
}

/// The combinator grader's JSON on stdout of a run that was graded.
fn graded(r: &Response) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    let run = r.json();
    assert_eq!(run["outcome"], 15, "{run}");
    serde_json::from_str(run["stdout"].as_str().unwrap()).unwrap()
}

#[test]
fn a_coderunner_run_uploads_its_module_on_404_and_gets_the_combinator_grade() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--jobe"]);
    let (key, _) = server.client("moodle");

    let r = call(&server, "GET", "/languages", &key, &Value::Null);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()[0][0], "pruefstein");

    // The file round: HEAD 404, the run 404, PUT, HEAD 204, the run graded.
    let module = exercise_file("solutions/reference.wat");
    let files = json!([["f-0123", "consumer.wat"]]);
    assert_eq!(call(&server, "HEAD", "/files/f-0123", &key, &Value::Null).status, 404);
    let r = call(&server, "POST", "/runs", &key, &run_spec("", files.clone(), json!(CONSUMER)));
    assert_eq!(r.status, 404, "{}", r.text());
    let contents = base64::engine::general_purpose::STANDARD.encode(module.as_bytes());
    let r = call(&server, "PUT", "/files/f-0123", &key, &json!({"file_contents": contents}));
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(call(&server, "HEAD", "/files/f-0123", &key, &Value::Null).status, 204);
    let grade = graded(&call(&server, "POST", "/runs", &key, &run_spec("", files, json!(CONSUMER))));
    assert_eq!(grade["fraction"], 1.0, "{grade}");
    let rows = grade["testresults"].as_array().unwrap();
    assert_eq!(rows[0], json!(["iscorrect", "Check", "Result"]));
    assert!(rows.len() > 5 && rows[1..].iter().all(|r| r[0] == true), "{rows:?}");
    let prologue = grade["prologuehtml"].as_str().unwrap();
    assert!(prologue.contains("passed") && prologue.contains("/reports/sub_1?t="), "{prologue}");

    // The module as source code: a mutant fails the check it is made for.
    let mutant = exercise_file("mutants/no-dedup.wat");
    let grade = graded(&call(&server, "POST", "/runs", &key, &run_spec(&mutant, json!([]), json!(CONSUMER))));
    assert!(grade["fraction"].as_f64().unwrap() < 1.0, "{grade}");
    let failed: Vec<&Value> =
        grade["testresults"].as_array().unwrap()[1..].iter().filter(|r| r[0] == false).collect();
    assert!(failed.iter().any(|r| r[1].as_str().unwrap().contains("fresh-message")), "{failed:?}");
    // The runs are submissions of the key's client.
    let (status, view) = server.call_json("GET", "/api/v1/submissions/sub_2", &key, &Value::Null);
    assert_eq!((status, view["learner"].as_str()), (200, Some("cr-anna")), "{view}");
}

#[test]
fn the_jobe_endpoint_refuses_hostile_requests_and_is_off_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let off = Server::start(&dir.path().join("off"), &[]);
    let (key, _) = off.client("moodle");
    let r = call(&off, "GET", "/languages", &key, &Value::Null);
    assert_eq!(r.status, 404, "{}", r.text());
    assert!(r.text().contains("not enabled"), "{}", r.text());

    let server = Server::start(&dir.path().join("on"), &["--jobe"]);
    let (key, _) = server.client("moodle");
    for (key, status) in [("", 403), ("pst_wrong", 403)] {
        assert_eq!(call(&server, "GET", "/languages", key, &Value::Null).status, status, "{key:?}");
    }
    let cases = [
        ("POST", "/runs", json!("not a run"), 400, "not valid JSON"),
        (
            "POST",
            "/runs",
            json!({"run_spec": {"language_id": "python3", "sourcecode": "x"}}),
            400,
            "unknown language",
        ),
        (
            "POST",
            "/runs",
            json!({"run_spec": {"language_id": "pruefstein", "sourcecode": "x"}}),
            400,
            "names no exercise",
        ),
        ("POST", "/runs", run_spec("x", json!([]), json!("nope")), 404, "no exercise"),
        ("POST", "/runs", run_spec("x", json!([]), json!(7)), 400, "names no exercise"),
        ("POST", "/runs", run_spec("", json!([]), json!(PREDICTION)), 400, "nothing to grade"),
        ("PUT", "/files/a.b", json!({"file_contents": "%%%"}), 400, "base64"),
        ("PUT", "/files/a%2Fb", json!({"file_contents": "AA=="}), 400, "file id"),
        ("PUT", "/files/ok", json!({"contents": "AA=="}), 400, "not valid JSON"),
    ];
    for (method, path, body, status, text) in cases {
        let r = call(&server, method, path, &key, &body);
        assert_eq!(r.status, status, "{method} {path} {body}: {}", r.text());
        assert!(r.text().contains(text), "{method} {path}: {text:?} in {}", r.text());
    }
    let huge = vec![b'a'; pruefstein::limits::REQUEST_BODY_BYTES_MAX + 1];
    let r = request(server.port, "POST", &format!("{PREFIX}/runs"), &[("X-API-KEY", &key)], &huge).unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    // Files are the client's own: another key does not see them.
    let r = call(&server, "PUT", "/files/mine", &key, &json!({"file_contents": "AA=="}));
    assert_eq!(r.status, 204);
    let (other, _) = server.client("other");
    assert_eq!(call(&server, "HEAD", "/files/mine", &other, &Value::Null).status, 404);
    let count: i64 = server.db().query_row("SELECT count(*) FROM submissions", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 0, "nothing was stored");
}

/// Jobe refuses a missing or unknown `X-API-KEY` with 403 (CodeRunner: "Unauthorised to use
/// sandbox"); 401 would read as "Sandbox submission limit reached".
#[test]
fn a_missing_or_unknown_api_key_is_403_on_every_route_as_jobe_answers() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--jobe"]);
    let run = run_spec("(2, 2, 0)", json!([]), json!(PREDICTION));
    let put = json!({"file_contents": "AA=="});
    for key in ["", "pst_not-a-client"] {
        for (method, path, body) in [
            ("GET", "/languages", &Value::Null),
            ("POST", "/runs", &run),
            ("PUT", "/files/abcdef12", &put),
            ("HEAD", "/files/abcdef12", &Value::Null),
        ] {
            let r = call(&server, method, path, key, body);
            assert_eq!(r.status, 403, "{method} {path} with key {key:?}: {}", r.text());
        }
    }
    let count: i64 = server.db().query_row("SELECT count(*) FROM submissions", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 0, "nothing was stored");
}

/// A question without sandbox parameters makes CodeRunner send `"parameters": []` (PHP's empty
/// array); Jobe takes it. The run then names no exercise, and the answer says how to name one.
#[test]
fn a_run_with_an_empty_parameter_list_is_told_to_name_its_exercise() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--jobe"]);
    let (key, _) = server.client("moodle");
    let body = json!({"run_spec": {
        "language_id": "pruefstein", "sourcecode": "(2, 2, 0)", "sourcefilename": "__tester__.pruefstein",
        "input": "", "file_list": [], "parameters": [],
    }});
    let r = call(&server, "POST", "/runs", &key, &body);
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(
        r.text().contains("names no exercise") && r.text().contains("sandbox parameters"),
        "{}",
        r.text()
    );
    assert!(!r.text().contains("invalid type"), "a serde message reached CodeRunner: {}", r.text());
}

/// A rejected submission (here Python pasted into a question whose exercise takes a module) is
/// graded 0 with the reason in the prologue, which CodeRunner shows above the result table.
#[test]
fn a_rejected_run_says_why_in_the_prologue() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--jobe"]);
    let (key, _) = server.client("moodle");
    let python = "def verarbeite(con, msg):\n    return True\n";
    let grade = graded(&call(&server, "POST", "/runs", &key, &run_spec(python, json!([]), json!(CONSUMER))));
    assert_eq!(grade["fraction"], 0.0, "{grade}");
    let (_, view) = server.call_json("GET", "/api/v1/submissions/sub_1", &key, &Value::Null);
    assert_eq!(view["verdict"], "rejected", "{view}");
    let reason = view["report"]["rejection"]["message"]["en"].as_str().unwrap();
    let prologue = grade["prologuehtml"].as_str().unwrap();
    let escaped = maud::html! { (reason) }.into_string();
    assert!(prologue.contains(&escaped), "the reason {escaped:?} is not in the prologue {prologue:?}");
}

/// A run the service has not graded when its wait ends answers Jobe's time-limit outcome with
/// nothing on stderr (CodeRunner turns any stderr into a runtime error), the reason on stdout.
#[test]
fn a_run_not_graded_in_time_is_outcome_13_with_an_empty_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let launch = Launch { fault_injection: true, ..Launch::default() };
    let server = Server::launch(dir.path(), &["--jobe", "--jobe-wait-ms", "300", "--workers", "1"], launch);
    let (key, _) = server.client("moodle");
    let hang = format!("{}hang", pruefstein::isolation::worker::FAULT_PREFIX);
    let r = call(&server, "POST", "/runs", &key, &run_spec(&hang, json!([]), json!(PREDICTION)));
    assert_eq!(r.status, 200, "{}", r.text());
    let run = r.json();
    assert_eq!(run["outcome"], 13, "{run}");
    assert_eq!(run["stderr"], "", "{run}");
    assert!(run["stdout"].as_str().unwrap().contains("sub_1 is still being graded"), "{run}");
}

/// Fills the grading queue of a stopped `server` with jobs that never come due, so that the next
/// submission finds it full.
fn fill_the_queue(server: &mut Server) {
    server.kill();
    let mut db = server.db();
    let tx = db.transaction().unwrap();
    {
        let mut submission = tx
            .prepare(
                "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, request_hash, created_at) \
                 VALUES (1, ?1, 'l', 'answer', x'00', 'h', 'h', 0)",
            )
            .unwrap();
        let mut job = tx
            .prepare("INSERT INTO jobs (submission_id, leased, attempts, lease_until) VALUES (?1, 0, 0, ?2)")
            .unwrap();
        for _ in 0..pruefstein::limits::QUEUE_DEPTH_MAX {
            submission.execute([PREDICTION]).unwrap();
            job.execute(rusqlite::params![tx.last_insert_rowid(), i64::MAX / 2]).unwrap();
        }
    }
    tx.commit().unwrap();
    server.spawn();
}

/// A full queue is Jobe's "server overload" (200, outcome 21), which CodeRunner shows as "Job
/// could not be run due to server overload. Perhaps try again shortly?"; a 503 would read as an
/// unexpected error.
#[test]
fn a_full_queue_is_outcome_21_as_jobe_answers_an_overload() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &["--jobe"]);
    let (key, _) = server.client("moodle");
    fill_the_queue(&mut server);
    let r = call(&server, "POST", "/runs", &key, &run_spec("(2, 2, 0)", json!([]), json!(PREDICTION)));
    assert_eq!(r.status, 200, "{}", r.text());
    let run = r.json();
    assert_eq!((run["outcome"].as_u64(), run["stderr"].as_str()), (Some(21), Some("")), "{run}");
    let count: i64 = server.db().query_row("SELECT count(*) FROM submissions", [], |r| r.get(0)).unwrap();
    assert_eq!(count as u64, pruefstein::limits::QUEUE_DEPTH_MAX, "the overloaded run was not stored");
}

/// The prologue's verdict word is in the run's language, as the rest of it is.
#[test]
fn the_prologue_is_in_the_language_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--jobe"]);
    let (key, _) = server.client("moodle");
    let mut spec = run_spec("(2, 2, 0)", json!([]), json!(PREDICTION));
    for (lang, words, foreign) in [
        ("de", ["bestanden", "nicht bestanden"], ["passed", "failed"]),
        ("en", ["passed", "failed"], ["bestanden", "nicht bestanden"]),
    ] {
        spec["run_spec"]["parameters"]["lang"] = json!(lang);
        let grade = graded(&call(&server, "POST", "/runs", &key, &spec));
        let prologue = grade["prologuehtml"].as_str().unwrap();
        let verdict = prologue.strip_prefix("<p><strong>").and_then(|p| p.split_once("</strong>")).unwrap().0;
        assert!(words.contains(&verdict), "{lang}: {verdict:?} in {prologue}");
        assert!(foreign.iter().all(|w| !prologue.contains(w)), "{lang}: {prologue}");
    }
}

/// The environment variable naming a checkout of Moodle CodeRunner (`moodle-qtype_coderunner`),
/// whose own Jobe client the next test drives.
const CODERUNNER_DIR_ENV: &str = "PRUEFSTEIN_CODERUNNER_DIR";

/// Runs CodeRunner's `classes/jobesandbox.php`, unmodified, from the checkout in
/// [`CODERUNNER_DIR_ENV`] over the Moodle shim in `tests/coderunner/` against `server`, with the
/// calls in `calls`; returns its answer per call.
fn coderunner(checkout: &std::path::Path, server: &Server, key: &str, calls: Value) -> Vec<Value> {
    let request = json!({"jobe_host": format!("127.0.0.1:{}", server.port), "api_key": key, "calls": calls});
    let mut child = Command::new("php")
        .arg(repo().join("tests/coderunner/run.php"))
        .arg(checkout)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("php runs (Debian's php-cli)");
    child.stdin.take().unwrap().write_all(request.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "run.php failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str::<Vec<Value>>(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// What a CodeRunner question shows for each exchange, through CodeRunner's own Jobe client:
/// a key it does not know is "Unauthorised to use sandbox"; a question without sandbox parameters
/// is told to name its exercise; a rejected answer shows its reason; a grade is in the run's
/// language; a module uploaded on 404 is graded; a run not graded in time is a time limit with the
/// reason, not a runtime error; a full queue is a server overload. Runs only where a checkout is
/// named (`cargo test --test integration service::jobe:: -- --ignored` with the variable set; the
/// test command runs it then), and fails rather than passes without one.
#[test]
#[ignore = "needs a checkout of Moodle CodeRunner in PRUEFSTEIN_CODERUNNER_DIR (its classes/jobesandbox.php)"]
fn coderunner_s_own_jobe_client_shows_what_jobe_would_show() {
    let checkout = std::env::var_os(CODERUNNER_DIR_ENV).map(PathBuf::from).unwrap_or_else(|| {
        panic!("the real-client check did NOT run: set {CODERUNNER_DIR_ENV} to a checkout of moodle-qtype_coderunner")
    });
    assert!(
        checkout.join("classes/jobesandbox.php").is_file(),
        "{} holds no classes/jobesandbox.php",
        checkout.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let launch = Launch { fault_injection: true, ..Launch::default() };
    let server = Server::launch(&dir.path().join("a"), &["--jobe", "--jobe-wait-ms", "300"], launch);
    let (key, _) = server.client("moodle");
    let params =
        |exercise: &str, lang: &str| json!({"exercise": exercise, "lang": lang, "learner": "cr-anna"});
    let run = |source: &str, params: Value| json!({"call": "execute", "sourcecode": source, "language": "pruefstein", "params": params});
    let python = "def verarbeite(con, msg):\n    return True\n";
    let hang = format!("{}hang", pruefstein::isolation::worker::FAULT_PREFIX);
    let module = base64::engine::general_purpose::STANDARD.encode(exercise_file("solutions/reference.wat"));
    let answers = coderunner(
        &checkout,
        &server,
        &key,
        json!([
            {"call": "languages"},
            run("(2, 2, 0)", params(PREDICTION, "de")),
            run("(2, 2, 0)", json!([])),
            run(python, params(CONSUMER, "en")),
            {"call": "execute", "sourcecode": "", "language": "pruefstein",
             "files_base64": {"consumer.wat": module}, "params": params(CONSUMER, "en")},
            run(&hang, params(PREDICTION, "en")),
        ]),
    );
    eprintln!("CodeRunner's client saw:\n{}", serde_json::to_string_pretty(&answers).unwrap());
    assert_eq!(answers[0]["languages"], json!(["pruefstein"]), "{}", answers[0]);
    let shown = |n: usize| answers[n]["shown"].clone();
    assert_eq!(shown(1)["kind"], "graded", "{}", answers[1]);
    assert!(shown(1)["prologuehtml"].as_str().unwrap().contains("bestanden</strong>"), "{}", answers[1]);
    assert_eq!(shown(2)["kind"], "sandbox-error", "{}", answers[2]);
    assert!(shown(2)["text"].as_str().unwrap().contains("names no exercise"), "{}", answers[2]);
    assert_eq!(
        (shown(3)["kind"].as_str(), shown(3)["fraction"].as_f64()),
        (Some("graded"), Some(0.0)),
        "{}",
        answers[3]
    );
    assert!(
        shown(3)["prologuehtml"].as_str().unwrap().contains("<strong>rejected</strong>"),
        "{}",
        answers[3]
    );
    assert!(shown(3)["prologuehtml"].as_str().unwrap().contains("WebAssembly"), "no reason: {}", answers[3]);
    assert_eq!(
        (shown(4)["kind"].as_str(), shown(4)["fraction"].as_f64()),
        (Some("graded"), Some(1.0)),
        "{}",
        answers[4]
    );
    assert_eq!(answers[5]["result"], 13, "{}", answers[5]);
    let text = shown(5)["text"].as_str().unwrap().to_string();
    assert!(text.contains("Time limit exceeded") && text.contains("still being graded"), "{}", answers[5]);

    for key in ["", "pst_not-a-client"] {
        let refused = coderunner(
            &checkout,
            &server,
            key,
            json!([{"call": "languages"}, run("(2, 2, 0)", params(PREDICTION, "en"))]),
        );
        assert_eq!(refused[1]["shown"]["text"], "Unauthorised to use sandbox", "key {key:?}: {}", refused[1]);
    }

    // The key CodeRunner's 40-character field takes: a Jobe key of the client, valid here only; the
    // template's first line names the learner.
    let out = Command::new(BIN)
        .args(["client", "jobe-key", "moodle", "--data-dir"])
        .arg(&server.data)
        .output()
        .unwrap();
    let jobe_key = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(jobe_key.len() <= 40, "{jobe_key}");
    let named = coderunner(
        &checkout,
        &server,
        &jobe_key,
        json!([run("pruefstein-learner: 4711\n(2, 2, 0)", json!({"exercise": PREDICTION, "lang": "en"}))]),
    );
    assert_eq!(named[0]["shown"]["kind"], "graded", "{}", named[0]);
    assert_eq!(server.get("/api/v1/submissions", &jobe_key).status, 401, "a Jobe key is no API token");

    let mut full = Server::start(&dir.path().join("b"), &["--jobe"]);
    let (key, _) = full.client("moodle");
    fill_the_queue(&mut full);
    let overloaded = coderunner(&checkout, &full, &key, json!([run("(2, 2, 0)", params(PREDICTION, "en"))]));
    assert_eq!(overloaded[0]["error"], 9, "{}", overloaded[0]);
    let text = overloaded[0]["shown"]["text"].as_str().unwrap();
    assert!(text.contains("server overload"), "{}", overloaded[0]);
}

/// CodeRunner sends a question's sandbox parameters as they are written, the same for every student;
/// its template is where Twig names the student. A first line `pruefstein-learner: {{ STUDENT.id }}`
/// makes each student's run that learner's (their own variant), and is not part of the answer; a
/// learner id the service refuses anywhere (control or bidi characters) is refused here too.
#[test]
fn the_template_names_the_learner_so_each_student_grades_their_own_variant() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--jobe"]);
    let (key, _) = server.client("moodle");
    let module = exercise_file("solutions/reference.wat");
    for (n, student) in ["4711", "4712"].into_iter().enumerate() {
        let source = format!("pruefstein-learner: {student}\r\n{module}");
        let grade =
            graded(&call(&server, "POST", "/runs", &key, &run_spec(&source, json!([]), json!(CONSUMER))));
        assert_eq!(grade["fraction"], 1.0, "the line is not part of the module: {grade}");
        let (status, view) =
            server.call_json("GET", &format!("/api/v1/submissions/sub_{}", n + 1), &key, &Value::Null);
        assert_eq!((status, view["learner"].as_str()), (200, Some(student)), "{view}");
    }
    let hostile = format!("pruefstein-learner: eve\u{202e}\n{module}");
    let r = call(&server, "POST", "/runs", &key, &run_spec(&hostile, json!([]), json!(CONSUMER)));
    assert_eq!(r.status, 400, "{}", r.text());
}
