//! The API contract, one focused test per promise, each against a fresh server: auth, limits,
//! errors, idempotency, waiting, report pages, catalogue, kits, metrics, OpenAPI.

use super::*;

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
fn source_is_graded_from_json_and_from_a_py_or_js_file_and_refused_where_not_accepted() {
    let c = contract();
    let lesson = exercise_file("solutions/lesson.py");
    let r = c.server.post_json(
        "/api/v1/submissions?wait=30s",
        &c.token,
        &json!({"exercise": CONSUMER, "learner": "dora", "language": "python", "source": lesson}),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["verdict"], "passed");
    // The same file as a multipart upload named *.py.
    let boundary = "PyB0undary";
    let mut body = Vec::new();
    for (name, value) in [("exercise", CONSUMER), ("learner", "emil")] {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"consumer.py\"\r\n\
             Content-Type: text/x-python\r\n\r\n{lesson}\r\n--{boundary}--\r\n"
        )
        .as_bytes(),
    );
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let r = c.server.call(
        "POST",
        "/api/v1/submissions?wait=30s",
        &c.token,
        &[("Content-Type", &content_type)],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["verdict"], "passed");
    // JavaScript the same way: JSON with its language, or a file named *.js.
    let reference = exercise_file("solutions/reference.js");
    let r = c.server.post_json(
        "/api/v1/submissions?wait=30s",
        &c.token,
        &json!({"exercise": CONSUMER, "learner": "finn", "language": "javascript", "source": reference}),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!((r.json()["verdict"].as_str(), r.json()["kind"].as_str()), (Some("passed"), Some("module")));
    let mut body = Vec::new();
    for (name, value) in [("exercise", CONSUMER), ("learner", "gina")] {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .as_bytes(),
        );
    }
    let mutant = exercise_file("mutants/no-dedup.js");
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"consumer.js\"\r\n\
             Content-Type: text/javascript\r\n\r\n{mutant}\r\n--{boundary}--\r\n"
        )
        .as_bytes(),
    );
    let r = c.server.call(
        "POST",
        "/api/v1/submissions?wait=30s",
        &c.token,
        &[("Content-Type", &content_type)],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["verdict"], "failed", "{}", r.text());
    // The catalogue says which languages an exercise accepts.
    let detail = c.server.get(&format!("/api/v1/exercises/{CONSUMER}"), &c.token).json();
    assert_eq!(detail["languages"], json!(["python", "javascript", "typescript"]));
    let detail = c.server.get(&format!("/api/v1/exercises/{PREDICTION}"), &c.token).json();
    assert!(detail.get("languages").is_none(), "{detail}");
    // Refusals: an unknown language, source without its language, source for a prediction.
    for (body, status, code) in [
        (
            json!({"exercise": CONSUMER, "learner": "a", "language": "cobol", "source": "x"}),
            400,
            "unknown-language",
        ),
        (json!({"exercise": CONSUMER, "learner": "a", "source": "x"}), 422, "source-without-language"),
        (
            json!({"exercise": PREDICTION, "learner": "a", "language": "python", "source": "x"}),
            422,
            "language-not-accepted",
        ),
    ] {
        let r = c.server.post_json("/api/v1/submissions", &c.token, &body, None);
        assert_eq!(r.status, status, "{}", r.text());
        assert!(
            r.json()["type"].as_str().unwrap_or_default().ends_with(code) || r.text().contains(code),
            "{}",
            r.text()
        );
    }
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

/// A request that waited is answered with what the grading thread stored, without reading it back:
/// the answer is the same, byte for byte, as a later read of the submission, for a passing and a
/// failing consumer and for an answer.
#[test]
fn a_waited_answer_is_the_stored_submission_byte_for_byte() {
    let c = contract();
    let waited = [
        post_reference_multipart(&c),
        post_mutant_waiting(&c),
        c.server.post_json("/api/v1/submissions?wait=20s", &c.token, &anna(), None),
    ];
    for answer in waited {
        assert_eq!(answer.status, 200, "{}", answer.text());
        let view = answer.json();
        assert!(view["status"] == "graded" && view["report"].is_object(), "{view}");
        let id = view["id"].as_str().unwrap();
        let read = c.server.get(&format!("/api/v1/submissions/{id}"), &c.token);
        let (read, answer) = (read.text(), answer.text());
        let first_difference = read.bytes().zip(answer.bytes()).position(|(a, b)| a != b);
        assert!(
            read == answer,
            "the waited answer ({} bytes) differs from what is stored ({} bytes), first at byte {first_difference:?}",
            answer.len(),
            read.len()
        );
    }
}
