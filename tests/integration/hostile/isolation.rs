//! Grading in worker processes: a worker that overruns its deadline or memory is killed and replaced,
//! and nothing else is lost. The proofs use the real `pruefstein grade-worker` binary. The faults a
//! real submission cannot yet cause on purpose (a grading that hangs without using the CPU, one that
//! allocates without bound outside the guest, a crash) are asked for with fault-injection answers,
//! honoured only when the test sets `PRUEFSTEIN_TEST_WORKER_FAULTS`; a worker killed from outside
//! with SIGKILL mid-grade needs no injection. At the service, twenty hostile submissions queued
//! ahead of an ordinary one delay it by at most about one submission deadline once its turn comes,
//! and a job whose grading outlasts its lease is still graded exactly once (heartbeat).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pruefstein::grade::{GradeOptions, grade};
use pruefstein::isolation::outcome::WorkerFailure;
use pruefstein::isolation::pool::{WorkerProcess, WorkerSpec};
use pruefstein::isolation::worker::{FAULT_INJECTION_ENV, FAULT_PREFIX};
use pruefstein::limits::WORKER_KILL_MARGIN_MS;
use pruefstein::submission::Submission;
use serde_json::{Value, json};

use crate::support::server::{Launch, Server};
use crate::support::{BIN, CONSUMER, PREDICTION, consumer_dir, copy_tree, poll, repo};

/// The submission deadline of the copied exercise: short, so that overruns are quick to prove.
const WALL_MS: u64 = 300;

/// A copy of the prediction exercise below `root` with a short submission deadline.
fn short_deadline_exercise(root: &Path) -> PathBuf {
    let source = repo().join("exercises").join(PREDICTION);
    let target = root.join(PREDICTION);
    copy_tree(&source, &target);
    let toml = target.join("exercise.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!("\n[limits]\nwall_ms_per_submission = {WALL_MS}\n"));
    std::fs::write(&toml, text).unwrap();
    target
}

fn spec(faults: bool) -> WorkerSpec {
    WorkerSpec {
        program: PathBuf::from(BIN),
        env: if faults { vec![(FAULT_INJECTION_ENV.into(), "1".into())] } else { Vec::new() },
        module_cache: None,
    }
}

fn options() -> GradeOptions {
    GradeOptions { learner: Some("anna".into()), course_secret: "s".into(), ..GradeOptions::default() }
}

fn fault(name: &str) -> Submission {
    Submission::Answer(format!("{FAULT_PREFIX}{name}"))
}

fn alive(pid: u32) -> bool {
    // A reaped process has no /proc entry (a zombie would still have one).
    Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn a_worker_grades_exactly_as_in_process_and_keeps_the_exercise_loaded() {
    let root = tempfile::tempdir().unwrap();
    let exercise = pruefstein::graders::load(&short_deadline_exercise(root.path())).unwrap();
    let mut worker = WorkerProcess::spawn(&spec(false)).unwrap();
    for answer in ["(2, 2, 0)", "(1, 1, 1)", "[[[[", "(9, 9, 9)"] {
        let submission = Submission::Answer(answer.into());
        let in_process = grade(&exercise, &submission, &options()).unwrap();
        let isolated = worker.grade(&exercise, &submission, &options(), Duration::from_secs(60), &mut || {});
        let isolated = isolated.unwrap().unwrap();
        assert_eq!(isolated.to_json(), in_process.to_json(), "answer {answer}");
    }
    assert_eq!(worker.graded(), 4);
    // Without the switch a fault answer is an ordinary (wrong) answer.
    let report = worker.grade(&exercise, &fault("hang"), &options(), Duration::from_secs(60), &mut || {});
    assert!(report.unwrap().is_ok());
    drop(worker);
}

#[test]
fn a_worker_that_overruns_is_killed_and_replaced_and_the_next_submission_is_graded() {
    let root = tempfile::tempdir().unwrap();
    let exercise = pruefstein::graders::load(&short_deadline_exercise(root.path())).unwrap();
    let mut worker = WorkerProcess::spawn(&spec(true)).unwrap();
    let pid = worker.id();
    let started = Instant::now();
    let mut beats = 0;
    let failure =
        worker.grade(&exercise, &fault("hang"), &options(), Duration::from_millis(50), &mut || beats += 1);
    let waited = started.elapsed();
    assert_eq!(failure.unwrap_err(), WorkerFailure::Overran { limit_ms: WALL_MS });
    assert!(waited >= Duration::from_millis(WALL_MS + WORKER_KILL_MARGIN_MS), "killed early: {waited:?}");
    assert!(beats > 0, "no heartbeat while the worker was grading");
    assert!(!alive(pid), "the overrunning worker {pid} is still there");
    let reason = WorkerFailure::Overran { limit_ms: WALL_MS }.reason();
    assert!(
        reason.en.contains("wall_ms_per_submission = 300 ms") && reason.de.contains("Zeitlimit"),
        "{reason:?}"
    );
    drop(worker);
    // A new worker grades the next submission.
    let mut next = WorkerProcess::spawn(&spec(true)).unwrap();
    let report = next.grade(
        &exercise,
        &Submission::Answer("(1, 1, 1)".into()),
        &options(),
        Duration::from_secs(60),
        &mut || {},
    );
    assert!(report.unwrap().is_ok());
}

#[test]
fn a_worker_killed_with_sigkill_mid_grade_is_reported_and_replaced() {
    let root = tempfile::tempdir().unwrap();
    let exercise = pruefstein::graders::load(&short_deadline_exercise(root.path())).unwrap();
    let mut worker = WorkerProcess::spawn(&spec(true)).unwrap();
    let pid = worker.id() as i32;
    // The first heartbeat comes while the worker is grading: kill it then, from outside.
    let mut kill = || {
        // SAFETY: kill(2) on a child process of this test.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    };
    let failure = worker.grade(&exercise, &fault("hang"), &options(), Duration::from_millis(20), &mut kill);
    match failure.unwrap_err() {
        WorkerFailure::Died { status } => assert!(status.contains("SIGKILL"), "{status}"),
        other => panic!("expected a death, got {other:?}"),
    }
    drop(worker);
    let mut next = WorkerProcess::spawn(&spec(true)).unwrap();
    let report = next.grade(
        &exercise,
        &Submission::Answer("(1, 1, 1)".into()),
        &options(),
        Duration::from_secs(60),
        &mut || {},
    );
    assert!(report.unwrap().is_ok());
}

#[test]
fn a_worker_that_exhausts_its_address_space_or_crashes_dies_with_a_reason() {
    // The exercise's own deadline: filling the address space takes a loaded machine seconds.
    let exercise = pruefstein::graders::load(&repo().join("exercises").join(PREDICTION)).unwrap();
    for name in ["memory", "crash"] {
        let mut worker = WorkerProcess::spawn(&spec(true)).unwrap();
        let failure = worker.grade(&exercise, &fault(name), &options(), Duration::from_secs(60), &mut || {});
        let failure = failure.unwrap_err();
        assert!(matches!(failure, WorkerFailure::Died { .. }), "{name}: {failure:?}");
        let reason = failure.reason();
        assert!(
            reason.en.contains("worker_address_space_bytes") && reason.de.contains("Speicher"),
            "{reason:?}"
        );
        drop(worker);
    }
}

#[test]
fn a_worker_grades_the_version_it_was_sent_even_when_the_folder_is_gone() {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("03-idempotenter-konsument");
    crate::support::copy_tree(&repo().join("exercises/03-idempotenter-konsument"), &folder);
    let exercise = pruefstein::graders::load(&folder).unwrap();
    // The worker has no copy of the folder to fall back on: it builds the version from the files
    // sent, in memory, and names the folder as the service does.
    std::fs::remove_dir_all(&folder).unwrap();
    let mut worker = WorkerProcess::spawn(&spec(false)).unwrap();
    for file in ["solutions/reference.wat", "mutants/commits-id-first.wat"] {
        let module = std::fs::read(repo().join("exercises/03-idempotenter-konsument").join(file)).unwrap();
        let submission = Submission::Module(module);
        let isolated = worker.grade(&exercise, &submission, &options(), Duration::from_secs(60), &mut || {});
        let in_process = grade(&exercise, &submission, &options()).unwrap();
        assert_eq!(isolated.unwrap().unwrap().to_json(), in_process.to_json(), "{file}");
    }
    assert_eq!(worker.graded(), 2);
}

#[test]
fn the_worker_is_hidden_from_help() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("grade-worker"));
}

// ---------------------------------------------------------------------------------------------
// `pruefstein grade`: one submission in a grading process forked from the CLI.

/// A copy of the prediction exercise below `root` with the submission deadline `wall_ms`.
fn exercise_with_deadline(root: &Path, wall_ms: u64) -> PathBuf {
    let target = root.join(format!("deadline-{wall_ms}")).join(PREDICTION);
    copy_tree(&repo().join("exercises").join(PREDICTION), &target);
    let toml = target.join("exercise.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!("\n[limits]\nwall_ms_per_submission = {wall_ms}\n"));
    std::fs::write(&toml, text).unwrap();
    target
}

/// `pruefstein grade <exercise> --answer <answer>` for learner anna, honouring fault injection.
fn cli_grade(exercise: &Path, answer: &str) -> Command {
    let mut command = Command::new(BIN);
    command
        .arg("grade")
        .arg(exercise)
        .args(["--answer", answer, "--learner", "anna", "--course-secret", "s", "--lang", "en"])
        .env(FAULT_INJECTION_ENV, "1")
        .env(pruefstein::cli::MODULE_CACHE_ENV, "off");
    command
}

/// The children of process `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let after = stat.rsplit(')').next().unwrap_or("");
            after.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent)
        })
        .collect()
}

/// The one grading process of a running `pruefstein grade`, once it is there; it must be forked
/// (the CLI's own command line), not a started `grade-worker`.
fn grading_child_of(cli: &std::process::Child) -> u32 {
    let child =
        poll("the grading process", Duration::from_secs(30), || children_of(cli.id()).first().copied());
    let cmdline =
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default())
            .into_owned();
    assert!(!cmdline.contains("grade-worker"), "the CLI started a worker instead of forking: {cmdline}");
    child
}

#[test]
fn cli_grading_that_overruns_is_killed_at_its_deadline_and_the_limit_is_named() {
    let root = tempfile::tempdir().unwrap();
    let exercise = exercise_with_deadline(root.path(), WALL_MS);
    let started = Instant::now();
    let cli = cli_grade(&exercise, &format!("{FAULT_PREFIX}hang"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let child = grading_child_of(&cli);
    let out = cli.wait_with_output().unwrap();
    let waited = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("wall_ms_per_submission = 300 ms"), "{stderr}");
    assert!(waited >= Duration::from_millis(WALL_MS + WORKER_KILL_MARGIN_MS), "killed early: {waited:?}");
    assert!(out.stdout.is_empty(), "a report was printed for a grading that did not end");
    assert!(!alive(child), "the overrunning grading process {child} is still there");
}

#[test]
fn cli_grading_that_exhausts_its_address_space_or_crashes_is_reported_with_a_reason() {
    let exercise = repo().join("exercises").join(PREDICTION);
    for name in ["memory", "crash"] {
        let out = cli_grade(&exercise, &format!("{FAULT_PREFIX}{name}")).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains("worker_address_space_bytes"), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: a report was printed");
    }
}

#[test]
fn a_forked_grading_process_dies_with_the_cli_that_started_it() {
    let root = tempfile::tempdir().unwrap();
    // A deadline far beyond the wait below: only the parent's death can end the grading in time.
    let exercise = exercise_with_deadline(root.path(), 60_000);
    let mut cli = cli_grade(&exercise, &format!("{FAULT_PREFIX}hang"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let child = grading_child_of(&cli);
    cli.kill().unwrap();
    cli.wait().unwrap();
    // The orphan is reaped by whoever adopts it; gone from /proc or a zombie, it no longer runs.
    poll("the orphaned grading process to die", Duration::from_secs(30), || {
        let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").split_whitespace().next().unwrap_or("");
        (stat.is_empty() || state == "Z" || state == "X").then_some(())
    });
}

#[test]
fn the_cli_reports_exactly_what_grading_in_process_reports() {
    let consumer = repo().join("exercises/03-idempotenter-konsument");
    let loaded = pruefstein::graders::load(&consumer).unwrap();
    for file in ["solutions/reference.wat", "mutants/no-dedup.wat", "mutants/check-then-act.wat"] {
        let out = Command::new(BIN)
            .arg("grade")
            .arg(&consumer)
            .arg(consumer.join(file))
            .arg("--json")
            .env(pruefstein::cli::MODULE_CACHE_ENV, "off")
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let module = std::fs::read(consumer.join(file)).unwrap();
        let in_process = grade(&loaded, &Submission::Module(module), &GradeOptions::default()).unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{}\n", in_process.to_json()), "{file}");
    }
    let prediction = repo().join("exercises").join(PREDICTION);
    let out = cli_grade(&prediction, "(2, 2, 0)").arg("--json").output().unwrap();
    let in_process = grade(
        &pruefstein::graders::load(&prediction).unwrap(),
        &Submission::Answer("(2, 2, 0)".into()),
        &options(),
    )
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{}\n", in_process.to_json()));
}

// ---------------------------------------------------------------------------------------------
// At the service, over HTTP.

/// A server grading the exercises in `exercises` in worker processes that honour fault injection,
/// stopped with SIGTERM, and the token of its one client.
struct Service {
    server: Server,
    token: String,
}

impl Service {
    fn start(data: &Path, exercises: &Path, extra: &[&str]) -> Service {
        let mut args = vec!["--exercises", exercises.to_str().unwrap()];
        args.extend_from_slice(extra);
        let launch =
            Launch { course_secret: false, fault_injection: true, graceful_drop: true, ..Launch::default() };
        let server = Server::launch(data, &args, launch);
        let token = server.client("lms").0;
        Service { server, token }
    }

    fn post(&self, body: &Value) -> (u16, Value) {
        self.server.call_json("POST", "/api/v1/submissions", &self.token, body)
    }

    fn submit(&self, answer: &str) -> String {
        let (status, value) =
            self.post(&json!({"exercise": PREDICTION, "learner": "anna", "answer": answer}));
        assert_eq!(status, 202, "{value}");
        value["id"].as_str().unwrap().to_string()
    }

    fn get(&self, id: &str) -> Value {
        self.server.call_json("GET", &format!("/api/v1/submissions/{id}"), &self.token, &Value::Null).1
    }

    fn finished(&self, id: &str, timeout: Duration) -> Value {
        poll(&format!("{id} to finish"), timeout, || {
            let view = self.get(id);
            matches!(view["status"].as_str(), Some("graded" | "failed")).then_some(view)
        })
    }
}

/// Worker processes of the server (children running `grade-worker`).
fn worker_children(server: u32) -> Vec<u32> {
    children_of(server)
        .into_iter()
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains("grade-worker")
        })
        .collect()
}

#[test]
fn twenty_hostile_submissions_delay_an_ordinary_one_by_at_most_one_deadline() {
    let data = tempfile::tempdir().unwrap();
    let exercises = tempfile::tempdir().unwrap();
    short_deadline_exercise(exercises.path());
    let server = Service::start(data.path(), exercises.path(), &["--workers", "2"]);
    // Twenty hostile submissions: three that hang their worker, one that exhausts its memory, one
    // that crashes it, and fifteen that the grader itself must refuse (malformed, deeply nested,
    // oversized answers).
    let mut hostile = Vec::new();
    for n in 0..20 {
        let answer = match n {
            0 | 7 | 14 => format!("{FAULT_PREFIX}hang"),
            3 => format!("{FAULT_PREFIX}memory"),
            10 => format!("{FAULT_PREFIX}crash"),
            n if n % 3 == 0 => format!("{}{}", "(".repeat(5_000), n),
            n if n % 3 == 1 => "[".repeat(4_000),
            n => format!("({n}, {})", "9".repeat(3_000)),
        };
        hostile.push(server.submit(&answer));
    }
    let ordinary = server.submit("(1, 1, 1)");
    // Every hostile submission ends: refused, or failed with the limit it met.
    let mut last_hostile_done = Instant::now();
    for (n, id) in hostile.iter().enumerate() {
        let view = server.finished(id, Duration::from_secs(120));
        last_hostile_done = Instant::now();
        if [0, 7, 14, 3, 10].contains(&n) {
            assert_eq!(view["status"], "failed", "{view}");
            let failure = view["failure"].as_str().unwrap();
            assert!(
                failure.contains("Grading exceeded its time limit") || failure.contains("grading process"),
                "{failure}"
            );
        } else {
            assert_eq!(view["status"], "graded", "{view}");
        }
    }
    let view = server.finished(&ordinary, Duration::from_secs(120));
    let delay = last_hostile_done.elapsed();
    assert_eq!(view["status"], "graded", "{view}");
    assert_eq!(view["attempts"], 1, "{view}");
    assert!(
        delay <= Duration::from_millis(WALL_MS + WORKER_KILL_MARGIN_MS),
        "the ordinary submission finished {delay:?} after the hostile ones"
    );
    // No grading process is stuck: exactly one live worker per grading thread, and they answer.
    let workers = poll("two live workers", Duration::from_secs(30), || {
        let workers = worker_children(server.server.pid());
        (workers.len() == 2).then_some(workers)
    });
    assert_eq!(workers.len(), 2);
    let again = server.submit("(2, 2, 0)");
    assert_eq!(server.finished(&again, Duration::from_secs(30))["status"], "graded");
    // At shutdown the workers end with the server.
    let mut server = server;
    server.server.stop();
    for pid in &workers {
        assert!(!alive(*pid), "worker {pid} outlived the server");
    }
}

#[test]
fn a_grading_longer_than_its_lease_is_graded_once_thanks_to_the_heartbeat() {
    let data = tempfile::tempdir().unwrap();
    let exercises = tempfile::tempdir().unwrap();
    let consumer = repo().join("exercises/03-idempotenter-konsument");
    copy_tree(&consumer, &exercises.path().join("03-idempotenter-konsument"));
    // A lease of 200 ms, far shorter than grading a consumer takes here: without renewal every job
    // would be leased again by the other grading thread while the first still grades it.
    let server = Service::start(data.path(), exercises.path(), &["--workers", "2", "--job-lease-ms", "200"]);
    let module = std::fs::read_to_string(consumer.join("solutions/reference.wat")).unwrap();
    let ids: Vec<String> = (0..4)
        .map(|n| {
            let body = json!({
                "exercise": "03-idempotenter-konsument",
                "learner": "anna",
                "wat": format!(";; copy {n}\n{module}"),
            });
            let (status, value) = server.post(&body);
            assert_eq!(status, 202, "{value}");
            value["id"].as_str().unwrap().to_string()
        })
        .collect();
    for id in &ids {
        let view = server.finished(id, Duration::from_secs(300));
        assert_eq!((&view["status"], &view["verdict"]), (&json!("graded"), &json!("passed")), "{id}");
        assert_eq!(view["attempts"], 1, "{id} was graded more than once: its lease ran out");
    }
}

/// The jobs a grading thread leased together with a submission that hangs its worker do not wait
/// for its deadline: after `JOB_HELD_WAIT_MS_MAX` they are given back, and the other thread grades
/// them while the hanging one still runs. Queued behind the stopped server, the hanging answer is
/// the oldest job, so one thread leases it with seven ordinary answers.
#[test]
fn jobs_leased_with_a_hanging_submission_are_graded_by_another_thread_meanwhile() {
    let data = tempfile::tempdir().unwrap();
    let exercises = tempfile::tempdir().unwrap();
    short_deadline_exercise(exercises.path());
    let mut service = Service::start(data.path(), exercises.path(), &["--workers", "2"]);
    service.server.kill();
    let db = service.server.db();
    let answers: Vec<String> = std::iter::once(format!("{FAULT_PREFIX}hang"))
        .chain((0..15).map(|n| format!("({}, 1, 1)", n % 3)))
        .collect();
    let ids: Vec<String> = answers
        .iter()
        .map(|answer| {
            db.execute(
                "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, request_hash, created_at) \
                 VALUES (1, ?1, 'anna', 'answer', ?2, ?3, 'h', 0)",
                rusqlite::params![PREDICTION, answer.as_bytes(), pruefstein::submission::sha256_hex(answer.as_bytes())],
            )
            .unwrap();
            let id = db.last_insert_rowid();
            db.execute("INSERT INTO jobs (submission_id, leased, attempts, lease_until) VALUES (?1, 0, 0, 0)", [id])
                .unwrap();
            format!("sub_{id}")
        })
        .collect();
    drop(db);
    service.server.spawn();
    for id in &ids[1..] {
        assert_eq!(service.finished(id, Duration::from_secs(60))["status"], "graded", "{id}");
    }
    let hanging = service.finished(&ids[0], Duration::from_secs(120));
    assert_eq!(hanging["status"], "failed", "{hanging}");
    // Every ordinary answer was graded before the hanging one first took its worker down.
    let log = service
        .server
        .log_until("the lost worker to be logged", |log| log.contains("\"event\":\"worker_lost\""));
    let events: Vec<Value> = log.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let first_kill = events
        .iter()
        .find(|e| e["event"] == "worker_lost")
        .and_then(|e| e["timestamp"].as_str())
        .expect("the hanging answer took its worker down");
    for id in &ids[1..] {
        let graded = events
            .iter()
            .find(|e| e["event"] == "graded" && e["submission"] == id.as_str())
            .and_then(|e| e["timestamp"].as_str())
            .unwrap_or_else(|| panic!("{id} graded: {log}"));
        assert!(
            graded < first_kill,
            "{id} waited behind the hanging answer: graded {graded}, kill {first_kill}"
        );
    }
}

/// A Python consumer of exercise 03 that passes, with a fault-injection line that makes the
/// grading process's kernel refuse to seal the interpreter's memory image `times` times (`all`:
/// every time), as it refused once in about 180 gradings ("cannot add seals to the memfd").
fn sealing_refused(times: &str) -> String {
    let lesson = std::fs::read_to_string(consumer_dir().join("solutions/lesson.py")).unwrap();
    format!("{lesson}\n# {FAULT_PREFIX}memory-image:{times}\n")
}

/// A fault of the grader's own is never the student's verdict. A refusal that passes is tried
/// again in the grading process, and the submission is graded; one that persists makes the job
/// go to another worker process, and then fail for the operator with the reason, never
/// `rejected`. The CLI says it is the grader's fault and exits with neither verdict's code.
#[test]
fn a_grader_fault_is_retried_elsewhere_then_fails_for_the_operator_never_rejected() {
    let data = tempfile::tempdir().unwrap();
    let exercises = tempfile::tempdir().unwrap();
    copy_tree(&consumer_dir(), &exercises.path().join(CONSUMER));
    let service = Service::start(data.path(), exercises.path(), &["--workers", "2"]);
    let submit = |text: &str| {
        let body = json!({"exercise": CONSUMER, "learner": "anna", "language": "python", "source": text});
        let (status, value) = service.post(&body);
        assert_eq!(status, 202, "{value}");
        value["id"].as_str().unwrap().to_string()
    };
    let passing = submit(&sealing_refused("2"));
    let view = service.finished(&passing, Duration::from_secs(120));
    assert_eq!(
        (view["status"].as_str(), view["verdict"].as_str()),
        (Some("graded"), Some("passed")),
        "{view}"
    );
    assert_eq!(view["attempts"], 1, "a refusal that passes is tried again in place: {view}");

    let persisting = submit(&sealing_refused("all"));
    let view = service.finished(&persisting, Duration::from_secs(120));
    assert_eq!(view["status"], "failed", "a grader fault became a verdict: {view}");
    assert!(view["verdict"].is_null(), "{view}");
    assert_eq!(view["attempts"], pruefstein::limits::WORKER_KILLS_PER_SUBMISSION_MAX, "{view}");
    let failure = view["failure"].as_str().unwrap();
    assert!(failure.contains("cannot add seals to the memfd"), "{failure}");

    let file = data.path().join("consumer.py");
    std::fs::write(&file, sealing_refused("all")).unwrap();
    let out = Command::new(BIN)
        .arg("grade")
        .arg(consumer_dir())
        .arg(&file)
        .env(FAULT_INJECTION_ENV, "1")
        .env(pruefstein::cli::MODULE_CACHE_ENV, "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(pruefstein::cli::EXIT_USAGE), "{stderr}");
    assert!(stderr.contains("cannot add seals to the memfd"), "{stderr}");
}
