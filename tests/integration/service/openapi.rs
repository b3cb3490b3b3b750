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
                let mut allow = declared.clone();
                if declared.iter().any(|m| m == "GET") {
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
    let learner_max = doc["components"]["schemas"]["SubmissionRequest"]["properties"]["learner"]["maxLength"]
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
    let past = json!({"exercise": PREDICTION, "learner": "l".repeat(learner_max + 1), "answer": "(1)"});
    let response = server.post_json("/api/v1/submissions", &token, &past, None);
    assert_eq!(response.json()["type"], "urn:pruefstein:problem:bad-learner", "{}", response.text());
    let response =
        server.post_json("/api/v1/submissions", &token, &at_limit, Some(&format!("{key_at_limit}k")));
    assert_eq!(response.json()["type"], "urn:pruefstein:problem:bad-idempotency-key");
    let learner = format!("/api/v1/exercises/{PREDICTION}?lang=en&learner=");
    assert_eq!(server.get(&format!("{learner}{}", "l".repeat(learner_max)), &token).status, 200);
    assert_eq!(server.get(&format!("{learner}{}", "l".repeat(learner_max + 1)), &token).status, 400);
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

/// Examples per operation and the seed of the schemathesis run (bounded: well under a minute).
const SCHEMATHESIS_EXAMPLES: &str = "100";
const SCHEMATHESIS_SEED: &str = "1";

/// Runs schemathesis (every check, positive and negative data, the stateful phase along the links)
/// on the API operations of `location` against `server`: its output when it finds a
/// non-conformance.
fn schemathesis(server: &Server, token: &str, location: &str, extra: &[&str]) -> Result<(), String> {
    let config = repo().join("tests/integration/service/schemathesis.toml");
    let out = Command::new("python3")
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .args(["-m", "schemathesis.cli", "--config-file"])
        .arg(config)
        .args(["run", location, "--url", &format!("http://127.0.0.1:{}", server.port)])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["--include-path-regex", "^/api/", "--seed", SCHEMATHESIS_SEED])
        .args(["--no-color", "--generation-database", "none", "--request-timeout", "60"])
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("python3 cannot be started ({e}); scripts/test installs it"));
    let message = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        !message.contains("No module named schemathesis"),
        "schemathesis is not installed: scripts/test installs the pinned version"
    );
    if out.status.success() { Ok(()) } else { Err(message) }
}

#[test]
fn schemathesis_finds_no_nonconformance_on_a_test_server() {
    let (server, token, _data) = served();
    let url = format!("http://127.0.0.1:{}/api/v1/openapi.json", server.port);
    if let Err(message) = schemathesis(&server, &token, &url, &["-n", SCHEMATHESIS_EXAMPLES]) {
        panic!("schemathesis finds the server not conforming to its OpenAPI document:\n{message}");
    }

    // The check can fail: with `lang`'s enum taken out of the document, a schema-valid language is
    // refused (400 bad-lang), and schemathesis says so.
    let mut broken = document(&server);
    let lang = broken["paths"]["/api/v1/exercises/{slug}"]["get"]["parameters"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "lang")
        .unwrap();
    lang["schema"].as_object_mut().unwrap().remove("enum");
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("openapi-lang-without-enum.json");
    std::fs::write(&path, serde_json::to_vec(&broken).unwrap()).unwrap();
    let only = ["--include-operation-id", "get_exercise", "-n", "20"];
    let message =
        schemathesis(&server, &token, path.to_str().unwrap(), &only).expect_err("the broken document");
    assert!(message.contains("Schema-valid request rejected") && message.contains("bad-lang"), "{message}");
}
