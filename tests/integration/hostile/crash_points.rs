//! Hostile consumers against the crash points: every way SQLite can make a change durable must be
//! followed by a crash point, however the statement is spelled (`COMMIT`, `END`, `RELEASE` of the
//! outermost savepoint, lower case, with `TRANSACTION`, a failed `INSERT OR FAIL` whose partial
//! changes SQLite commits), and nothing that changes nothing durable may count as one (`ROLLBACK`, a
//! read-only transaction, the `RELEASE` of an inner savepoint). The invariant: a consumer that makes
//! part of its work durable before the rest fails the crash check, whatever words it uses.

use pruefstein::consumer::detail::{CrashPoints, TraceEvent};
use pruefstein::report::{CheckDetail, CheckReport, Report};

use crate::support::{check, consumer_detail, grade_consumer};

fn grade_wat(wat: &str) -> Report {
    grade_consumer(wat.as_bytes().to_vec())
}

fn crash_check(report: &Report) -> &CheckReport {
    check(report, "crash-points")
}

fn points(check: &CheckReport) -> &CrashPoints {
    consumer_detail(check).crash_points.as_ref().expect("crash points are reported")
}

/// A consumer of exercise 3 that runs `statements` in order (each a `db.exec`; `?1` is bound to the
/// message id before `INSERT`/`DELETE` statements on gesehen, and `?1`/`?2` to points and customer
/// before the credit). A duplicate key rolls back and returns 0, any other failed statement rolls
/// back and returns 2.
fn consumer(statements: &[&str]) -> String {
    let mut data = String::new();
    let mut body = String::new();
    let mut offset = 512;
    for sql in statements {
        data.push_str(&format!("  (data (i32.const {offset}) \"{sql}\")\n"));
        let bind = if sql.contains("gesehen") && !sql.starts_with("SELECT") {
            "    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))\n"
        } else if sql.contains("UPDATE punkte") {
            "    (call $bind_credit)\n"
        } else {
            ""
        };
        body.push_str(bind);
        body.push_str(&format!(
            "    (local.set $status (call $exec (i32.const {offset}) (i32.const {len})))\n    \
             (if (i32.eq (local.get $status) (i32.const 1)) (then (drop (call $exec (i32.const 96) (i32.const 8))) (return (i32.const 0))))\n    \
             (if (local.get $status) (then (drop (call $exec (i32.const 96) (i32.const 8))) (return (i32.const 2))))\n",
            len = sql.len()
        ));
        offset += sql.len().div_ceil(16) * 16;
    }
    format!(
        r#"(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id")
  (data (i32.const 32) "body.punkte")
  (data (i32.const 48) "body.kunde")
  (data (i32.const 96) "ROLLBACK")
{data}
  (func $bind_credit
    (local $len i32)
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 4096) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 4096) (local.get $len)))
  (func (export "verarbeite") (result i32)
    (local $status i32)
{body}    (i32.const 1))
)"#
    )
}

const INSERT: &str = "INSERT INTO gesehen (msg_id) VALUES (?)";
const CREDIT: &str = "UPDATE punkte SET stand = stand + ? WHERE kunde = ?";

#[test]
fn the_lessons_transaction_passes_and_has_four_crash_points() {
    // The helper builds the lesson's transaction: it passes like the reference; three writes (two
    // on the fresh message, one on the failing one) and one COMMIT are its crash points.
    let report = grade_wat(&consumer(&["BEGIN", INSERT, CREDIT, "COMMIT"]));
    let failed: Vec<&str> = report.failed_checks().map(|c| c.name.as_str()).collect();
    assert!(failed.is_empty(), "{failed:?}");
    let points = points(crash_check(&report));
    assert_eq!((points.writes, points.commits, points.tested), (3, 1, 4), "{points:?}");
}

#[test]
fn every_spelling_of_a_commit_is_a_crash_point() {
    for (begin, commit) in [
        ("BEGIN", "COMMIT"),
        ("BEGIN", "END"),
        ("begin transaction", "commit transaction;"),
        ("BEGIN IMMEDIATE", "END TRANSACTION"),
        ("SAVEPOINT outer_sp", "RELEASE outer_sp"),
        ("SAVEPOINT outer_sp", "release savepoint outer_sp"),
    ] {
        // The id committed first, the credit on its own afterwards: the mistake of the lesson.
        let report = grade_wat(&consumer(&[begin, INSERT, commit, CREDIT]));
        let check = crash_check(&report);
        assert!(!check.passed, "{begin} … {commit}: the crash after it must be tried");
        let points = points(check);
        assert_eq!(points.failed_at, Some(2), "{begin} … {commit}: {points:?}");
        let failure = check.failure.as_ref().expect("failure");
        assert!(failure.en.contains("after the COMMIT of transaction 1"), "{commit}: {}", failure.en);
        assert!(failure.de.contains("nach dem COMMIT der 1. Transaktion"), "{commit}: {}", failure.de);
        assert!(failure.en.contains("before the next statement `UPDATE punkte"), "{}", failure.en);
    }
}

#[test]
fn an_inner_release_a_rollback_and_a_read_only_transaction_are_no_crash_points() {
    let report = grade_wat(&consumer(&[
        "BEGIN",
        "SELECT count(*) FROM gesehen",
        "COMMIT",
        "BEGIN",
        "SELECT count(*) FROM punkte",
        "ROLLBACK",
        "SAVEPOINT outer_sp",
        INSERT,
        "SAVEPOINT inner_sp",
        CREDIT,
        "RELEASE inner_sp",
        "RELEASE outer_sp",
    ]));
    let check = crash_check(&report);
    assert!(check.passed, "{:?}", check.failure);
    // Two writes and the outer RELEASE on the fresh path, the INSERT on the failing one.
    let points = points(check);
    assert_eq!((points.writes, points.commits), (3, 1), "{points:?}");
}

#[test]
fn partial_changes_that_sqlite_commits_after_a_failed_statement_are_a_crash_point() {
    // INSERT OR FAIL keeps the rows before the failing one; outside a transaction SQLite commits them
    // although the statement failed. The consumer ignores the failure (a duplicate key on the
    // second row) and credits in a transaction of its own afterwards.
    let wat = consumer(&["BEGIN", CREDIT, "COMMIT"]).replace(
        "    (local $status i32)\n",
        "    (local $status i32)\n    \
         (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))\n    \
         (drop (call $exec (i32.const 1024) (i32.const 58)))\n",
    );
    let wat = wat.replacen(
        "  (func $bind_credit",
        "  (data (i32.const 1024) \"INSERT OR FAIL INTO gesehen (msg_id) VALUES (?1), (?1 + 0)\")\n  (func $bind_credit",
        1,
    );
    assert_eq!("INSERT OR FAIL INTO gesehen (msg_id) VALUES (?1), (?1 + 0)".len(), 58);
    let report = grade_wat(&wat);
    let check = crash_check(&report);
    assert!(!check.passed, "the id is durable before the credit");
    let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
    let crash = detail
        .trace
        .iter()
        .find_map(|e| match e {
            TraceEvent::Crash { point, after_commit, .. } => Some((*point, *after_commit)),
            _ => None,
        })
        .expect("a crash");
    assert_eq!(crash, (1, Some(1)), "the crash came right after the failed INSERT OR FAIL");
    assert_eq!(points(check).failed_at, Some(1));
}
