//! The exercises the service grades, loaded from the exercises folder at start (a broken folder is
//! logged and left out, the others are served), and the student-facing files of the graders: the
//! consumer ABI guide and the starter kits, discovered at request time from
//! `graders/consumer/kits/*/` (without their worked solutions and mutants).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use anyhow::{Context, Result};

use crate::exercise::Exercise;
use crate::limits::{KIT_FILE_BYTES_MAX, KIT_FILES_MAX};

/// The ABI guide's place below the graders folder.
pub(crate) const ABI_GUIDE: &str = "consumer/ABI.md";
/// Where starter kits live below the graders folder: one folder per kit.
pub(crate) const KITS_DIR: &str = "consumer/kits";

pub(crate) struct Catalogue {
    exercises: RwLock<Arc<BTreeMap<String, Arc<Exercise>>>>,
    /// The exercises folder, canonical: every served exercise's `dir` is a folder right below it.
    root: PathBuf,
    graders: PathBuf,
}

impl Catalogue {
    pub(crate) fn load(exercises_dir: &Path, graders: &Path) -> Result<Catalogue> {
        let root = exercises_dir
            .canonicalize()
            .with_context(|| format!("exercises folder {}", exercises_dir.display()))?;
        let mut exercises = BTreeMap::new();
        for (dir, loaded) in crate::graders::load_all(&root)? {
            match loaded {
                Ok(exercise) => {
                    exercises.insert(exercise.slug.clone(), Arc::new(exercise));
                }
                Err(e) => tracing::error!(event = "exercise_not_loaded", dir = %dir.display(), error = %e),
            }
        }
        Ok(Catalogue { exercises: RwLock::new(Arc::new(exercises)), root, graders: graders.to_path_buf() })
    }

    pub(crate) fn all(&self) -> Arc<BTreeMap<String, Arc<Exercise>>> {
        self.exercises.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn get(&self, slug: &str) -> Option<Arc<Exercise>> {
        self.all().get(slug).cloned()
    }

    pub(crate) fn slugs(&self) -> Vec<String> {
        self.all().keys().cloned().collect()
    }

    /// The exercises folder (canonical).
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The folder `slug` is served from.
    pub(crate) fn folder_of(&self, slug: &str) -> Option<PathBuf> {
        self.get(slug).map(|e| e.dir.clone())
    }

    /// Serves what `folder` holds now: the exercise loaded from it before (under whatever slug) gives
    /// way to `exercise`, or to nothing when the folder is gone. Returns the slug served from it
    /// before. Submissions being graded keep the version they started with.
    pub(crate) fn replace_folder(&self, folder: &Path, exercise: Option<Arc<Exercise>>) -> Option<String> {
        let mut guard = self.exercises.write().unwrap_or_else(|p| p.into_inner());
        let mut next = BTreeMap::clone(&guard);
        let previous = next.iter().find(|(_, e)| e.dir == folder).map(|(slug, _)| slug.clone());
        if let Some(slug) = &previous {
            next.remove(slug);
        }
        if let Some(exercise) = exercise {
            next.insert(exercise.slug.clone(), exercise);
        }
        *guard = Arc::new(next);
        previous
    }

    /// The ABI guide (Markdown), if the graders folder has it.
    pub(crate) fn abi_guide(&self) -> Option<String> {
        std::fs::read_to_string(self.graders.join(ABI_GUIDE)).ok()
    }

    /// The starter kits present now: name and files (relative paths, sorted).
    pub(crate) fn kits(&self) -> Vec<(String, Vec<String>)> {
        let Ok(entries) = std::fs::read_dir(self.graders.join(KITS_DIR)) else { return Vec::new() };
        let mut kits: Vec<(String, Vec<String>)> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                is_safe_name(&name).then(|| {
                    let mut files = Vec::new();
                    walk(&e.path(), "", &mut files);
                    files.sort();
                    (name, files)
                })
            })
            .collect();
        kits.sort();
        kits
    }

    /// One file of a kit, if it is listed (so nothing outside the kits can be read).
    pub(crate) fn kit_file(&self, kit: &str, file: &str) -> Option<Vec<u8>> {
        let (_, files) = self.kits().into_iter().find(|(name, _)| name == kit)?;
        if !files.iter().any(|f| f == file) {
            return None;
        }
        let path = self.graders.join(KITS_DIR).join(kit).join(file);
        let metadata = std::fs::metadata(&path).ok()?;
        if metadata.len() > KIT_FILE_BYTES_MAX {
            return None;
        }
        std::fs::read(path).ok()
    }
}

fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Folders of a kit that are never served: worked solutions and mutants (the project's tests build
/// them; a student must not be handed a solution), build output and dependencies.
const KIT_DIRS_NOT_SERVED: [&str; 8] =
    ["examples", "solutions", "mutants", "node_modules", "target", "build", "zig-out", "zig-cache"];

/// Collects the regular files below `dir` (hidden files and [`KIT_DIRS_NOT_SERVED`] skipped).
fn walk(dir: &Path, prefix: &str, files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if files.len() >= KIT_FILES_MAX {
            return;
        }
        let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
        let Ok(kind) = entry.file_type() else { continue };
        if !is_safe_name(&name) || (kind.is_dir() && KIT_DIRS_NOT_SERVED.contains(&name.as_str())) {
            continue;
        }
        let relative = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        if kind.is_dir() {
            walk(&entry.path(), &relative, files);
        } else if kind.is_file() {
            files.push(relative);
        }
    }
}
