//! An exercise folder read whole into memory, with its content identity (SHA-256 over the relative
//! paths and bytes of its files). The service hands a worker process the snapshot of the version it
//! loaded, so that the worker grades that very version even after a teacher has changed (or broken)
//! the folder on disk; the identity names the version in every request.

use std::path::{Path, PathBuf};

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

impl FolderSnapshot {
    /// Reads every regular file below `dir` (symbolic links and hidden files are skipped).
    pub fn read(dir: &Path) -> Result<FolderSnapshot, SnapshotError> {
        let mut files = Vec::new();
        let mut bytes = 0u64;
        walk(dir, dir, "", &mut files, &mut bytes)?;
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(FolderSnapshot { id: identity(&folder, &files), folder, files })
    }

    /// Writes the files below `parent/<folder>` (created) and returns that folder.
    pub fn write_below(&self, parent: &Path) -> std::io::Result<PathBuf> {
        let root = parent.join(safe_relative(&self.folder)?);
        for (relative, contents) in &self.files {
            let path = root.join(safe_relative(relative)?);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, contents)?;
        }
        std::fs::create_dir_all(&root)?;
        Ok(root)
    }

    /// True if the files still have the identity they were sent with.
    pub fn is_intact(&self) -> bool {
        identity(&self.folder, &self.files) == self.id
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

/// A relative path from a snapshot, refused if it could leave the folder.
fn safe_relative(relative: &str) -> std::io::Result<PathBuf> {
    let path = PathBuf::from(relative);
    let ok = !relative.is_empty() && path.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if ok {
        Ok(path)
    } else {
        Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("unsafe path {relative:?}")))
    }
}

fn walk(
    root: &Path,
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, Vec<u8>)>,
    bytes: &mut u64,
) -> Result<(), SnapshotError> {
    let io = |source| SnapshotError::Io { path: dir.to_path_buf(), source };
    let mut entries: Vec<_> = std::fs::read_dir(dir).map_err(io)?.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
        if name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(|source| SnapshotError::Io { path: entry.path(), source })?;
        let relative = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        if kind.is_dir() {
            walk(root, &entry.path(), &relative, files, bytes)?;
        } else if kind.is_file() {
            if files.len() >= EXERCISE_FOLDER_FILES_MAX {
                return Err(SnapshotError::TooLarge {
                    path: root.to_path_buf(),
                    message: format!(
                        "the folder holds more than {EXERCISE_FOLDER_FILES_MAX} files \
                         (exercise_folder_files_max)"
                    ),
                });
            }
            let path = entry.path();
            let contents = std::fs::read(&path).map_err(|source| SnapshotError::Io { path, source })?;
            *bytes += contents.len() as u64;
            if *bytes > EXERCISE_FOLDER_BYTES_MAX {
                return Err(SnapshotError::TooLarge {
                    path: root.to_path_buf(),
                    message: format!(
                        "the folder's files are larger than {EXERCISE_FOLDER_BYTES_MAX} bytes together \
                         (exercise_folder_bytes_max)"
                    ),
                });
            }
            files.push((relative, contents));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_written_elsewhere_reads_back_with_the_same_identity() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("07-x");
        std::fs::create_dir_all(folder.join("sub")).unwrap();
        std::fs::write(folder.join("a.txt"), "a").unwrap();
        std::fs::write(folder.join("sub/b.txt"), "b").unwrap();
        let snapshot = FolderSnapshot::read(&folder).unwrap();
        assert_eq!(snapshot.folder, "07-x");
        let copy = tempfile::tempdir().unwrap();
        let written = snapshot.write_below(copy.path()).unwrap();
        assert_eq!(written.file_name().unwrap(), "07-x");
        assert_eq!(FolderSnapshot::read(&written).unwrap(), snapshot);
        std::fs::write(folder.join("sub/b.txt"), "c").unwrap();
        assert_ne!(FolderSnapshot::read(&folder).unwrap().id, snapshot.id);
    }

    #[test]
    fn a_path_that_leaves_the_folder_is_refused() {
        let snapshot = FolderSnapshot {
            id: String::new(),
            folder: "x".into(),
            files: vec![("../evil".into(), b"x".to_vec())],
        };
        let dir = tempfile::tempdir().unwrap();
        assert!(snapshot.write_below(dir.path()).is_err());
        assert!(!dir.path().join("evil").exists());
    }
}
