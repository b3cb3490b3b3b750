//! Benchmark of the prediction grader: answers graded per second on one core, for the bundled
//! prediction exercises, with the scenario script compiled once per loaded exercise (as the CLI and
//! the service do). Measured side by side in one run (the cases alternate within every round):
//!
//! - a correct answer and a wrong answer (a wrong part carries the simulated timeline), lesson variant;
//! - a known learner (the variant comes from the exercise's cache);
//! - the first answer of a new learner (the variant is derived: ChaCha draw, script run);
//! - a wrong answer of a known learner with the report rendered as JSON (what the service stores);
//! - the first answer of a new learner that is wrong, so its report needs the simulated timeline,
//!   which an outcome writes only then (the difference to the case before is that cost).
//!
//! Run: `cargo bench --bench prediction` (add `-- --rounds 51 --batch 4000` for more; `--case N`
//! runs only case N, counting from 0, e.g. under a profiler).

use std::path::Path;
use std::time::{Duration, Instant};

use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::prediction::PredictionExercise;
use pruefstein::report::Verdict;
use pruefstein::submission::Submission;

fn arg(name: &str, default: usize) -> usize {
    std::env::args().skip_while(|a| a != name).nth(1).and_then(|n| n.parse().ok()).unwrap_or(default)
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// One measured case: a batch of answers graded one after another.
struct Case {
    label: &'static str,
    /// Answers per second, one sample per round.
    samples: Vec<f64>,
}

struct Bench {
    exercise: Exercise,
    /// The same exercise loaded a second time: it derives new learners' answers before they are
    /// graded on `exercise`, where those learners are still new.
    twin: Exercise,
    correct: String,
    wrong: String,
    cases: Vec<Case>,
}

fn grade_one(exercise: &Exercise, answer: &str, learner: Option<String>, expect: Verdict) -> usize {
    let options = GradeOptions { learner, ..GradeOptions::default() };
    let report = grade(exercise, &Submission::Answer(answer.to_string()), &options).expect("grades");
    assert_eq!(report.verdict, expect, "{answer}");
    report.checks.len()
}

fn main() {
    let rounds = arg("--rounds", 31);
    let only = std::env::args().any(|a| a == "--case").then(|| arg("--case", 0));
    let batch = arg("--batch", 2_000);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises");
    let wrong_answers = [
        ("01-visibility-timeout", "(2, 1, 0)"),
        ("02-wann-acken", "((0, 0), (1, 0), (0, 1))"),
        ("00-fake-netz", "([1, 3, 4, 3, 5], [2], [])"),
    ];

    let mut load_times = Vec::new();
    let mut benches: Vec<Bench> = wrong_answers
        .iter()
        .map(|(name, wrong)| {
            let start = Instant::now();
            let exercise = pruefstein::graders::load(&root.join(name)).expect("exercise loads");
            load_times.push((*name, start.elapsed()));
            let prediction = exercise.grader_as::<PredictionExercise>().expect("a prediction exercise");
            let correct = prediction.lesson().outcome.answer.render();
            let cases = [
                "correct answer, lesson variant",
                "wrong answer, lesson variant",
                "correct answer, known learner",
                "wrong answer + JSON report",
                "first answer of a new learner",
                "first answer of a new learner, wrong",
            ]
            .into_iter()
            .map(|label| Case { label, samples: Vec::new() })
            .collect();
            let twin = pruefstein::graders::load(&root.join(name)).expect("exercise loads");
            Bench { exercise, twin, correct, wrong: wrong.to_string(), cases }
        })
        .collect();

    // Known learners: their variants are derived once here and come from the cache afterwards.
    let known: Vec<String> = (0..64).map(|i| format!("known-{i}")).collect();
    let mut fresh = 0_u64;
    for bench in &benches {
        let p = bench.exercise.grader_as::<PredictionExercise>().expect("a prediction exercise");
        for learner in &known {
            p.variant(&bench.exercise.slug, Some(learner), "").expect("variant");
        }
    }
    let own_answer = |exercise: &Exercise, learner: &str| -> String {
        let p = exercise.grader_as::<PredictionExercise>().expect("a prediction exercise");
        p.variant(&exercise.slug, Some(learner), "").expect("variant").outcome.answer.render()
    };

    for _ in 0..rounds {
        for bench in &mut benches {
            let ex = &bench.exercise;
            let known_answers: Vec<(String, String)> =
                known.iter().map(|l| (l.clone(), own_answer(ex, l))).collect();
            for case in 0..bench.cases.len() {
                if only.is_some_and(|n| n != case) {
                    continue;
                }
                // New learners: ids never used before on `ex`, so every answer derives a variant;
                // their own answer and a wrong one come from the twin.
                let new_learners: Vec<(String, String, String)> = if case >= 4 {
                    (0..batch)
                        .map(|_| {
                            fresh += 1;
                            let learner = format!("new-{fresh}");
                            let own = own_answer(&bench.twin, &learner);
                            let wrong = if own != bench.correct {
                                bench.correct.clone()
                            } else {
                                bench.wrong.clone()
                            };
                            (learner, own, wrong)
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let start = Instant::now();
                let mut sink = 0_usize;
                for i in 0..batch {
                    sink += match case {
                        0 => grade_one(ex, &bench.correct, None, Verdict::Passed),
                        1 => grade_one(ex, &bench.wrong, None, Verdict::Failed),
                        2 => {
                            let (learner, answer) = &known_answers[i % known_answers.len()];
                            grade_one(ex, answer, Some(learner.clone()), Verdict::Passed)
                        }
                        3 => {
                            let (learner, _) = &known_answers[i % known_answers.len()];
                            let options =
                                GradeOptions { learner: Some(learner.clone()), ..GradeOptions::default() };
                            let report = grade(ex, &Submission::Answer(bench.wrong.clone()), &options)
                                .expect("grades");
                            report.to_json().len()
                        }
                        4 => {
                            // Last in the round: new learners may fill the variant cache and clear it.
                            let (learner, own, _) = &new_learners[i];
                            grade_one(ex, own, Some(learner.clone()), Verdict::Passed)
                        }
                        _ => {
                            let (learner, _, wrong) = &new_learners[i];
                            grade_one(ex, wrong, Some(learner.clone()), Verdict::Failed)
                        }
                    };
                }
                let elapsed = start.elapsed();
                std::hint::black_box(sink);
                bench.cases[case].samples.push(batch as f64 / elapsed.as_secs_f64());
            }
        }
    }

    println!("prediction grader, one thread, {rounds} rounds of {batch} answers per case, medians");
    for (name, load) in &load_times {
        println!("load {name:<24} {:>10.3} ms (compile the script, run the lesson's variant)", ms(*load));
    }
    println!("{:<24} {:<38} {:>12} {:>12}", "exercise", "case", "answers/s", "µs/answer");
    for bench in &mut benches {
        for case in bench.cases.iter_mut().filter(|c| !c.samples.is_empty()) {
            let rate = median(&mut case.samples);
            println!("{:<24} {:<38} {:>12.0} {:>12.2}", bench.exercise.slug, case.label, rate, 1e6 / rate);
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
