//! Accessibility, measured: axe-core (its WCAG 2 A and AA rules, none disabled) run inside
//! headless Chromium over every kind of page the service shows a person (observed through
//! `tests/browser/check-a11y.mjs`; the assertions stay here), on a desktop and a phone viewport,
//! in German and in English: a failed and a passed report (a module's, and a Python source's with
//! its line numbers on the marked and the crash lines), the learner's page of a consumer and of a
//! prediction exercise, the teacher's dashboard, a learner's submissions there, and an exercise's
//! analytics with its regrade buttons. Every page has no
//! violation, and the keyboard reaches every control it shows.

use super::*;

/// `pruefstein teacher link` against the server's data directory: the dashboard's URL.
pub(crate) fn teacher_link(server: &Server, extra: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(["teacher", "link", "--public-url", &format!("http://127.0.0.1:{}", server.port)])
        .args(extra)
        .arg("--data-dir")
        .arg(&server.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A submission graded through the API: its report link.
fn graded_report(server: &Server, token: &str, body: Value, verdict: &str) -> String {
    let r = server.post_json("/api/v1/submissions?wait=30s", token, &body, None);
    assert_eq!(r.status, 200, "{}", r.text());
    let graded = r.json();
    assert_eq!(graded["verdict"], verdict, "{graded}");
    graded["links"]["report"].as_str().unwrap().to_string()
}

/// The learner's page of `exercise` for `learner`, as the API hands it out.
fn learner_page(server: &Server, token: &str, exercise: &str, learner: &str) -> String {
    let r = server.get(&format!("/api/v1/exercises/{exercise}/page?learner={learner}"), token);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["url"].as_str().unwrap().to_string()
}

/// Every page kind in both languages, each at zero axe violations on a desktop and a phone, and
/// every visible control reached by the keyboard.
#[test]
fn every_page_kind_passes_axe_and_the_keyboard_in_both_languages() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let failed = graded_report(&server, &token, wat_submission("mutants/no-dedup.wat", "anna"), "failed");
    let passed = graded_report(&server, &token, wat_submission("solutions/reference.wat", "bert"), "passed");
    let source = graded_report(
        &server,
        &token,
        json!({"exercise": CONSUMER, "learner": "carla", "language": "python",
               "source": exercise_file("mutants/separate-autocommit.py")}),
        "failed",
    );
    let answer = graded_report(
        &server,
        &token,
        json!({"exercise": PREDICTION, "learner": "dora", "answer": "(0, 0, 0)"}),
        "failed",
    );
    let consumer_page = learner_page(&server, &token, CONSUMER, "anna");
    let prediction_page = learner_page(&server, &token, PREDICTION, "dora");
    let dashboard = teacher_link(&server, &[]);
    let analytics = dashboard.replacen("/teach?", &format!("/teach/exercises/{CONSUMER}?"), 1);
    let learner = dashboard.replacen("/teach?", "/teach/learner?", 1) + "&learner=anna";

    let mut pages = Vec::new();
    for (lang, other) in [("de", "de"), ("en", "en")] {
        let in_lang = |url: &str| {
            if url.contains("lang=") {
                url.replace("lang=de", &format!("lang={other}"))
            } else {
                format!("{url}&lang={other}")
            }
        };
        pages.push((format!("report-failed-{lang}"), in_lang(&failed)));
        pages.push((format!("report-passed-{lang}"), in_lang(&passed)));
        pages.push((format!("report-source-{lang}"), in_lang(&source)));
        pages.push((format!("report-answer-{lang}"), in_lang(&answer)));
        pages.push((format!("learn-consumer-{lang}"), in_lang(&consumer_page)));
        pages.push((format!("learn-prediction-{lang}"), in_lang(&prediction_page)));
        pages.push((format!("dashboard-{lang}"), in_lang(&dashboard)));
        pages.push((format!("analytics-{lang}"), in_lang(&analytics)));
        pages.push((format!("teach-learner-{lang}"), in_lang(&learner)));
    }
    let artifacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("artifacts").join("a11y");
    std::fs::create_dir_all(&artifacts).unwrap();
    let mut args = vec![artifacts.display().to_string()];
    args.extend(pages.iter().map(|(name, url)| format!("{name}={url}")));
    let seen = super::browser::browser_script("check-a11y.mjs", &args);

    for (name, _) in &pages {
        for viewport in ["desktop", "phone"] {
            let page = &seen[name.as_str()][viewport];
            assert_eq!(page["status"], 200, "{name} {viewport}: {page}");
            let lang = if name.ends_with("-en") { "en" } else { "de" };
            assert_eq!(page["lang"], lang, "{name}");
            assert_eq!(page["violations"], json!([]), "{name} {viewport}: axe found violations");
            assert!(
                page["scrollWidth"].as_u64().unwrap() <= page["viewportWidth"].as_u64().unwrap(),
                "{name} {viewport}: the page is wider than the screen"
            );
            // Every control on screen is reached with Tab, and each one says what it does.
            let reached = page["reached"].as_array().unwrap();
            let controls = page["controls"].as_array().unwrap();
            assert!(
                reached.len() >= controls.len(),
                "{name} {viewport}: Tab reaches {} of {} controls: {reached:?} of {controls:?}",
                reached.len(),
                controls.len()
            );
            for control in reached {
                let labelled = !control["text"].as_str().unwrap().is_empty()
                    || control["type"] == "file"
                    || control["tag"] == "textarea";
                assert!(labelled, "{name} {viewport}: a control without a name: {control}");
            }
        }
    }
    // The dashboard's controls are among what the keyboard reaches: its links and its form, the
    // analytics' regrade buttons.
    for lang in ["de", "en"] {
        let reached = &seen[format!("dashboard-{lang}").as_str()]["desktop"]["reached"];
        let reached = reached.as_array().unwrap();
        assert!(reached.iter().any(|c| c["tag"] == "a"), "dashboard-{lang}: no link reached: {reached:?}");
        assert!(reached.iter().any(|c| c["name"] == "learner"), "dashboard-{lang}: the field: {reached:?}");
        let reached = &seen[format!("analytics-{lang}").as_str()]["desktop"]["reached"];
        let buttons = reached.as_array().unwrap().iter().filter(|c| c["tag"] == "button").count();
        assert_eq!(buttons, 2, "analytics-{lang}: the dry run and regrade buttons: {reached}");
    }
    // What the teacher reads in Chromium: checks by their titles, mistakes by the exercise's line
    // about them, never a slug; the dashboard's pass rates.
    for (lang, title, mistake, passed) in [
        ("de", "Duplikat, gleicher Prozess", "Keine Deduplizierung", "Bestanden: 1/3"),
        ("en", "Duplicate, same instance", "No deduplication", "Passed: 1/3"),
    ] {
        for viewport in ["desktop", "phone"] {
            let text = seen[format!("analytics-{lang}").as_str()][viewport]["text"].as_str().unwrap();
            assert!(text.contains(title) && text.contains(mistake), "analytics-{lang} {viewport}: {text}");
            assert!(!text.contains("duplicate-same-instance"), "analytics-{lang}: a check's slug: {text}");
            let text = seen[format!("dashboard-{lang}").as_str()][viewport]["text"].as_str().unwrap();
            assert!(text.contains(passed), "dashboard-{lang} {viewport}: {text}");
        }
    }
}
