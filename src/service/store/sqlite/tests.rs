//! What only the SQLite store has: its database file (opened by several processes at once, or not
//! at all). The store's behaviour through the trait is
//! tested on every backend in `store/tests.rs`.

use rusqlite::{Connection, OptionalExtension};

use super::migrate::SCHEMA_VERSION;
use super::*;

/// Several processes (here: threads with their own connections) opening a new data directory
/// at once: each migration runs once, and every opener sees the finished schema.
#[test]
fn concurrent_first_opens_migrate_once() {
    let dir = tempfile::tempdir().unwrap();
    let openers: Vec<_> = (0..8)
        .map(|_| {
            let path = dir.path().to_path_buf();
            std::thread::spawn(move || SqliteStore::open(&path, Durability::Normal).map(|_| ()))
        })
        .collect();
    for opener in openers {
        opener.join().unwrap().unwrap();
    }
    let conn = Connection::open(dir.path().join(DATABASE_FILE)).unwrap();
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version as usize, SCHEMA_VERSION);
}

#[test]
fn a_database_that_cannot_be_opened_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(DATABASE_FILE)).unwrap();
    match SqliteStore::open(dir.path(), Durability::Normal) {
        Err(StoreError::Database { operation, .. }) => assert_eq!(operation, "open the database"),
        other => panic!("a directory in the database's place was accepted: {other:?}"),
    }
}

/// Reading one submission looks its result up by key: the plan neither materialises the result
/// views nor scans a results table (with a LEFT JOIN on the compound view `latest_results` it did
/// both, and every read grew with the number of results).
#[test]
fn reading_a_submission_looks_its_result_up_by_key() {
    let dir = tempfile::tempdir().unwrap();
    SqliteStore::open(dir.path(), Durability::Normal).unwrap();
    let conn = Connection::open(dir.path().join(DATABASE_FILE)).unwrap();
    let plan = |sql: &str| -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt.query_map([1], |r| r.get::<_, String>(3)).unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join("\n")
    };
    let read = plan(&format!("{} WHERE s.id = ?1", results::submission_query()));
    assert!(!read.contains("MATERIALIZE") && !read.contains("SCAN"), "{read}");
    // The check can fail: the former join with the view.
    let former = plan(
        "SELECT s.id, r.status FROM submissions s LEFT JOIN latest_results r ON r.submission_id = s.id \
         WHERE s.id = ?1",
    );
    assert!(former.contains("MATERIALIZE") || former.contains("SCAN"), "{former}");
}

/// The submission query shows the same result version as the view `latest_results`: the first
/// result, or the newest regrade.
#[test]
fn the_submission_query_shows_the_latest_result_version() {
    let dir = tempfile::tempdir().unwrap();
    SqliteStore::open(dir.path(), Durability::Normal).unwrap();
    let conn = Connection::open(dir.path().join(DATABASE_FILE)).unwrap();
    let compare = |conn: &Connection| {
        let ours: Vec<(i64, Option<i64>, Option<String>)> = conn
            .prepare(&format!("{} ORDER BY s.id", results::submission_query()))
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(23)?, r.get(15)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let view: Vec<(i64, Option<i64>, Option<String>)> = conn
            .prepare(
                "SELECT s.id, r.version, r.verdict FROM submissions s \
                 LEFT JOIN latest_results r ON r.submission_id = s.id ORDER BY s.id",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(ours, view);
        ours
    };
    // Three submissions: no result, a first result, a first result and two regrades.
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    for id in 1..=3 {
        conn.execute(
            "INSERT INTO submissions (id, client_id, exercise, learner, kind, payload, sha256, request_hash, created_at) \
             VALUES (?1, 1, 'e', 'l', 'answer', x'00', 'h', 'q', 0)",
            [id],
        )
        .unwrap();
    }
    for id in 2..=3 {
        conn.execute(
            "INSERT INTO results (submission_id, status, verdict, points, max_points, attempts, finished_at) \
             VALUES (?1, 'graded', 'failed', 0, 10, 1, 0)",
            [id],
        )
        .unwrap();
    }
    for (version, verdict) in [(2, "passed"), (3, "failed")] {
        conn.execute(
            "INSERT INTO result_versions (submission_id, version, status, verdict, points, max_points, attempts, finished_at) \
             VALUES (3, ?1, 'graded', ?2, 0, 10, 1, 0)",
            rusqlite::params![version, verdict],
        )
        .unwrap();
    }
    let rows = compare(&conn);
    assert_eq!(
        rows,
        vec![(1, None, None), (2, Some(1), Some("failed".into())), (3, Some(3), Some("failed".into()))]
    );
}

/// A cached statement of the store runs again without being prepared again when other values are
/// bound: the submission query (a LEFT JOIN on `s.id = ?1`) was parsed and planned anew for every
/// read until the store's connections asked SQLite to plan once.
#[test]
fn a_cached_query_is_not_prepared_again_for_new_values() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
    let sql = format!("{} WHERE s.id = ?1", super::results::submission_query());
    let reprepared = store
        .read_sql(|conn| {
            for id in 5..9 {
                conn.prepare_cached(&sql)?.query_row([id], |_| Ok(())).optional()?;
            }
            Ok(conn.prepare_cached(&sql)?.get_status(rusqlite::StatementStatus::RePrepare))
        })
        .unwrap();
    assert_eq!(reprepared, 0, "the submission query was prepared again for new values");
}
