//! Benchmark of process isolation: the cost per submission of grading through a worker process
//! (`pruefstein grade-worker`, request and report over its pipes) against grading in-process, side
//! by side in one run (interleaved rounds, so machine noise hits both alike), for a consumer module
//! (exercise 03's reference) and a prediction answer (exercise 01). Also the one-off cost of a
//! fresh worker: start, load the exercise version from its files, grade once.
//!
//! Run: `cargo bench --bench isolation` (add `-- --rounds 200` for more rounds).

use std::path::Path;
use std::time::{Duration, Instant};

use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::isolation::pool::{WorkerProcess, WorkerSpec};
use pruefstein::submission::Submission;

const BIN: &str = env!("CARGO_BIN_EXE_pruefstein");

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let rounds: usize =
        std::env::args().skip_while(|a| a != "--rounds").nth(1).and_then(|n| n.parse().ok()).unwrap_or(101);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises");
    let consumer =
        pruefstein::graders::load(&root.join("03-idempotenter-konsument")).expect("exercise 03 loads");
    let prediction =
        pruefstein::graders::load(&root.join("01-visibility-timeout")).expect("exercise 01 loads");
    let module =
        std::fs::read(root.join("03-idempotenter-konsument/solutions/reference.wat")).expect("reference");
    let module = wat::parse_bytes(&module).expect("valid wat").into_owned();
    let cases: [(&str, &Exercise, Submission); 2] = [
        ("consumer (03 reference)", &consumer, Submission::Module(module)),
        ("prediction (01 answer)", &prediction, Submission::Answer("(2, 2, 0)".into())),
    ];
    let options = GradeOptions { learner: Some("anna".into()), ..GradeOptions::default() };
    let spec = WorkerSpec { program: BIN.into(), env: Vec::new(), module_cache: None };
    let beat = Duration::from_secs(3600);

    // One-off: a fresh worker's first grade (start, exercise files sent and loaded, grade).
    let mut fresh = [Vec::new(), Vec::new()];
    for _ in 0..5 {
        for (i, (_, exercise, submission)) in cases.iter().enumerate() {
            let start = Instant::now();
            let mut worker = WorkerProcess::spawn(&spec).expect("worker starts");
            worker.grade(exercise, submission, &options, beat, &mut || {}).expect("answers").expect("grades");
            fresh[i].push(start.elapsed());
        }
    }

    let mut worker = WorkerProcess::spawn(&spec).expect("worker starts");
    for (_, exercise, submission) in &cases {
        // Warm-up: engines, the oracle, the exercise version in the worker.
        grade(exercise, submission, &options).expect("grades");
        worker.grade(exercise, submission, &options, beat, &mut || {}).expect("answers").expect("grades");
    }
    let mut in_process = [Vec::new(), Vec::new()];
    let mut isolated = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for (i, (_, exercise, submission)) in cases.iter().enumerate() {
            let start = Instant::now();
            let a = grade(exercise, submission, &options).expect("grades");
            in_process[i].push(start.elapsed());
            let start = Instant::now();
            let b = worker
                .grade(exercise, submission, &options, beat, &mut || {})
                .expect("answers")
                .expect("grades");
            isolated[i].push(start.elapsed());
            assert_eq!(a.to_json(), b.to_json(), "the worker's report differs");
        }
    }
    println!("process isolation, {rounds} rounds, medians per submission");
    println!("{:<26} {:>12} {:>12} {:>12} {:>14}", "", "in-process", "worker", "cost", "fresh worker");
    for (i, (label, _, _)) in cases.iter().enumerate() {
        let (a, b) = (median(&mut in_process[i]), median(&mut isolated[i]));
        println!(
            "{label:<26} {:>12} {:>12} {:>12} {:>14}",
            ms(a),
            ms(b),
            ms(b.saturating_sub(a)),
            ms(median(&mut fresh[i]))
        );
    }
}
