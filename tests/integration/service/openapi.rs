//! The OpenAPI document as outside tools take it: the document the server serves passes
//! `openapi-spec-validator`, schemathesis finds no non-conformance on a test server (both pinned
//! and installed by `scripts/test`), and what the document declares holds on the running server:
//! the methods of each path (HEAD with GET; any other is 405 with `Allow`), the limits at their
//! boundaries, the examples, and the links from a created submission to its reads.

use std::path::Path;

use super::*;

/// A server with one client: the server, its token and (dropped after it) its data directory.
fn served() -> (Server, String, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path(), &[]);
    let (token, _) = server.client("lms");
    (server, token, data)
}

/// The document the server serves.
fn document(server: &Server) -> Value {
    let response = request(server.port, "GET", "/api/v1/openapi.json", &[], b"").unwrap();
    assert_eq!(response.status, 200);
    assert!(response.header("content-type").unwrap().starts_with("application/json"));
    response.json()
}

/// Runs `openapi-spec-validator` on the file `path`: its message when it finds the document invalid.
fn validate(path: &Path) -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-m", "openapi_spec_validator"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("python3 cannot be started ({e}); scripts/test installs it"));
    let message = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        !message.contains("No module named openapi_spec_validator"),
        "openapi-spec-validator is not installed: scripts/test installs the pinned version"
    );
    if out.status.success() { Ok(()) } else { Err(message) }
}

/// Writes `doc` to `target/tmp/<name>` and validates that file.
fn validate_written(name: &str, doc: &Value) -> Result<(), String> {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    validate(&path)
}

#[test]
fn the_served_document_passes_openapi_spec_validator() {
    let (server, _token, _data) = served();
    let doc = document(&server);
    if let Err(message) = validate_written("openapi.json", &doc) {
        panic!("openapi-spec-validator rejects the served document (target/tmp/openapi.json):\n{message}");
    }
    assert_eq!(doc, pruefstein::service::http::openapi::document().unwrap(), "served = generated");

    // The check can fail: the document's former defect, a query parameter declared in the path,
    // is rejected by the validator, which names it.
    let mut broken = doc.clone();
    let lang = broken["paths"]["/api/v1/exercises/{slug}"]["get"]["parameters"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "lang")
        .unwrap();
    lang["in"] = json!("path");
    lang["required"] = json!(true);
    let message = validate_written("openapi-lang-in-path.json", &broken).expect_err("the broken document");
    assert!(message.contains("Path parameter 'lang'"), "{message}");
}

/// A concrete request path for a templated one, with values of the right form.
fn concrete(template: &str) -> String {
    template.replace("{id}", "sub_1").replace("{slug}", PREDICTION).replace("{event_id}", "evt_sub_1")
}

#[test]
fn every_documented_path_answers_an_undeclared_method_with_405_and_allow() {
    let (server, token, _data) = served();
    let doc = document(&server);
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 10, "{paths:?}");
    for (template, item) in paths {
        let declared: Vec<String> = ["get", "post", "put", "patch", "delete"]
            .into_iter()
            .filter(|m| item.get(*m).is_some())
            .map(str::to_uppercase)
            .collect();
        let path = concrete(template);
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
            let response = server.call(method, &path, &token, &[], b"");
            if declared.iter().any(|m| m == method) {
                // Served: whatever its answer (401, 404 for an unknown id...), not the router's.
                assert_ne!(response.status, 405, "{method} {path} is declared: {}", response.text());
                assert_ne!(
                    response.json_or_text()["type"],
                    "urn:pruefstein:problem:no-route",
                    "{method} {path}"
                );
            } else {
                assert_eq!(response.status, 405, "{method} {path}: {}", response.text());
                // HEAD is served with GET, and declared on its own where there is no GET.
                let mut allow = declared.clone();
                if declared.iter().any(|m| m == "GET") || item.get("head").is_some() {
                    allow.push("HEAD".into());
                }
                assert_eq!(response.header("allow"), Some(allow.join(", ").as_str()), "{method} {path}");
                assert_eq!(response.header("content-type"), Some("application/problem+json"));
                assert_eq!(response.json()["type"], "urn:pruefstein:problem:method-not-allowed");
            }
        }
    }
    // HEAD is GET without the body (RFC 9110), on every path that serves GET.
    let head = server.call("HEAD", "/api/v1/exercises", &token, &[], b"");
    let get = server.get("/api/v1/exercises", &token);
    assert_eq!((head.status, head.header("content-length")), (200, get.header("content-length")));
    assert!(head.body.is_empty(), "{}", head.text());
    for path in ["/api/v1/nothing", "/api/v1/submissions/sub_1/more", "/api"] {
        for method in ["GET", "DELETE"] {
            let response = server.call(method, path, &token, &[], b"");
            assert_eq!(response.status, 404, "{method} {path}");
            assert_eq!(response.header("allow"), None, "{method} {path}");
            assert_eq!(response.json()["type"], "urn:pruefstein:problem:no-route");
        }
    }
}

/// The parameter `name` of `operation`.
fn param<'a>(operation: &'a Value, name: &str) -> &'a Value {
    operation["parameters"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap()
}

/// The value at a runtime expression `$response.body#/pointer` of `body`.
fn resolve(expression: &str, body: &Value) -> String {
    let pointer = expression.strip_prefix("$response.body#").expect("a body expression");
    body.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{expression} in {body}"))
        .to_string()
}

#[test]
fn the_documented_examples_limits_and_links_hold_on_the_server() {
    let (server, token, _data) = served();
    let doc = document(&server);
    let create = &doc["paths"]["/api/v1/submissions"]["post"];
    let learner_max = doc["components"]["schemas"]["AnswerSubmission"]["properties"]["learner"]["maxLength"]
        .as_u64()
        .unwrap() as usize;
    let key = param(create, "Idempotency-Key");
    let key_max = key["schema"]["maxLength"].as_u64().unwrap() as usize;

    // Every JSON example is accepted.
    let examples = create["requestBody"]["content"]["application/json"]["examples"].as_object().unwrap();
    assert!(!examples.is_empty());
    let mut created = Vec::new();
    for (name, example) in examples {
        let response = server.post_json("/api/v1/submissions", &token, &example["value"], None);
        assert_eq!(response.status, 202, "example {name}: {}", response.text());
        created.push(response);
    }

    // The declared lengths are the enforced ones: at the limit accepted, one past it refused.
    let at_limit = json!({"exercise": PREDICTION, "learner": "l".repeat(learner_max), "answer": "(1)"});
    let key_at_limit = "k".repeat(key_max);
    let response = server.post_json("/api/v1/submissions", &token, &at_limit, Some(&key_at_limit));
    assert_eq!(response.status, 202, "{}", response.text());
    // maxLength counts characters, and so does the service: as many two-byte characters are taken too.
    let wide = json!({"exercise": PREDICTION, "learner": "ü".repeat(learner_max), "answer": "(1)"});
    assert_eq!(server.post_json("/api/v1/submissions", &token, &wide, None).status, 202);
    let past = json!({"exercise": PREDICTION, "learner": "l".repeat(learner_max + 1), "answer": "(1)"});
    let response = server.post_json("/api/v1/submissions", &token, &past, None);
    assert_eq!(response.json()["type"], "urn:pruefstein:problem:bad-learner", "{}", response.text());
    let response =
        server.post_json("/api/v1/submissions", &token, &at_limit, Some(&format!("{key_at_limit}k")));
    assert_eq!(response.json()["type"], "urn:pruefstein:problem:bad-idempotency-key");
    let learner = format!("/api/v1/exercises/{PREDICTION}?lang=en&learner=");
    assert_eq!(server.get(&format!("{learner}{}", "l".repeat(learner_max)), &token).status, 200);
    assert_eq!(server.get(&format!("{learner}{}", "l".repeat(learner_max + 1)), &token).status, 400);
    assert_eq!(server.get(&format!("{learner}{}", "%C3%BC".repeat(learner_max)), &token).status, 200);
    for lang in
        param(&doc["paths"]["/api/v1/exercises/{slug}"]["get"], "lang")["schema"]["enum"].as_array().unwrap()
    {
        let lang = lang.as_str().unwrap();
        let response = server.get(&format!("/api/v1/exercises/{PREDICTION}?lang={lang}"), &token);
        assert_eq!((response.status, response.json()["lang"].as_str()), (200, Some(lang)));
    }

    // Each link of a created submission leads to a read that answers 200.
    let links = create["responses"]["202"]["links"].as_object().unwrap();
    assert!(links.contains_key("GetSubmission"), "{links:?}");
    let operations: HashMap<&str, &str> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(path, item)| Some((item["get"]["operationId"].as_str()?, path.as_str())))
        .collect();
    for response in &created {
        let body = response.json();
        for (name, link) in links {
            let mut path = operations[link["operationId"].as_str().unwrap()].to_string();
            for (parameter, expression) in link["parameters"].as_object().unwrap() {
                path =
                    path.replace(&format!("{{{parameter}}}"), &resolve(expression.as_str().unwrap(), &body));
            }
            let read = server.get(&path, &token);
            assert_eq!(read.status, 200, "link {name} to {path}: {}", read.text());
        }
    }
}

/// Examples per operation (bounded: well under a minute).
const SCHEMATHESIS_EXAMPLES: &str = "100";

/// The seed of the schemathesis run: `PRUEFSTEIN_SCHEMATHESIS_SEED` to reproduce a run, else
/// derived from the commit checked out (its first eight hex digits), so that each commit tries new
/// inputs; 1 outside a git checkout. Printed, and named in a failure.
fn schemathesis_seed() -> String {
    if let Ok(seed) = std::env::var("PRUEFSTEIN_SCHEMATHESIS_SEED") {
        return seed;
    }
    let head = Command::new("git").arg("-C").arg(repo()).args(["rev-parse", "HEAD"]).output();
    let seed = head
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| u32::from_str_radix(String::from_utf8_lossy(&out.stdout).get(..8)?, 16).ok())
        .unwrap_or(1);
    seed.to_string()
}

/// Runs schemathesis (every check, positive and negative data, the stateful phase along the links)
/// on the API and LTI operations of `location` against `server`: its output when it finds a
/// non-conformance.
fn schemathesis(server: &Server, token: &str, location: &str, extra: &[&str]) -> Result<(), String> {
    let seed = schemathesis_seed();
    eprintln!("schemathesis seed {seed} (PRUEFSTEIN_SCHEMATHESIS_SEED={seed} repeats this run)");
    let config = repo().join("tests/integration/service/schemathesis.toml");
    let out = Command::new("python3")
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .args(["-m", "schemathesis.cli", "--config-file"])
        .arg(config)
        .args(["run", location, "--url", &format!("http://127.0.0.1:{}", server.port)])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["--include-path-regex", "^/(api|lti)/", "--seed", &seed])
        .args(["--no-color", "--generation-database", "none", "--request-timeout", "60"])
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("python3 cannot be started ({e}); scripts/test installs it"));
    let message = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        !message.contains("No module named schemathesis"),
        "schemathesis is not installed: scripts/test installs the pinned version"
    );
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{message}\n(seed {seed}: PRUEFSTEIN_SCHEMATHESIS_SEED={seed} repeats this run)"))
    }
}

#[test]
fn schemathesis_finds_no_nonconformance_on_a_test_server() {
    let (server, token, _data) = served();
    let url = format!("http://127.0.0.1:{}/api/v1/openapi.json", server.port);
    if let Err(message) = schemathesis(&server, &token, &url, &["-n", SCHEMATHESIS_EXAMPLES]) {
        panic!("schemathesis finds the server not conforming to its OpenAPI document:\n{message}");
    }

    // The check can fail: with `lang` documented as one language the server does not have, every
    // schema-valid request is refused (400 bad-lang), and schemathesis says so whatever its seed
    // (a document that only widened the enum left it to chance whether 20 examples tried a value
    // outside it).
    let mut broken = document(&server);
    let lang = broken["paths"]["/api/v1/exercises/{slug}"]["get"]["parameters"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "lang")
        .unwrap();
    lang["required"] = json!(true);
    lang["schema"] = json!({"type": "string", "enum": ["xx"]});
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("openapi-lang-unknown-only.json");
    std::fs::write(&path, serde_json::to_vec(&broken).unwrap()).unwrap();
    let only = ["--include-operation-id", "get_exercise", "-n", "20"];
    let message =
        schemathesis(&server, &token, path.to_str().unwrap(), &only).expect_err("the broken document");
    assert!(message.contains("Schema-valid request rejected") && message.contains("bad-lang"), "{message}");

    // The same on the LTI routes: with `iss` documented as empty, every schema-valid login is
    // refused as missing its issuer (400).
    let mut broken = document(&server);
    let iss = broken["paths"]["/lti/login"]["get"]["parameters"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "iss")
        .unwrap();
    iss["schema"] = json!({"type": "string", "maxLength": 0});
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("openapi-iss-empty-only.json");
    std::fs::write(&path, serde_json::to_vec(&broken).unwrap()).unwrap();
    let only = ["--include-operation-id", "login", "-n", "20"];
    let message =
        schemathesis(&server, &token, path.to_str().unwrap(), &only).expect_err("the broken document");
    assert!(
        message.contains("Schema-valid request rejected") && message.contains("/lti/login?iss=&"),
        "{message}"
    );
}

/// The failing check a mutant of exercise 03 names in its first line (`;; expect-fail: CHECK`).
fn expected_failure(mutant: &str) -> String {
    let text = std::fs::read_to_string(repo().join("exercises").join(CONSUMER).join(mutant)).unwrap();
    let first = text.lines().next().unwrap();
    first.strip_prefix(";; expect-fail: ").unwrap_or_else(|| panic!("{mutant}: {first}")).trim().to_string()
}

/// Runs `openapi-python-client` on the document at `doc` into `into`: its output when it fails.
fn generate_client(doc: &Path, into: &Path) -> Result<String, String> {
    let out = Command::new("python3")
        .args(["-m", "openapi_python_client", "generate"])
        .arg("--path")
        .arg(doc)
        .arg("--config")
        .arg(repo().join("tests/integration/service/openapi-python-client.yml"))
        .args(["--meta", "none", "--overwrite", "--output-path"])
        .arg(into)
        .output()
        .unwrap_or_else(|e| {
            panic!("openapi-python-client cannot be started ({e}); scripts/test installs it")
        });
    let message = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() { Ok(message) } else { Err(message) }
}

#[test]
fn a_client_generated_from_the_document_submits_and_reads_results() {
    let (server, token, _data) = served();
    let doc = document(&server);
    let tmp = tempfile::tempdir().unwrap();
    let doc_path = tmp.path().join("openapi.json");
    std::fs::write(&doc_path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let package = tmp.path().join("pruefstein_client");
    let generated = generate_client(&doc_path, &package)
        .unwrap_or_else(|message| panic!("openapi-python-client rejects the document:\n{message}"));
    // A body schema the generator cannot type becomes `Any`, silently, and the generated code
    // cannot send it (`isinstance(body, Any)` raises): each kind of submission must be a type.
    let create = std::fs::read_to_string(package.join("api/submissions/create_submission.py")).unwrap();
    for (module, model) in [
        ("answer_submission", "AnswerSubmission"),
        ("wasm_submission", "WasmSubmission"),
        ("wat_submission", "WatSubmission"),
        ("source_submission", "SourceSubmission"),
    ] {
        assert!(create.contains(&format!("from ...models.{module} import {model}")), "{generated}\n{create}");
    }
    assert!(!create.contains("isinstance(body, Any)"), "{create}");

    let mutant = "mutants/no-dedup.wat";
    let exercise_dir = repo().join("exercises").join(CONSUMER);
    let out = Command::new("python3")
        .arg(repo().join("tests/integration/service/generated_client.py"))
        .arg(tmp.path())
        .arg(format!("http://127.0.0.1:{}", server.port))
        .arg(&token)
        .arg(CONSUMER)
        .arg(exercise_dir.join("solutions/reference.wat"))
        .arg(exercise_dir.join(mutant))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the generated client failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();

    let reference = &seen["reference"];
    assert_eq!(reference["created_status"], 200, "{seen}");
    assert_eq!((&reference["status"], &reference["verdict"]), (&json!("graded"), &json!("passed")), "{seen}");
    assert_eq!(reference["failed_checks"], json!([]), "{seen}");
    let mutant_seen = &seen["mutant"];
    assert_eq!(
        (&mutant_seen["status"], &mutant_seen["verdict"]),
        (&json!("graded"), &json!("failed")),
        "{seen}"
    );
    let failed = mutant_seen["failed_checks"].as_array().unwrap();
    assert!(failed.contains(&json!(expected_failure(mutant))), "{seen}");
    for name in ["reference", "mutant"] {
        let entry = &seen[name];
        assert_eq!(entry["read"]["id"], entry["id"], "{seen}");
        assert_eq!(entry["read"]["verdict"], entry["verdict"], "{seen}");
        assert_eq!(entry["read"]["points"], entry["points"], "{seen}");
    }
    let mut ids = vec![reference["id"].clone(), mutant_seen["id"].clone()];
    ids.sort_by_key(|id| id.to_string());
    assert_eq!(seen["listed"], json!(ids), "{seen}");
    assert_eq!(seen["refused"]["status"], 404, "{seen}");
    assert_eq!(seen["refused"]["type"], "urn:pruefstein:problem:unknown-exercise", "{seen}");

    // The test can fail: with the JSON body's variants folded back into one schema with
    // `oneOf` of `required` lists (the document before the variants), the generator types the body
    // as `Any`, and the client cannot send it.
    let mut folded = doc.clone();
    let schemas = &mut folded["components"]["schemas"];
    let mut merged = serde_json::Map::new();
    let mut one_of = Vec::new();
    for variant in ["AnswerSubmission", "WasmSubmission", "WatSubmission", "SourceSubmission"] {
        let schema = schemas[variant].clone();
        merged.extend(schema["properties"].as_object().unwrap().clone());
        let own: Vec<&Value> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| *f != "exercise" && *f != "learner")
            .collect();
        one_of.push(json!({"required": own}));
    }
    schemas["SubmissionRequest"] = json!({
        "type": "object", "required": ["exercise", "learner"], "properties": merged, "oneOf": one_of,
    });
    std::fs::write(&doc_path, serde_json::to_vec(&folded).unwrap()).unwrap();
    let generated = generate_client(&doc_path, &package).unwrap_or_else(|message| message);
    let create = std::fs::read_to_string(package.join("api/submissions/create_submission.py")).unwrap();
    assert!(
        create.contains("isinstance(body, Any)") && !create.contains("WatSubmission"),
        "{generated}\n{create}"
    );
}
