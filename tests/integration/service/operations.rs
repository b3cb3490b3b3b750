//! Operating the service: exercise folders reloaded while it runs, an authored exercise graded over
//! HTTP, the configuration file, the data directory's modes.

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

/// The mode bits of `path`.
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).mode() & 0o7777
}

/// The data directory holds the LTI key, the secrets and learners' code: a new one is created 0700
/// with every file 0600 whatever the umask (`pruefstein client add` creating it under umask 000); a
/// running server's database, log and index, and its lock, are 0600 under umask 022; a directory
/// others may read is warned about at start, and so is a service running as root.
#[test]
fn the_data_directory_is_private_whatever_the_umask() {
    use crate::support::server::Launch;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("new").join("data");
    let mut add = Command::new(BIN);
    add.args(["client", "add", "lms", "--token-only", "--data-dir"]).arg(&fresh);
    // SAFETY: umask(2) only changes the child's own mask.
    unsafe {
        add.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let out = add.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(mode(&fresh), 0o700);
    assert_eq!(mode(&fresh.join("pruefstein.db")), 0o600);

    // An installation from before: the directory is 0755 (the test's own, under umask 022).
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let server = Server::launch(&data, &[], Launch { umask: Some(0o022), ..Launch::default() });
    let (token, _) = server.client("lms");
    let r = server.post_json(
        "/api/v1/submissions?wait=30s",
        &token,
        &json!({"exercise": PREDICTION, "learner": "anna", "answer": "(2, 2, 0)"}),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    for file in ["pruefstein.db", "pruefstein.db-wal", "pruefstein.db-shm", "pruefstein.lock"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    let log = server.log_until("the start's warnings", |log| log.contains("\"event\":\"starting\""));
    let warned: Vec<&str> = log.lines().filter(|l| l.contains("data_dir_mode_loose")).collect();
    assert_eq!(warned.len(), 1, "the directory only: {log}");
    assert!(warned[0].contains("\"mode\":\"755\"") && warned[0].contains("chmod go-rwx"), "{}", warned[0]);
    let as_root = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(data.join("pruefstein.lock")).unwrap().uid() == 0
    };
    assert_eq!(log.contains("running_as_root"), as_root, "{log}");
}

/// The systemd unit in `deploy/` is valid (`systemd-analyze verify`, with its `ExecStart` pointing
/// at this build) and its hardening is rated OK with an exposure of at most 4.0
/// (`systemd-analyze security --offline=yes --threshold=40`); a unit without the hardening is not,
/// so the rating can fail.
#[test]
fn the_systemd_unit_verifies_and_its_hardening_is_rated_ok() {
    let dir = tempfile::tempdir().unwrap();
    let unit = std::fs::read_to_string(repo().join("deploy/pruefstein.service")).unwrap();
    assert!(unit.contains("ExecStart=/usr/local/bin/pruefstein serve"), "{unit}");
    let here = unit.replace("/usr/local/bin/pruefstein", BIN);
    let path = dir.path().join("pruefstein.service");
    std::fs::write(&path, &here).unwrap();
    let verify = Command::new("systemd-analyze").arg("verify").arg(&path).output().unwrap();
    assert!(
        verify.status.success() && verify.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let rate = |path: &std::path::Path| {
        Command::new("systemd-analyze")
            .args(["security", "--offline=yes", "--threshold=40", "--no-pager"])
            .arg(path)
            .output()
            .unwrap()
    };
    let rated = rate(&path);
    let text = String::from_utf8_lossy(&rated.stdout);
    assert!(rated.status.success(), "{text}");
    assert!(text.contains("Overall exposure level for pruefstein.service") && text.contains(" OK"), "{text}");

    let bare: String =
        here.lines().take_while(|l| !l.starts_with("# Hardening")).map(|l| format!("{l}\n")).collect();
    let bare_path = dir.path().join("bare").join("pruefstein.service");
    std::fs::create_dir(bare_path.parent().unwrap()).unwrap();
    std::fs::write(&bare_path, format!("{bare}[Install]\nWantedBy=multi-user.target\n")).unwrap();
    assert!(!rate(&bare_path).status.success(), "a unit without hardening must fail the rating");
}

/// A log shipper restarts, or the operator pipes the log into `head`: the server's standard error
/// becomes a pipe without a reader. The server keeps grading (every line it cannot write is dropped
/// and counted in `pruefstein_log_lines_dropped_total`), stays ready, and stops on SIGTERM.
#[test]
fn a_closed_log_pipe_never_stops_grading_or_shutdown() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let port = crate::support::http::free_port();
    let mut child = Command::new(BIN)
        .current_dir(repo())
        .args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--workers", "1", "--data-dir"])
        .arg(dir.path().join("data"))
        .env_remove("PRUEFSTEIN_CONFIG")
        .env("RUST_LOG", "pruefstein=debug")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader takes the first line (the server has started logging), then goes away.
    let mut reader = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(first.contains("\"level\""), "{first}");
    drop(reader);
    poll("the server to be ready", Duration::from_secs(60), || {
        request(port, "GET", "/readyz", &[], b"").ok().filter(|r| r.status == 200)
    });
    let add = Command::new(BIN)
        .args(["client", "add", "lms", "--token-only", "--data-dir"])
        .arg(dir.path().join("data"))
        .output()
        .unwrap();
    let token = String::from_utf8(add.stdout).unwrap().trim().to_string();
    let auth = format!("Bearer {token}");
    for n in 0..20 {
        let body = json!({"exercise": PREDICTION, "learner": format!("l{n}"), "answer": "(2, 2, 0)"});
        let r = request(
            port,
            "POST",
            "/api/v1/submissions?wait=30s",
            &[("Authorization", &auth), ("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
        .unwrap();
        assert_eq!(r.status, 200, "submission {n}: {}", r.text());
        // Graded (the learner's variant decides which).
        assert!(["passed", "failed"].contains(&r.json()["verdict"].as_str().unwrap_or("")), "{}", r.text());
    }
    assert_eq!(request(port, "GET", "/readyz", &[], b"").unwrap().status, 200);
    let metrics = request(port, "GET", "/metrics", &[], b"").unwrap().text();
    let dropped: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("pruefstein_log_lines_dropped_total "))
        .unwrap_or_else(|| panic!("{metrics}"))
        .parse()
        .unwrap();
    assert!(dropped > 0, "{metrics}");
    // SAFETY: kill(2) on a child process of this test.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let stopped =
        poll("the server to stop on SIGTERM", Duration::from_secs(30), || child.try_wait().unwrap());
    assert!(stopped.success(), "{stopped}");
}

/// A node whose grading threads make no progress while jobs wait says so on `/readyz` (503, with
/// the reason), so that a balancer sends work elsewhere, and is ready again once grading goes on.
/// The one grading thread hangs in a submission (a worker fault only tests can ask for) while a
/// second job waits; the stall limit is lowered for the test.
#[test]
fn readyz_says_not_ready_while_grading_stalls() {
    use crate::support::server::Launch;
    let dir = tempfile::tempdir().unwrap();
    let server = Server::launch(
        &dir.path().join("data"),
        &["--workers", "1", "--grading-stall-ms", "300"],
        Launch { fault_injection: true, ..Launch::default() },
    );
    let (token, _) = server.client("lms");
    let hang = format!("{}hang", pruefstein::isolation::worker::FAULT_PREFIX);
    for (learner, answer) in [("hangs", hang.as_str()), ("waits", "(2, 2, 0)")] {
        let r = server.post_json(
            "/api/v1/submissions",
            &token,
            &json!({"exercise": PREDICTION, "learner": learner, "answer": answer}),
            None,
        );
        assert_eq!(r.status, 202, "{}", r.text());
    }
    let stalled = poll("/readyz to say the node stalls", Duration::from_secs(30), || {
        let r = request(server.port, "GET", "/readyz", &[], b"").unwrap();
        (r.status == 503).then(|| r.text())
    });
    assert!(stalled.starts_with("grading stalled: no grading thread has finished a job for"), "{stalled}");
    assert!(stalled.contains("1 jobs wait"), "{stalled}");
    // The hanging worker is killed at its deadline; the waiting job is graded; the node is ready.
    poll("/readyz to be ready again", Duration::from_secs(60), || {
        request(server.port, "GET", "/readyz", &[], b"").ok().filter(|r| r.status == 200)
    });
}

/// The report secret does not change silently: a server started with another one refuses to start
/// and says why; started with `--rotate-report-secret` and the one before, it signs new links with
/// the new secret and still opens the links handed out before.
#[test]
fn a_changed_report_secret_is_refused_and_a_rotation_keeps_old_links_open() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let report_link = |server: &Server, token: &str, learner: &str| {
        let body = json!({"exercise": PREDICTION, "learner": learner, "answer": "(2, 2, 0)"});
        let r = server.post_json("/api/v1/submissions?wait=30s", token, &body, None);
        assert_eq!(r.status, 200, "{}", r.text());
        let url = r.json()["links"]["report"].as_str().unwrap().to_string();
        url[url.find("/reports/").unwrap()..].to_string()
    };
    let opens = |server: &Server, path: &str| request(server.port, "GET", path, &[], b"").unwrap().status;

    let mut server = Server::start(&data, &["--report-secret", "first-secret-aaaaaaaa"]);
    let (token, _) = server.client("lms");
    let old = report_link(&server, &token, "anna");
    assert_eq!(opens(&server, &old), 200);
    server.stop();

    let refused = Command::new(BIN)
        .args(["serve", "--bind", "127.0.0.1:0", "--course-secret", COURSE_SECRET, "--data-dir"])
        .arg(&data)
        .args(["--report-secret", "second-secret-bbbbbbbb"])
        .env_remove("PRUEFSTEIN_CONFIG")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(said.contains("the report secret differs") && said.contains("--rotate-report-secret"), "{said}");

    let rotated = Server::start(
        &data,
        &[
            "--report-secret",
            "second-secret-bbbbbbbb",
            "--rotate-report-secret",
            "--previous-report-secret",
            "first-secret-aaaaaaaa",
        ],
    );
    assert_eq!(opens(&rotated, &old), 200, "a link handed out before the rotation");
    let new = report_link(&rotated, &token, "ben");
    assert_eq!(opens(&rotated, &new), 200);
    let forged = new.replace(&new[new.find("t=").unwrap() + 2..][..8], "00000000");
    assert_eq!(opens(&rotated, &forged), 404);
}

/// Runs `pruefstein client …` on the server's data directory: its standard output.
fn client_command(server: &Server, args: &[&str]) -> String {
    let out =
        Command::new(BIN).arg("client").args(args).arg("--data-dir").arg(&server.data).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A client's lifecycle from the command line: `rotate` gives a new token while the old one keeps
/// working for its grace period; `jobe-key` gives a key of at most 40 characters (CodeRunner's key
/// field) that the Jobe endpoint takes and the API refuses; `remove` frees the name for a new client.
#[test]
fn clients_rotate_get_jobe_keys_and_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--jobe"]);
    let (old, _) = server.client("moodle");
    let status = |token: &str| server.get("/api/v1/submissions", token).status;
    let jobe = |key: &str| {
        request(server.port, "GET", "/jobe/index.php/restapi/languages", &[("X-API-KEY", key)], b"")
            .unwrap()
            .status
    };
    let new =
        client_command(&server, &["rotate", "moodle", "--grace", "1h", "--token-only"]).trim().to_string();
    assert_ne!(new, old);
    assert_eq!((status(&old), status(&new)), (200, 200), "both work during the grace period");
    let expired = client_command(&server, &["rotate", "moodle", "--grace", "0s", "--token-only"]);
    assert_eq!(status(expired.trim()), 200);
    assert_eq!(status(&new), 401, "a grace of nothing ends at once");
    assert_eq!(status(&old), 200, "the first rotation's grace period goes on");

    let key = client_command(&server, &["jobe-key", "moodle"]).trim().to_string();
    assert!(key.len() <= 40 && key.starts_with("pjk_"), "{key}");
    assert_eq!(jobe(&key), 200);
    assert_eq!(status(&key), 401, "a Jobe key is not an API token");

    client_command(&server, &["remove", "moodle"]);
    assert_eq!(jobe(&key), 403, "Jobe refuses an unknown key with 403");
    assert_eq!(status(expired.trim()), 403, "removed clients are revoked");
    assert!(!client_command(&server, &["list"]).contains("moodle"));
    let (again, _) = server.client("moodle");
    assert_eq!(status(&again), 200, "the name is free again");
}

/// With `--admin-bind`, the operator's routes leave the public address: `/metrics` is not found
/// there and `/readyz` says "ready" and nothing about the node; the admin address has both in full.
#[test]
fn metrics_and_detailed_health_move_to_the_admin_listener() {
    let dir = tempfile::tempdir().unwrap();
    let admin = crate::support::http::free_port();
    let server = Server::start(dir.path(), &["--admin-bind", &format!("127.0.0.1:{admin}")]);
    let public = |path: &str| request(server.port, "GET", path, &[], b"").unwrap();
    let private = |path: &str| request(admin, "GET", path, &[], b"").unwrap();
    assert_eq!(public("/metrics").status, 404);
    let brief = public("/readyz");
    assert_eq!((brief.status, brief.text().as_str()), (200, "ready\n"));
    assert_eq!(public("/healthz").status, 200);
    let metrics = private("/metrics");
    assert_eq!(metrics.status, 200);
    assert!(metrics.text().contains("pruefstein_submissions_total"), "{}", metrics.text());
    assert_eq!(private("/readyz").status, 200);
    assert!(private("/readyz").text().starts_with("ready\n"));
    assert_eq!(private("/api/v1/exercises").status, 404, "the API is not on the admin address");
    let (token, _) = server.client("lms");
    assert_eq!(server.get("/api/v1/exercises", &token).status, 200);
}

/// At start the service compiles the interpreter guests into its module cache, in a process of its
/// own and before any submission: its grading processes then read them from there instead of
/// compiling them (their memory stays that of a grading). Without the warm-up the cache stays empty
/// until a source submission comes.
#[test]
fn the_interpreters_are_compiled_into_the_module_cache_at_start_before_any_submission() {
    use crate::support::server::Launch;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("modules");
    let launch = Launch { module_cache: Some(cache.clone()), ..Launch::default() };
    let server = Server::launch(&dir.path().join("data"), &[], launch);
    let log = server.log_until("the warm-up's end", |log| {
        log.contains("\"event\":\"module_cache_warmed\"") || log.contains("module_cache_warm_failed")
    });
    assert!(log.contains("\"event\":\"module_cache_warmed\""), "{log}");
    let entries = std::fs::read_dir(&cache)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
        .count();
    // Each interpreter twice: the guest that makes its snapshot, and the snapshot it grades with.
    assert_eq!(entries, 4, "compiled modules in the cache");
    drop(server);
}
