//! Student text that a terminal or a browser would act on: escape sequences in printed text, SQL
//! and exception messages (they set a terminal's title, clear its screen, colour it), and the
//! bidirectional controls of "Trojan Source" (U+202A–U+202E, U+2066–U+2069), which make a line
//! read otherwise than it runs. The text report writes every such character as a visible escape;
//! report pages and the source view show the bidi controls visibly; a learner id holding one is
//! refused wherever a learner id is taken.

use std::process::Command;

use serde_json::{Value, json};

use crate::support::http::request;
use crate::support::server::Server;
use crate::support::{BIN, CONSUMER, consumer_dir, poll};

/// A Python consumer whose printed text, SQL and exception message carry control characters and a
/// bidi override, and whose source hides one in a comment.
const HOSTILE: &str = "import sqlite3\n\n\ndef verarbeite(con, msg):  # \u{202e} }\u{2066}\n    \
print(\"\\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\x9b31m\")\n    \
con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?) -- \\x1b[5m\", (msg[\"id\"],))\n    \
raise ValueError(\"\\x1b[31mred\\r\\u2067\")\n";

const BIDI: [char; 9] = [
    '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}',
];

#[test]
fn the_text_report_writes_a_students_control_characters_as_visible_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("consumer.py");
    std::fs::write(&file, HOSTILE).unwrap();
    let out = Command::new(BIN)
        .arg("grade")
        .arg(consumer_dir())
        .arg(&file)
        .args(["--lang", "en"])
        .env("PRUEFSTEIN_MODULE_CACHE", "off")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let raw: Vec<char> =
        text.chars().filter(|c| (c.is_control() && !matches!(c, '\n' | '\t')) || BIDI.contains(c)).collect();
    assert!(raw.is_empty(), "raw control characters {raw:?} reach the terminal:\n{text}");
    // Escaped, not dropped: the teacher sees what the student wrote.
    for shown in
        ["\\x1b]0;owned\\x07\\x1b[2J\\u{202e}evil\\x9b31m", "-- \\x1b[5m", "\\x1b[31mred\\r\\u{2067}"]
    {
        assert!(text.contains(shown), "{shown:?} is not shown in\n{text}");
    }
}

#[test]
fn report_pages_show_bidi_controls_and_no_learner_id_may_hold_one() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let body = json!({"exercise": CONSUMER, "learner": "anna", "language": "python", "source": HOSTILE});
    let r = server.post_json("/api/v1/submissions?wait=30", &token, &body, None);
    assert!(matches!(r.status, 200 | 202), "{} {}", r.status, r.text());
    let id = r.json()["id"].as_str().unwrap().to_string();
    let view = poll("the grade", std::time::Duration::from_secs(60), || {
        let v = server.get(&format!("/api/v1/submissions/{id}"), &token).json();
        (v["status"] == "graded").then_some(v)
    });
    let url = view["links"]["report"].as_str().unwrap();
    for lang in ["de", "en"] {
        let path = format!("{}&lang={lang}", &url[url.find("/reports/").unwrap()..]);
        let page = request(server.port, "GET", &path, &[], b"").unwrap().text();
        let hidden: Vec<char> = page.chars().filter(|c| BIDI.contains(c)).collect();
        assert!(hidden.is_empty(), "{lang}: the page holds bidi controls {hidden:?}");
        for shown in ["U+202E", "U+2066", "U+2067"] {
            assert!(page.contains(shown), "{lang}: {shown} is not shown on the page");
        }
        assert!(
            page.contains("verarbeite(con, msg):  # [U+202E"),
            "{lang}: the source view does not show it"
        );
    }

    // Learner ids: intake, the page link, the listing filter, the statement, a regrade filter.
    let teacher = {
        let out = Command::new(BIN)
            .args(["client", "add", "lehrer", "--teacher", "--json", "--data-dir"])
            .arg(&server.data)
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["token"].as_str().unwrap().to_string()
    };
    // Bidirectional controls, a C1 and a C0 control: refused on every way in by the one rule.
    for bidi in BIDI.iter().copied().chain(['\u{97}', '\u{1b}']) {
        let learner = format!("anna{bidi}");
        let body = json!({"exercise": CONSUMER, "learner": learner, "wat": "(module)"});
        let r = server.post_json("/api/v1/submissions", &token, &body, None);
        assert_eq!(r.status, 400, "{bidi:?}: {}", r.text());
        assert!(r.text().contains("bad-learner"), "{}", r.text());
        let encoded: String = learner.bytes().map(|b| format!("%{b:02X}")).collect();
        for (who, path) in [
            (&token, format!("/api/v1/exercises/{CONSUMER}/page?learner={encoded}")),
            (&token, format!("/api/v1/submissions?learner={encoded}")),
            (&token, format!("/api/v1/exercises/{CONSUMER}?learner={encoded}")),
        ] {
            let r = server.get(&path, who);
            assert_eq!(r.status, 400, "{path}: {}", r.text());
        }
        let (status, answer) = server.call_json(
            "POST",
            &format!("/api/v1/exercises/{CONSUMER}/regrade"),
            &teacher,
            &json!({"learners": [learner], "dry_run": true}),
        );
        assert_eq!(status, 400, "regrade filter {bidi:?}: {answer}");
    }
    let count: i64 = server.db().query_row("SELECT count(*) FROM submissions", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 1, "only the first submission was stored");
}
