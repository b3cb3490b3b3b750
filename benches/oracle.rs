//! Benchmark of the oracle's language: exercise 04 graded against its WAT reference and against
//! its Python reference (the same folder with `reference = "solutions/reference.py"`), side by side
//! in one run (interleaved rounds). The submission is the same module in both, so the only
//! difference is the oracle: its first computation (a first grade after loading), and every grade
//! after it, which reads the oracle's states kept with the loaded exercise.
//!
//! Run: `cargo bench --bench oracle` (add `-- --rounds 51` for more rounds).

use std::path::Path;
use std::time::{Duration, Instant};

use pruefstein::grade::{GradeOptions, grade};
use pruefstein::submission::Submission;

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Copies the files of `from` (one level of folders) into `to`.
fn copy_folder(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("folder") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_folder(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

fn main() {
    let rounds: usize =
        std::env::args().skip_while(|a| a != "--rounds").nth(1).and_then(|n| n.parse().ok()).unwrap_or(21);
    let wat_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/04-lager");
    let scratch = tempfile::tempdir().expect("temporary directory");
    let python_dir = scratch.path().join("04-lager");
    std::fs::create_dir_all(&python_dir).expect("mkdir");
    copy_folder(&wat_dir, &python_dir);
    let toml = std::fs::read_to_string(python_dir.join("exercise.toml")).expect("exercise.toml");
    let toml =
        toml.replace("reference = \"solutions/reference.wat\"", "reference = \"solutions/reference.py\"");
    std::fs::write(python_dir.join("exercise.toml"), toml).expect("write");
    let dirs = [wat_dir.as_path(), python_dir.as_path()];
    let module = wat::parse_file(wat_dir.join("solutions/reference.wat")).expect("valid wat");
    let submission = Submission::Module(module);
    let options = GradeOptions::default();

    // Warm-up: engines, the interpreter's snapshot and module, the page cache.
    for dir in dirs {
        let exercise = pruefstein::graders::load(dir).expect("loads");
        grade(&exercise, &submission, &options).expect("grades");
    }

    let mut first = [Vec::new(), Vec::new()];
    let mut after = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for (i, dir) in dirs.into_iter().enumerate() {
            // A freshly loaded exercise: the first grade computes its oracle.
            let exercise = pruefstein::graders::load(dir).expect("loads");
            let start = Instant::now();
            let report = grade(&exercise, &submission, &options).expect("grades");
            first[i].push(start.elapsed());
            assert_eq!(report.verdict, pruefstein::report::Verdict::Passed);
            let start = Instant::now();
            let report = grade(&exercise, &submission, &options).expect("grades");
            after[i].push(start.elapsed());
            assert_eq!(report.verdict, pruefstein::report::Verdict::Passed);
        }
    }
    println!("exercise 04, the same module graded; medians of {rounds} interleaved rounds");
    println!("| grade                          |   WAT oracle | Python oracle | Python / WAT |");
    println!("|--------------------------------|-------------:|--------------:|-------------:|");
    for (name, samples) in
        [("first grade (computes the oracle)", &mut first), ("a grade after the first", &mut after)]
    {
        let [wat, python] = samples;
        let (wat, python) = (median(wat), median(python));
        println!(
            "| {name:<30} | {:>12} | {:>13} | {:>11.2}x |",
            ms(wat),
            ms(python),
            python.as_secs_f64() / wat.as_secs_f64()
        );
    }
}
