//! The database of one run, in memory: no file, no journal on disk, no file locks.
//!
//! A grading restores the exercise's template (its schema and seed rows, built once per loaded
//! exercise) into a fresh database for every run. The database lives in SQLite's `memdb` storage
//! under a name unique in the process (`file:/pruefstein-run-N?vfs=pruefstein-memdb`), so every
//! connection of the run (the instances, interleaved or one after the other, and the harness's
//! observer) opens the same database by that name and sees the others' commits and locks, with the
//! lock rules of a database file (`vfs.rs`: memdb alone would keep readers out while a transaction
//! writes, and interleavings would wait at other statements than they do on a file). A [`RunDb`] keeps a holder connection open while the run lasts: the database outlives an
//! instance whose connection is dropped by a crash (SQLite discards its uncommitted transaction, as
//! it would roll back a hot journal after a real kill), and is freed when the last connection to it
//! closes.
//!
//! The bounds of a file database stay: `max_page_count` caps a guest connection's database at
//! [`crate::limits::SCRATCH_DB_BYTES_MAX`] (a write beyond it fails with "database full"), the
//! store itself is capped at the same size, and the memory a database takes counts against
//! SQLite's heap, which [`crate::sandbox::limit_grading_process`] caps in a grading process.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use super::guestdb::SpareConnections;

#[allow(unsafe_code)] // a VFS is a table of C callbacks
mod vfs;

/// Numbers the databases of this process, so that no two runs share a name.
static NEXT_RUN: AtomicU64 = AtomicU64::new(0);

/// The exercise's template, opened once per grading as the source every run is restored from.
pub struct TemplateSource {
    conn: Connection,
    /// The template's schema cookie (`PRAGMA schema_version`): every run database carries it.
    schema_version: i64,
}

impl TemplateSource {
    /// Opens the template bytes (a database image) read-only in memory.
    pub fn open(template: &[u8]) -> rusqlite::Result<TemplateSource> {
        vfs::register().map_err(|message| {
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
                Some(message),
            )
        })?;
        let mut conn = Connection::open_in_memory_with_flags(
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.deserialize_read_exact(rusqlite::MAIN_DB, template, template.len(), true)?;
        let schema_version = conn.query_row("PRAGMA schema_version", [], |row| row.get(0))?;
        Ok(TemplateSource { conn, schema_version })
    }

    /// A new database holding the template's schema and rows, under a name of its own.
    pub fn restore(&self) -> rusqlite::Result<RunDb> {
        let n = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
        let name = format!("/pruefstein-run-{n}");
        let uri = PathBuf::from(format!("file:{name}?vfs={}", vfs::VFS_NAME));
        let mut holder = Connection::open_with_flags(&uri, open_flags(false))?;
        // The guests' `max_page_count` stops them at this size already; the store's own cap also
        // bounds the buffer memdb grows for it.
        vfs::limit_size(&holder, crate::limits::SCRATCH_DB_BYTES_MAX)?;
        self.copy_into(&mut holder)?;
        Ok(RunDb {
            name,
            uri,
            holder,
            spares: Arc::default(),
            observer: std::cell::RefCell::default(),
            world: Arc::default(),
        })
    }

    /// Copies every page of the template over the database `holder` has open, in one step: one
    /// write transaction, which other connections to that database see as any commit (they drop
    /// their cached pages).
    ///
    /// The backup API raises the schema cookie so that other connections read the schema again;
    /// here the schema is the template's before and after (no connection to a run database may
    /// change it: the guests' authorizer denies every statement that would, the observer is
    /// read-only), so the cookie is set back to the template's and connections that stay open keep
    /// the schema they parsed.
    fn copy_into(&self, holder: &mut Connection) -> rusqlite::Result<()> {
        {
            let backup = Backup::new(&self.conn, holder)?;
            match backup.step(-1)? {
                StepResult::Done => {}
                other => {
                    return Err(rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                        Some(format!("restoring the template stopped early: {other:?}")),
                    ));
                }
            }
        }
        holder.execute_batch(&format!("PRAGMA schema_version = {}", self.schema_version))
    }
}

/// The flags every connection to a run's database opens with (the name is a URI naming the VFS).
pub(crate) fn open_flags(read_only: bool) -> OpenFlags {
    let access = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
    };
    access | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX
}

/// One run's database in memory, alive while this value (or any connection to it) is.
pub struct RunDb {
    /// The database's name in the VFS.
    name: String,
    uri: PathBuf,
    /// Keeps the database while instances come and go.
    holder: Connection,
    /// Guest connections to it that ended instances left for the next ones.
    spares: Arc<SpareConnections>,
    /// The harness's read-only connection to it, opened at the first state read and kept with the
    /// database, so that its prepared state queries serve every run on it.
    observer: std::cell::RefCell<Option<Connection>>,
    /// The outside services of the run on this database, shared by its instances: what they did
    /// survives an instance's crash ([`crate::consumer::world`]).
    world: crate::consumer::world::SharedWorld,
}

impl RunDb {
    /// The name connections open the database by (a `file:` URI, opened with [`open_flags`]).
    pub(crate) fn uri(&self) -> &Path {
        &self.uri
    }

    /// How many connections have this database open, its holder and spare connections included.
    pub(crate) fn connections(&self) -> u32 {
        vfs::open_files(&self.name)
    }

    /// The guest connections to this database that no instance uses now.
    pub(crate) fn spares(&self) -> &Arc<SpareConnections> {
        &self.spares
    }

    /// Whether no run uses this database: no connection has it open but its holder, its observer
    /// and the spare guest connections.
    pub(crate) fn idle(&self) -> bool {
        let observers = u32::from(self.observer.borrow().is_some());
        self.connections() == 1 + observers + self.spares.len() as u32
    }

    /// Runs `read` on the database's observer connection (read-only), opened at the first call.
    pub(crate) fn observe<T>(
        &self,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let mut observer = self.observer.borrow_mut();
        let conn = match observer.take() {
            Some(conn) => conn,
            None => super::state::open_observer(&self.uri)?,
        };
        let result = read(&conn);
        *observer = Some(conn);
        result
    }

    /// The outside services of the run on this database.
    pub(crate) fn world(&self) -> &crate::consumer::world::SharedWorld {
        &self.world
    }

    /// Starts the run's outside services afresh, as `config` declares them.
    pub(crate) fn reset_world(&self, config: &crate::consumer::world::WorldConfig) {
        let mut world = self.world.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *world = crate::consumer::world::World::new(config.clone());
    }

    /// Makes this database the template again, for the next run under the same name: what the
    /// last run wrote is gone, connections that stay open (an observer) read the template's rows
    /// on their next statement. Fails (SQLITE_BUSY) while another connection holds a lock on it, a
    /// transaction of a run that did not end: such a database is not reused.
    pub(crate) fn restore_from(&mut self, template: &TemplateSource) -> rusqlite::Result<()> {
        template.copy_into(&mut self.holder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> TemplateSource {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);").expect("schema");
        drop(conn);
        TemplateSource::open(&std::fs::read(&path).expect("read")).expect("source")
    }

    fn count(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).expect("count")
    }

    #[test]
    fn runs_are_restored_from_the_template_and_kept_apart() {
        let source = source();
        let (a, b) = (source.restore().expect("a"), source.restore().expect("b"));
        assert_ne!(a.uri(), b.uri());
        let conn_a = Connection::open_with_flags(a.uri(), open_flags(false)).expect("open a");
        conn_a.execute("INSERT INTO t VALUES (2)", []).expect("insert");
        let conn_b = Connection::open_with_flags(b.uri(), open_flags(true)).expect("open b");
        assert_eq!((count(&conn_a), count(&conn_b)), (2, 1));
    }

    #[test]
    fn the_database_outlives_a_dropped_connection_and_loses_its_open_transaction() {
        let run = source().restore().expect("run");
        let conn = Connection::open_with_flags(run.uri(), open_flags(false)).expect("open");
        conn.execute_batch("INSERT INTO t VALUES (2); BEGIN; INSERT INTO t VALUES (3);").expect("writes");
        drop(conn); // a crash: the open transaction is discarded
        let observer = Connection::open_with_flags(run.uri(), open_flags(true)).expect("observer");
        assert_eq!(count(&observer), 2);
    }

    #[test]
    fn connections_of_one_run_see_each_others_locks() {
        let run = source().restore().expect("run");
        let one = Connection::open_with_flags(run.uri(), open_flags(false)).expect("one");
        let two = Connection::open_with_flags(run.uri(), open_flags(false)).expect("two");
        one.execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (2);").expect("one writes");
        let busy = two.execute("INSERT INTO t VALUES (3)", []).expect_err("two waits");
        assert_eq!(busy.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy));
        one.execute_batch("COMMIT").expect("commit");
        two.execute("INSERT INTO t VALUES (3)", []).expect("two writes after the commit");
        assert_eq!(count(&one), 3);
    }

    /// A database made the template again reads as a fresh one, also through a connection that
    /// stayed open across the runs; while another connection holds a transaction on it, it is not
    /// restored and keeps its rows.
    #[test]
    fn a_database_restored_in_place_reads_as_the_template_and_is_refused_while_in_use() {
        let source = source();
        let mut run = source.restore().expect("run");
        assert_eq!(run.connections(), 1, "the holder");
        let observer = Connection::open_with_flags(run.uri(), open_flags(true)).expect("observer");
        let writer = Connection::open_with_flags(run.uri(), open_flags(false)).expect("writer");
        assert_eq!(run.connections(), 3);
        writer.execute_batch("INSERT INTO t VALUES (2); INSERT INTO t VALUES (3);").expect("writes");
        assert_eq!(count(&observer), 3);
        writer.execute_batch("BEGIN; INSERT INTO t VALUES (4);").expect("an open transaction");
        let busy = run.restore_from(&source).expect_err("a locked database is not restored");
        assert_eq!(busy.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy), "{busy}");
        drop(writer); // a crash: its transaction is discarded
        assert_eq!((run.connections(), count(&observer)), (2, 3));
        let cookie = |conn: &Connection| -> i64 {
            conn.query_row("PRAGMA schema_version", [], |row| row.get(0)).expect("schema_version")
        };
        let before = cookie(&observer);
        run.restore_from(&source).expect("restored");
        assert_eq!(count(&observer), 1);
        // The schema is the template's before and after: its cookie too, so that open connections
        // keep the schema they parsed.
        assert_eq!((cookie(&observer), cookie(&source.conn)), (before, before));
        let next = Connection::open_with_flags(run.uri(), open_flags(false)).expect("next run");
        next.execute("INSERT INTO t VALUES (5)", []).expect("writes again");
        assert_eq!((count(&observer), count(&next)), (2, 2));
    }

    /// Even a connection without the guests' `max_page_count` cannot grow a run's database past
    /// the scratch size: the store is capped, and the failed write leaves the rows as they were.
    #[test]
    fn a_run_database_is_capped_at_the_scratch_size() {
        let run = source().restore().expect("run");
        let conn = Connection::open_with_flags(run.uri(), open_flags(false)).expect("open");
        let too_big = crate::limits::SCRATCH_DB_BYTES_MAX + 1024 * 1024;
        let full = conn
            .execute("INSERT INTO t VALUES (zeroblob(?1))", [too_big as i64])
            .expect_err("the store is capped");
        assert_eq!(full.sqlite_error_code(), Some(rusqlite::ErrorCode::DiskFull));
        assert_eq!(count(&conn), 1);
    }

    /// The lock rules of a database file, not memdb's: a reader comes in while another connection
    /// has written in an open transaction, and sees the state before it; the writer's commit then
    /// waits for the reader's transaction to end.
    #[test]
    fn a_reader_comes_in_beside_an_open_write_as_with_a_file() {
        let run = source().restore().expect("run");
        let writer = Connection::open_with_flags(run.uri(), open_flags(false)).expect("writer");
        let reader = Connection::open_with_flags(run.uri(), open_flags(false)).expect("reader");
        writer.execute_batch("BEGIN; INSERT INTO t VALUES (2);").expect("writer writes");
        reader.execute_batch("BEGIN").expect("reader begins");
        assert_eq!(count(&reader), 1, "the reader reads beside the open write");
        let busy = writer.execute_batch("COMMIT").expect_err("the commit waits for the reader");
        assert_eq!(busy.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy));
        reader.execute_batch("COMMIT").expect("reader ends");
        writer.execute_batch("COMMIT").expect("the commit goes through");
        assert_eq!(count(&reader), 2);
    }
}
