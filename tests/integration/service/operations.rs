//! Operating the service: exercise folders reloaded while it runs, an authored exercise graded over
//! HTTP, the configuration file.

use super::*;

/// The value of one `pruefstein_exercise_reloads_total` counter.
fn reloads(server: &Server, outcome: &str) -> u64 {
    let metrics = request(server.port, "GET", "/metrics", &[], b"").unwrap().text();
    let prefix = format!("pruefstein_exercise_reloads_total{{outcome=\"{outcome}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no reload counter {outcome}: {metrics}"))
        .parse()
        .unwrap()
}

fn served(server: &Server, token: &str) -> Vec<String> {
    let list = server.get("/api/v1/exercises", token).json();
    list["exercises"].as_array().unwrap().iter().map(|e| e["slug"].as_str().unwrap().to_string()).collect()
}

/// A teacher adds an exercise folder to the running service: it is served after it passes `check`,
/// without a restart. A change that breaks it is rejected (counted, logged) and the last good
/// version stays served and graded; a removed folder is no longer served.
#[test]
fn exercise_folders_reload_while_running() {
    let dir = tempfile::tempdir().unwrap();
    let exercises = dir.path().join("exercises");
    copy_tree(&repo().join("exercises").join(PREDICTION), &exercises.join(PREDICTION));
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let server = Server::start(&dir.path().join("data"), &["--exercises", exercises.to_str().unwrap()]);
    let (token, _) = server.client("lms");
    assert_eq!(served(&server, &token), [PREDICTION]);

    // A new folder, prepared beside the watched one and moved in at once, as a careful teacher does.
    let staged = dir.path().join("staging");
    copy_tree(&repo().join("exercises").join(CONSUMER), &staged);
    std::fs::rename(&staged, exercises.join("lager-neu")).unwrap();
    poll("the new exercise to be served", Duration::from_secs(120), || {
        served(&server, &token).contains(&CONSUMER.to_string()).then_some(())
    });
    assert_eq!(reloads(&server, "loaded"), 1);
    let graded = |file: &str| {
        let r =
            server.post_json("/api/v1/submissions?wait=30s", &token, &wat_submission(file, "teacher"), None);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["verdict"].as_str().unwrap().to_string()
    };
    assert_eq!(graded("solutions/reference.wat"), "passed");
    assert_eq!(graded("mutants/no-dedup.wat"), "failed");
    // Replay commands name the folder as a student's checkout has it, never the server's path.
    let r = server.post_json(
        "/api/v1/submissions?wait=30s",
        &token,
        &wat_submission("mutants/no-dedup.wat", "replay"),
        None,
    );
    let text = r.text();
    assert!(text.contains("pruefstein grade exercises/lager-neu <module.wasm>"), "{text}");
    assert!(!text.contains(dir.path().to_str().unwrap()), "{text}");

    // A broken edit: rejected, and the last good version is still served and graded.
    std::fs::write(
        exercises.join("lager-neu/exercise.toml"),
        "slug = \"03-idempotenter-konsument\"\n[oops\n",
    )
    .unwrap();
    poll("the broken edit to be rejected", Duration::from_secs(60), || {
        (reloads(&server, "rejected") >= 1).then_some(())
    });
    assert!(served(&server, &token).contains(&CONSUMER.to_string()));
    assert_eq!(graded("solutions/reference.wat"), "passed");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(log.contains("exercise_rejected") && log.contains("exercise.toml"), "{log}");

    // An edit that loads but is not sound (its reference is the no-dedup mutant, so the mutants
    // it declares are no longer caught) is rejected as well.
    std::fs::copy(
        repo().join("exercises").join(CONSUMER).join("exercise.toml"),
        exercises.join("lager-neu/exercise.toml"),
    )
    .unwrap();
    poll("the repaired folder to be loaded again", Duration::from_secs(120), || {
        (reloads(&server, "loaded") >= 2).then_some(())
    });
    let rejected = reloads(&server, "rejected");
    std::fs::copy(
        repo().join("exercises").join(CONSUMER).join("mutants/no-dedup.wat"),
        exercises.join("lager-neu/solutions/reference.wat"),
    )
    .unwrap();
    poll("the unsound edit to be rejected", Duration::from_secs(120), || {
        (reloads(&server, "rejected") > rejected).then_some(())
    });
    assert_eq!(graded("mutants/no-dedup.wat"), "failed", "the last good version still grades");

    // Removed: no longer served; the others are untouched.
    std::fs::remove_dir_all(exercises.join("lager-neu")).unwrap();
    poll("the removed exercise to go", Duration::from_secs(60), || {
        (!served(&server, &token).contains(&CONSUMER.to_string())).then_some(())
    });
    assert_eq!(served(&server, &token), [PREDICTION]);
    assert_eq!(reloads(&server, "removed"), 1);
}

/// Exercise 04 (written only through `pruefstein new` and `check`, no grader code of its own) is
/// served and graded over HTTP like exercise 03: its reference passes, and each mutant fails the
/// check it declares in its first line (`;; expect-fail: CHECK`).
#[test]
fn the_authored_stock_exercise_is_graded_over_http() {
    const LAGER: &str = "04-lager";
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let folder = repo().join("exercises").join(LAGER);
    let listed = server.get(&format!("/api/v1/exercises/{LAGER}?lang=en"), &token);
    assert_eq!(listed.status, 200, "{}", listed.text());
    let grade = |file: &str| {
        let body = json!({
            "exercise": LAGER,
            "learner": "cem",
            "wat": std::fs::read_to_string(folder.join(file)).unwrap(),
        });
        let r = server.post_json("/api/v1/submissions?wait=30s", &token, &body, None);
        assert_eq!(r.status, 200, "{file}: {}", r.text());
        r.json()
    };
    let passed = grade("solutions/reference.wat");
    assert_eq!(passed["verdict"], "passed", "{passed}");

    let mut mutants: Vec<PathBuf> = std::fs::read_dir(folder.join("mutants"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wat"))
        .collect();
    mutants.sort();
    assert!(mutants.len() >= 2, "{mutants:?}");
    for mutant in mutants {
        let source = std::fs::read_to_string(&mutant).unwrap();
        let declared = source
            .lines()
            .find_map(pruefstein::consumer::expect_fail_on_line)
            .unwrap_or_else(|| panic!("{} declares no check", mutant.display()));
        let file = format!("mutants/{}", mutant.file_name().unwrap().to_str().unwrap());
        let failed = grade(&file);
        assert_eq!(failed["verdict"], "failed", "{file}");
        let failing: Vec<&str> = failed["report"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["passed"] == false)
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert!(failing.contains(&declared), "{file} must fail {declared}, failed {failing:?}");
    }
}

/// Settings come from a TOML file under the flags; a key the file does not know stops the start.
#[test]
fn configuration_file_is_read_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pruefstein.toml");
    std::fs::write(
        &config,
        "public_url = \"https://grading.example.org/\"\nworkers = 1\ndurability = \"normal\"\n",
    )
    .unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let server = Server::start(&data, &["--config", config.to_str().unwrap()]);
    let (token, _) = server.client("lms");
    let body = json!({"exercise": PREDICTION, "learner": "a", "answer": "(2, 2, 0)"});
    let view = server.post_json("/api/v1/submissions", &token, &body, None).json();
    assert!(
        view["links"]["report"].as_str().unwrap().starts_with("https://grading.example.org/reports/sub_"),
        "{view}"
    );
    drop(server);

    std::fs::write(&config, "bnid = \"0.0.0.0:1\"\n").unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .arg("--config")
        .arg(&config)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bnid"), "{stderr}");
}
