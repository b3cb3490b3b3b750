//! Benchmark of a consumer that talks to an outside service: exercise 05's reference (a booking and
//! its confirmation through the mail provider with idempotency keys), exercise 06's (the outbox:
//! a booking and its event in one transaction, and a relay that publishes it to the broker, run
//! before every state read), exercise 07's (behind a queue with redrive: transient failures, a
//! dead letter queue, one more schedule) and exercise 08's (a record of an event log, its offset
//! committed in the same transaction) against exercise 03's (a credit, no outside service), in
//! WAT and in Python, side by side in one run (interleaved rounds).
//! Each figure is a whole grade (every check) of the loaded exercise after its first grade, whose
//! oracle is then kept.
//!
//! Run: `cargo bench --bench world` (add `-- --rounds 41` for more rounds).

use std::path::Path;
use std::time::{Duration, Instant};

use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::Verdict;
use pruefstein::submission::{Language, Submission};

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let rounds: usize =
        std::env::args().skip_while(|a| a != "--rounds").nth(1).and_then(|n| n.parse().ok()).unwrap_or(21);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises");
    let load = |slug: &str| pruefstein::graders::load(&root.join(slug)).expect("loads");
    let read = |slug: &str, file: &str| std::fs::read_to_string(root.join(slug).join(file)).expect("read");
    let (e03, e05, e06, e07, e08, e08b) = (
        load("03-idempotenter-konsument"),
        load("05-buchung-und-mail"),
        load("06-outbox"),
        load("07-dead-letter"),
        load("08-offsets"),
        load("08-offsets-im-log"),
    );
    let python = |text: String| Submission::Source { language: Language::Python, text };
    let cases = [
        (
            "03, WAT",
            &e03,
            Submission::Module(read("03-idempotenter-konsument", "solutions/reference.wat").into_bytes()),
        ),
        (
            "05, WAT",
            &e05,
            Submission::Module(read("05-buchung-und-mail", "solutions/reference.wat").into_bytes()),
        ),
        ("06, WAT", &e06, Submission::Module(read("06-outbox", "solutions/reference.wat").into_bytes())),
        ("07, WAT", &e07, Submission::Module(read("07-dead-letter", "solutions/reference.wat").into_bytes())),
        ("08, WAT", &e08, Submission::Module(read("08-offsets", "solutions/reference.wat").into_bytes())),
        (
            "08b, WAT",
            &e08b,
            Submission::Module(read("08-offsets-im-log", "solutions/reference.wat").into_bytes()),
        ),
        ("03, Python", &e03, python(read("03-idempotenter-konsument", "solutions/lesson.py"))),
        ("05, Python", &e05, python(read("05-buchung-und-mail", "solutions/reference.py"))),
        ("06, Python", &e06, python(read("06-outbox", "solutions/reference.py"))),
        ("07, Python", &e07, python(read("07-dead-letter", "solutions/reference.py"))),
        ("08, Python", &e08, python(read("08-offsets", "solutions/reference.py"))),
        ("08b, Python", &e08b, python(read("08-offsets-im-log", "solutions/reference.py"))),
    ];
    let options = GradeOptions::default();
    // Warm-up: engines, the interpreter's snapshot, each exercise's oracle.
    for (_, exercise, submission) in &cases {
        assert_eq!(grade(exercise, submission, &options).expect("grades").verdict, Verdict::Passed);
    }
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for _ in 0..rounds {
        for (i, (_, exercise, submission)) in cases.iter().enumerate() {
            let start = Instant::now();
            let report = grade(exercise, submission, &options).expect("grades");
            samples[i].push(start.elapsed());
            assert_eq!(report.verdict, Verdict::Passed);
        }
    }
    println!("a whole grade of each reference; medians of {rounds} interleaved rounds");
    println!("| exercise, language | grade |");
    println!("|--------------------|------:|");
    for ((name, ..), samples) in cases.iter().zip(&mut samples) {
        println!("| {name:<18} | {:>12} |", ms(median(samples)));
    }
}
