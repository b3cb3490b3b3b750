//! Benchmark of `pruefstein grade` as a whole process, the way a student runs it: wall time and CPU
//! time (user + system of the process and its grading worker) for exercise 03's reference module
//! and the lesson's Python consumer, with the module cache off, cold (an empty cache directory each
//! run: the first run's cost, writing included) and warm (a cache a first run filled). The modes
//! alternate round by round, so machine noise hits them alike; medians are reported.
//!
//! Run: `cargo bench --bench cli` (add `-- --rounds 31` for more rounds). With
//! `-- --baseline <another pruefstein binary>` that binary is measured too, round by round beside
//! this build, for a before/after ratio from one run.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pruefstein");
const EXERCISE: &str = "exercises/03-idempotenter-konsument";

/// CPU time (user + system) of the children this process waited for so far.
fn children_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a rusage into the pointer it is given; RUSAGE_CHILDREN is valid.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// One `pruefstein grade` of `file` by the binary `bin` with `cache` as its module cache: wall and
/// CPU time.
fn grade(bin: &str, file: &str, cache: &str) -> (Duration, Duration) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (cpu, start) = (children_cpu(), Instant::now());
    let out = Command::new(bin)
        .args(["grade", EXERCISE, &format!("{EXERCISE}/{file}"), "--json"])
        .env("PRUEFSTEIN_MODULE_CACHE", cache)
        .current_dir(root)
        .output()
        .expect("pruefstein runs");
    let wall = start.elapsed();
    assert_eq!(out.status.code(), Some(0), "{file} passes: {}", String::from_utf8_lossy(&out.stderr));
    (wall, children_cpu() - cpu)
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let option = |name: &str| args.iter().skip_while(|a| *a != name).nth(1).cloned();
    let rounds: usize = option("--rounds").and_then(|n| n.parse().ok()).unwrap_or(15);
    let mut binaries = vec![("this build".to_string(), BIN.to_string())];
    if let Some(baseline) = option("--baseline") {
        binaries.push(("baseline".to_string(), baseline));
    }
    let scratch = tempfile::tempdir().expect("temporary directory");
    println!("pruefstein grade as a whole process, {rounds} rounds, medians (CPU = user + system)");
    println!(
        "{:<24} {:<11} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "", "", "off wall", "off CPU", "cold wall", "cold CPU", "warm wall", "warm CPU"
    );
    for file in ["solutions/reference.wat", "solutions/lesson.py"] {
        let warm: Vec<String> = (0..binaries.len())
            .map(|b| {
                let dir = scratch.path().join(format!("warm-{b}-{}", file.replace('/', "-")));
                dir.to_str().expect("utf-8 path").to_string()
            })
            .collect();
        for ((_, bin), warm) in binaries.iter().zip(&warm) {
            grade(bin, file, warm);
        }
        let mut samples: Vec<[Vec<Duration>; 6]> = binaries.iter().map(|_| Default::default()).collect();
        for round in 0..rounds {
            for (b, (_, bin)) in binaries.iter().enumerate() {
                let cold = scratch.path().join(format!("cold-{b}-{round}-{}", file.replace('/', "-")));
                let cold = cold.to_str().expect("utf-8 path").to_string();
                for (slot, cache) in [(0, "off"), (2, cold.as_str()), (4, warm[b].as_str())] {
                    let (wall, cpu) = grade(bin, file, cache);
                    samples[b][slot].push(wall);
                    samples[b][slot + 1].push(cpu);
                }
            }
        }
        for ((label, _), samples) in binaries.iter().zip(samples.iter_mut()) {
            let m: Vec<String> = samples.iter_mut().map(|s| ms(median(s))).collect();
            println!(
                "{:<24} {:<11} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
                file, label, m[0], m[1], m[2], m[3], m[4], m[5]
            );
        }
    }
}
