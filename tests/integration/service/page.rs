//! The student's page (`/learn/{slug}`): reached by a link from the REST API, used without
//! JavaScript (a multipart form POST, then a page that reloads itself until the report is there),
//! with the learner's history; hostile links and forms first. In headless Chromium through
//! `tests/browser/check-page.mjs`: submit, wait, report shown, German and English, phone width.

use super::*;

/// A multipart body of `fields` (name, file name, bytes) with the boundary `XB`.
pub(crate) fn multipart(fields: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file, bytes) in fields {
        body.extend_from_slice(b"--XB\r\n");
        match file {
            Some(file) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--XB--\r\n");
    body
}

/// Path and query of a full URL of the server.
pub(crate) fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map_or("/".to_string(), |i| rest[i..].to_string())
}

/// POSTs a form to the page at `path`.
pub(crate) fn post_form(server: &Server, path: &str, body: &[u8]) -> Response {
    request(server.port, "POST", path, &[("Content-Type", "multipart/form-data; boundary=XB")], body).unwrap()
}

/// The learner's page link from the REST API: its path and query.
fn page_link(server: &Server, token: &str, learner: &str) -> String {
    let r = server.get(&format!("/api/v1/exercises/{CONSUMER}/page?learner={learner}"), token);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let path = path_of(r.json()["url"].as_str().unwrap());
    assert!(path.ends_with("&lang=de"), "{path}");
    path
}

fn submissions(server: &Server) -> i64 {
    server.db().query_row("SELECT count(*) FROM submissions", [], |r| r.get(0)).unwrap()
}

/// Waits until the page at `path` shows a verdict other than "being graded"; returns its text.
pub(crate) fn graded_page(server: &Server, path: &str) -> String {
    poll("the page to show the report", Duration::from_secs(90), || {
        let r = request(server.port, "GET", path, &[], b"").unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        let text = r.text();
        (!text.contains("verdict pending")).then_some(text)
    })
}

#[test]
fn the_page_takes_a_module_without_javascript_and_shows_report_and_history() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let path = page_link(&server, &token, "anna");

    let r = request(server.port, "GET", &path, &[], b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    let csp = r.header("content-security-policy").unwrap();
    assert!(csp.contains("frame-ancestors 'self'") && csp.contains("form-action 'self'"), "{csp}");
    assert!(!csp.contains("script-src") && csp.contains("default-src 'none'"), "no script: {csp}");
    assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
    assert!(r.header("x-frame-options").is_none(), "an LMS frames the page");
    let text = r.text();
    assert!(text.contains("<html lang=\"de\""), "German by default");
    assert!(text.contains("Abgeben") && text.contains("enctype=\"multipart/form-data\""), "{text}");
    assert!(text.contains("/kits/"), "starter kits are linked: {text}");
    assert!(!text.contains("<script"), "no JavaScript");
    assert!(!text.contains("id=\"result\""), "nothing submitted yet");
    assert!(
        text.contains("accept=\".wasm,.wat,.py,.js,.ts\""),
        "a module or source in the languages taken: {text}"
    );

    let module = exercise_file("solutions/reference.wat");
    let body = multipart(&[
        ("exercise", None, CONSUMER.as_bytes()),
        ("learner", None, b"anna"),
        ("file", Some("reference.wat"), module.as_bytes()),
    ]);
    let r = post_form(&server, &path, &body);
    assert_eq!(r.status, 303, "{}", r.text());
    let location = r.header("location").unwrap().to_string();
    assert!(
        location.starts_with(&format!("/learn/{CONSUMER}?")) && location.contains("&s=sub_"),
        "{location}"
    );
    let first = graded_page(&server, &location);
    assert!(first.contains("BESTANDEN"), "{first}");
    assert!(!first.contains("http-equiv=\"refresh\""), "a graded page does not reload itself");

    // Source in a language the exercise takes, by its file name (here JavaScript).
    let mutant = exercise_file("mutants/no-dedup.js");
    let body = multipart(&[
        ("exercise", None, CONSUMER.as_bytes()),
        ("learner", None, b"anna"),
        ("file", Some("no-dedup.js"), mutant.as_bytes()),
    ]);
    let r = post_form(&server, &path, &body);
    assert_eq!(r.status, 303, "{}", r.text());
    let second_location = r.header("location").unwrap().to_string();
    let second = graded_page(&server, &second_location);
    assert!(second.contains("NICHT BESTANDEN") && second.contains("fresh-message"), "{second}");
    // The history lists both, newest first; the first one's report is one click away.
    let history = &second[second.find("id=\"history\"").expect("a history")..];
    let (one, two) = (history.find("sub_2").unwrap(), history.find("sub_1").unwrap());
    assert!(one < two, "newest first: {history}");
    let english = graded_page(&server, &location.trim_end_matches("#result").replace("lang=de", "lang=en"));
    assert!(english.contains("<html lang=\"en\"") && english.contains("PASSED"), "{english}");
    assert!(english.contains("Your submissions"), "{english}");

    // Another learner of the same client sees none of Anna's submissions.
    let other = page_link(&server, &token, "ben");
    let r = request(server.port, "GET", &other, &[], b"").unwrap();
    assert!(!r.text().contains("id=\"history\""), "{}", r.text());
    let r = request(server.port, "GET", &format!("{other}&s=sub_1"), &[], b"").unwrap();
    assert!(!r.text().contains("id=\"result\""), "another learner's submission is not shown");
    // Through the API the submissions belong to the client that made the link.
    let (status, view) = server.call_json("GET", "/api/v1/submissions/sub_1", &token, &Value::Null);
    assert_eq!((status, view["learner"].as_str()), (200, Some("anna")), "{view}");
}

#[test]
fn hostile_links_and_forms_get_a_clear_page_and_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let path = page_link(&server, &token, "anna");
    let good = |learner: &[u8], file: &[u8]| {
        multipart(&[
            ("exercise", None, CONSUMER.as_bytes()),
            ("learner", None, learner),
            ("file", Some("m.wat"), file),
        ])
    };
    let module = exercise_file("solutions/reference.wat");

    // Links: a token changed, missing, for another learner or exercise, a malformed client.
    let t = path.split("&t=").nth(1).unwrap().split('&').next().unwrap().to_string();
    let flipped = format!("{}{}", &t[..t.len() - 1], if t.ends_with('0') { '1' } else { '0' });
    let bad_links = [
        path.replace(&t, &flipped),
        path.replace(&format!("&t={t}"), ""),
        path.replace("l=anna", "l=ben"),
        path.replace(CONSUMER, PREDICTION),
        path.replace("c=", "c=x"),
        path.replace(&format!("&t={t}"), &format!("&x=1&t={t}")),
    ];
    for link in &bad_links {
        let r = request(server.port, "GET", link, &[], b"").unwrap();
        assert_eq!(r.status, 404, "{link}: {}", r.text());
        assert!(r.text().contains("Seite nicht gefunden"), "{}", r.text());
        let r = post_form(&server, link, &good(b"anna", module.as_bytes()));
        assert_eq!(r.status, 404, "POST {link}: {}", r.text());
    }
    // Forms: another learner than the link's, nothing chosen, the wrong kind, not multipart, too big.
    let cases: Vec<(Vec<u8>, &str, u16, &str)> = vec![
        (
            good(b"ben", module.as_bytes()),
            "multipart/form-data; boundary=XB",
            400,
            "gehört nicht zu dieser Seite",
        ),
        (good(b"anna", b""), "multipart/form-data; boundary=XB", 400, "nichts zu bewerten"),
        (
            multipart(&[
                ("exercise", None, CONSUMER.as_bytes()),
                ("learner", None, b"anna"),
                ("answer", None, b"(1)"),
            ]),
            "multipart/form-data; boundary=XB",
            422,
            "Konsumenten-Aufgabe",
        ),
        (b"answer=1".to_vec(), "application/x-www-form-urlencoded", 415, "multipart/form-data"),
        (good(b"anna", b"(module"), "multipart/form-data; boundary=XB--broken", 400, ""),
    ];
    for (body, content_type, status, text) in cases {
        let r = request(server.port, "POST", &path, &[("Content-Type", content_type)], &body).unwrap();
        assert_eq!(r.status, status, "{content_type}: {}", r.text());
        assert!(r.text().contains(text), "{text:?} in {}", r.text());
        assert!(r.text().contains("role=\"alert\""), "the page names the reason: {}", r.text());
    }
    let huge = vec![b'a'; pruefstein::limits::REQUEST_BODY_BYTES_MAX + 1];
    let r = post_form(&server, &path, &good(b"anna", &huge));
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(submissions(&server), 0, "nothing was stored");

    // The API's link: only for a client, a known exercise, a valid learner and language.
    let r = request(server.port, "GET", &format!("/api/v1/exercises/{CONSUMER}/page?learner=anna"), &[], b"")
        .unwrap();
    assert_eq!(r.status, 401);
    for (query, status) in [
        (format!("/api/v1/exercises/{CONSUMER}/page"), 400),
        (format!("/api/v1/exercises/{CONSUMER}/page?learner=%20"), 400),
        (format!("/api/v1/exercises/{CONSUMER}/page?learner={}", "a".repeat(256)), 400),
        (format!("/api/v1/exercises/{CONSUMER}/page?learner=a%01b"), 400),
        (format!("/api/v1/exercises/{CONSUMER}/page?learner=anna&lang=fr"), 400),
        ("/api/v1/exercises/nope/page?learner=anna".to_string(), 404),
    ] {
        let r = server.get(&query, &token);
        assert_eq!(r.status, status, "{query}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("application/problem+json"), "{query}");
    }
    // A revoked client's links stop working.
    let out =
        Command::new(BIN).args(["client", "revoke", "lms", "--data-dir"]).arg(&server.data).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = request(server.port, "GET", &path, &[], b"").unwrap();
    assert_eq!(r.status, 404, "{}", r.text());
    let r = post_form(&server, &path, &good(b"anna", module.as_bytes()));
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(submissions(&server), 0, "nothing was stored");
}

/// The page in headless Chromium, without JavaScript, at phone width: choose the module, submit,
/// wait for the report, in German and in English; the history grows with each submission.
#[test]
fn the_page_in_a_browser_submit_wait_report_in_both_languages() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let path = page_link(&server, &token, "browser");
    let url = format!("http://127.0.0.1:{}{path}", server.port);
    let artifacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("artifacts").join("student-page");
    std::fs::create_dir_all(&artifacts).unwrap();
    let module = repo().join("exercises").join(CONSUMER).join("solutions/reference.wat");
    let seen = super::browser::browser_script(
        "check-page.mjs",
        &[
            artifacts.display().to_string(),
            module.display().to_string(),
            format!("de={url}"),
            format!("en={}", url.replace("lang=de", "lang=en")),
        ],
    );
    for (lang, verdict, words, entries) in [
        ("de", "BESTANDEN", ["Aufgabe", "Deine Abgaben"], 1),
        ("en", "PASSED", ["Exercise", "Your submissions"], 2),
    ] {
        let page = &seen[lang];
        assert_eq!(page["status"], 200, "{lang}: {page}");
        assert_eq!(page["lang"], lang);
        assert_eq!(page["errors"], json!([]), "{lang}");
        assert_eq!(page["hasForm"], true, "{lang}");
        assert!(page["submittedUrl"].as_str().unwrap().contains("&s=sub_"), "{lang}: {page}");
        assert_eq!(page["verdict"], verdict, "{lang}");
        for word in words {
            assert!(page["text"].as_str().unwrap().contains(word), "{lang}: {word:?} in {}", page["text"]);
        }
        assert_eq!(page["history"].as_array().unwrap().len(), entries, "{lang}: {page}");
        let phone = &page["phone"];
        assert_eq!(phone["viewportWidth"], 390, "{lang}");
        assert!(phone["scrollWidth"].as_u64().unwrap() <= 390, "{lang}: wider than a phone: {phone}");
        assert!(phone["bodyFontPx"].as_f64().unwrap() >= 14.0, "{lang}: {phone}");
    }
}
