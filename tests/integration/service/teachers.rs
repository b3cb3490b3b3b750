//! Teachers see their course: result versions and the submissions listing, regrading after a
//! fixed exercise (through the API and `pruefstein regrade`, dry runs that write nothing, events
//! only for changed verdicts), course analytics on seeded submissions (JSON, CSV, HTML), and
//! similarity hints.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::server::{COURSE_SECRET, Server};
use crate::support::{BIN, CONSUMER, copy_tree, poll, repo};

/// A prediction exercise with two parts and one parameter `n` (1 or 2) per learner; the answer is
/// `(1, n)`. Its "fix" makes the answer `(1, n + 1)`.
const SLUG: &str = "90-zwei-teile";

const EXERCISE_TOML: &str = r#"slug = "90-zwei-teile"
grader = "prediction"
points = 2

[title]
de = "Zwei Teile"
en = "Two parts"

[prediction]
script = "scenario.rhai"
example = "(1, 1)"
scoring = "per-part"

[[prediction.parameters]]
name = "n"
lesson = 1
min = 1
max = 2

[[prediction.parts]]
name = "eins"
points = 1
title.de = "Eins"
title.en = "One"
question.de = "Was ist eins?"
question.en = "What is one?"

[[prediction.parts]]
name = "zwei"
points = 1
title.de = "Zwei"
title.en = "Two"
question.de = "Was ist n?"
question.en = "What is n?"
"#;

fn write_exercise(dir: &Path, script: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("exercise.toml"), EXERCISE_TOML).unwrap();
    std::fs::write(dir.join("statement.de.md"), "# Zwei Teile\n\nn = {{n}}. Antworte mit (eins, zwei).\n")
        .unwrap();
    std::fs::write(dir.join("statement.en.md"), "# Two parts\n\nn = {{n}}. Answer with (one, two).\n")
        .unwrap();
    std::fs::write(dir.join("scenario.rhai"), script).unwrap();
}

const BEFORE: &str = "// The answer: one, then n.\n[1, n]\n";
const AFTER: &str = "// Fixed: the second part is n + 1.\n[1, n + 1]\n";

/// The learner's `n`, as the service derives it with the course secret.
fn n_of(dir: &Path, learner: &str) -> i64 {
    let exercise = pruefstein::graders::load(dir).unwrap();
    let params = exercise.grader.variant_parameters(&exercise, learner, COURSE_SECRET);
    assert_eq!(params.len(), 1, "{params:?}");
    params[0].1
}

fn teacher(server: &Server, name: &str) -> String {
    let out = Command::new(BIN)
        .args(["client", "add", name, "--teacher", "--json", "--data-dir"])
        .arg(&server.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["teacher"], true, "{value}");
    value["token"].as_str().unwrap().to_string()
}

fn submit(server: &Server, token: &str, body: Value) -> Value {
    let r = server.post_json("/api/v1/submissions?wait=30", token, &body, None);
    assert!(matches!(r.status, 200 | 202), "{} {}", r.status, r.text());
    r.json()
}

fn graded(server: &Server, token: &str, id: &str, version: u64) -> Value {
    poll(&format!("{id} to have result version {version}"), Duration::from_secs(120), || {
        let v = server.get(&format!("/api/v1/submissions/{id}"), token).json();
        (v["status"] == "graded" && v["result_version"] == version).then_some(v)
    })
}

/// Rows per table: what a dry run must leave as it was.
fn counts(server: &Server) -> Vec<(String, i64)> {
    let db = server.db();
    ["submissions", "results", "result_versions", "jobs", "outbox"]
        .iter()
        .map(|t| {
            (t.to_string(), db.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0)).unwrap())
        })
        .collect()
}

fn event_ids(server: &Server) -> BTreeSet<String> {
    let db = server.db();
    let mut stmt = db.prepare("SELECT event_id FROM outbox").unwrap();
    stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect()
}

fn regrade_cli(data: &Path, exercises: &Path, extra: &[&str]) -> Value {
    let out = Command::new(BIN)
        .arg("regrade")
        .arg(SLUG)
        .args(extra)
        .args(["--json", "--data-dir"])
        .arg(data)
        .arg("--exercises")
        .arg(exercises)
        .args(["--course-secret", COURSE_SECRET, "--isolation", "thread"])
        .env_remove("PRUEFSTEIN_CONFIG")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_regrade_after_a_fix_changes_exactly_the_verdicts_it_should() {
    let dir = tempfile::tempdir().unwrap();
    let exercises = dir.path().join("exercises");
    let folder = exercises.join(SLUG);
    write_exercise(&folder, BEFORE);
    let data = dir.path().join("data");
    let flags = ["--exercises", exercises.to_str().unwrap(), "--allow-private-callbacks", "--workers", "1"];
    let mut server = Server::start(&data, &flags);
    let (token, _) = server.client("lms");
    let teacher = teacher(&server, "lehrerin");

    // Four learners: right before the fix, right after it, wrong both times (twice).
    let learners = ["lea", "mia", "noah", "ole"];
    let n: BTreeMap<&str, i64> = learners.iter().map(|l| (*l, n_of(&folder, l))).collect();
    let answers = [
        format!("(1, {})", n["lea"]),
        format!("(1, {})", n["mia"] + 1),
        "(0, 0)".to_string(),
        "(1, 9)".to_string(),
    ];
    let mut ids = Vec::new();
    for (learner, answer) in learners.iter().zip(&answers) {
        let body = json!({"exercise": SLUG, "learner": learner, "answer": answer,
                          "callback_url": "http://127.0.0.1:9/hook"});
        ids.push(submit(&server, &token, body)["id"].as_str().unwrap().to_string());
    }
    let first: Vec<Value> = ids.iter().map(|id| graded(&server, &token, id, 1)).collect();
    let verdicts = |views: &[Value]| -> Vec<(String, u64)> {
        views
            .iter()
            .map(|v| (v["verdict"].as_str().unwrap().to_string(), v["score"]["points"].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(
        verdicts(&first),
        [("passed".into(), 2), ("failed".into(), 1), ("failed".into(), 0), ("failed".into(), 1)]
    );
    let old_hash = first[0]["exercise_hash"].as_str().unwrap().to_string();
    assert_eq!(old_hash.len(), 64);
    assert!(first[0]["grader_version"].as_str().unwrap().starts_with("prediction@"), "{}", first[0]);
    assert_eq!(event_ids(&server).len(), 4);

    // Only a teacher may regrade.
    let none = server.call_json("POST", &format!("/api/v1/exercises/{SLUG}/regrade"), &token, &json!({}));
    assert_eq!(none.0, 403, "{}", none.1);
    assert!(none.1["type"].as_str().unwrap().ends_with("teacher-only"), "{}", none.1);

    // A dry run before the fix: nothing would change, nothing is written.
    let before = counts(&server);
    let (status, dry) = server.call_json(
        "POST",
        &format!("/api/v1/exercises/{SLUG}/regrade"),
        &teacher,
        &json!({"dry_run": true}),
    );
    assert_eq!(status, 200, "{dry}");
    assert_eq!((dry["selected"].as_u64(), dry["would_change"].as_u64()), (Some(4), Some(0)), "{dry}");
    assert_eq!(counts(&server), before);

    // The fix, picked up by the reload; a dry run now names exactly the two that flip.
    std::fs::write(folder.join("scenario.rhai"), AFTER).unwrap();
    let dry = poll("the fixed exercise to be served", Duration::from_secs(60), || {
        let (status, dry) = server.call_json(
            "POST",
            &format!("/api/v1/exercises/{SLUG}/regrade"),
            &teacher,
            &json!({"dry_run": true}),
        );
        assert_eq!(status, 200, "{dry}");
        (dry["exercise_hash"] != old_hash.as_str()).then_some(dry)
    });
    let new_hash = dry["exercise_hash"].as_str().unwrap().to_string();
    assert_eq!(dry["would_change"], 2, "{dry}");
    assert_eq!(
        dry["changes"],
        json!([
            {"submission_id": ids[0], "learner": "lea", "old": {"verdict": "passed", "points": 2},
             "new": {"verdict": "failed", "points": 1}},
            {"submission_id": ids[1], "learner": "mia", "old": {"verdict": "failed", "points": 1},
             "new": {"verdict": "passed", "points": 2}},
        ])
    );
    assert_eq!(counts(&server), before, "a dry run writes nothing");

    // `pruefstein regrade` on the stopped server's data: a dry run, then the regrade, asked twice.
    server.stop();
    let cli_dry = regrade_cli(&data, &exercises, &["--dry-run"]);
    assert_eq!(cli_dry["would_change"], 2, "{cli_dry}");
    let queued = regrade_cli(&data, &exercises, &[]);
    assert_eq!(queued["queued"], json!(ids), "{queued}");
    let again = regrade_cli(&data, &exercises, &[]);
    assert_eq!((again["queued"].clone(), again["already_open"].clone()), (json!([]), json!(ids)), "{again}");

    // The server grades the regrade jobs: version 2 of each, the new verdicts, events only for the two.
    server.spawn();
    let second: Vec<Value> = ids.iter().map(|id| graded(&server, &token, id, 2)).collect();
    assert_eq!(
        verdicts(&second),
        [("failed".into(), 1), ("passed".into(), 2), ("failed".into(), 0), ("failed".into(), 1)]
    );
    assert!(second.iter().all(|v| v["exercise_hash"] == new_hash.as_str()), "{second:?}");
    let mut expected: BTreeSet<String> = ids.iter().map(|id| format!("evt_{id}")).collect();
    expected.insert(format!("evt_{}_v2", ids[0]));
    expected.insert(format!("evt_{}_v2", ids[1]));
    poll("the regrade completions to commit", Duration::from_secs(30), || {
        (counts(&server).iter().find(|(t, _)| t == "jobs").map(|(_, n)| *n) == Some(0)).then_some(())
    });
    assert_eq!(event_ids(&server), expected);
    // The first results are still there, unchanged: a regrade adds a version.
    let db = server.db();
    let kept: Vec<(String, Option<String>)> = db
        .prepare("SELECT verdict, exercise_hash FROM results ORDER BY submission_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        kept.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(),
        ["passed", "failed", "failed", "failed"]
    );
    assert!(kept.iter().all(|k| k.1.as_deref() == Some(old_hash.as_str())));
    let payload: String = db
        .query_row("SELECT payload FROM outbox WHERE event_id = ?1", [format!("evt_{}_v2", ids[1])], |r| {
            r.get(0)
        })
        .unwrap();
    let payload: Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(payload["type"], "submission.regraded");
    assert_eq!(
        (payload["data"]["verdict"].clone(), payload["data"]["result_version"].clone()),
        (json!("passed"), json!(2))
    );

    // Regrading again through the API changes nothing: version 3, no new event.
    let (status, summary) =
        server.call_json("POST", &format!("/api/v1/exercises/{SLUG}/regrade"), &teacher, &Value::Null);
    assert_eq!(status, 202, "{summary}");
    assert_eq!(summary["queued"], json!(ids), "{summary}");
    for id in &ids {
        graded(&server, &token, id, 3);
    }
    poll("the regrade completions to commit", Duration::from_secs(30), || {
        (counts(&server).iter().find(|(t, _)| t == "jobs").map(|(_, n)| *n) == Some(0)).then_some(())
    });
    assert_eq!(event_ids(&server), expected, "no event without a change");

    // The listing shows the latest versions; pages of one, filters, and clear 400s.
    let mut seen = Vec::new();
    let mut path = format!("/api/v1/submissions?exercise={SLUG}&limit=1");
    loop {
        let page = server.get(&path, &token).json();
        assert_eq!(page["limit"], 1, "{page}");
        let items = page["submissions"].as_array().unwrap();
        assert!(items.len() <= 1, "{page}");
        seen.extend(items.iter().map(|s| s["id"].as_str().unwrap().to_string()));
        assert!(items.iter().all(|s| s.get("report").is_none() && s["result_version"] == 3), "{page}");
        match page["next"].as_str() {
            Some(next) => path = format!("/api/v1/submissions?exercise={SLUG}&limit=1&cursor={next}"),
            None => break,
        }
    }
    assert_eq!(seen, ids);
    let passed = server.get("/api/v1/submissions?verdict=passed", &token).json();
    let passed: Vec<&str> =
        passed["submissions"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(passed, [ids[1].as_str()]);
    let learner = server.get("/api/v1/submissions?learner=noah&since=2000-01-01T00:00:00Z", &token).json();
    assert_eq!(learner["submissions"].as_array().unwrap().len(), 1, "{learner}");
    let future = server.get("/api/v1/submissions?since=2999-01-01T00:00:00Z", &token).json();
    assert_eq!(future["submissions"], json!([]), "{future}");
    assert_eq!(
        server.get("/api/v1/submissions", &teacher).json()["submissions"],
        json!([]),
        "another client's"
    );
    for (query, code) in [
        ("verdict=maybe", "bad-filter"),
        ("since=yesterday", "bad-filter"),
        ("exercise=Not%20A%20Slug", "bad-filter"),
        ("limit=0", "bad-limit"),
        ("limit=100000", "bad-limit"),
        ("cursor=%21%21", "bad-cursor"),
        ("cursor=bm9wZQ", "bad-cursor"),
        ("colour=blue", "bad-query"),
    ] {
        let r = server.get(&format!("/api/v1/submissions?{query}"), &token);
        assert_eq!(r.status, 400, "{query}: {}", r.text());
        assert!(r.json()["type"].as_str().unwrap().ends_with(code), "{query}: {}", r.text());
    }

    // Analytics of the prediction exercise over the latest versions.
    let a = server.get(&format!("/api/v1/exercises/{SLUG}/analytics"), &teacher).json();
    assert_eq!(
        (
            a["submissions"].clone(),
            a["learners"].clone(),
            a["graded"].clone(),
            a["passed"].clone(),
            a["failed"].clone()
        ),
        (json!(4), json!(4), json!(4), json!(1), json!(3)),
        "{a}"
    );
    assert_eq!(
        a["parts"],
        json!([
            {"part": "eins", "answered": 4, "wrong": 1, "share": 0.25},
            {"part": "zwei", "answered": 4, "wrong": 3, "share": 0.75},
        ])
    );
    // Wrong answers per value of n: every learner but mia is wrong after the fix.
    let mut per_value: BTreeMap<i64, (u64, u64)> = BTreeMap::new();
    for learner in learners {
        let entry = per_value.entry(n[learner]).or_default();
        entry.0 += 1;
        entry.1 += u64::from(learner != "mia");
    }
    let expected: Vec<Value> = per_value
        .iter()
        .map(|(value, (answered, wrong))| {
            json!({"parameter": "n", "value": value, "answered": answered, "wrong": wrong,
                   "share": *wrong as f64 / *answered as f64})
        })
        .collect();
    assert_eq!(a["parameters"], json!(expected), "{a}");
    let csv = server.call(
        "GET",
        &format!("/api/v1/exercises/{SLUG}/analytics"),
        &teacher,
        &[("Accept", "text/csv")],
        b"",
    );
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    assert!(csv.text().contains("\npart,zwei,,3,4,0.7500\n"), "{}", csv.text());
}

#[test]
fn analytics_count_a_seeded_course_and_hint_at_similar_modules() {
    let dir = tempfile::tempdir().unwrap();
    let exercises = dir.path().join("exercises");
    copy_tree(&repo().join("exercises").join(CONSUMER), &exercises.join(CONSUMER));
    let server = Server::start(&dir.path().join("data"), &["--exercises", exercises.to_str().unwrap()]);
    let (token, _) = server.client("lms");
    let teacher = teacher(&server, "lehrer");
    let file =
        |path: &str| std::fs::read_to_string(repo().join("exercises").join(CONSUMER).join(path)).unwrap();
    // A copy of the reference with other names and other constants: the same function body.
    let renamed = file("solutions/reference.wat")
        .replace("$status", "$ergebnis")
        .replace("$len", "$laenge")
        .replace("(i32.const 256)", "(i32.const 200)");
    assert_ne!(renamed, file("solutions/reference.wat"));
    let seeded = [
        ("anna", file("solutions/reference.wat")),
        ("ben", renamed),
        ("cem", file("solutions/insert-or-ignore.wat")),
        ("dora", file("mutants/no-dedup.wat")),
        ("emil", file("mutants/dedup-in-memory.wat")),
        ("emil", file("solutions/update-first.wat")),
    ];
    let mut views = Vec::new();
    for (learner, wat) in &seeded {
        let v = submit(&server, &token, json!({"exercise": CONSUMER, "learner": learner, "wat": wat}));
        views.push(graded(&server, &token, v["id"].as_str().unwrap(), 1));
    }
    let verdicts: Vec<&str> = views.iter().map(|v| v["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["passed", "passed", "passed", "failed", "failed", "passed"]);

    // Refused to others.
    let path = format!("/api/v1/exercises/{CONSUMER}/analytics");
    assert_eq!(server.get(&path, &token).status, 403);
    assert_eq!(server.get(&path, "pst_unknown").status, 401);
    assert_eq!(server.get("/api/v1/exercises/nope/analytics", &teacher).status, 404);
    assert_eq!(server.get(&format!("{path}?format=xml"), &teacher).status, 400);
    assert_eq!(server.get(&format!("{path}?lang=fr"), &teacher).status, 400);

    let r = server.get(&path, &teacher);
    assert_eq!(r.status, 200, "{}", r.text());
    let a = r.json();
    assert_eq!(
        (a["submissions"].clone(), a["learners"].clone(), a["graded"].clone(), a["passed"].clone()),
        (json!(6), json!(5), json!(6), json!(4)),
        "{a}"
    );
    assert_eq!(
        (a["failed"].clone(), a["rejected"].clone(), a["learners_passed"].clone()),
        (json!(2), json!(0), json!(4))
    );
    // Per check: the failing submissions' own reports say which checks they fail.
    let failed_checks = |view: &Value| -> BTreeSet<String> {
        view["report"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["passed"] == false && c.get("not_run").is_none())
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    let (dora, emil) = (failed_checks(&views[3]), failed_checks(&views[4]));
    assert!(!dora.is_empty() && !emil.is_empty());
    let mut per_check: BTreeMap<String, u64> = BTreeMap::new();
    for check in dora.iter().chain(&emil) {
        *per_check.entry(check.clone()).or_default() += 1;
    }
    let counted: BTreeMap<String, u64> = a["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["check"].as_str().unwrap().to_string(), c["failing_submissions"].as_u64().unwrap()))
        .collect();
    assert_eq!(counted, per_check);
    // Each failing submission behaves like the mutant it is.
    let failing = a["failing"].as_array().unwrap();
    assert_eq!(failing.len(), 2, "{a}");
    assert!(failing[0]["behaves_like"].as_array().unwrap().contains(&json!("mutants/no-dedup.wat")), "{a}");
    assert!(
        failing[1]["behaves_like"].as_array().unwrap().contains(&json!("mutants/dedup-in-memory.wat")),
        "{a}"
    );
    // Per mutant: the failing submissions with exactly its set of failed checks (mutants that fail
    // the same checks share their submissions), and the other way round.
    let mutants = a["mutants"].as_array().unwrap();
    assert!(mutants.len() >= 16, "every mutant of the exercise is profiled: {a}");
    let set_of = |value: &Value| -> BTreeSet<String> {
        value.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect()
    };
    for m in mutants {
        let set = set_of(&m["failed_checks"]);
        let expected = [&dora, &emil].iter().filter(|s| ***s == set).count();
        assert_eq!(m["submissions"], expected, "{m}");
    }
    for (f, set) in failing.iter().zip([&dora, &emil]) {
        assert_eq!(&set_of(&f["failed_checks"]), set);
        let like: Vec<&Value> =
            mutants.iter().filter(|m| set_of(&m["failed_checks"]) == *set).map(|m| &m["mutant"]).collect();
        let mut listed: Vec<&Value> = f["behaves_like"].as_array().unwrap().iter().collect();
        listed.sort_by_key(|v| v.as_str().unwrap().to_string());
        let mut like = like;
        like.sort_by_key(|v| v.as_str().unwrap().to_string());
        assert_eq!(listed, like, "{f}");
    }
    // Time to the first pass: emil needed two submissions, the others passed at once.
    let times = &a["time_to_first_pass"];
    assert_eq!(times["learners"], 4, "{times}");
    assert_eq!(times["median_ms"], 0, "{times}");
    let emil_ms =
        times["per_learner"].as_array().unwrap().iter().find(|t| t["learner"] == "emil").unwrap()["ms"]
            .as_i64()
            .unwrap();
    assert!(emil_ms > 0, "{times}");

    // Similarity: the renamed copy pairs with the reference; nothing else is above the threshold.
    let similarity = &a["similarity"];
    assert_eq!(similarity["compared"], 5, "{similarity}");
    assert!(similarity["note"].as_str().unwrap().contains("never verdicts"));
    assert_eq!(
        similarity["pairs"],
        json!([{"submission_a": views[0]["id"], "learner_a": "anna", "submission_b": views[1]["id"],
                "learner_b": "ben", "similarity_per_mille": 1000}]),
        "{similarity}"
    );

    // CSV and the HTML page in both languages.
    let csv = server.get(&format!("{path}?format=csv"), &teacher);
    assert_eq!(csv.status, 200);
    assert!(csv.text().starts_with("section,name,value,count,total,share\n"), "{}", csv.text());
    assert!(csv.text().contains("\noverall,passed,,4,6,0.6667\n"), "{}", csv.text());
    for (lang, words) in [("de", "Häufigste Fehler"), ("en", "Most common mistakes")] {
        let page = server.get(&format!("{path}?format=html&lang={lang}"), &teacher);
        assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
        let html = page.text();
        assert!(html.contains(words) && html.contains("<svg") && !html.contains("<script"), "{html}");
        assert!(html.contains("anna") && html.contains("ben"), "the pair is on the page");
        // Checks by their titles in the page's language, never by their names.
        for check in a["checks"].as_array().unwrap() {
            let title = check["title"][lang].as_str().unwrap();
            assert!(html.contains(&title.chars().take(20).collect::<String>()), "{lang}: {title} missing");
            let name = check["check"].as_str().unwrap();
            assert!(!html.contains(&format!(">{name}<")), "{lang}: the check {name} shown by its name");
        }
        // Mutants grouped by their mistake with the exercise's line about it: one entry for
        // never-commits (.js, .py, .wat), and the bucket of no-dedup links to dora's report.
        let (never, none) = match lang {
            "de" => ("COMMIT fehlt: die Transaktion bleibt offen", "Keine Deduplizierung"),
            _ => ("COMMIT missing: the transaction stays open", "No deduplication"),
        };
        assert_eq!(html.matches("id=\"mistake-never-commits\"").count(), 1, "{lang}: {html}");
        let entry = html.split("id=\"mistake-never-commits\"").nth(1).unwrap().split("</li>").next().unwrap();
        assert!(
            entry.contains(never) && entry.contains("(never-commits: .js, .py, .wat)"),
            "{lang}: {entry}"
        );
        let bucket = html.split("id=\"mistake-no-dedup\"").nth(1).unwrap().split("</li>").next().unwrap();
        assert!(bucket.contains(none), "{lang}: {bucket}");
        let dora = views[3]["id"].as_str().unwrap();
        assert!(bucket.contains(&format!("<a href=\"/reports/{dora}?t=")), "{lang}: {bucket}");
    }
    let mistakes = a["mistakes"].as_array().unwrap();
    let never = mistakes.iter().find(|m| m["mistake"] == "never-commits").unwrap();
    assert_eq!(never["files"].as_array().unwrap().len(), 3, "{never}");
    assert_eq!(never["description"]["de"], "COMMIT fehlt: die Transaktion bleibt offen");
}

/// A regrade survives `kill -9`: its jobs are leased again after the restart, and every submission
/// gets exactly one new version (none lost, none twice).
#[test]
fn a_regrade_lost_to_a_crash_is_graded_after_the_restart_once() {
    let dir = tempfile::tempdir().unwrap();
    let exercises = dir.path().join("exercises");
    write_exercise(&exercises.join(SLUG), BEFORE);
    let flags = ["--exercises", exercises.to_str().unwrap(), "--workers", "1"];
    let mut server = Server::start(&dir.path().join("data"), &flags);
    let (token, _) = server.client("lms");
    let teacher = teacher(&server, "lehrer");
    let ids: Vec<String> = (0..6)
        .map(|n| {
            let body = json!({"exercise": SLUG, "learner": format!("l{n}"), "answer": "(1, 1)"});
            submit(&server, &token, body)["id"].as_str().unwrap().to_string()
        })
        .collect();
    for id in &ids {
        graded(&server, &token, id, 1);
    }
    let (status, summary) =
        server.call_json("POST", &format!("/api/v1/exercises/{SLUG}/regrade"), &teacher, &json!({}));
    assert_eq!((status, summary["queued"].clone()), (202, json!(ids)), "{summary}");
    server.kill();
    server.spawn();
    for id in &ids {
        graded(&server, &token, id, 2);
    }
    poll("the regrade completions to commit", Duration::from_secs(30), || {
        (counts(&server).iter().find(|(t, _)| t == "jobs").map(|(_, n)| *n) == Some(0)).then_some(())
    });
    let versions: Vec<(i64, i64)> = server
        .db()
        .prepare("SELECT submission_id, count(*) FROM result_versions GROUP BY submission_id ORDER BY submission_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(versions.len(), ids.len(), "{versions:?}");
    assert!(versions.iter().all(|(_, n)| *n == 1), "exactly one new version each: {versions:?}");
}

/// The worker processes of the server with process id `server` (its children running
/// `grade-worker`).
fn worker_processes(server: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let after = stat.rsplit(')').next().unwrap_or("");
            let parent = after.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            parent == Some(server) && String::from_utf8_lossy(&cmdline).contains("grade-worker")
        })
        .count()
}

/// Dry runs grade in the service's worker pool: three at once on a server with one worker never
/// make it run a second grading process, and each still grades every selected submission.
#[test]
fn concurrent_dry_runs_grade_in_the_worker_pool_and_start_no_process_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let exercises = dir.path().join("exercises");
    copy_tree(&repo().join("exercises").join(CONSUMER), &exercises.join(CONSUMER));
    let server = Server::start(
        &dir.path().join("data"),
        &["--exercises", exercises.to_str().unwrap(), "--workers", "1"],
    );
    let (token, _) = server.client("lms");
    let teacher = teacher(&server, "lehrer");
    let wat = std::fs::read_to_string(exercises.join(CONSUMER).join("solutions/reference.wat")).unwrap();
    for learner in ["anna", "ben", "cem"] {
        let view = submit(&server, &token, json!({"exercise": CONSUMER, "learner": learner, "wat": wat}));
        graded(&server, &token, view["id"].as_str().unwrap(), 1);
    }
    let pid = server.child.as_ref().unwrap().id();
    let done = std::sync::atomic::AtomicBool::new(false);
    let (most, answers) = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut most = 0;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                most = most.max(worker_processes(pid));
                std::thread::sleep(Duration::from_millis(5));
            }
            most
        });
        let runs: Vec<_> = (0..3)
            .map(|_| {
                scope.spawn(|| {
                    server.call_json(
                        "POST",
                        &format!("/api/v1/exercises/{CONSUMER}/regrade"),
                        &teacher,
                        &json!({"dry_run": true}),
                    )
                })
            })
            .collect();
        let answers: Vec<(u16, Value)> = runs.into_iter().map(|r| r.join().unwrap()).collect();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        (watcher.join().unwrap(), answers)
    });
    for (status, dry) in &answers {
        assert_eq!(*status, 200, "{dry}");
        assert_eq!((dry["selected"].as_u64(), dry["would_change"].as_u64()), (Some(3), Some(0)), "{dry}");
        assert!(dry["not_graded"].as_array().is_none_or(Vec::is_empty), "{dry}");
    }
    assert_eq!(most, 1, "grading processes seen at once on a server with --workers 1");
}

/// The analytics page carries the headers of every report page: a CSP without scripts, no
/// sniffing, not cached.
#[test]
fn the_analytics_page_has_the_security_headers_of_a_report_page() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let teacher = teacher(&server, "lehrer");
    let r = server.get(&format!("/api/v1/exercises/{CONSUMER}/analytics?format=html"), &teacher);
    assert_eq!(r.status, 200, "{}", r.text());
    let csp = r.header("Content-Security-Policy").unwrap_or_default();
    assert!(csp.contains("default-src 'none'") && !csp.contains("script-src"), "{csp:?}");
    assert_eq!(r.header("X-Content-Type-Options"), Some("nosniff"));
    assert_eq!(r.header("Cache-Control"), Some("private, no-store"));
    assert_eq!(r.header("Referrer-Policy"), Some("no-referrer"));
    for format in ["csv", "json"] {
        let r = server.get(&format!("/api/v1/exercises/{CONSUMER}/analytics?format={format}"), &teacher);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.header("Cache-Control"), Some("private, no-store"), "{format}");
        assert_eq!(r.header("X-Content-Type-Options"), Some("nosniff"), "{format}");
    }
}
