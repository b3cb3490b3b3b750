//! An exercise folder read whole into memory, with its content identity (SHA-256 over the relative
//! paths and bytes of its files). The service hands a worker process the snapshot of the version it
//! loaded, so that the worker grades that very version even after a teacher has changed (or broken)
//! the folder on disk; the identity names the version in every request.
//!
//! An exercise is loaded from its snapshot, never from the disk files one by one, so what was loaded
//! is exactly what the identity names. Whether the folder held still while it was read is checked
//! afterwards by [`Stamps::unchanged`]: a second walk that compares each file's inode, size and
//! change times with those taken while reading, and the bytes of the files changed too recently for
//! their times to tell (the "racy" files).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::limits::{EXERCISE_FOLDER_BYTES_MAX, EXERCISE_FOLDER_FILES_MAX};

/// The files of one exercise folder at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FolderSnapshot {
    /// SHA-256 (hex) of the folder name, the relative paths and the bytes of every file.
    pub id: String,
    /// The folder's own name (`03-idempotenter-konsument`): a copy keeps it, since reports name it.
    pub folder: String,
    /// Relative paths (with `/`) and contents, sorted by path.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Why a folder could not be read whole.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    TooLarge { path: PathBuf, message: String },
}

/// What a file's metadata said while it was read: if a later look finds the same, and the file's
/// times are older than the read by more than [`RACY_STAMP_MARGIN`], the file did not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: u64,
    inode: u64,
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl Stamp {
    fn of(metadata: &std::fs::Metadata) -> Stamp {
        let ns = |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        Stamp {
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            modified_ns: ns(metadata.mtime(), metadata.mtime_nsec()),
            changed_ns: ns(metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// True if a change made while the folder was read could leave the file's times as they are:
    /// a file system stamps times from a clock that lags the precise one by a tick, and some (FAT,
    /// network file systems) keep whole seconds or two.
    fn is_racy(&self, read_started_ns: i128) -> bool {
        let newest = self.modified_ns.max(self.changed_ns);
        newest >= read_started_ns - RACY_STAMP_MARGIN.as_nanos() as i128
    }
}

/// How recent a file's times may be before they no longer prove it unchanged (see [`Stamp::is_racy`]).
pub const RACY_STAMP_MARGIN: Duration = Duration::from_secs(3);

/// The metadata of every file of a snapshot as it was read, to check afterwards that the folder held
/// still (see the module's documentation).
#[derive(Debug)]
pub struct Stamps {
    read_started_ns: i128,
    /// One per file of the snapshot, in its order.
    files: Vec<Stamp>,
}

impl FolderSnapshot {
    /// Reads every regular file below `dir` (symbolic links and hidden files are skipped).
    #[cfg(test)]
    pub(crate) fn read(dir: &Path) -> Result<FolderSnapshot, SnapshotError> {
        FolderSnapshot::read_stamped(dir).map(|(snapshot, _)| snapshot)
    }

    /// Reads the folder like [`FolderSnapshot::read`], with what [`Stamps::unchanged`] needs.
    pub(crate) fn read_stamped(dir: &Path) -> Result<(FolderSnapshot, Stamps), SnapshotError> {
        let read_started_ns = now_ns();
        let mut files = Vec::new();
        let mut bytes = 0u64;
        walk(dir, dir, "", &mut Reading { files: &mut files, bytes: &mut bytes })?;
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let (files, stamps): (Vec<_>, Vec<_>) =
            files.into_iter().map(|(path, contents, stamp)| ((path, contents), stamp)).unzip();
        let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let snapshot = FolderSnapshot { id: identity(&folder, &files), folder, files };
        Ok((snapshot, Stamps { read_started_ns, files: stamps }))
    }

    /// The contents of the file at `relative` (with `/`), if the snapshot holds it.
    pub(crate) fn file(&self, relative: &str) -> Option<&[u8]> {
        let index = self.files.binary_search_by(|(path, _)| path.as_str().cmp(relative)).ok()?;
        Some(&self.files[index].1)
    }

    /// True if the files are kept as a snapshot keeps them (sorted by path, each path once, which
    /// [`FolderSnapshot::file`] relies on) and still have the identity they were sent with.
    pub(crate) fn is_intact(&self) -> bool {
        self.files.windows(2).all(|pair| pair[0].0 < pair[1].0)
            && identity(&self.folder, &self.files) == self.id
    }
}

impl Stamps {
    /// True if `dir` still holds exactly the files of `snapshot` (which these stamps were taken
    /// with): the same relative paths, each with the same stamp, and a file whose stamp is racy
    /// with the same bytes. Reads no file whose stamp proves it unchanged.
    pub(crate) fn unchanged(&self, dir: &Path, snapshot: &FolderSnapshot) -> Result<bool, SnapshotError> {
        assert_eq!(self.files.len(), snapshot.files.len(), "stamps of another snapshot");
        let mut now = Vec::with_capacity(snapshot.files.len());
        if !list(dir, "", &mut now, snapshot.files.len())? {
            return Ok(false);
        }
        now.sort_by(|a, b| a.0.cmp(&b.0));
        if now.len() != snapshot.files.len() {
            return Ok(false);
        }
        for (((path, stamp), (read_path, contents)), read_stamp) in
            now.iter().zip(&snapshot.files).zip(&self.files)
        {
            if path != read_path || stamp != read_stamp {
                return Ok(false);
            }
            if stamp.is_racy(self.read_started_ns) {
                // Read as the first walk reads: bounded, never following a link or waiting on a
                // pipe swapped in since. A file that cannot be read now has changed; the next load
                // reports what is wrong with it.
                match read_stamped(&dir.join(path)) {
                    Ok((current, _)) if &current == contents => {}
                    Ok(_) | Err(_) => return Ok(false),
                }
            }
        }
        Ok(true)
    }
}

fn now_ns() -> i128 {
    match SystemTime::now().duration_since(SystemTime::UNIX_EPOCH) {
        Ok(since) => since.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

fn identity(folder: &str, files: &[(String, Vec<u8>)]) -> String {
    let mut hash = Sha256::new();
    hash.update((folder.len() as u64).to_le_bytes());
    hash.update(folder.as_bytes());
    for (path, contents) in files {
        hash.update((path.len() as u64).to_le_bytes());
        hash.update(path.as_bytes());
        hash.update((contents.len() as u64).to_le_bytes());
        hash.update(contents);
    }
    hex::encode(hash.finalize())
}

/// Where [`walk`] puts what it reads.
struct Reading<'a> {
    files: &'a mut Vec<(String, Vec<u8>, Stamp)>,
    bytes: &'a mut u64,
}

/// The entries of the one directory `dir` that a snapshot may hold, sorted by name: `(relative
/// path, path, kind)` of every entry that is not hidden (a walk decides what each kind is worth).
fn entries(dir: &Path, prefix: &str) -> Result<Vec<(String, PathBuf, std::fs::FileType)>, SnapshotError> {
    let io = |source| SnapshotError::Io { path: dir.to_path_buf(), source };
    let mut entries: Vec<_> = std::fs::read_dir(dir).map_err(io)?.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    let mut kept = Vec::with_capacity(entries.len());
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
        if name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(|source| SnapshotError::Io { path: entry.path(), source })?;
        let relative = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        kept.push((relative, entry.path(), kind));
    }
    Ok(kept)
}

fn walk(root: &Path, dir: &Path, prefix: &str, reading: &mut Reading<'_>) -> Result<(), SnapshotError> {
    for (relative, path, kind) in entries(dir, prefix)? {
        if kind.is_dir() {
            walk(root, &path, &relative, reading)?;
        } else if kind.is_file() {
            if reading.files.len() >= EXERCISE_FOLDER_FILES_MAX {
                return Err(SnapshotError::TooLarge {
                    path: root.to_path_buf(),
                    message: format!(
                        "the folder holds more than {EXERCISE_FOLDER_FILES_MAX} files \
                         (exercise_folder_files_max)"
                    ),
                });
            }
            let (contents, stamp) = read_stamped(&path)?;
            *reading.bytes += contents.len() as u64;
            if *reading.bytes > EXERCISE_FOLDER_BYTES_MAX {
                return Err(SnapshotError::TooLarge {
                    path: root.to_path_buf(),
                    message: format!(
                        "the folder's files are larger than {EXERCISE_FOLDER_BYTES_MAX} bytes together \
                         (exercise_folder_bytes_max)"
                    ),
                });
            }
            reading.files.push((relative, contents, stamp));
        }
    }
    Ok(())
}

/// A file's bytes and its stamp, taken from the open file before reading: a change while it is
/// read then leaves a stamp that is racy or differs from the one a second look finds.
///
/// The listing said the entry was a regular file, but it may have been replaced since: it is opened
/// without following a symbolic link and without waiting (a named pipe would block the open until
/// a writer came), and anything but a regular file is refused as a folder that changed.
fn read_stamped(path: &Path) -> Result<(Vec<u8>, Stamp), SnapshotError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| SnapshotError::Io { path: path.to_path_buf(), source };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is no longer a regular file: the folder changed while it was read",
        )));
    }
    let expected = usize::try_from(metadata.len()).unwrap_or(usize::MAX);
    // Read at most one byte more than the folder may hold: a file that grows without end (a pipe
    // behind a regular name cannot, but a file being appended to can) stops here.
    let mut contents = Vec::with_capacity(expected.min(EXERCISE_FOLDER_BYTES_MAX as usize) + 1);
    (&mut file).take(EXERCISE_FOLDER_BYTES_MAX + 1).read_to_end(&mut contents).map_err(io)?;
    Ok((contents, Stamp::of(&metadata)))
}

/// Adds `(relative path, stamp)` of every file a snapshot of `dir` would hold to `out`; false as
/// soon as there are more than `files_max` (the folder has changed).
fn list(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, Stamp)>,
    files_max: usize,
) -> Result<bool, SnapshotError> {
    for (relative, path, kind) in entries(dir, prefix)? {
        if kind.is_dir() {
            if !list(&path, &relative, out, files_max)? {
                return Ok(false);
            }
        } else if kind.is_file() {
            if out.len() == files_max {
                return Ok(false);
            }
            let metadata = match std::fs::symlink_metadata(&path) {
                Ok(metadata) => metadata,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
                Err(source) => return Err(SnapshotError::Io { path, source }),
            };
            out.push((relative, Stamp::of(&metadata)));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("07-x");
        std::fs::create_dir_all(folder.join("sub")).unwrap();
        std::fs::write(folder.join("a.txt"), "a").unwrap();
        std::fs::write(folder.join("sub/b.txt"), "b").unwrap();
        (dir, folder)
    }

    #[test]
    fn a_snapshot_holds_the_files_by_relative_path_and_its_identity_follows_their_bytes() {
        let (_dir, folder) = folder();
        std::fs::write(folder.join(".hidden"), "h").unwrap();
        std::os::unix::fs::symlink(folder.join("a.txt"), folder.join("link.txt")).unwrap();
        let snapshot = FolderSnapshot::read(&folder).unwrap();
        assert_eq!(snapshot.folder, "07-x");
        let paths: Vec<&str> = snapshot.files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["a.txt", "sub/b.txt"], "hidden files and symbolic links are not part of it");
        assert_eq!(snapshot.file("sub/b.txt"), Some(&b"b"[..]));
        assert_eq!(snapshot.file("link.txt"), None);
        assert!(snapshot.is_intact());
        let mut unsorted = snapshot.clone();
        unsorted.files.swap(0, 1);
        unsorted.id = identity(&unsorted.folder, &unsorted.files);
        assert!(!unsorted.is_intact(), "a snapshot out of order is not one");
        assert_eq!(FolderSnapshot::read(&folder).unwrap(), snapshot);
        std::fs::write(folder.join("sub/b.txt"), "c").unwrap();
        assert_ne!(FolderSnapshot::read(&folder).unwrap().id, snapshot.id);
    }

    #[test]
    fn a_folder_that_holds_still_is_unchanged() {
        let (_dir, folder) = folder();
        let (snapshot, stamps) = FolderSnapshot::read_stamped(&folder).unwrap();
        assert!(stamps.unchanged(&folder, &snapshot).unwrap());
        // Hidden files are not part of an exercise: an editor's swap file changes nothing.
        std::fs::write(folder.join("sub/.b.txt.swp"), "swap").unwrap();
        assert!(stamps.unchanged(&folder, &snapshot).unwrap());
    }

    #[test]
    fn every_kind_of_change_after_the_read_is_seen() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 5] = [
            ("same size, new bytes", |f| std::fs::write(f.join("a.txt"), "z").unwrap()),
            ("a file added", |f| std::fs::write(f.join("sub/c.txt"), "c").unwrap()),
            ("a file removed", |f| std::fs::remove_file(f.join("sub/b.txt")).unwrap()),
            ("a file renamed", |f| std::fs::rename(f.join("sub/b.txt"), f.join("sub/c.txt")).unwrap()),
            ("a file replaced by another with the same bytes", |f| {
                std::fs::write(f.join("new.txt"), "a").unwrap();
                std::fs::rename(f.join("new.txt"), f.join("a.txt")).unwrap();
            }),
        ];
        for (name, change) in changes {
            let (_dir, folder) = folder();
            let (snapshot, stamps) = FolderSnapshot::read_stamped(&folder).unwrap();
            change(&folder);
            assert!(!stamps.unchanged(&folder, &snapshot).unwrap(), "{name}: not seen");
        }
    }

    #[test]
    fn recent_files_are_compared_by_their_bytes_older_ones_by_their_stamps() {
        let (_dir, folder) = folder();
        let (mut snapshot, mut stamps) = FolderSnapshot::read_stamped(&folder).unwrap();
        // A change within one tick of the file system's clock can leave every stamp as it was: here,
        // the bytes read differ from the disk's while the stamps agree.
        snapshot.files[0].1 = b"y".to_vec();
        assert!(!stamps.unchanged(&folder, &snapshot).unwrap(), "a racy file's bytes were not compared");
        // Stamps older than the read by more than the margin are trusted without reading the file.
        let margin = RACY_STAMP_MARGIN.as_nanos() as i128;
        stamps.read_started_ns =
            stamps.files.iter().map(|s| s.changed_ns.max(s.modified_ns)).max().unwrap() + margin + 1;
        assert!(stamps.unchanged(&folder, &snapshot).unwrap());
        stamps.read_started_ns -= 2;
        assert!(!stamps.unchanged(&folder, &snapshot).unwrap(), "a stamp within the margin was trusted");
    }

    #[test]
    fn an_entry_swapped_for_a_named_pipe_or_a_link_is_refused_without_waiting() {
        let (_dir, folder) = folder();
        let pipe = folder.join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&pipe).status().unwrap().success());
        // No writer ever opens the pipe: an open that waited for one would never return.
        let error = read_stamped(&pipe).unwrap_err().to_string();
        assert!(error.contains("no longer a regular file"), "{error}");
        let link = folder.join("link");
        std::os::unix::fs::symlink(std::env::current_exe().unwrap(), &link).unwrap();
        assert!(read_stamped(&link).is_err(), "a link was followed out of the folder");
        // A listing skips both: they are not part of an exercise.
        let snapshot = FolderSnapshot::read(&folder).unwrap();
        assert!(snapshot.file("pipe").is_none() && snapshot.file("link").is_none());
        // The check after a load: a file swapped for a pipe is a change, seen without opening the
        // pipe (the re-read of a recent file opens as the first walk does, for a swap between the
        // listing and the read, which no test can time).
        let (snapshot, stamps) = FolderSnapshot::read_stamped(&folder).unwrap();
        std::fs::remove_file(folder.join("a.txt")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(folder.join("a.txt")).status().unwrap().success());
        assert!(!stamps.unchanged(&folder, &snapshot).unwrap());
    }

    #[test]
    fn a_folder_with_more_files_than_the_limit_is_refused_by_name() {
        let (_dir, folder) = folder();
        for n in 0..EXERCISE_FOLDER_FILES_MAX {
            std::fs::write(folder.join(format!("f{n}")), "").unwrap();
        }
        let error = FolderSnapshot::read(&folder).unwrap_err().to_string();
        assert!(error.contains("exercise_folder_files_max"), "{error}");
    }
}
