//! Schema migrations: the `.sql` files in `store/migrations/`, compiled into the binary and applied
//! in order. `PRAGMA user_version` counts the applied ones; each runs in its own transaction together
//! with the version bump, so a migration is applied whole or not at all.
//!
//! The runner is small and hand-written: the `rusqlite_migration` crate links its own `rusqlite`
//! (and so its own `sqlite3`), which cannot live beside this crate's.

use rusqlite::{Connection, TransactionBehavior};

use super::error::Sql;
use crate::service::store::StoreError;

/// Every migration, in the order applied: (name, SQL).
pub(crate) const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_initial", include_str!("../migrations/0001_initial.sql")),
    ("0002_outbox_lease", include_str!("../migrations/0002_outbox_lease.sql")),
    ("0003_teachers", include_str!("../migrations/0003_teachers.sql")),
    ("0004_lti", include_str!("../migrations/0004_lti.sql")),
    ("0005_lease_holders", include_str!("../migrations/0005_lease_holders.sql")),
    ("0006_exercise_versions", include_str!("../migrations/0006_exercise_versions.sql")),
    ("0007_client_tokens", include_str!("../migrations/0007_client_tokens.sql")),
    ("0008_lti_courses", include_str!("../migrations/0008_lti_courses.sql")),
    ("0009_privacy", include_str!("../migrations/0009_privacy.sql")),
];

/// The schema version this program writes: the number of migrations.
pub(crate) const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// Brings the schema up to date, one migration per transaction. The version is read inside each
/// write transaction, so two processes starting on a new data directory at once (a server and
/// `pruefstein client add`) apply every migration exactly once: the second waits for the first's
/// lock, then sees the new version.
pub(crate) fn migrate(conn: &mut Connection) -> Sql<()> {
    migrate_to(conn, SCHEMA_VERSION)
}

/// Applies the migrations up to `target` (at most [`SCHEMA_VERSION`]).
fn migrate_to(conn: &mut Connection, target: usize) -> Sql<()> {
    apply(conn, MIGRATIONS, target)
}

/// Applies `migrations` up to `target`, each with its version bump in one transaction.
fn apply(conn: &mut Connection, migrations: &[(&str, &str)], target: usize) -> Sql<()> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: usize = tx.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize;
        if version > migrations.len() {
            return Err(StoreError::NewerSchema { found: version, known: migrations.len() }.into());
        }
        if version >= target {
            return Ok(());
        }
        let Some((_, sql)) = migrations.get(version) else {
            return Ok(());
        };
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (version + 1) as i64)?;
        tx.commit()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema as SQLite describes it, to compare two databases.
    fn schema(conn: &Connection) -> Vec<(String, String, Option<String>)> {
        let mut stmt = conn
            .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn version(conn: &Connection) -> usize {
        conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap() as usize
    }

    #[test]
    fn migrations_are_numbered_in_order() {
        for (i, (name, sql)) in MIGRATIONS.iter().enumerate() {
            assert!(name.starts_with(&format!("{:04}_", i + 1)), "{name} is migration {}", i + 1);
            assert!(!sql.trim().is_empty(), "{name} is empty");
        }
    }

    #[test]
    fn a_database_at_every_earlier_version_migrates_to_the_newest() {
        let mut newest = Connection::open_in_memory().unwrap();
        migrate(&mut newest).unwrap();
        assert_eq!(version(&newest), SCHEMA_VERSION);
        let expected = schema(&newest);
        for start in 0..=SCHEMA_VERSION {
            let mut conn = Connection::open_in_memory().unwrap();
            migrate_to(&mut conn, start).unwrap();
            assert_eq!(version(&conn), start);
            migrate(&mut conn).unwrap();
            assert_eq!(version(&conn), SCHEMA_VERSION, "from version {start}");
            assert_eq!(schema(&conn), expected, "from version {start}");
            // Migrating again changes nothing.
            migrate(&mut conn).unwrap();
            assert_eq!(schema(&conn), expected);
        }
    }

    #[test]
    fn rows_written_before_a_migration_survive_it() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_to(&mut conn, 1).unwrap();
        conn.execute_batch(
            "INSERT INTO clients (id, name, token_hash, webhook_secret, created_at) VALUES (1, 'lms', 'h', 's', 0);
             INSERT INTO submissions (id, client_id, exercise, learner, kind, payload, sha256, request_hash, created_at)
                 VALUES (1, 1, 'e', 'l', 'answer', x'', 'x', 'r', 0);
             INSERT INTO outbox (event_id, submission_id, client_id, url, payload, state, next_attempt_at, created_at)
                 VALUES ('evt_sub_1', 1, 1, 'http://x/', '{}', 'pending', 5, 0);",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let (next, leased): (i64, i64) = conn
            .query_row("SELECT next_attempt_at, leased FROM outbox WHERE event_id = 'evt_sub_1'", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((next, leased), (5, 0));
    }

    #[test]
    fn a_database_newer_than_the_program_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        conn.pragma_update(None, "user_version", (SCHEMA_VERSION + 1) as i64).unwrap();
        let refused = migrate(&mut conn);
        let Err(super::super::error::Failure::Store(error @ StoreError::NewerSchema { .. })) = refused else {
            panic!("{refused:?}");
        };
        let message = error.to_string();
        assert!(message.contains("written by a newer version of Prüfstein"), "{message}");
        assert!(message.contains(&format!("schema version {}", SCHEMA_VERSION + 1)), "{message}");
        assert!(message.contains("restore the backup"), "{message}");
    }

    #[test]
    fn a_migration_that_fails_halfway_leaves_nothing_of_itself() {
        let migrations: &[(&str, &str)] = &[
            ("0001_a", "CREATE TABLE a (x INTEGER);"),
            (
                "0002_b",
                "CREATE TABLE b (x INTEGER); INSERT INTO a VALUES (1); INSERT INTO nowhere VALUES (1);",
            ),
        ];
        let mut conn = Connection::open_in_memory().unwrap();
        assert!(apply(&mut conn, migrations, 2).is_err());
        assert_eq!(version(&conn), 1, "the first migration stays applied");
        let tables: i64 =
            conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'b'", [], |r| r.get(0)).unwrap();
        assert_eq!(tables, 0, "the failed migration's first statement was rolled back");
        let rows: i64 = conn.query_row("SELECT count(*) FROM a", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 0, "and so was its second");
    }

    #[test]
    fn a_failing_migration_leaves_the_version_it_found() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate_to(&mut conn, 1).unwrap();
        // A table the second migration's ALTER cannot change: it fails, and nothing of it stays.
        conn.execute_batch("ALTER TABLE outbox ADD COLUMN leased INTEGER").unwrap();
        assert!(migrate(&mut conn).is_err());
        assert_eq!(version(&conn), 1);
    }
}
