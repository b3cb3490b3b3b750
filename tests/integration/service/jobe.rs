//! The Jobe-compatible endpoint as Moodle CodeRunner uses it: the languages, a run whose module is
//! a file the server does not hold yet (404, then `PUT`, then the run again), a run with the module
//! as source code, and hostile requests; off unless the server is started with `--jobe`.

use super::*;

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
    for (key, status) in [("", 401), ("pst_wrong", 401)] {
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
