//! The group-commit writer: one thread owns the write connection and commits in groups.
//!
//! It waits for a write, takes every other write that is waiting (up to [`GROUP_COMMIT_MAX`]), runs
//! each in its own savepoint inside one `BEGIN IMMEDIATE` transaction, commits once, and only then
//! answers each caller. With `synchronous = FULL` a commit costs an fsync (milliseconds); grouping
//! lets many callers share it, and nobody hears "stored" before it is durable. A write that fails
//! rolls back its own savepoint only; the others of its group still commit. If the commit itself
//! fails, every write of the group hears it. Writes are taken in the order they were handed over.
//! After [`Writer::shutdown`] the writes already handed over are committed, and later ones are
//! refused.

use std::sync::mpsc::{Receiver, SendError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::error::{During, Sql};
use crate::limits::GROUP_COMMIT_MAX;
use crate::service::store::StoreError;

/// What a write that was refused or lost hears.
const STOPPED: &str = "the database writer has stopped";

/// Runs after the group's commit with its outcome (an error message if the commit failed).
type Finish = Box<dyn FnOnce(Option<String>) + Send>;

/// A write waiting for the writer thread.
struct WriteOp {
    /// Runs the write inside the group's transaction and returns what to do after the commit.
    run: Box<dyn FnOnce(&Transaction<'_>) -> Finish + Send>,
    /// Called instead when the group's transaction could not even begin, or the writer has stopped.
    abort: Box<dyn FnOnce(String) + Send>,
}

/// The handle to the writer thread.
pub(crate) struct Writer {
    /// None once shut down.
    sender: Mutex<Option<Sender<WriteOp>>>,
    /// Joined by `shutdown` in the tests; in the service the thread ends when the last sender
    /// is dropped, after committing what it was handed.
    #[cfg_attr(not(test), allow(dead_code))]
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl Writer {
    /// Starts the writer thread, which owns `conn` from now on.
    pub(crate) fn start(conn: Connection) -> std::io::Result<Writer> {
        let (sender, receiver) = std::sync::mpsc::channel::<WriteOp>();
        let thread = std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || group_commit_loop(conn, receiver))?;
        Ok(Writer { sender: Mutex::new(Some(sender)), thread: Mutex::new(Some(thread)) })
    }

    fn enqueue(&self, op: WriteOp) {
        let sender = self.sender.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let Some(sender) = sender else {
            (op.abort)(STOPPED.into());
            return;
        };
        if let Err(SendError(op)) = sender.send(op) {
            (op.abort)(STOPPED.into());
        }
    }

    /// Runs `f` in the next group commit; `then` gets its result once the group is committed (or
    /// the error, naming `operation`). `then` runs on the writer thread: it must be quick.
    pub(crate) fn write_then<T: Send + 'static>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&Transaction<'_>) -> Sql<T> + Send + 'static,
        then: impl FnOnce(Result<T, StoreError>) + Send + 'static,
    ) {
        let then =
            Arc::new(Mutex::new(Some(Box::new(then) as Box<dyn FnOnce(Result<T, StoreError>) + Send>)));
        let on_abort = then.clone();
        self.enqueue(WriteOp {
            run: Box::new(move |tx| {
                let result = in_savepoint(tx, f).during(operation);
                Box::new(move |commit_error: Option<String>| {
                    let result = match commit_error {
                        None => result,
                        Some(message) => Err(StoreError::Commit(message)),
                    };
                    if let Some(then) = then.lock().unwrap_or_else(|p| p.into_inner()).take() {
                        then(result);
                    }
                })
            }),
            abort: Box::new(move |message| {
                if let Some(then) = on_abort.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    then(Err(StoreError::Commit(message)));
                }
            }),
        });
    }

    /// Runs `f` in the next group commit and waits until that is committed.
    pub(crate) fn write<T: Send + 'static>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&Transaction<'_>) -> Sql<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        self.write_then(operation, f, move |result| {
            let _ = sender.send(result);
        });
        receiver.recv().unwrap_or_else(|_| Err(StoreError::Commit(STOPPED.into())))
    }

    /// Refuses new writes, commits every write handed over before, and waits for the thread to end.
    #[cfg(test)]
    pub(crate) fn shutdown(&self) {
        drop(self.sender.lock().unwrap_or_else(|p| p.into_inner()).take());
        let thread = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

/// Runs one write in its own savepoint: its failure undoes only its own changes.
fn in_savepoint<T>(tx: &Transaction<'_>, f: impl FnOnce(&Transaction<'_>) -> Sql<T>) -> Sql<T> {
    tx.execute_batch("SAVEPOINT op")?;
    let result = f(tx);
    let end = if result.is_ok() { "RELEASE op" } else { "ROLLBACK TO op; RELEASE op" };
    tx.execute_batch(end)?;
    result
}

/// The writer thread: waits for a write, takes every other one waiting, commits them together. It
/// ends when every sender is gone and the channel is empty.
fn group_commit_loop(mut conn: Connection, receiver: Receiver<WriteOp>) {
    while let Ok(first) = receiver.recv() {
        let mut group = vec![first];
        while group.len() < GROUP_COMMIT_MAX {
            match receiver.try_recv() {
                Ok(op) => group.push(op),
                Err(_) => break,
            }
        }
        let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
            Ok(tx) => tx,
            Err(e) => {
                for op in group {
                    (op.abort)(e.to_string());
                }
                continue;
            }
        };
        let finishes: Vec<Finish> = group.into_iter().map(|op| (op.run)(&tx)).collect();
        let error = tx.commit().err().map(|e| e.to_string());
        for finish in finishes {
            finish(error.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::service::store::sqlite::error::Failure;

    /// A writer on a fresh database with one table, counting its commits.
    fn writer() -> (tempfile::TempDir, Writer, Arc<AtomicUsize>) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("w.db")).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER PRIMARY KEY);").unwrap();
        let commits = Arc::new(AtomicUsize::new(0));
        let counter = commits.clone();
        conn.commit_hook(Some(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            false
        }))
        .unwrap();
        (dir, Writer::start(conn).unwrap(), commits)
    }

    fn rows(dir: &tempfile::TempDir) -> Vec<i64> {
        let conn = Connection::open(dir.path().join("w.db")).unwrap();
        let mut stmt = conn.prepare("SELECT n FROM t ORDER BY n").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    }

    fn insert(n: i64) -> impl FnOnce(&Transaction<'_>) -> Sql<()> + Send + 'static {
        move |tx| {
            tx.execute("INSERT INTO t (n) VALUES (?1)", [n])?;
            Ok(())
        }
    }

    /// Holds the writer thread inside a write until the returned sender is dropped or sends.
    fn hold(writer: &Writer) -> (mpsc::Sender<()>, mpsc::Receiver<Result<(), StoreError>>) {
        let (release, held) = mpsc::channel::<()>();
        let (entered, inside) = mpsc::channel::<()>();
        let (done, finished) = mpsc::channel();
        writer.write_then(
            "hold",
            move |_| {
                let _ = entered.send(());
                let _ = held.recv();
                Ok(())
            },
            move |r| {
                let _ = done.send(r);
            },
        );
        inside.recv_timeout(Duration::from_secs(10)).expect("the writer takes the first write");
        (release, finished)
    }

    /// Queues `insert(n)` with a callback that reports its result and whether the row was visible
    /// to another connection (that is, committed) when the caller heard of it.
    fn queue(
        writer: &Writer,
        dir: &tempfile::TempDir,
        n: i64,
        fail: bool,
    ) -> mpsc::Receiver<(Result<(), StoreError>, bool)> {
        let (sender, receiver) = mpsc::channel();
        let path = dir.path().join("w.db");
        writer.write_then(
            "insert",
            move |tx| {
                insert(n)(tx)?;
                if fail {
                    Err(Failure::Store(StoreError::Conflict(format!("write {n} fails"))))
                } else {
                    Ok(())
                }
            },
            move |result| {
                let conn = Connection::open(path).unwrap();
                let seen: i64 =
                    conn.query_row("SELECT count(*) FROM t WHERE n = ?1", [n], |r| r.get(0)).unwrap();
                let _ = sender.send((result, seen == 1));
            },
        );
        receiver
    }

    fn wait(receiver: &mpsc::Receiver<(Result<(), StoreError>, bool)>) -> (Result<(), StoreError>, bool) {
        receiver.recv_timeout(Duration::from_secs(10)).expect("the write is answered")
    }

    #[test]
    fn writes_waiting_together_commit_together_and_are_answered_after_the_commit() {
        let (dir, writer, commits) = writer();
        let (release, first) = hold(&writer);
        let waiting: Vec<_> = (1..=5).map(|n| queue(&writer, &dir, n, false)).collect();
        release.send(()).unwrap();
        first.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
        for (n, receiver) in waiting.iter().enumerate() {
            let (result, committed) = wait(receiver);
            assert!(result.is_ok(), "write {n}: {result:?}");
            assert!(committed, "write {n} was answered before its commit");
        }
        assert_eq!(commits.load(Ordering::SeqCst), 2, "the held write, then one group of five");
        assert_eq!(rows(&dir), vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_failing_write_undoes_only_its_own_savepoint() {
        let (dir, writer, commits) = writer();
        let (release, first) = hold(&writer);
        let a = queue(&writer, &dir, 1, false);
        let b = queue(&writer, &dir, 2, true);
        let c = queue(&writer, &dir, 3, false);
        release.send(()).unwrap();
        first.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
        assert!(wait(&a).0.is_ok());
        assert!(matches!(wait(&b).0, Err(StoreError::Conflict(_))), "the failing write hears its error");
        assert!(wait(&c).0.is_ok());
        assert_eq!(commits.load(Ordering::SeqCst), 2, "the three were one group");
        assert_eq!(rows(&dir), vec![1, 3], "the failed write left nothing; the others committed");
    }

    #[test]
    fn a_write_sees_the_uncommitted_writes_before_it_in_its_group() {
        let (dir, writer, _) = writer();
        let (release, first) = hold(&writer);
        let a = queue(&writer, &dir, 1, false);
        let (sender, seen) = mpsc::channel();
        writer.write_then(
            "count",
            |tx| Ok(tx.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))?),
            move |r| sender.send(r).unwrap(),
        );
        release.send(()).unwrap();
        first.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
        assert!(wait(&a).0.is_ok());
        assert_eq!(seen.recv_timeout(Duration::from_secs(10)).unwrap().unwrap(), 1);
    }

    #[test]
    fn shutdown_commits_what_was_handed_over_and_refuses_what_comes_after() {
        let (dir, writer, _) = writer();
        let writer = Arc::new(writer);
        let (release, first) = hold(&writer);
        let waiting: Vec<_> = (1..=3).map(|n| queue(&writer, &dir, n, false)).collect();
        let stopping = {
            let writer = writer.clone();
            std::thread::spawn(move || writer.shutdown())
        };
        // Shutdown first refuses new writes, then waits for the held group: wait for the refusal.
        let deadline = Instant::now() + Duration::from_secs(10);
        while writer.sender.lock().unwrap().is_some() {
            assert!(Instant::now() < deadline, "shutdown did not close the queue");
            std::thread::yield_now();
        }
        release.send(()).unwrap();
        stopping.join().unwrap();
        first.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
        for receiver in &waiting {
            let (result, committed) = wait(receiver);
            assert!(result.is_ok() && committed, "a write handed over before shutdown was lost");
        }
        assert_eq!(rows(&dir), vec![1, 2, 3]);
        match writer.write("insert", insert(4)) {
            Err(StoreError::Commit(message)) => assert_eq!(message, STOPPED),
            other => panic!("a write after shutdown was not refused: {other:?}"),
        }
        assert_eq!(rows(&dir), vec![1, 2, 3]);
    }
}
