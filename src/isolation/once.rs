//! One submission graded in a process of its own, which then ends: the CLI's `grade`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::outcome::{Printed, WorkerFailure};
use super::pool::{WorkerProcess, WorkerSpec};
use crate::exercise::Exercise;
use crate::grade::{GradeError, GradeOptions};
use crate::report::Report;
use crate::submission::Submission;

/// One submission graded in a process of its own, which then ends: the CLI's `grade`. The same
/// isolation as the service's, for one run: a child forked from this process when it may fork
/// ([`super::fork`]), else a worker process started from `program`. `print` turns the report into
/// what the caller prints: a forked child does that itself and hands over only its output, so the
/// report is serialized once.
pub(crate) fn grade_once(
    program: &Path,
    exercise: &Exercise,
    submission: &Submission,
    options: &GradeOptions,
    module_cache: Option<PathBuf>,
    print: &dyn Fn(&Report) -> Printed,
) -> Result<Result<Printed, GradeError>, WorkerFailure> {
    if let Some(graded) =
        super::fork::grade_forked(exercise, submission, options, module_cache.as_deref(), print)
    {
        return graded;
    }
    let spec = WorkerSpec { program: program.to_path_buf(), env: Vec::new(), module_cache };
    let mut worker = WorkerProcess::spawn(&spec)
        .map_err(|e| WorkerFailure::Broken(format!("cannot start a grading process: {e}")))?;
    let graded = worker.grade(exercise, submission, options, Duration::from_secs(3600), &mut || {})?;
    Ok(graded.map(|report| print(&report)))
}

/// The environment variable that places `pruefstein grade`'s module cache: a directory, or `off`
/// for none. Without it: `$XDG_CACHE_HOME/pruefstein/modules`, else `~/.cache/pruefstein/modules`.
pub const MODULE_CACHE_ENV: &str = "PRUEFSTEIN_MODULE_CACHE";

/// Where `pruefstein grade` keeps compiled reference solutions and interpreters between runs
/// ([`MODULE_CACHE_ENV`]); none when it is `off` or no home is known.
pub(crate) fn grade_module_cache() -> Option<PathBuf> {
    match std::env::var_os(MODULE_CACHE_ENV) {
        Some(value) if value.is_empty() || value == "off" => None,
        Some(value) => Some(PathBuf::from(value)),
        None => crate::sandbox::module_cache::user_cache_dir(),
    }
}
