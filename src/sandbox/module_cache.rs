//! Compiled modules kept on disk between processes, for the modules Prüfstein trusts: exercises'
//! reference solutions and the interpreter guests. A grading process that starts often (the CLI's
//! `grade`, a service worker after a restart) then deserializes what an earlier process compiled
//! instead of compiling it again (the Python interpreter takes about half a second with Cranelift).
//!
//! Only modules that Prüfstein compiled itself are ever deserialized (`Module::deserialize` runs
//! machine code it is given): each entry carries an HMAC-SHA256 over its name and bytes, keyed by a
//! secret that the cache directory holds (created with mode 0600 in a directory of mode 0700; a
//! directory or key that belongs to another user, or that others may write or read, is refused). An
//! entry whose MAC does not verify, that is larger than [`MODULE_CACHE_ENTRY_BYTES_MAX`], or that
//! wasmtime refuses (another version or engine settings) is removed and the module compiled afresh.
//! A student's submission never goes through the cache.
//!
//! An entry's name is the SHA-256 of the engine's compatibility hash (wasmtime's version and every
//! setting that changes the machine code), Prüfstein's version and the module's bytes. Writes go to
//! a temporary file renamed into place, so that processes sharing the directory see whole entries
//! only. The directory is kept under [`MODULE_CACHE_BYTES_MAX`]: the entries used least recently
//! (a hit refreshes an entry's modification time) are removed first.

use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

use crate::limits::{
    MODULE_CACHE_BYTES_MAX, MODULE_CACHE_COMPILE_POLL_MS, MODULE_CACHE_COMPILE_WAIT_MS,
    MODULE_CACHE_ENTRY_BYTES_MAX,
};

/// The file in the cache directory that holds the MAC key.
const KEY_FILE: &str = "key";
/// The file in the cache directory whose lock a process holds while it compiles into the cache.
const COMPILE_LOCK_FILE: &str = "compile.lock";
/// Bytes of the MAC key.
const KEY_BYTES: usize = 32;
/// Bytes of the MAC at the end of each entry.
const MAC_BYTES: usize = 32;
/// The extension of an entry.
const ENTRY_EXTENSION: &str = "cwasm";
/// The extension of a data entry ([`ModuleCache::load_data`]).
const DATA_EXTENSION: &str = "data";
/// Separates the inputs of an entry's name (and changes when the entry format changes).
const NAME_DOMAIN: &[u8] = b"pruefstein module cache v1";
/// Separates the inputs of a data entry's name.
const DATA_NAME_DOMAIN: &[u8] = b"pruefstein data cache v1";

/// A directory of compiled modules.
#[derive(Debug)]
pub(crate) struct ModuleCache {
    dir: PathBuf,
    key: [u8; KEY_BYTES],
    bytes_max: u64,
    counts: Counts,
}

/// What a cache did since it was opened.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    /// Modules deserialized from an entry.
    pub hits: AtomicU64,
    /// Modules compiled (no entry, or a refused one).
    pub misses: AtomicU64,
    /// Entries removed because their MAC, size or format was wrong.
    pub refused: AtomicU64,
    /// Entries removed to keep the directory under its size.
    pub evicted: AtomicU64,
    /// Data entries read ([`ModuleCache::load_data`]).
    pub data_hits: AtomicU64,
    /// Times a miss found another process compiling and waited for it.
    pub waits: AtomicU64,
}

/// The cache of this process, if one was enabled ([`enable`]).
static PROCESS_CACHE: OnceLock<ModuleCache> = OnceLock::new();

/// Makes this process compile trusted modules through the cache at `dir` (created if missing).
/// Once per process; a second call is an error.
pub(crate) fn enable(dir: &Path) -> Result<(), String> {
    let cache = ModuleCache::open(dir, MODULE_CACHE_BYTES_MAX)?;
    PROCESS_CACHE.set(cache).map_err(|_| "the module cache is enabled already".to_string())
}

/// Compiles `binary`, a module Prüfstein trusts (never a student's), through this process's cache
/// if one is enabled.
pub(crate) fn compile_trusted(engine: &Engine, binary: &[u8]) -> wasmtime::Result<Module> {
    match PROCESS_CACHE.get() {
        Some(cache) => cache.compile(engine, binary),
        None => Module::from_binary(engine, binary),
    }
}

/// The cache this process compiles trusted modules through, if one was enabled ([`enable`]).
pub(crate) fn process_cache() -> Option<&'static ModuleCache> {
    PROCESS_CACHE.get()
}

/// The cache directory of a user's `pruefstein grade`: `$XDG_CACHE_HOME/pruefstein/modules`, else
/// `$HOME/.cache/pruefstein/modules`; none without either.
pub(crate) fn user_cache_dir() -> Option<PathBuf> {
    let base =
        std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("pruefstein").join("modules"))
}

impl ModuleCache {
    /// Opens the cache at `dir`, creating it (mode 0700) and its key (mode 0600) if missing.
    pub(crate) fn open(dir: &Path, bytes_max: u64) -> Result<ModuleCache, String> {
        Self::open_owned_by(dir, bytes_max, None)
    }

    /// [`ModuleCache::open`], with the directory and key required to belong to `owner` (this
    /// process's user when `None`): a directory someone else made, and could have put a key and
    /// entries in, is refused.
    fn open_owned_by(dir: &Path, bytes_max: u64, owner: Option<u32>) -> Result<ModuleCache, String> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
        let context = |what: &str, e: std::io::Error| format!("module cache {}: {what}: {e}", dir.display());
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| context("cannot create the directory", e))?;
        let meta = std::fs::metadata(dir).map_err(|e| context("cannot read the directory", e))?;
        if meta.permissions().mode() & 0o022 != 0 {
            return Err(format!(
                "module cache {}: others may write to the directory (mode {:o}); it must be private",
                dir.display(),
                meta.permissions().mode() & 0o777
            ));
        }
        let owner = match owner {
            Some(owner) => owner,
            None => own_uid(dir).map_err(|e| context("cannot write in the directory", e))?,
        };
        if meta.uid() != owner {
            return Err(format!(
                "module cache {}: the directory belongs to another user (uid {}); it must be this user's own",
                dir.display(),
                meta.uid()
            ));
        }
        let key_path = dir.join(KEY_FILE);
        let key = match std::fs::read(&key_path) {
            Ok(bytes) => bytes.try_into().map_err(|_| {
                format!("module cache {}: the key file is not {KEY_BYTES} bytes", dir.display())
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut key = [0u8; KEY_BYTES];
                getrandom::fill(&mut key)
                    .map_err(|e| format!("no randomness from the operating system: {e}"))?;
                let temporary = dir.join(format!("{KEY_FILE}.{}.tmp", std::process::id()));
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&temporary)
                    .map_err(|e| context("cannot write the key", e))?;
                file.write_all(&key).map_err(|e| context("cannot write the key", e))?;
                drop(file);
                // Two processes starting together: the first key in place wins, the other reads it.
                match std::fs::hard_link(&temporary, &key_path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(context("cannot write the key", e)),
                }
                let _ = std::fs::remove_file(&temporary);
                std::fs::read(&key_path).map_err(|e| context("cannot read the key", e))?.try_into().map_err(
                    |_| format!("module cache {}: the key file is not {KEY_BYTES} bytes", dir.display()),
                )?
            }
            Err(e) => return Err(context("cannot read the key", e)),
        };
        let key_meta = std::fs::metadata(&key_path).map_err(|e| context("cannot read the key", e))?;
        if key_meta.uid() != owner || key_meta.permissions().mode() & 0o077 != 0 {
            return Err(format!(
                "module cache {}: the key file belongs to another user or others may read it; it must be private",
                dir.display()
            ));
        }
        Ok(ModuleCache { dir: dir.to_path_buf(), key, bytes_max, counts: Counts::default() })
    }

    /// What the cache did so far.
    #[cfg(test)]
    pub(crate) fn counts(&self) -> &Counts {
        &self.counts
    }

    /// The path of the entry for `binary` compiled by `engine`.
    pub(crate) fn entry_path(&self, engine: &Engine, binary: &[u8]) -> PathBuf {
        self.dir.join(format!("{}.{ENTRY_EXTENSION}", entry_name(engine, binary)))
    }

    /// `binary` compiled by `engine`: deserialized from its entry when one verifies, else compiled
    /// and stored. Compiles into one directory take turns across processes: a process that misses
    /// waits while another compiles (the service's warm-up of the interpreters at start), then
    /// reads that one's entry instead of compiling the same module beside it.
    pub(crate) fn compile(&self, engine: &Engine, binary: &[u8]) -> wasmtime::Result<Module> {
        let path = self.entry_path(engine, binary);
        if let Some(module) = self.load(engine, &path) {
            self.counts.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(module);
        }
        let _turn = self.compile_turn();
        if let Some(module) = self.load(engine, &path) {
            self.counts.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(module);
        }
        self.counts.misses.fetch_add(1, Ordering::Relaxed);
        let module = Module::from_binary(engine, binary)?;
        // A cache that cannot be written only costs the next process a compile.
        if let Ok(serialized) = module.serialize() {
            let _ = self.store(&path, &serialized);
            self.evict();
        }
        Ok(module)
    }

    /// This process's turn to compile into the directory: the lock of [`COMPILE_LOCK_FILE`], held
    /// until the value drops. After [`MODULE_CACHE_COMPILE_WAIT_MS`], or when the lock cannot be
    /// taken at all, none: the process compiles without its turn, as it would without a cache.
    fn compile_turn(&self) -> Option<std::fs::File> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(self.dir.join(COMPILE_LOCK_FILE))
            .ok()?;
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_millis(MODULE_CACHE_COMPILE_WAIT_MS);
        let mut waited = false;
        loop {
            match file.try_lock() {
                Ok(()) => return Some(file),
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    if !waited {
                        waited = true;
                        self.counts.waits.fetch_add(1, Ordering::Relaxed);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(MODULE_CACHE_COMPILE_POLL_MS));
                }
                Err(_) => return None,
            }
        }
    }

    /// Bytes that this program derived from trusted inputs alone (an exercise's reference states),
    /// stored under `kind` and `key` by [`ModuleCache::store_data`]: only by this very program
    /// file (its version, size, modification time and inode name the entry), so that a rebuilt program
    /// never reads what another build computed. `None` when there is no entry, or it fails its MAC
    /// or size (it is then removed).
    pub(crate) fn load_data(&self, kind: &str, key: &[u8]) -> Option<Vec<u8>> {
        let path = self.data_path(kind, key)?;
        let bytes = self.read_verified(&path)?;
        self.counts.data_hits.fetch_add(1, Ordering::Relaxed);
        Some(bytes)
    }

    /// Keeps `bytes` under `kind` and `key` for [`ModuleCache::load_data`]; an entry that cannot be
    /// written only costs the next process the work again.
    pub(crate) fn store_data(&self, kind: &str, key: &[u8], bytes: &[u8]) {
        let Some(path) = self.data_path(kind, key) else { return };
        if self.store(&path, bytes).is_ok() {
            self.evict();
        }
    }

    /// The path of a data entry; none when this program's file cannot be identified.
    fn data_path(&self, kind: &str, key: &[u8]) -> Option<PathBuf> {
        let program = program_identity()?;
        let mut hasher = Sha256::new();
        hasher.update(DATA_NAME_DOMAIN);
        for part in [program.as_bytes(), kind.as_bytes(), key] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        Some(self.dir.join(format!("{}.{DATA_EXTENSION}", hex::encode(hasher.finalize()))))
    }

    /// The bytes of the entry at `path` without their MAC, if it is there, within
    /// [`MODULE_CACHE_ENTRY_BYTES_MAX`] and its MAC verifies; an entry that fails is removed.
    fn read_verified(&self, path: &Path) -> Option<Vec<u8>> {
        let len = std::fs::metadata(path).ok()?.len();
        let refuse = || {
            self.refuse(path);
            None
        };
        if len > MODULE_CACHE_ENTRY_BYTES_MAX || len < MAC_BYTES as u64 {
            return refuse();
        }
        let Ok(mut entry) = std::fs::read(path) else { return refuse() };
        let (serialized, mac) = entry.split_at(entry.len() - MAC_BYTES);
        if self.mac(path, serialized).verify_slice(mac).is_err() {
            return refuse();
        }
        entry.truncate(entry.len() - MAC_BYTES);
        // Recently used: the last to be evicted.
        if let Ok(file) = std::fs::File::options().append(true).open(path) {
            let _ = file.set_modified(std::time::SystemTime::now());
        }
        Some(entry)
    }

    /// The module of the entry at `path`, if there is one, its MAC verifies and wasmtime takes it;
    /// an entry that fails is removed.
    fn load(&self, engine: &Engine, path: &Path) -> Option<Module> {
        let serialized = self.read_verified(path)?;
        // SAFETY: the bytes were written by `store` of a process holding this cache's key (the MAC
        // verifies): they are wasmtime's own serialization of a module compiled by Prüfstein.
        // wasmtime checks the version and the engine settings they were compiled for.
        #[allow(unsafe_code)]
        match unsafe { Module::deserialize(engine, &serialized) } {
            Ok(module) => Some(module),
            Err(_) => {
                self.refuse(path);
                None
            }
        }
    }

    /// Removes an entry that failed its size, MAC or format, and counts it.
    fn refuse(&self, path: &Path) {
        self.counts.refused.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(path);
    }

    /// Writes `serialized` with its MAC to `path`, whole or not at all.
    fn store(&self, path: &Path, serialized: &[u8]) -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        if serialized.len() as u64 + MAC_BYTES as u64 > MODULE_CACHE_ENTRY_BYTES_MAX {
            return Ok(());
        }
        static TEMPORARIES: AtomicU64 = AtomicU64::new(0);
        let temporary = path.with_extension(format!(
            "{}.{}.tmp",
            std::process::id(),
            TEMPORARIES.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| {
            let mut file =
                std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temporary)?;
            file.write_all(serialized)?;
            file.write_all(&self.mac(path, serialized).finalize().into_bytes())?;
            drop(file);
            std::fs::rename(&temporary, path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    }

    /// The MAC over an entry's file name and its bytes.
    fn mac(&self, path: &Path, serialized: &[u8]) -> Hmac<Sha256> {
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).expect("HMAC takes any key length");
        let name = path.file_name().map(|n| n.as_encoded_bytes()).unwrap_or_default();
        mac.update(&(name.len() as u64).to_le_bytes());
        mac.update(name);
        mac.update(serialized);
        mac
    }

    /// Removes the least recently used entries until the directory's entries fit `bytes_max`.
    fn evict(&self) {
        let Ok(read) = std::fs::read_dir(&self.dir) else { return };
        let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> = read
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == ENTRY_EXTENSION || x == DATA_EXTENSION))
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some((meta.modified().ok()?, meta.len(), e.path()))
            })
            .collect();
        let mut total: u64 = entries.iter().map(|(_, len, _)| len).sum();
        if total <= self.bytes_max {
            return;
        }
        entries.sort();
        for (_, len, path) in entries {
            if total <= self.bytes_max {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                self.counts.evicted.fetch_add(1, Ordering::Relaxed);
                total -= len;
            }
        }
    }
}

/// The user id this process creates files as: the owner of a probe file it makes in `dir`.
fn own_uid(dir: &Path) -> std::io::Result<u32> {
    use std::os::unix::fs::MetadataExt;
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let probe =
        dir.join(format!(".owner.{}.{}.tmp", std::process::id(), PROBES.fetch_add(1, Ordering::Relaxed)));
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&probe)?;
    let uid = file.metadata().map(|m| m.uid());
    drop(file);
    let _ = std::fs::remove_file(&probe);
    uid
}

/// This program file's identity: Prüfstein's version, and the size, modification time and inode of
/// the executable, which change with every build. Read once per process; none if the file cannot be
/// found.
fn program_identity() -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    static IDENTITY: OnceLock<Option<String>> = OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            let meta = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
            Some(format!(
                "{} {} {}.{} {}",
                env!("CARGO_PKG_VERSION"),
                meta.size(),
                meta.mtime(),
                meta.mtime_nsec(),
                meta.ino()
            ))
        })
        .as_deref()
}

/// The name of the entry for `binary` compiled by `engine` (hex SHA-256).
fn entry_name(engine: &Engine, binary: &[u8]) -> String {
    let mut hasher = Sha256Hasher(Sha256::new());
    hasher.0.update(NAME_DOMAIN);
    hasher.0.update(env!("CARGO_PKG_VERSION").as_bytes());
    std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut hasher);
    hasher.0.update((binary.len() as u64).to_le_bytes());
    hasher.0.update(binary);
    hex::encode(hasher.0.finalize())
}

/// Feeds what `Hash` writes into SHA-256, so that an entry's name does not depend on the standard
/// library's hasher (which may change between Rust versions).
struct Sha256Hasher(Sha256);

impl Hasher for Sha256Hasher {
    fn finish(&self) -> u64 {
        // Only `write` is used: the digest is taken from the SHA-256 state.
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::Compiler;

    const WAT: &str =
        r#"(module (func (export "verarbeite") (result i32) i32.const 1) (memory (export "memory") 1))"#;

    fn engine(compiler: Compiler) -> &'static Engine {
        crate::sandbox::engine_with_stack(compiler, crate::limits::WASM_STACK_BYTES_MAX).expect("engine")
    }

    fn counts(cache: &ModuleCache) -> (u64, u64, u64) {
        let c = cache.counts();
        (c.hits.load(Ordering::Relaxed), c.misses.load(Ordering::Relaxed), c.refused.load(Ordering::Relaxed))
    }

    /// Calls the module's entry: the deserialized module is the module.
    fn call(engine: &Engine, module: &Module) -> i32 {
        let mut store = wasmtime::Store::new(engine, ());
        store.set_fuel(1_000_000).expect("fuel");
        // Other tests share the engine and its epoch ticks: no deadline a busy machine could reach.
        store.set_epoch_deadline(u64::MAX / 2);
        let instance = wasmtime::Instance::new(&mut store, module, &[]).expect("instance");
        let entry = instance.get_typed_func::<(), i32>(&mut store, "verarbeite").expect("entry");
        entry.call(&mut store, ()).expect("call")
    }

    #[test]
    fn a_second_process_deserializes_what_the_first_compiled() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = &tmp.path().join("modules");
        let binary = wat::parse_str(WAT).expect("wat");
        let engine = engine(Compiler::Cranelift);
        let first = ModuleCache::open(dir.as_path(), MODULE_CACHE_BYTES_MAX).expect("open");
        let module = first.compile(engine, &binary).expect("compile");
        assert_eq!(counts(&first), (0, 1, 0));
        assert_eq!(call(engine, &module), 1);
        let path = first.entry_path(engine, &binary);
        assert!(path.is_file());

        // A second process (a new cache on the same directory): the entry is used.
        let second = ModuleCache::open(dir.as_path(), MODULE_CACHE_BYTES_MAX).expect("open");
        let module = second.compile(engine, &binary).expect("compile");
        assert_eq!(counts(&second), (1, 0, 0));
        assert_eq!(call(engine, &module), 1);

        // Another compiler is another entry.
        let winch = engine_of_other();
        assert_ne!(second.entry_path(winch, &binary), path);
        second.compile(winch, &binary).expect("compile");
        assert_eq!(counts(&second), (1, 1, 0));

        // The directory is private, and so is its key.
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(dir.as_path()).expect("dir").permissions().mode() & 0o077, 0);
        let key = std::fs::metadata(dir.as_path().join(KEY_FILE)).expect("key");
        assert_eq!(key.permissions().mode() & 0o077, 0);
    }

    /// While another process compiles into the directory (the test holds its lock), a miss waits
    /// for it and then reads the entry it wrote: one compile, not two.
    #[test]
    fn a_miss_waits_for_another_process_compiling_and_reads_its_entry() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("modules");
        let binary = wat::parse_str(WAT).expect("wat");
        let engine = engine(Compiler::Cranelift);
        let other = ModuleCache::open(dir.as_path(), MODULE_CACHE_BYTES_MAX).expect("open");
        let waiting =
            std::sync::Arc::new(ModuleCache::open(dir.as_path(), MODULE_CACHE_BYTES_MAX).expect("open"));
        let turn = other.compile_turn().expect("the other's turn");
        let compiled = {
            let waiting = std::sync::Arc::clone(&waiting);
            let binary = binary.clone();
            std::thread::spawn(move || waiting.compile(engine, &binary).map(|m| call(engine, &m)))
        };
        // The other compiles while the miss waits for its turn.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while waiting.counts().waits.load(Ordering::Relaxed) == 0 {
            assert!(std::time::Instant::now() < deadline, "the miss never waited");
            std::thread::yield_now();
        }
        let module = Module::from_binary(engine, &binary).expect("compile");
        other
            .store(&other.entry_path(engine, &binary), &module.serialize().expect("serialize"))
            .expect("store");
        drop(turn);
        assert_eq!(compiled.join().expect("thread").expect("compiles"), 1);
        assert_eq!(counts(&waiting), (1, 0, 0), "read the other's entry, compiled nothing");
    }

    fn engine_of_other() -> &'static Engine {
        engine(Compiler::Winch)
    }

    #[test]
    fn an_entry_that_pruefstein_did_not_write_is_never_deserialized() {
        let dir = tempfile::tempdir().expect("tempdir");
        let binary = wat::parse_str(WAT).expect("wat");
        let engine = engine(Compiler::Cranelift);
        let cache = ModuleCache::open(dir.path(), MODULE_CACHE_BYTES_MAX).expect("open");
        cache.compile(engine, &binary).expect("compile");
        let path = cache.entry_path(engine, &binary);

        // wasmtime's own serialization of the module, but without the cache's MAC (as a
        // precompiled `.cwasm` placed in the directory would be): refused and replaced.
        let foreign = Module::from_binary(engine, &binary).expect("compile").serialize().expect("serialize");
        let mut planted = foreign.clone();
        planted.extend_from_slice(&[0u8; MAC_BYTES]);
        std::fs::write(&path, &planted).expect("plant");
        cache.compile(engine, &binary).expect("compile");
        assert_eq!(counts(&cache), (0, 2, 1));
        assert_ne!(std::fs::read(&path).expect("entry"), planted, "the refused entry is replaced");

        // One changed byte of a written entry: refused.
        let mut entry = std::fs::read(&path).expect("entry");
        let middle = entry.len() / 2;
        entry[middle] ^= 1;
        std::fs::write(&path, &entry).expect("tamper");
        let module = cache.compile(engine, &binary).expect("compile");
        assert_eq!(counts(&cache), (0, 3, 2));
        assert_eq!(call(engine, &module), 1);

        // An entry larger than an entry may be is not even read.
        let huge = std::fs::File::create(&path).expect("huge");
        huge.set_len(MODULE_CACHE_ENTRY_BYTES_MAX + 1).expect("sparse file");
        drop(huge);
        cache.compile(engine, &binary).expect("compile");
        assert_eq!(counts(&cache), (0, 4, 3));

        // The entry written last verifies.
        cache.compile(engine, &binary).expect("compile");
        assert_eq!(counts(&cache), (1, 4, 3));
    }

    #[test]
    fn the_directory_stays_under_its_size_least_recently_used_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let engine = engine(Compiler::Winch);
        let module = |n: u32| {
            wat::parse_str(format!(
                r#"(module (func (export "verarbeite") (result i32) i32.const {n}) (memory (export "memory") 1))"#
            ))
            .expect("wat")
        };
        let probe = ModuleCache::open(dir.path(), u64::MAX).expect("open");
        probe.compile(engine, &module(0)).expect("compile");
        let entry_bytes = std::fs::metadata(probe.entry_path(engine, &module(0))).expect("entry").len();
        std::fs::remove_file(probe.entry_path(engine, &module(0))).expect("remove");

        // Room for three entries.
        let cache = ModuleCache::open(dir.path(), entry_bytes * 3 + entry_bytes / 2).expect("open");
        for n in 1..=3 {
            cache.compile(engine, &module(n)).expect("compile");
        }
        // Entry 1 is used again, so entry 2 is now the least recently used.
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        for n in 1..=3 {
            let file = std::fs::File::options()
                .append(true)
                .open(cache.entry_path(engine, &module(n)))
                .expect("entry");
            file.set_modified(old + std::time::Duration::from_secs(u64::from(n))).expect("mtime");
        }
        cache.compile(engine, &module(1)).expect("hit");
        cache.compile(engine, &module(4)).expect("compile");
        let held: Vec<u32> = (1..=4).filter(|n| cache.entry_path(engine, &module(*n)).is_file()).collect();
        assert_eq!(held, vec![1, 3, 4]);
        assert_eq!(cache.counts().evicted.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_directory_or_key_of_another_user_is_refused() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("modules");
        ModuleCache::open(&dir, MODULE_CACHE_BYTES_MAX).expect("our own");
        let ours = std::fs::metadata(&dir).expect("dir").uid();
        let error =
            ModuleCache::open_owned_by(&dir, MODULE_CACHE_BYTES_MAX, Some(ours + 1)).expect_err("theirs");
        assert!(error.contains("belongs to another user"), "{error}");
        // A key others may read is no secret.
        let key = dir.join(KEY_FILE);
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let error = ModuleCache::open(&dir, MODULE_CACHE_BYTES_MAX).expect_err("a readable key");
        assert!(error.contains("must be private"), "{error}");
    }

    #[test]
    fn a_directory_others_may_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
        let error = ModuleCache::open(dir.path(), MODULE_CACHE_BYTES_MAX).expect_err("world-writable");
        assert!(error.contains("must be private"), "{error}");
    }
}
