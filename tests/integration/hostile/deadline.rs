//! Hostile inputs that never end: one deadline per submission that every loop, statement, lock wait
//! and instantiation obeys.
//!
//! Each module is WAT written here: honest bugs (a fault while holding the write lock, a start
//! function that runs SQL, a thousand harmless writes) and adversaries (a loop that burns time at
//! little fuel in every phase, SQL whose every step is expensive). Each test asserts the verdict,
//! the check and the limit named, and that grading returned at all (a hang guard, not a
//! performance assertion: the grade runs on its own thread and the test fails if it is not done in
//! [`HANG_GUARD`]).

use std::time::Duration;

use pruefstein::consumer::checks::Check;
use pruefstein::consumer::detail::TraceEvent;
use pruefstein::limits::{CRASH_POINTS_MAX, WALL_MS_PER_SUBMISSION};
use pruefstein::report::{CheckReport, Report, Verdict};

use crate::support::{self, check, consumer_detail, consumer_dir as exercise_dir, repo};

/// A grade that has not returned by then hangs (the submission's own limit is 5 s).
const HANG_GUARD: Duration = Duration::from_secs(30);

/// Grades `wat` on its own thread; fails the test if the grade does not return within
/// [`HANG_GUARD`].
fn grade_guarded(wat: String) -> Report {
    // One grade of this module at a time: the deadline is wall-clock time, and it should measure
    // the submission, not the tests beside it.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    support::grade_guarded(wat.into_bytes(), HANG_GUARD)
}

fn trace(check: &CheckReport) -> &[TraceEvent] {
    &consumer_detail(check).trace
}

fn failure_en(check: &CheckReport) -> &str {
    check.failure.as_ref().map(|f| f.en.as_str()).unwrap_or("")
}

const IMPORTS: &str = r#"
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
"#;

/// The strings every module below uses, at fixed offsets.
const DATA: &str = r#"
  (data (i32.const 16) "id")
  (data (i32.const 32) "body.punkte")
  (data (i32.const 48) "body.kunde")
  (data (i32.const 64) "BEGIN")
  (data (i32.const 80) "COMMIT")
  (data (i32.const 96) "ROLLBACK")
  (data (i32.const 112) "INSERT INTO gesehen (msg_id) VALUES (?)")
  (data (i32.const 160) "UPDATE punkte SET stand = stand + ? WHERE kunde = ?")
  (data (i32.const 224) "body.fehlt")
  (data (i32.const 240) "UPDATE punkte SET stand = stand WHERE kunde = 'anna'")
  (data (i32.const 304) "SELECT count(*) FROM gesehen")
"#;

/// A correct consumer (the reference solution's logic) with hooks: `after_dedup` runs after the
/// dedup row is written (inside the transaction), `on_duplicate` when the id was seen before,
/// `extra` adds functions (a start function, helpers) to the module.
fn consumer(extra: &str, after_dedup: &str, on_duplicate: &str) -> String {
    format!(
        r#"(module {IMPORTS}
  (memory (export "memory") 16)
  {DATA}
  {extra}
  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32) (local $i i32)
    (drop (call $exec (i32.const 64) (i32.const 5)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 112) (i32.const 39)))
    (if (i32.eq (local.get $status) (i32.const 1))
      (then
        {on_duplicate}
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 0))))
    (if (local.get $status)
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    {after_dedup}
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (local.set $status (call $exec (i32.const 160) (i32.const 51)))
    (if (local.get $status)
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (if (call $exec (i32.const 80) (i32.const 6))
      (then
        (drop (call $exec (i32.const 96) (i32.const 8)))
        (return (i32.const 2))))
    (i32.const 1))
)"#
    )
}

/// A loop that burns wall-clock time at little fuel: each round fills the whole memory (1 MiB) for
/// a handful of fuel units, so the fuel budget would last minutes.
const SPIN: &str = r#"
    (loop $forever
      (memory.fill (i32.const 0) (i32.const 0) (i32.const 1048576))
      (br $forever))"#;

/// The invariants of a report that met the submission's deadline: failed; some check names the
/// limit; the checks that did not run are the last ones, all listed, marked as not run, and none
/// of them counts as failed.
fn assert_ran_out_of_time(report: &Report) {
    assert_eq!(report.verdict, Verdict::Failed);
    assert_eq!(report.checks.len(), Check::ALL.len(), "no check is left out");
    let limit = format!("time limit per submission ({} s)", WALL_MS_PER_SUBMISSION / 1000);
    assert!(report.summary.en.contains(&limit), "the summary names the limit: {}", report.summary.en);
    assert!(report.summary.de.contains("Zeitlimit pro Abgabe (5 s)"), "{}", report.summary.de);
    let first_not_run = report.checks.iter().position(|c| c.not_run).expect("a check did not run");
    assert!(
        report.checks[first_not_run..].iter().all(|c| c.not_run && !c.passed),
        "not-run checks are the tail"
    );
    assert!(report.checks[..first_not_run].iter().all(|c| !c.not_run));
    for skipped in report.not_run_checks() {
        assert!(failure_en(skipped).starts_with("Not run"), "{}", failure_en(skipped));
        assert!(failure_en(skipped).contains(&limit));
        assert!(skipped.replay.is_none(), "nothing to replay for a check that did not run");
    }
    assert!(report.failed_checks().all(|c| !c.not_run));
    let json = report.to_json();
    assert!(json.contains("\"not_run\": true"), "the JSON shows the status");
    let text = pruefstein::report::render_text_full(report, pruefstein::Lang::En);
    assert!(text.contains("[not run]"), "{text}");
    let text_de = pruefstein::report::render_text_full(report, pruefstein::Lang::De);
    assert!(text_de.contains("[nicht ausgeführt]"));
    let short = pruefstein::report::render_text(report, pruefstein::Lang::En);
    assert!(short.contains("– Not run:"), "the one-screen report lists them: {short}");
}

/// Finding 1: BEGIN, an INSERT, then a fault (a missing message field, or a trap) while holding the
/// write lock. The concurrent check's second instance used to wait for that lock forever, and every
/// retry recorded another wait event (memory grew without bound).
#[test]
fn a_fault_while_holding_the_write_lock_ends_with_a_report() {
    for (fault, named) in [
        ("(drop (call $msg_int (i32.const 224) (i32.const 10)))", "body.fehlt"),
        ("(unreachable)", "unreachable"),
    ] {
        let report = grade_guarded(consumer("", fault, ""));
        assert_eq!(report.verdict, Verdict::Failed, "{fault}");
        assert!(report.not_run_checks().next().is_none(), "{fault}: every check ran");
        let concurrent = check(&report, "concurrent-duplicate");
        assert!(!concurrent.passed && !concurrent.not_run, "{fault}");
        assert!(failure_en(concurrent).contains(named), "{fault}: {}", failure_en(concurrent));
        // The lock of the faulted instance is released with it: nobody waits for it forever, and
        // a wait is recorded at most once per statement.
        let events = trace(concurrent);
        let waits = events.iter().filter(|e| matches!(e, TraceEvent::Wait { .. })).count();
        let statements = events.iter().filter(|e| matches!(e, TraceEvent::Statement { .. })).count();
        assert!(waits <= statements, "{fault}: {waits} waits for {statements} statements");
        assert!(events.len() < 100, "{fault}: a short trace, not one event per retry: {}", events.len());
    }
}

/// Finding 2: a start function that runs a statement (AssemblyScript emits start functions) used
/// to spin at the interleaving gate forever. It runs before the gate is attached; a harmless one
/// changes nothing, so the consumer passes.
#[test]
fn a_start_function_that_runs_sql_starts_and_the_consumer_passes() {
    let start = r#"(func $init (drop (call $exec (i32.const 304) (i32.const 28)))) (start $init)"#;
    let report = grade_guarded(consumer(start, "", ""));
    let failed: Vec<&str> = report.failed_checks().map(|c| c.name.as_str()).collect();
    assert_eq!(report.verdict, Verdict::Passed, "failed: {failed:?}");
    assert!(check(&report, "concurrent-duplicate").passed);
}

/// Finding 2, the adversary: a start function that runs statements and then loops at little fuel
/// is stopped by the wall clock in every instance, the interleaved ones included.
#[test]
fn a_start_function_that_never_ends_is_stopped_in_every_instance() {
    let start =
        format!(r#"(func $init (drop (call $exec (i32.const 304) (i32.const 28))) {SPIN}) (start $init)"#);
    let report = grade_guarded(consumer(&start, "", ""));
    assert_ran_out_of_time(&report);
    let fresh = check(&report, "fresh-message");
    assert!(failure_en(fresh).starts_with("The consumer could not start"), "{}", failure_en(fresh));
    assert!(failure_en(fresh).contains("time per delivery"), "{}", failure_en(fresh));
}

/// Finding 5: a correct consumer with a thousand harmless writes (inside its transaction) used to
/// run a thousand crash points for 40–60 s, longer than the job lease, and fail because the checks
/// after were skipped. Its crash points are sampled from the seed, so it finishes within the
/// deadline in an optimised build (see BENCHMARKS.md); here, in a debug build on a loaded machine,
/// the invariant is what may not break: every check is listed, and one that does not pass either
/// did not run or met the time limit, which it names. Nothing else fails, nothing is left out.
#[test]
fn a_thousand_harmless_writes_end_within_the_deadline_with_no_check_skipped() {
    let writes = r#"
    (local.set $i (i32.const 0))
    (loop $more
      (drop (call $exec (i32.const 240) (i32.const 52)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $more (i32.lt_u (local.get $i) (i32.const 990))))"#;
    let report = grade_guarded(consumer("", writes, ""));
    assert_eq!(report.checks.len(), Check::ALL.len(), "no check is left out");
    let limit = format!("time limit per submission ({} s)", WALL_MS_PER_SUBMISSION / 1000);
    for check in report.checks.iter().filter(|c| !c.passed) {
        assert!(
            failure_en(check).contains(&limit),
            "{} failed for another reason: {}",
            check.name,
            failure_en(check)
        );
    }
    assert_eq!(report.verdict == Verdict::Passed, report.checks.iter().all(|c| c.passed));
    let crash = check(&report, "crash-points");
    if crash.passed {
        let points = report.coverage.iter().find(|c| c.name == "crash-points").expect("crash points");
        // The fresh message and the duplicate (this consumer writes on a duplicate too) each have
        // 992 crash points, of which CRASH_POINTS_MAX are tested.
        assert_eq!((points.exercised, points.total), (u64::from(2 * CRASH_POINTS_MAX), Some(2 * 992)));
        assert!(points.label.en.contains("sampled from the seed"), "{:?}", points.label);
        let text = pruefstein::report::render_text_full(&report, pruefstein::Lang::En);
        assert!(
            text.contains(&format!("crash points (sampled from the seed) {}/1984", 2 * CRASH_POINTS_MAX)),
            "{text}"
        );
    }
}

/// An endless loop that burns time at little fuel in `verarbeite`: each delivery is stopped by its
/// own clock, and the submission by its deadline; what did not run is listed as not run.
#[test]
fn an_endless_loop_in_every_delivery_ends_with_the_deadline_named() {
    let report = grade_guarded(consumer("", SPIN, ""));
    assert_ran_out_of_time(&report);
    let fresh = check(&report, "fresh-message");
    assert!(failure_en(fresh).contains("time per delivery"), "{}", failure_en(fresh));
}

/// An endless loop only in a second delivery (the duplicate, the redelivery, the second instance of
/// the concurrent check): the first delivery passes, every later one is stopped.
#[test]
fn an_endless_loop_in_the_second_delivery_ends_with_the_deadline_named() {
    let report = grade_guarded(consumer("", "", SPIN));
    assert!(check(&report, "fresh-message").passed);
    let duplicate = check(&report, "duplicate-same-instance");
    assert!(!duplicate.passed);
    assert!(failure_en(duplicate).contains("time per delivery"), "{}", failure_en(duplicate));
    assert_eq!(report.verdict, Verdict::Failed);
    assert_eq!(report.checks.len(), Check::ALL.len(), "no check is left out");
    // About five deliveries spin a second each: whether the deadline comes before the last check
    // depends on the machine; if it does, the report says so.
    if report.not_run_checks().next().is_some() {
        assert_ran_out_of_time(&report);
    }
}

/// SQL whose every step is expensive (a LIKE over a long string, row after row of a recursive CTE)
/// stays under the counted step limit for many seconds: the wall-clock backstop stops it.
#[test]
fn runaway_sql_with_expensive_steps_is_stopped_by_the_wall_clock() {
    // The concatenation with `i` keeps SQLite from evaluating the condition once for all rows.
    // Each row compares a 16,000-character value with a backtracking pattern of 98 characters
    // (both within their length limits): a few milliseconds per row, few counted steps.
    let sql = format!(
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) \
         SELECT count(*) FROM r WHERE (i || replace(hex(zeroblob(8000)), '0', 'a')) LIKE '%{}b'",
        "a".repeat(97)
    );
    let body = format!(
        r#"(data (i32.const 2048) "{sql}")
  (func $runaway (if (call $exec (i32.const 2048) (i32.const {len})) (then (unreachable))))"#,
        len = sql.len()
    );
    let report = grade_guarded(consumer(&body, "(call $runaway)", ""));
    assert_eq!(report.verdict, Verdict::Failed);
    let fresh = check(&report, "fresh-message");
    assert!(failure_en(fresh).contains("SQL time per statement"), "{}", failure_en(fresh));
    let stopped = trace(fresh).iter().find_map(|e| match e {
        TraceEvent::Statement { error: Some(error), .. } if error.starts_with("statement stopped") => {
            Some(error)
        }
        _ => None,
    });
    let stopped = stopped.expect("the runaway statement is traced with its error");
    assert!(stopped.contains("SQL time per statement"), "{stopped}");
}

/// A fast, ordinary submission never meets the deadline: its JSON has no trace of it.
#[test]
fn a_normal_report_does_not_mention_the_deadline() {
    let reference = std::fs::read_to_string(exercise_dir().join("solutions/reference.wat")).expect("read");
    let report = grade_guarded(reference);
    assert_eq!(report.verdict, Verdict::Passed);
    let json = report.to_json();
    assert!(!json.contains("not_run") && !json.contains("sampled"), "{json}");
}

/// A fuzz finding, kept: exercise 03's `insert-or-ignore` with a misspelt message path, so every
/// delivery faults in `msg.int` while its transaction holds the write lock. It once graded for
/// 1 min 48 s and grew past 2 GB; the corpus replay would only get slow again, this test fails.
#[test]
fn a_consumer_whose_every_delivery_faults_with_the_lock_held_ends_with_a_report() {
    let path = repo().join("fuzz/corpus/module/regression-every-delivery-faults-in-msg-int.wat");
    let wat = std::fs::read_to_string(path).expect("the kept finding");
    let report = grade_guarded(wat);
    assert_eq!(report.verdict, Verdict::Failed);
    assert_eq!(report.checks.len(), Check::ALL.len(), "no check is left out");
    let fresh = check(&report, "fresh-message");
    assert!(failure_en(fresh).contains("bod1"), "the missing path is named: {}", failure_en(fresh));
}
