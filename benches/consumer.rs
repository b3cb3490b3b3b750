//! Benchmark of the consumer grader on exercise 03's reference solution: module compile time, the
//! time of each check, and a whole grade (compile + all checks), with Winch and Cranelift measured
//! side by side in one run (interleaved rounds, so machine noise hits both alike).
//!
//! Then the same for the lesson's own Python (`solutions/lesson.py`, run by the MicroPython guest)
//! and the JavaScript reference: the interpreter's snapshot and compile once per process, the start
//! of one instance (a fresh instance from the snapshot + loading the student's file) under each
//! compiler, and a whole grade on the interpreters' own compiler.
//!
//! Run: `cargo bench --bench consumer` (add `-- --rounds 200` for more rounds; `-- --wat-only`
//! leaves out the interpreted consumers, for a profile of the module path alone; `-- --only python`
//! or `-- --only javascript` measures that interpreted consumer alone, for a profile of its path).

use std::path::Path;
use std::time::{Duration, Instant};

use pruefstein::consumer::ConsumerExercise;
use pruefstein::consumer::checks::Check;
use pruefstein::consumer::harness::Harness;
use pruefstein::consumer::process::CompiledConsumer;
use pruefstein::exercise::Exercise;
use pruefstein::grade::{Compiler, GradeOptions, grade};
use pruefstein::submission::Submission;

/// `binary` with a custom section naming `n`: a distinct module (its own bytes and hash) that
/// grades as `binary` does.
fn distinct_module(binary: &[u8], n: usize) -> Vec<u8> {
    let name = b"bench-round";
    let payload = n.to_string();
    let size = 1 + name.len() + payload.len();
    assert!(size < 128, "one LEB byte");
    let mut out = binary.to_vec();
    out.extend_from_slice(&[0, size as u8, name.len() as u8]);
    out.extend_from_slice(name);
    out.extend_from_slice(payload.as_bytes());
    out
}

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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
    let exercise = pruefstein::graders::load(&dir).expect("exercise 03 loads");
    let consumer = exercise.grader_as::<ConsumerExercise>().expect("a consumer exercise");
    let source = std::fs::read(dir.join("solutions/reference.wat")).expect("reference");
    let binary = wat::parse_bytes(&source).expect("valid wat").into_owned();
    let oracle = pruefstein::consumer::oracle(&exercise, consumer).expect("oracle");
    use pruefstein::submission::Language;
    let only = std::env::args().skip_while(|a| a != "--only").nth(1);
    let sources =
        [(Language::Python, "solutions/lesson.py"), (Language::JavaScript, "solutions/reference.js")];
    if let Some(only) = only {
        let (language, file) = sources
            .into_iter()
            .find(|(language, _)| language.name().eq_ignore_ascii_case(&only))
            .expect("--only python or --only javascript");
        interpreted(&exercise, consumer, &dir, rounds, language, file);
        return;
    }
    let compilers = [Compiler::Winch, Compiler::Cranelift];
    for compiler in compilers {
        // Warm-up: engines, linkers, the oracle and the page cache.
        let options = GradeOptions { compiler, ..GradeOptions::default() };
        grade(&exercise, &Submission::Module(binary.clone()), &options).expect("grades");
    }

    let mut compile = [Vec::new(), Vec::new()];
    let mut whole = [Vec::new(), Vec::new()];
    let mut per_check: [Vec<Vec<Duration>>; 2] =
        [vec![Vec::new(); Check::ALL.len()], vec![Vec::new(); Check::ALL.len()]];
    let mut fuel = 0;
    for round in 0..rounds {
        for (i, compiler) in compilers.into_iter().enumerate() {
            let engine = pruefstein::sandbox::engine(compiler).expect("engine");
            let start = Instant::now();
            let compiled = CompiledConsumer::compile(engine, &binary, &exercise.limits, &consumer.entry)
                .expect("compiles");
            compile[i].push(start.elapsed());

            let mut harness = Harness::new(consumer, &exercise.limits, &compiled).expect("harness");
            for (c, name) in Check::ALL.into_iter().enumerate() {
                let start = Instant::now();
                let result = harness.run_check(name, oracle).expect("check runs");
                per_check[i][c].push(start.elapsed());
                assert!(result.failure.is_none(), "{name} passes for the reference");
                if c == 0 {
                    fuel = result.detail.fuel_used;
                }
            }

            // Its run databases go back to the thread for the next grading, as after a grading.
            drop(harness);
            let options = GradeOptions { compiler, ..GradeOptions::default() };
            let distinct = distinct_module(&binary, round * compilers.len() + i);
            let start = Instant::now();
            let report = grade(&exercise, &Submission::Module(distinct), &options).expect("grades");
            whole[i].push(start.elapsed());
            assert_eq!(report.verdict, pruefstein::report::Verdict::Passed);
        }
    }

    println!(
        "consumer grader, exercise 03 reference ({} bytes wasm), {rounds} rounds, medians",
        binary.len()
    );
    println!("{:<28} {:>12} {:>12} {:>8}", "", "winch", "cranelift", "ratio");
    let row = |label: &str, a: &mut Vec<Duration>, b: &mut Vec<Duration>| {
        let (a, b) = (median(a), median(b));
        println!("{label:<28} {:>12} {:>12} {:>7.2}x", ms(a), ms(b), b.as_secs_f64() / a.as_secs_f64());
    };
    let [compile_w, compile_c] = &mut compile;
    row("compile module", compile_w, compile_c);
    for (c, name) in Check::ALL.into_iter().enumerate() {
        let (w, cr) = per_check.split_at_mut(1);
        row(&format!("check {name}"), &mut w[0][c], &mut cr[0][c]);
    }
    let [whole_w, whole_c] = &mut whole;
    row("whole grade (compile+checks)", whole_w, whole_c);
    println!(
        "fuel of one fresh delivery: {fuel} of {} ({:.3} %)",
        exercise.limits.fuel_per_delivery,
        fuel as f64 * 100.0 / exercise.limits.fuel_per_delivery as f64
    );
    if std::env::args().any(|a| a == "--wat-only") {
        return;
    }
    for (language, file) in sources {
        interpreted(&exercise, consumer, &dir, rounds, language, file);
    }
}

/// The figures of a consumer in an interpreted language: start the interpreter (once per process),
/// compile it once (per engine), instance start + load, whole grade.
fn interpreted(
    exercise: &Exercise,
    consumer: &ConsumerExercise,
    dir: &Path,
    rounds: usize,
    language: pruefstein::submission::Language,
    file: &str,
) {
    use pruefstein::limits::INTERPRETER_WASM_STACK_BYTES;
    use pruefstein::submission::Language;
    let text = std::fs::read_to_string(dir.join(file)).expect("source file");
    let submission = Submission::Source { language, text: text.clone() };
    println!("{} consumer, exercise 03 {file}, {rounds} rounds, medians", language.name());
    let _ = pruefstein::sandbox::with_stack(INTERPRETER_WASM_STACK_BYTES, || {
        let start = Instant::now();
        let _ = pruefstein::consumer::interpreter::snapshot(language).expect("snapshot");
        println!("snapshot (once per process, on Winch) {}", ms(start.elapsed()));
        let comment = if language == Language::Python { "#" } else { "//" };
        // Instance start and load on either compiler; a whole grade runs on the interpreters' own.
        for compiler in [Compiler::Winch, Compiler::Cranelift] {
            let engine = pruefstein::sandbox::engine_with_stack(compiler, INTERPRETER_WASM_STACK_BYTES)
                .expect("engine");
            let start = Instant::now();
            pruefstein::consumer::interpreter::module(engine, language).expect("compiles");
            let compile = start.elapsed();
            let mut load = Vec::new();
            for round in 0..rounds {
                // Every round a distinct file (a comment of its own), as students submit them.
                let text = format!("{text}\n{comment} round {round} {compiler:?}\n");
                let start = Instant::now();
                CompiledConsumer::compile_source(engine, language, &text, &exercise.limits, &consumer.entry)
                    .expect("loads");
                load.push(start.elapsed());
            }
            println!(
                "{compiler:?}: compile once {}, instance start + load {file} {}",
                ms(compile),
                ms(median(&mut load))
            );
        }
        let options = GradeOptions::default();
        grade(exercise, &submission, &options).expect("grades");
        let mut whole = Vec::new();
        for round in 0..rounds {
            let submission =
                Submission::Source { language, text: format!("{text}\n{comment} graded {round}\n") };
            let start = Instant::now();
            let report = grade(exercise, &submission, &options).expect("grades");
            whole.push(start.elapsed());
            assert_eq!(report.verdict, pruefstein::report::Verdict::Passed);
        }
        println!(
            "whole grade ({:?}, the interpreters' compiler) {}",
            pruefstein::consumer::interpreter::COMPILER,
            ms(median(&mut whole))
        );
    });
}
