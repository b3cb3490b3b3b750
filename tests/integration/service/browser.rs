//! The student report page in headless Chromium (observed through `tests/browser/check-report.mjs`;
//! the assertions stay here).

use super::*;

/// Where tests keep what a person may want to look at after a run (screenshots, PDFs).
fn artifact_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("artifacts").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs one of the scripts of `tests/browser` (they drive headless Chromium and only observe) with
/// its arguments, and returns the JSON it printed.
pub(crate) fn browser_script(script: &str, args: &[String]) -> Value {
    let out = Command::new("node")
        .current_dir(repo().join("tests/browser"))
        .arg(script)
        .args(args)
        .output()
        .expect("node runs (scripts/test installs Node.js, Chromium and playwright-core)");
    assert!(
        out.status.success(),
        "the browser run failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Opens the named report pages in headless Chromium through `tests/browser/check-report.mjs` and
/// returns what it saw, by name.
fn observe_reports(artifacts: &std::path::Path, pages: &[(&str, String)]) -> Value {
    let mut args = vec![artifacts.display().to_string()];
    args.extend(pages.iter().map(|(name, url)| format!("{name}={url}")));
    browser_script("check-report.mjs", &args)
}

/// A failing consumer's report opened in headless Chromium (Debian's `chromium`, driven by
/// playwright-core from `tests/browser`, both installed by `scripts/test`): in German and in
/// English the page shows the failing check, the timeline and the state diff; it raises no script
/// error and loads nothing that fails; it reads the same without JavaScript and in print; on a
/// phone-sized viewport nothing sticks out sideways. The failing crash check's sequence diagram is
/// on screen as an image with a name and a description, shows the crash and the redelivery, is
/// printed, and its text is at least 11 px on a phone. Screenshots and PDFs stay in
/// `target/tmp/artifacts/report-page/` (the diagram alone in `<lang>-diagram.png`).
#[test]
fn report_page_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let r = server.post_json(
        "/api/v1/submissions?wait=30s",
        &token,
        &wat_submission("mutants/no-dedup.wat", "browser"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let graded = r.json();
    assert_eq!(graded["verdict"], "failed");
    let url = graded["links"]["report"].as_str().unwrap().to_string();

    let artifacts = artifact_dir("report-page");
    let seen = observe_reports(&artifacts, &[("de", url.clone()), ("en", format!("{url}&lang=en"))]);

    // On the first screen: the verdict, the main problem with its evidence and delivery, the other
    // failed checks by their titles (no slugs); behind the folded section: every trace and state.
    let expectations = [
        (
            "de",
            ["NICHT BESTANDEN", "Hauptproblem", "doppelt", "Beleg", "Diese Zustellung", "Neue Nachricht"],
            ["Ablauf", "Datenbankzustand", "fehlt in gesehen"],
        ),
        (
            "en",
            ["FAILED", "Main problem", "twice", "Evidence", "This delivery", "Fresh message"],
            ["Trace", "Database state", "missing in gesehen"],
        ),
    ];
    for (lang, first, folded) in expectations {
        let page = &seen[lang];
        assert_eq!(page["status"], 200, "{lang}");
        assert_eq!(page["lang"], lang);
        assert_eq!(page["errors"], json!([]), "{lang}: the page raised errors");
        assert!(page["folded"].as_u64().unwrap() > 0, "{lang}: the checks are folded");
        for text in first {
            for view in ["text", "noScriptText", "printText"] {
                assert!(
                    page[view].as_str().unwrap().contains(text),
                    "{lang} {view} lacks {text:?}: {}",
                    page[view]
                );
            }
        }
        assert!(
            !page["text"].as_str().unwrap().contains("fresh-message"),
            "{lang}: no check slugs on the page"
        );
        for text in folded {
            assert!(!page["text"].as_str().unwrap().contains(text), "{lang}: {text:?} is folded away");
            assert!(page["printText"].as_str().unwrap().contains(text), "{lang} unfolded lacks {text:?}");
        }
        assert!(page["text"].as_str().unwrap().contains("pruefstein grade"), "{lang}: replay command");
        let phone = &page["phone"];
        assert_eq!(phone["viewportWidth"], 390, "{lang}: the page sets a device-width viewport");
        assert!(
            phone["scrollWidth"].as_u64().unwrap() <= 390,
            "{lang}: the page is wider than a phone: {phone}"
        );
        assert!(phone["bodyFontPx"].as_f64().unwrap() >= 14.0, "{lang}: text too small on a phone");
        let diagrams = page["diagrams"].as_array().unwrap();
        let crash = diagrams
            .iter()
            .find(|d| d["id"] == "diagram-crash-points")
            .unwrap_or_else(|| panic!("{lang}: no diagram of the crash check: {diagrams:?}"));
        assert_eq!(crash["role"], "img", "{lang}");
        assert!(crash["shown"].as_bool().unwrap(), "{lang}: the diagram is not on screen: {crash}");
        assert!(!crash["title"].as_str().unwrap().is_empty() && !crash["desc"].as_str().unwrap().is_empty());
        let kinds: Vec<&str> = crash["kinds"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        for kind in ["deliver", "statement", "crash", "redeliver", "ack"] {
            assert!(kinds.contains(&kind), "{lang}: the crash diagram has no {kind:?} row: {kinds:?}");
        }
        assert!(crash["crashShown"].as_bool().unwrap(), "{lang}: the crash is not drawn: {crash}");
        assert!(crash["redeliveryShown"].as_bool().unwrap(), "{lang}: the redelivery is not drawn: {crash}");
        assert_eq!(page["printDiagrams"].as_u64(), Some(diagrams.len() as u64), "{lang}: diagrams in print");
        assert!(
            phone["diagramFontPx"].as_f64().unwrap() >= 11.0,
            "{lang}: diagram text too small on a phone: {phone}"
        );
        for file in [
            format!("{lang}-desktop.png"),
            format!("{lang}-phone.png"),
            format!("{lang}.pdf"),
            format!("{lang}-diagram.png"),
        ] {
            let size = std::fs::metadata(artifacts.join(&file)).map(|m| m.len()).unwrap_or(0);
            assert!(size > 10_000, "{file} was not written ({size} bytes)");
        }
    }
    // The two languages are two renderings of one report, not one page with a switch.
    assert_ne!(seen["de"]["text"], seen["en"]["text"]);
}

/// A Python and a JavaScript consumer, posted as source over HTTP and graded: their report pages,
/// opened in headless Chromium, show the submitted file with the lines the checks speak of marked,
/// on screen and in the order of the file. Each mutant commits the remembered id and the credit
/// separately, so the statements of both lines are marked and a crash point is marked where the
/// process died; the marks the page shows are exactly those of the report, and each marked line
/// reads as the line of the submitted file.
#[test]
fn python_and_javascript_report_pages_show_the_source_with_statement_and_crash_lines_marked() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let files =
        [("python", "mutants/separate-autocommit.py"), ("javascript", "mutants/separate-autocommit.js")];
    let mut pages = Vec::new();
    let mut reports = BTreeMap::new();
    for (language, file) in files {
        let source = exercise_file(file);
        let r = server.post_json(
            "/api/v1/submissions?wait=30s",
            &token,
            &json!({"exercise": CONSUMER, "learner": language, "language": language, "source": source}),
            None,
        );
        assert_eq!(r.status, 200, "{language}: {}", r.text());
        let graded = r.json();
        assert_eq!(graded["verdict"], "failed", "{language}");
        let url = graded["links"]["report"].as_str().unwrap().to_string();
        pages.push((language, format!("{url}&lang=en")));
        reports.insert(language, (source, graded["report"]["source"].clone()));
    }
    let seen = observe_reports(&artifact_dir("source-report-page"), &pages);

    for (language, (source, view)) in reports {
        let lines: Vec<&str> = source.lines().collect();
        let page = &seen[language];
        assert_eq!(page["status"], 200, "{language}");
        assert_eq!(page["errors"], json!([]), "{language}: the page raised errors");
        let shown = &page["source"];
        assert!(shown.is_object(), "{language}: the page shows no source: {page}");
        assert_eq!(shown["shown"], true, "{language}: the source is not on screen");
        let extension = if language == "python" { ".py" } else { ".js" };
        assert!(shown["heading"].as_str().unwrap().contains(extension), "{language}: {}", shown["heading"]);
        let marked = shown["marked"].as_array().unwrap();
        let expected = view["marks"].as_array().unwrap_or_else(|| panic!("{language}: no marks in {view}"));
        assert_eq!(
            marked.iter().map(|m| m["line"].as_u64().unwrap()).collect::<Vec<_>>(),
            expected.iter().map(|m| m["line"].as_u64().unwrap()).collect::<Vec<_>>(),
            "{language}: the page marks other lines than the report"
        );
        for mark in marked {
            let line = mark["line"].as_u64().unwrap() as usize;
            assert_eq!(mark["shown"], true, "{language}: line {line} is not on screen");
            assert_eq!(
                mark["text"].as_str().unwrap(),
                lines[line - 1],
                "{language}: line {line} reads otherwise"
            );
        }
        let line_of = |needle: &str| 1 + lines.iter().position(|l| l.contains(needle)).unwrap() as u64;
        for needle in ["INSERT INTO gesehen", "UPDATE punkte"] {
            let line = line_of(needle);
            let mark = marked.iter().find(|m| m["line"] == line);
            assert!(
                mark.is_some_and(|m| m["signs"].as_str().unwrap().starts_with('▸')),
                "{language}: the statement of line {line} ({needle}) is not marked: {marked:?}"
            );
        }
        let crashes: Vec<&Value> = marked
            .iter()
            .filter(|m| m["classes"].as_str().unwrap().split(' ').any(|c| c == "crash"))
            .collect();
        assert!(!crashes.is_empty(), "{language}: no crash point marked: {marked:?}");
        for crash in crashes {
            assert!(crash["signs"].as_str().unwrap().contains('✗'), "{language}: {crash}");
        }
    }
}

/// The sequence diagrams of a failed consumer's and a wrong prediction's report, measured in
/// headless Chromium at 360 px and 1200 px, in German and in English: no text's box (`getBBox`)
/// intersects a lifeline or another text, the smallest text is at least 11 px, and the drawing
/// fills the width of the column it sits in. Each diagram's screenshot per width stays in
/// `target/tmp/artifacts/diagrams/`.
#[test]
fn sequence_diagrams_keep_their_texts_off_the_lifelines_at_phone_and_desktop_width() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let mut pages = Vec::new();
    for (name, body) in [
        ("consumer", wat_submission("mutants/no-dedup.wat", "diagram")),
        ("prediction", json!({"exercise": PREDICTION, "learner": "diagram", "answer": "(0, 0, 0)"})),
    ] {
        let r = server.post_json("/api/v1/submissions?wait=30s", &token, &body, None);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["verdict"], "failed", "{name}");
        let url = r.json()["links"]["report"].as_str().unwrap().to_string();
        pages.push((format!("{name}-de"), url.clone()));
        pages.push((format!("{name}-en"), format!("{url}&lang=en")));
    }
    let artifacts = artifact_dir("diagrams");
    let mut args = vec![artifacts.display().to_string(), "360,1200".to_string()];
    args.extend(pages.iter().map(|(name, url)| format!("{name}={url}")));
    let seen = browser_script("check-diagram.mjs", &args);

    for (name, _) in &pages {
        for width in ["360", "1200"] {
            let page = &seen[name.as_str()][width];
            assert_eq!(page["status"], 200, "{name} {width}");
            let diagrams = page["diagrams"].as_array().unwrap();
            assert!(!diagrams.is_empty(), "{name} {width}: no diagram");
            for diagram in diagrams {
                let id = &diagram["id"];
                assert!(diagram["lifelines"].as_u64().unwrap() >= 2, "{name} {width} {id}: {diagram}");
                assert_eq!(diagram["crossings"], json!([]), "{name} {width} {id}: texts cross");
                let px = diagram["minFontPx"].as_f64().unwrap();
                assert!(px >= 11.0, "{name} {width} {id}: text of {px} px");
                let (drawn, column) =
                    (diagram["width"].as_f64().unwrap(), diagram["columnWidth"].as_f64().unwrap());
                assert!(drawn >= 0.9 * column, "{name} {width} {id}: {drawn} px of a {column} px column");
                let file = artifacts.join(diagram["screenshot"].as_str().unwrap());
                assert!(std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0) > 1_000, "{}", file.display());
            }
        }
    }
}
