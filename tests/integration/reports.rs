//! Whole reports pinned byte for byte: every solution and every mutant of the consumer exercises
//! (03 to 10), in WAT, Python and JavaScript, and the WAT, Python and JavaScript kits' examples
//! (graded against exercise 03) are graded, and each report's JSON is compared with
//! `tests/golden/reports/<exercise>/<file>.json` (`<stem>.json` for WAT, `<stem>.py.json` for
//! Python, `<stem>.js.json` for JavaScript). A change in how the harness
//! runs a grading (where its databases live, how instances are made) must leave every report as it
//! was; a change that is meant to alter reports rewrites the files with
//! `PRUEFSTEIN_BLESS=1 cargo test --test integration reports::` and shows the diff in the commit.

use std::path::{Path, PathBuf};

use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::submission::{Language, Submission};

use crate::support::{self, exercise_dir, load, repo};

/// The exercise every WAT kit example is written for.
const KIT_EXERCISE: &str = "03-idempotenter-konsument";

/// The `.wat` files directly in `dir`, sorted by name.
fn wat_files(dir: &Path) -> Vec<PathBuf> {
    files_with(dir, "wat")
}

/// The files with `extension` directly in `dir`, sorted by name.
fn files_with(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == extension))
        .collect();
    files.sort();
    files
}

/// The report of the file at `path`, as JSON, and the name of its golden file: a module by its
/// stem, source by its stem and its language's extension (`.py`, `.js`).
fn graded(exercise: &Exercise, path: &Path) -> (String, String) {
    let stem = path.file_stem().expect("file name").to_string_lossy().into_owned();
    let language = path.extension().and_then(|ext| ext.to_str()).and_then(Language::from_extension);
    if let Some(language) = language {
        let text = std::fs::read_to_string(path).expect("source file");
        let submission = Submission::Source { language, text };
        let report = grade(exercise, &submission, &GradeOptions::default()).expect("grades");
        (report.to_json(), format!("{stem}.{}.json", language.extension()))
    } else {
        let bytes = std::fs::read(path).expect("module file");
        (support::grade_module(exercise, bytes).to_json(), format!("{stem}.json"))
    }
}

/// Grades every module in `modules` against `exercise` and compares (or, when blessing, writes)
/// its report under `tests/golden/reports/<golden>/`. Returns how many modules were graded; every
/// difference is collected first, so one run names all reports that changed.
fn check_reports(exercise: &Exercise, golden: &str, modules: &[PathBuf]) -> usize {
    let dir = repo().join("tests/golden/reports").join(golden);
    let bless = std::env::var_os("PRUEFSTEIN_BLESS").is_some();
    if bless {
        std::fs::create_dir_all(&dir).expect("create the golden reports folder");
    }
    let mut differ = Vec::new();
    for module in modules {
        let (json, name) = graded(exercise, module);
        let stem = name.trim_end_matches(".json").to_string();
        let path = dir.join(name);
        if bless {
            std::fs::write(&path, &json).expect("write golden report");
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (write it with PRUEFSTEIN_BLESS=1)", path.display()));
        if expected != json {
            let line = expected.lines().zip(json.lines()).position(|(a, b)| a != b);
            differ.push(format!(
                "{golden}/{stem}.json, line {}:\n  expected {}\n  actual   {}",
                line.map_or("past the end of one".to_string(), |l| (l + 1).to_string()),
                line.and_then(|l| expected.lines().nth(l)).unwrap_or(""),
                line.and_then(|l| json.lines().nth(l)).unwrap_or(""),
            ));
        }
    }
    assert!(differ.is_empty(), "reports differ from their golden files:\n{}", differ.join("\n"));
    modules.len()
}

/// Every solution and mutant of `slug`, graded and compared.
fn check_exercise(slug: &str) {
    let dir = exercise_dir(slug);
    let mut modules = wat_files(&dir.join("solutions"));
    modules.extend(wat_files(&dir.join("mutants")));
    for language in Language::ALL {
        modules.extend(files_with(&dir.join("solutions"), language.extension()));
        modules.extend(files_with(&dir.join("mutants"), language.extension()));
    }
    let graded = check_reports(&load(slug), slug, &modules);
    // A folder that went missing would pass silently.
    assert!(graded >= 2, "{slug}: only {graded} modules found");
}

#[test]
fn exercise_03_reports_are_unchanged() {
    check_exercise("03-idempotenter-konsument");
}

/// The part 2 exercises: a mail provider with and without keys, the outbox with its relay, the
/// dead letter queue, the event log.
#[test]
fn exercises_05_to_08_reports_are_unchanged() {
    for slug in
        ["05-buchung-und-mail", "05-mail-ohne-schluessel", "06-outbox", "07-dead-letter", "08-offsets"]
    {
        check_exercise(slug);
    }
}

#[test]
fn exercise_04_reports_are_unchanged() {
    check_exercise("04-lager");
}

#[test]
fn exercise_09_and_10_reports_are_unchanged() {
    check_exercise("09-ueberweisung");
    check_exercise("10-punkte-einloesen");
}

#[test]
fn exercise_08_offsets_im_log_reports_are_unchanged() {
    check_exercise("08-offsets-im-log");
}

#[test]
fn wat_kit_example_reports_are_unchanged() {
    let modules = wat_files(&repo().join("graders/consumer/kits/wat/examples"));
    let graded = check_reports(&load(KIT_EXERCISE), "wat-kit", &modules);
    assert!(graded >= 2, "only {graded} kit examples found");
}

#[test]
fn python_kit_example_reports_are_unchanged() {
    let mut files = files_with(&repo().join("graders/consumer/kits/python/examples"), "py");
    files.push(repo().join("graders/consumer/kits/python/consumer.py"));
    let graded = check_reports(&load(KIT_EXERCISE), "python-kit", &files);
    assert!(graded >= 3, "only {graded} kit files found");
}

#[test]
fn javascript_kit_example_reports_are_unchanged() {
    let mut files = files_with(&repo().join("graders/consumer/kits/javascript/examples"), "js");
    files.push(repo().join("graders/consumer/kits/javascript/consumer.js"));
    let graded = check_reports(&load(KIT_EXERCISE), "javascript-kit", &files);
    assert!(graded >= 3, "only {graded} kit files found");
}
