//! `pruefstein-memdb`: SQLite's `memdb` VFS with the locking of database files.
//!
//! `memdb` keeps a named database in memory and shares it between the connections of a process, but
//! it locks more coarsely than a file: while one connection holds a RESERVED lock (it has written in
//! a transaction it has not committed), `memdb` refuses every other connection a SHARED lock, so a
//! second instance could not even read. With files, SQLite (the unix VFS, all connections in one
//! process) lets readers in until the writer asks for its PENDING lock to commit. Which of two
//! interleaved instances waits, and at which statement, is part of a report; so this VFS is
//! `memdb` for the storage (reading, writing, size, file controls: its own methods, unchanged) and
//! the unix VFS's in-process lock rules for locking, ported one to one from `unixLock` and
//! `posixUnlock` (the `unixInodeInfo` bookkeeping: the strongest lock on the database and the
//! number of connections holding SHARED).
//!
//! A file of this VFS is memdb's own file, followed by a [`Tail`] of this module (the VFS's
//! `szOsFile` is memdb's plus the tail), so memdb's methods work on it unchanged.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString, c_char, c_int};
use std::sync::{Mutex, OnceLock};

use rusqlite::ffi;

/// The name connections open the VFS by (`?vfs=` in a URI).
pub(super) const VFS_NAME: &str = "pruefstein-memdb";

const NONE: c_int = ffi::SQLITE_LOCK_NONE;
const SHARED: c_int = ffi::SQLITE_LOCK_SHARED;
const RESERVED: c_int = ffi::SQLITE_LOCK_RESERVED;
const PENDING: c_int = ffi::SQLITE_LOCK_PENDING;
const EXCLUSIVE: c_int = ffi::SQLITE_LOCK_EXCLUSIVE;

/// The lock state of one database (the unix VFS's `unixInodeInfo`, as far as locks go).
#[derive(Default)]
struct Inode {
    /// The strongest lock any connection holds.
    lock: c_int,
    /// How many connections hold SHARED or more.
    shared: u32,
    /// How many files of this VFS have the database open.
    files: u32,
}

/// Every open database's lock state, by name.
static INODES: Mutex<BTreeMap<String, Inode>> = Mutex::new(BTreeMap::new());

/// What this VFS appends to memdb's file.
#[repr(C)]
struct Tail {
    /// This connection's lock.
    lock: c_int,
    /// The key of the database in [`INODES`] (owned: made by `Box::into_raw`).
    key: *mut String,
}

/// What registration found and made, fixed for the life of the process.
struct Registered {
    /// memdb's VFS.
    memdb: *mut ffi::sqlite3_vfs,
    /// Where a file's [`Tail`] begins.
    tail_offset: usize,
}

// SAFETY: the pointers name SQLite's process-wide VFS objects, which never move or go away.
unsafe impl Send for Registered {}
unsafe impl Sync for Registered {}

/// The I/O methods of a file: memdb's, with this module's locking and closing.
struct Methods {
    ours: ffi::sqlite3_io_methods,
    memdb_close: unsafe extern "C" fn(*mut ffi::sqlite3_file) -> c_int,
}

// SAFETY: a table of function pointers, never changed after it is made.
unsafe impl Send for Methods {}
unsafe impl Sync for Methods {}

static REGISTERED: OnceLock<Result<Registered, String>> = OnceLock::new();
static METHODS: OnceLock<Methods> = OnceLock::new();

/// Registers the VFS once per process; returns why it could not be.
pub(super) fn register() -> Result<(), String> {
    REGISTERED.get_or_init(register_once).as_ref().map(|_| ()).map_err(Clone::clone)
}

fn register_once() -> Result<Registered, String> {
    // SAFETY: looks a VFS up by a NUL-terminated name (initialising SQLite if needed).
    let memdb = unsafe { ffi::sqlite3_vfs_find(c"memdb".as_ptr()) };
    if memdb.is_null() {
        return Err("SQLite has no memdb VFS".into());
    }
    // SAFETY: `memdb` is a registered VFS, valid for the life of the process.
    let mut vfs: ffi::sqlite3_vfs = unsafe { *memdb };
    let align = std::mem::align_of::<Tail>();
    let tail_offset = (vfs.szOsFile as usize).div_ceil(align) * align;
    vfs.szOsFile = (tail_offset + std::mem::size_of::<Tail>()) as c_int;
    vfs.pNext = std::ptr::null_mut();
    // The name lives as long as the VFS: for the life of the process.
    vfs.zName = CString::new(VFS_NAME).map_err(|e| e.to_string())?.into_raw();
    vfs.xOpen = Some(open);
    // memdb's other methods only use `pAppData` (the VFS below memdb), which the copy keeps.
    let vfs = Box::into_raw(Box::new(vfs));
    // SAFETY: registers a VFS that stays valid for the life of the process (leaked on purpose).
    let rc = unsafe { ffi::sqlite3_vfs_register(vfs, 0) };
    if rc != ffi::SQLITE_OK {
        return Err(format!("cannot register the {VFS_NAME} VFS (SQLite error {rc})"));
    }
    Ok(Registered { memdb, tail_offset })
}

/// Caps the memory of the database `conn` has open as `main` at `bytes` (memdb's size limit, which
/// also bounds how far it grows its buffer); a write beyond it fails with SQLITE_FULL. Returns the
/// limit in force.
pub(super) fn limit_size(conn: &rusqlite::Connection, bytes: u64) -> rusqlite::Result<u64> {
    let mut limit = i64::try_from(bytes).unwrap_or(i64::MAX);
    // SAFETY: a file control on the connection's main database with the i64 it expects; the
    // handle is valid while `conn` is borrowed.
    let rc = unsafe {
        ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_SIZE_LIMIT,
            (&raw mut limit).cast(),
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None));
    }
    Ok(u64::try_from(limit).unwrap_or(0))
}

/// How many files of this VFS have the shared database `name` (as in its URI, "/…") open: one per
/// connection to it.
pub(super) fn open_files(name: &str) -> u32 {
    inodes().get(name).map_or(0, |inode| inode.files)
}

fn registered() -> Option<&'static Registered> {
    REGISTERED.get().and_then(|r| r.as_ref().ok())
}

/// The tail of `file`.
///
/// # Safety
/// `file` is a file of this VFS (allocated with its `szOsFile`).
unsafe fn tail(file: *mut ffi::sqlite3_file) -> Option<*mut Tail> {
    let offset = registered()?.tail_offset;
    // SAFETY: the file was allocated with room for the tail at `offset`, aligned for it.
    Some(unsafe { file.cast::<u8>().add(offset).cast::<Tail>() })
}

fn inodes() -> std::sync::MutexGuard<'static, BTreeMap<String, Inode>> {
    // A poisoned table still holds consistent counts: no code panics while changing them.
    INODES.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

unsafe extern "C" fn open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let Some(registered) = registered() else { return ffi::SQLITE_ERROR };
    let memdb = registered.memdb;
    // SAFETY: memdb's own open, on a file allocated with room for memdb's file.
    let rc = unsafe {
        match (*memdb).xOpen {
            Some(memdb_open) => memdb_open(memdb, name, file, flags, out_flags),
            None => ffi::SQLITE_ERROR,
        }
    };
    // SAFETY: memdb set the file's methods when it opened it.
    let memdb_methods = unsafe { (*file).pMethods };
    if rc != ffi::SQLITE_OK || memdb_methods.is_null() {
        return rc;
    }
    // SAFETY: memdb's method table is static and valid.
    let methods = METHODS.get_or_init(|| unsafe { our_methods(*memdb_methods) });
    // A name beginning with "/" names a database shared by every connection that opens it; any
    // other name (or none) is a database of this file alone.
    // SAFETY: SQLite passes a NUL-terminated name or null.
    let shared_name = (!name.is_null())
        .then(|| unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned())
        .filter(|n| n.len() > 1 && n.starts_with('/'));
    let key = shared_name.unwrap_or_else(|| format!("#{file:p}"));
    inodes().entry(key.clone()).or_default().files += 1;
    // SAFETY: the tail lies within the file's allocation; this writes it before any other use.
    unsafe {
        let Some(tail) = tail(file) else { return ffi::SQLITE_ERROR };
        tail.write(Tail { lock: NONE, key: Box::into_raw(Box::new(key)) });
        (*file).pMethods = &methods.ours;
    }
    ffi::SQLITE_OK
}

/// memdb's methods with this module's lock, unlock, reserved-lock check and close.
fn our_methods(memdb: ffi::sqlite3_io_methods) -> Methods {
    let mut ours = memdb;
    ours.xLock = Some(lock);
    ours.xUnlock = Some(unlock);
    ours.xCheckReservedLock = Some(check_reserved_lock);
    ours.xClose = Some(close);
    Methods { ours, memdb_close: memdb.xClose.unwrap_or(close_nothing) }
}

unsafe extern "C" fn close_nothing(_file: *mut ffi::sqlite3_file) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: SQLite closes only files this VFS opened; the key was made in `open`.
    unsafe {
        if let Some(tail) = tail(file) {
            let key = Box::from_raw((*tail).key);
            let mut inodes = inodes();
            if let Some(inode) = inodes.get_mut(key.as_str()) {
                inode.files = inode.files.saturating_sub(1);
                if inode.files == 0 {
                    inodes.remove(key.as_str());
                }
            }
        }
        match METHODS.get() {
            Some(methods) => (methods.memdb_close)(file),
            None => ffi::SQLITE_ERROR,
        }
    }
}

/// Runs `f` on this file's lock and its database's lock state.
///
/// # Safety
/// `file` is an open file of this VFS.
unsafe fn with_locks(file: *mut ffi::sqlite3_file, f: impl FnOnce(&mut c_int, &mut Inode) -> c_int) -> c_int {
    // SAFETY: the tail of an open file holds its lock and a valid key.
    unsafe {
        let Some(tail) = tail(file) else { return ffi::SQLITE_ERROR };
        let mut inodes = inodes();
        let Some(inode) = inodes.get_mut((*(*tail).key).as_str()) else { return ffi::SQLITE_ERROR };
        f(&mut (*tail).lock, inode)
    }
}

/// `unixLock` for connections of one process: the rules SQLite applies to a database file.
unsafe extern "C" fn lock(file: *mut ffi::sqlite3_file, wanted: c_int) -> c_int {
    // SAFETY: SQLite locks only open files of this VFS.
    unsafe { with_locks(file, |mine, inode| lock_rules(mine, inode, wanted)) }
}

fn lock_rules(mine: &mut c_int, inode: &mut Inode, wanted: c_int) -> c_int {
    if *mine >= wanted {
        return ffi::SQLITE_OK;
    }
    // Another connection holds a lock that precludes the one wanted.
    if *mine != inode.lock && (inode.lock >= PENDING || wanted > SHARED) {
        return ffi::SQLITE_BUSY;
    }
    // A SHARED lock while others hold SHARED or RESERVED: granted.
    if wanted == SHARED && (inode.lock == SHARED || inode.lock == RESERVED) {
        *mine = SHARED;
        inode.shared += 1;
        return ffi::SQLITE_OK;
    }
    let rc = if wanted == SHARED {
        // Nobody holds a lock.
        inode.shared = 1;
        ffi::SQLITE_OK
    } else if wanted == EXCLUSIVE && inode.shared > 1 {
        // Readers remain: wait for them, holding PENDING so that no new one comes in.
        ffi::SQLITE_BUSY
    } else {
        ffi::SQLITE_OK
    };
    if rc == ffi::SQLITE_OK {
        *mine = wanted;
        inode.lock = wanted;
    } else if wanted == EXCLUSIVE {
        *mine = PENDING;
        inode.lock = PENDING;
    }
    rc
}

/// `posixUnlock` for connections of one process.
unsafe extern "C" fn unlock(file: *mut ffi::sqlite3_file, wanted: c_int) -> c_int {
    // SAFETY: SQLite unlocks only open files of this VFS.
    unsafe { with_locks(file, |mine, inode| unlock_rules(mine, inode, wanted)) }
}

fn unlock_rules(mine: &mut c_int, inode: &mut Inode, wanted: c_int) -> c_int {
    if *mine <= wanted {
        return ffi::SQLITE_OK;
    }
    if *mine > SHARED {
        inode.lock = SHARED;
    }
    if wanted == NONE {
        inode.shared = inode.shared.saturating_sub(1);
        if inode.shared == 0 {
            inode.lock = NONE;
        }
    }
    *mine = wanted;
    ffi::SQLITE_OK
}

/// Whether any connection holds a RESERVED lock or more (as `unixCheckReservedLock` in a process).
unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    // SAFETY: SQLite asks only about open files of this VFS and passes a valid out pointer.
    unsafe {
        with_locks(file, |_, inode| {
            *out = c_int::from(inode.lock > SHARED);
            ffi::SQLITE_OK
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_come_in_while_a_writer_holds_reserved_and_not_once_it_waits_to_commit() {
        let mut inode = Inode::default();
        let (mut writer, mut reader, mut late) = (NONE, NONE, NONE);
        assert_eq!(lock_rules(&mut writer, &mut inode, SHARED), ffi::SQLITE_OK);
        assert_eq!(lock_rules(&mut writer, &mut inode, RESERVED), ffi::SQLITE_OK);
        assert_eq!(lock_rules(&mut reader, &mut inode, SHARED), ffi::SQLITE_OK, "a reader comes in");
        assert_eq!(lock_rules(&mut reader, &mut inode, RESERVED), ffi::SQLITE_BUSY, "one writer");
        assert_eq!(lock_rules(&mut writer, &mut inode, EXCLUSIVE), ffi::SQLITE_BUSY, "a reader remains");
        assert_eq!(writer, PENDING);
        assert_eq!(
            lock_rules(&mut late, &mut inode, SHARED),
            ffi::SQLITE_BUSY,
            "pending keeps new readers out"
        );
        assert_eq!(unlock_rules(&mut reader, &mut inode, NONE), ffi::SQLITE_OK);
        assert_eq!(lock_rules(&mut writer, &mut inode, EXCLUSIVE), ffi::SQLITE_OK, "the reader left");
        assert_eq!(unlock_rules(&mut writer, &mut inode, NONE), ffi::SQLITE_OK);
        assert_eq!((inode.lock, inode.shared), (NONE, 0));
        assert_eq!(lock_rules(&mut late, &mut inode, SHARED), ffi::SQLITE_OK);
    }
}
