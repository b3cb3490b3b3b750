//! What only the SQLite store has: its database file (opened by several processes at once, or not
//! at all) and its encoding of source submissions. The store's behaviour through the trait is
//! tested on every backend in `store/tests.rs`.

use rusqlite::Connection;

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

#[test]
fn a_source_payload_round_trips_and_a_module_is_never_taken_for_one() {
    use crate::submission::Language;
    let payload = super::source_payload(Language::Python, "def verarbeite(con, msg):\n    return True\n");
    assert_eq!(
        super::parse_source_payload(&payload),
        Some(Ok((Language::Python, "def verarbeite(con, msg):\n    return True\n".to_string())))
    );
    assert_eq!(super::parse_source_payload(b"\0asm\x01\0\0\0"), None);
    assert_eq!(super::parse_source_payload(b"(module)"), None);
    assert!(matches!(super::parse_source_payload(b"\0source:cobol\nx"), Some(Err(_))));
    assert!(matches!(super::parse_source_payload(b"\0source:python"), Some(Err(_))));
}
