//! Benchmark of the consumer grader on a correct consumer with many writes per message (exercise
//! 03's logic plus 990 harmless updates inside the transaction, 992 writes in all): the time of
//! each check and of a whole grade, to show that the sampled crash points
//! (`limits::CRASH_POINTS_MAX`) keep such a consumer well within `WALL_MS_PER_SUBMISSION`, so the
//! deadline stays a backstop.
//!
//! Run: `cargo bench --bench heavy_consumer` (add `-- --rounds 5` for more rounds).

use std::path::Path;
use std::time::{Duration, Instant};

use pruefstein::consumer::ConsumerExercise;
use pruefstein::consumer::checks::Check;
use pruefstein::consumer::harness::Harness;
use pruefstein::consumer::process::CompiledConsumer;
use pruefstein::deadline::Deadline;
use pruefstein::grade::{Compiler, GradeOptions, grade};
use pruefstein::submission::Submission;

/// Exercise 03's reference logic with `extra` harmless writes after the dedup row.
fn heavy_consumer(extra: u32) -> String {
    format!(
        r#"(module
  (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
  (import "msg" "text" (func $msg_text (param i32 i32 i32 i32) (result i32)))
  (import "db" "bind_int" (func $bind_int (param i32 i64)))
  (import "db" "bind_text" (func $bind_text (param i32 i32 i32)))
  (import "db" "exec" (func $exec (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "id")
  (data (i32.const 32) "body.punkte")
  (data (i32.const 48) "body.kunde")
  (data (i32.const 64) "BEGIN")
  (data (i32.const 80) "COMMIT")
  (data (i32.const 96) "ROLLBACK")
  (data (i32.const 112) "INSERT INTO gesehen (msg_id) VALUES (?)")
  (data (i32.const 160) "UPDATE punkte SET stand = stand + ? WHERE kunde = ?")
  (data (i32.const 240) "UPDATE punkte SET stand = stand WHERE kunde = 'anna'")
  (func (export "verarbeite") (result i32)
    (local $status i32) (local $len i32) (local $i i32)
    (drop (call $exec (i32.const 64) (i32.const 5)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 16) (i32.const 2)))
    (local.set $status (call $exec (i32.const 112) (i32.const 39)))
    (if (i32.eq (local.get $status) (i32.const 1))
      (then (drop (call $exec (i32.const 96) (i32.const 8))) (return (i32.const 0))))
    (if (local.get $status)
      (then (drop (call $exec (i32.const 96) (i32.const 8))) (return (i32.const 2))))
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (i32.const {extra})))
        (drop (call $exec (i32.const 240) (i32.const 52)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (call $bind_int (i32.const 1) (call $msg_int (i32.const 32) (i32.const 11)))
    (local.set $len (call $msg_text (i32.const 48) (i32.const 10) (i32.const 1024) (i32.const 256)))
    (call $bind_text (i32.const 2) (i32.const 1024) (local.get $len))
    (local.set $status (call $exec (i32.const 160) (i32.const 51)))
    (if (local.get $status)
      (then (drop (call $exec (i32.const 96) (i32.const 8))) (return (i32.const 2))))
    (if (call $exec (i32.const 80) (i32.const 6))
      (then (drop (call $exec (i32.const 96) (i32.const 8))) (return (i32.const 2))))
    (i32.const 1))
)"#
    )
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let rounds: usize =
        std::env::args().skip_while(|a| a != "--rounds").nth(1).and_then(|n| n.parse().ok()).unwrap_or(3);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
    let exercise = pruefstein::graders::load(&dir).expect("exercise 03 loads");
    let consumer = exercise.grader_as::<ConsumerExercise>().expect("a consumer exercise");
    let oracle = pruefstein::consumer::oracle(&exercise, consumer).expect("oracle");
    let module = heavy_consumer(990).into_bytes();
    let engine = pruefstein::sandbox::engine(Compiler::Winch).expect("engine");
    let compiled =
        CompiledConsumer::compile(engine, &module, &exercise.limits, &consumer.entry).expect("compiles");
    let mut per_check = vec![Vec::new(); Check::ALL.len()];
    let mut whole = Vec::new();
    let mut verdicts = Vec::new();
    for _ in 0..rounds {
        let mut harness = Harness::new(consumer, &exercise.limits, &compiled).expect("harness");
        // Per check without the submission's deadline, to see what each one costs.
        harness.deadline = Deadline::after_ms(3_600_000);
        for (c, name) in Check::ALL.into_iter().enumerate() {
            let start = Instant::now();
            let result = harness.run_check(name, oracle).expect("check runs");
            per_check[c].push(start.elapsed());
            assert!(result.failure.is_none(), "{name} passes: {:?}", result.failure);
        }
        let start = Instant::now();
        let report =
            grade(&exercise, &Submission::Module(module.clone()), &GradeOptions::default()).expect("grades");
        whole.push(start.elapsed());
        verdicts.push(report.summary.en);
    }
    println!("consumer grader, a correct consumer with 992 writes per message, {rounds} rounds, medians");
    for (c, name) in Check::ALL.into_iter().enumerate() {
        println!("{name:<28} {:>12}", ms(median(&mut per_check[c])));
    }
    println!("{:<28} {:>12}", "whole grade", ms(median(&mut whole)));
    for verdict in verdicts {
        println!("  {verdict}");
    }
}
