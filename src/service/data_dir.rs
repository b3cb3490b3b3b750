//! The data directory is private to the service's user: it holds the LTI tool's private signing key,
//! the report secret, client token hashes and learners' code. The directory is created with mode
//! 0700 and every file the service creates in it with 0600, whatever the umask (SQLite gives a
//! database's `-wal` and `-shm` files the mode of the database file). At start the service checks
//! the modes it finds and warns about looser ones (an existing installation is not changed behind
//! the operator's back), and says so when it runs as root.

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The mode of the data directory: only its owner may list, read or enter it.
pub(crate) const DIR_MODE: u32 = 0o700;
/// The mode of every file the service creates in the data directory.
pub(crate) const FILE_MODE: u32 = 0o600;
/// The bits that must be clear for the directory and its files: any access by group or others.
const SHARED_BITS: u32 = 0o077;

/// Creates `dir` (and its missing parents) with [`DIR_MODE`]; a directory that exists is left as it
/// is. The mode is set after creating, so that no umask can make it looser or stricter.
pub(crate) fn create_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)?;
    std::fs::set_permissions(dir, Permissions::from_mode(DIR_MODE))
}

/// Opens `path` for writing, creating it with [`FILE_MODE`] if it does not exist (never
/// truncating). A file that exists keeps its mode; [`loose_modes`] reports it if it is looser.
pub(crate) fn open_private_file(path: &Path) -> io::Result<File> {
    match OpenOptions::new().write(true).create_new(true).mode(FILE_MODE).open(path) {
        Ok(file) => {
            file.set_permissions(Permissions::from_mode(FILE_MODE))?;
            Ok(file)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => OpenOptions::new().write(true).open(path),
        Err(e) => Err(e),
    }
}

/// A path in the data directory that group or others may access, with its mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LooseMode {
    pub path: PathBuf,
    pub mode: u32,
}

/// The data directory itself and each of `files` in it (those that exist) whose mode lets group or
/// others in.
pub(crate) fn loose_modes(dir: &Path, files: &[&str]) -> Vec<LooseMode> {
    std::iter::once(dir.to_path_buf())
        .chain(files.iter().map(|name| dir.join(name)))
        .filter_map(|path| {
            let mode = std::fs::metadata(&path).ok()?.mode() & 0o7777;
            (mode & SHARED_BITS != 0).then_some(LooseMode { path, mode })
        })
        .collect()
}

/// Whether `file`, created by this process, belongs to root: then the process runs as root (a
/// file is created with the process's effective user).
pub(crate) fn created_by_root(file: &File) -> bool {
    file.metadata().map(|m| m.uid() == 0).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_directory_and_file_are_private_and_existing_ones_keep_their_mode() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("a").join("data");
        create_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o7777, DIR_MODE);
        let file = dir.join("x.db");
        open_private_file(&file).unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o7777, FILE_MODE);
        assert!(loose_modes(&dir, &["x.db", "absent"]).is_empty());

        std::fs::set_permissions(&file, Permissions::from_mode(0o644)).unwrap();
        std::fs::write(&file, b"kept").unwrap();
        open_private_file(&file).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"kept", "never truncated");
        std::fs::set_permissions(&dir, Permissions::from_mode(0o755)).unwrap();
        create_dir(&dir).unwrap();
        assert_eq!(
            loose_modes(&dir, &["x.db"]),
            [LooseMode { path: dir.clone(), mode: 0o755 }, LooseMode { path: file, mode: 0o644 }]
        );
    }
}
