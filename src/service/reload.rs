//! Hot reload of the exercises folder: a file watcher (inotify through `notify`) sees a teacher add,
//! change or remove an exercise folder; after a quiet period (debounce) the folders that changed are
//! loaded again and proven sound with the same code as `pruefstein check`. A sound folder replaces
//! the served version; a folder that does not load or is not sound is rejected, logged with every
//! problem `check` found, counted in `/metrics`, and the last good version stays served. A removed
//! folder is no longer served.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use anyhow::{Context, Result};
use notify::{RecursiveMode, Watcher};

use super::catalogue::Catalogue;
use super::metrics::{Metrics, ReloadOutcome};
use super::shared::Shared;
use crate::exercise::EXERCISE_FILE;
use crate::limits::RELOAD_DELAY_MS_MAX;

/// How long the folder must stay quiet after a change before it is reloaded: an editor's save or a
/// `cp -r` arrives as a burst of events, and a folder is only read once the burst is over.
pub(crate) const RELOAD_QUIET_PERIOD: Duration = Duration::from_millis(300);

/// The running watcher; dropping it stops watching.
pub(crate) struct ExerciseWatcher {
    _watcher: notify::RecommendedWatcher,
}

/// Starts watching the exercises folder and reloading changed folders into the catalogue.
pub(crate) fn watch(shared: &Arc<Shared>) -> Result<ExerciseWatcher> {
    let root = shared.catalogue.root().to_path_buf();
    let (sender, events) = channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // The receiver only goes away when the service stops.
        let _ = sender.send(event);
    })
    .context("starting the file watcher of the exercises folder")?;
    watcher.watch(&root, RecursiveMode::Recursive).with_context(|| format!("watching {}", root.display()))?;
    let shared = Arc::clone(shared);
    std::thread::Builder::new()
        .name("exercise-reload".into())
        .spawn(move || reload_loop(&root, &events, &shared))
        .context("starting the exercise reload thread")?;
    Ok(ExerciseWatcher { _watcher: watcher })
}

/// Waits for changes, debounces them, and reloads the folders they touched. Ends when the watcher
/// is dropped.
fn reload_loop(root: &Path, events: &Receiver<notify::Result<notify::Event>>, shared: &Shared) {
    while let Ok(first) = events.recv() {
        let mut changed = BTreeSet::new();
        note(root, first, &mut changed);
        let burst_started = std::time::Instant::now();
        loop {
            match events.recv_timeout(RELOAD_QUIET_PERIOD) {
                Ok(event) => note(root, event, &mut changed),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if burst_started.elapsed() >= Duration::from_millis(RELOAD_DELAY_MS_MAX) {
                break;
            }
        }
        for folder in changed {
            reload_folder(&folder, &shared.catalogue, &shared.metrics);
        }
        // The other nodes learn at once which versions this node serves now (see `versions`).
        let _ = super::versions::announce(shared);
    }
}

/// Records the exercise folder (the first level below the root) an event touched.
fn note(root: &Path, event: notify::Result<notify::Event>, changed: &mut BTreeSet<PathBuf>) {
    match event {
        Ok(event) => {
            // Reading a folder (as the reload itself does) is not a change.
            use notify::EventKind::{Access, Modify};
            use notify::event::{MetadataKind, ModifyKind};
            if matches!(event.kind, Access(_) | Modify(ModifyKind::Metadata(MetadataKind::AccessTime))) {
                return;
            }
            for path in event.paths {
                if let Ok(relative) = path.strip_prefix(root)
                    && let Some(first) = relative.components().next()
                {
                    changed.insert(root.join(first));
                }
            }
        }
        Err(error) => tracing::error!(event = "exercise_watch_error", error = %error),
    }
}

/// Loads one folder again: sound → served, broken → rejected (the last good version stays),
/// gone → no longer served.
fn reload_folder(folder: &Path, catalogue: &Catalogue, metrics: &Metrics) {
    let dir = folder.display().to_string();
    let reject = |error: &str| {
        metrics.exercise_reload(ReloadOutcome::Rejected);
        tracing::error!(event = "exercise_rejected", dir = %dir, error = %error);
    };
    if !folder.join(EXERCISE_FILE).is_file() {
        if let Some(slug) = catalogue.replace_folder(folder, None) {
            metrics.exercise_reload(ReloadOutcome::Removed);
            tracing::info!(event = "exercise_removed", dir = %dir, slug = %slug);
        }
        return;
    }
    let exercise = match crate::graders::load(folder) {
        Ok(exercise) => exercise,
        Err(error) => return reject(&error.to_string()),
    };
    let slug = exercise.slug.clone();
    if let Some(other) = catalogue.folder_of(&slug).filter(|other| other != folder) {
        return reject(&format!("slug {slug:?} is already served from {}", other.display()));
    }
    let soundness = crate::check::check_exercise(&exercise);
    if !soundness.sound() {
        return reject(&soundness.render());
    }
    catalogue.replace_folder(folder, Some(Arc::new(exercise)));
    metrics.exercise_reload(ReloadOutcome::Loaded);
    tracing::info!(event = "exercise_loaded", dir = %dir, slug = %slug);
}
