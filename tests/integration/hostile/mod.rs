//! The hostile corpus: submissions and requests written as an adversary (or an honest student with an
//! ordinary bug) would write them. The invariant every test here guards: every submission ends, in
//! bounded time and memory, whatever it does, with the limit it met named; the service stays up and
//! other submissions are unaffected. One module per class of attack.

mod bounds;
mod crash_points;
mod dead_letter;
mod deadline;
mod fuzz;
mod isolation;
mod javascript;
mod log_offsets;
mod offsets;
mod outside_calls;
mod python;
mod relay;
mod report_diagram;
mod service_limits;
mod text_output;

use std::sync::mpsc;
use std::time::Duration;

use pruefstein::report::{Report, Verdict};

/// Grades with `grade` on a thread of its own; fails if the grade does not return within the hang
/// guard (well above the submission's deadline: a guard, not a performance bound).
fn grade_guarded(grade: fn(&str) -> Report, text: &str) -> Report {
    let hang = Duration::from_millis(pruefstein::limits::WALL_MS_PER_SUBMISSION * 6);
    let (sender, receiver) = mpsc::channel();
    let text = text.to_string();
    std::thread::spawn(move || {
        let _ = sender.send(grade(&text));
    });
    receiver.recv_timeout(hang).unwrap_or_else(|_| panic!("the grade did not return within {hang:?}"))
}

fn json(report: &Report) -> String {
    serde_json::to_string(report).expect("serialises")
}

/// The code and English message of the rejection `text` gets from `grade`.
fn rejected(grade: fn(&str) -> Report, text: &str) -> (String, String) {
    let report = grade_guarded(grade, text);
    assert_eq!(report.verdict, Verdict::Rejected, "{}", json(&report));
    let rejection = report.rejection.expect("a rejection");
    (rejection.code, rejection.message.en)
}

/// Compiles `text`, a consumer in `language`, against exercise 03, starts one instance of it on a
/// fresh run database and hands it to `with` (on a thread with room for the interpreter's stack),
/// without the grade's checks around it.
fn with_instance<T: Send>(
    language: pruefstein::submission::Language,
    text: &str,
    with: impl FnOnce(&mut pruefstein::consumer::process::ConsumerProcess) -> T + Send,
) -> T {
    use std::sync::Arc;

    use pruefstein::consumer::ConsumerExercise;
    use pruefstein::consumer::process::{CompiledConsumer, ConsumerProcess, Launch};
    use pruefstein::consumer::rundb::TemplateSource;

    let exercise = crate::support::consumer_exercise();
    let consumer = exercise.grader_as::<ConsumerExercise>().expect("a consumer exercise");
    // The engine a grading runs interpreters on (and whose compiled interpreter the other tests
    // of this process share).
    let engine = pruefstein::consumer::interpreter::engine(pruefstein::limits::INTERPRETER_WASM_STACK_BYTES)
        .expect("engine");
    pruefstein::sandbox::with_stack(pruefstein::limits::INTERPRETER_WASM_STACK_BYTES, || {
        let compiled =
            CompiledConsumer::compile_source(engine, language, text, &exercise.limits, &consumer.entry)
                .map_err(|r| r.message.en)
                .expect("the file loads");
        let db = TemplateSource::open(&consumer.template).and_then(|t| t.restore()).expect("a run database");
        let deadline = pruefstein::deadline::Deadline::for_submission(&exercise.limits);
        let launch = Launch {
            compiled: &compiled,
            tables: Arc::clone(&consumer.tables),
            limits: &exercise.limits,
            deadline: &deadline,
        };
        let mut process =
            ConsumerProcess::start(&launch, &db, 1, None).map_err(|_| "start").expect("it starts");
        with(&mut process)
    })
    .expect("a thread with room for the interpreter's stack")
}

/// A message of exercise 03 with the id `id`.
fn message(id: serde_json::Value) -> std::sync::Arc<serde_json::Value> {
    std::sync::Arc::new(serde_json::json!({"id": id, "body": {"kunde": "k-1", "punkte": 5}}))
}
