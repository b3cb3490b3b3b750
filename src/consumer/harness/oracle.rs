//! The oracle run: the reference solution without faults, once per loaded exercise (or read back
//! from the module cache, where a grading process keeps it). It records the states every check
//! compares against and fails when the reference does not behave as a reference must (a teacher's
//! error, reported with the message it concerns).

use super::runner::{Expect, delivery_problem};
use super::{Harness, Run};
use crate::consumer::exercise::ConsumerExercise;
use crate::consumer::oracle::{ORACLE_CACHE_KIND, Oracle, OracleRecord, OracleStates};
use crate::consumer::process::{DeliveryEnd, DeliveryOutcome};
use crate::consumer::state::State;
use crate::exercise::{Exercise, GradeError};
use crate::report::trace_text::render_trace;
use crate::sandbox::module_cache::ModuleCache;
use crate::text::Lang;

/// The oracle of `consumer`, once per loaded exercise: read from this process's module cache where
/// it holds the exercise's states, else computed.
pub fn oracle<'a>(exercise: &Exercise, consumer: &'a ConsumerExercise) -> Result<&'a Oracle, GradeError> {
    oracle_with_cache(exercise, consumer, crate::sandbox::module_cache::process_cache())
}

/// [`oracle`] with `cache` as the module cache.
pub(crate) fn oracle_with_cache<'a>(
    exercise: &Exercise,
    consumer: &'a ConsumerExercise,
    cache: Option<&ModuleCache>,
) -> Result<&'a Oracle, GradeError> {
    consumer
        .oracle
        .get_or_init(|| {
            cache
                .and_then(|cache| cache.load_data(ORACLE_CACHE_KIND, exercise.source.id.as_bytes()))
                .and_then(|bytes| serde_json::from_slice::<OracleRecord>(&bytes).ok())
                .and_then(|record| {
                    let limits = consumer.reference_limits(&exercise.limits);
                    Oracle::from_record(record, &exercise.source.id, consumer.messages.batch.len(), limits)
                })
                .map_or_else(|| compute_oracle(exercise, consumer), Ok)
        })
        .as_ref()
        .map_err(|message| GradeError::Exercise { slug: exercise.slug.clone(), message: message.clone() })
}

fn compute_oracle(exercise: &Exercise, consumer: &ConsumerExercise) -> Result<Oracle, String> {
    let limits = consumer.reference_limits(&exercise.limits);
    crate::sandbox::with_stack(limits.wasm_stack_bytes, || compute_oracle_here(consumer, &limits))?
}

/// Keeps the oracle's states in `cache` when a grading added reference states since they were
/// last kept (or they never were).
pub(crate) fn keep_oracle(exercise: &Exercise, oracle: &Oracle, cache: Option<&ModuleCache>) {
    let Some(cache) = cache else { return };
    if !oracle.take_unkept() {
        return;
    }
    if let Ok(bytes) = serde_json::to_vec(&oracle.record(&exercise.source.id)) {
        cache.store_data(ORACLE_CACHE_KIND, exercise.source.id.as_bytes(), &bytes);
    }
}

fn compute_oracle_here(
    consumer: &ConsumerExercise,
    limits: &crate::limits::Limits,
) -> Result<Oracle, String> {
    let compiled = consumer.compile_reference(limits)?;
    let mut harness = Harness::new(consumer, limits, &compiled).map_err(|e| e.to_string())?;
    let states = harness.oracle_run(&consumer.initial_state)?;
    drop(harness);
    Ok(Oracle::computed(compiled, limits.clone(), states))
}

impl<'a> Harness<'a> {
    /// Runs the reference solution without faults and records the states every check compares
    /// against. Fails when the reference does not behave as a reference must.
    pub(crate) fn oracle_run(&mut self, initial: &State) -> Result<OracleStates, String> {
        let messages = &self.exercise.messages;
        let mut run = Run::default();
        let does_not_start = |_| "the reference solution does not start".to_string();
        let db = self.fresh_db().map_err(|e| e.to_string())?;
        let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
        let first = self.deliver(&mut run, &mut process, &messages.fresh, None, None);
        if first.returned() != Some(1) || first.transaction_left_open {
            let what =
                format!("the reference solution must return 1 for the fresh message, but {}", ended(&first));
            return Err(self.with_run(&mut run, what));
        }
        self.relay_before_reading(&mut run, &db).map_err(|f| self.relay_failed(&mut run, f))?;
        let after_fresh = self.state(&db).map_err(|e| e.to_string())?;
        let second = self.deliver(&mut run, &mut process, &messages.same_body, None, None);
        if second.returned() != Some(1) || second.transaction_left_open {
            let what = format!("the reference solution must return 1 for same_body, but {}", ended(&second));
            return Err(self.with_run(&mut run, what));
        }
        self.relay_before_reading(&mut run, &db).map_err(|f| self.relay_failed(&mut run, f))?;
        let after_fresh_same_body = self.state(&db).map_err(|e| e.to_string())?;
        drop(process);
        let db = self.fresh_db().map_err(|e| e.to_string())?;
        let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
        let violation = self.deliver(&mut run, &mut process, &messages.violation, None, None);
        if delivery_problem(&violation, Expect::Error, self.voice).is_some() {
            let what = format!(
                "the reference solution must report an error for the violation message (return a value other \
                 than 0 and 1, or raise), but {}",
                ended(&violation)
            );
            return Err(self.with_run(&mut run, what));
        }
        self.relay_before_reading(&mut run, &db).map_err(|f| self.relay_failed(&mut run, f))?;
        let after_violation = self.state(&db).map_err(|e| e.to_string())?;
        if &after_violation != initial {
            let what = "the violation message must leave the database unchanged under the reference solution";
            return Err(self.with_run(&mut run, what.into()));
        }
        if after_fresh == *initial || after_fresh_same_body == after_fresh {
            let what = "the fresh and the same_body message must each change the observable state under the reference solution";
            return Err(self.with_run(&mut run, what.into()));
        }
        let mut poison = Vec::new();
        for message in &messages.batch {
            let db = self.fresh_db().map_err(|e| e.to_string())?;
            let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
            let outcome = self.deliver(&mut run, &mut process, message, None, None);
            drop(process);
            let is_poison = delivery_problem(&outcome, Expect::Error, self.voice).is_none();
            if !is_poison && delivery_problem(&outcome, Expect::Processed, self.voice).is_some() {
                let what = format!(
                    "the reference solution must process the batch message {message} (return 1) or report an error, but {}",
                    ended(&outcome)
                );
                return Err(self.with_run(&mut run, what));
            }
            self.relay_before_reading(&mut run, &db).map_err(|f| self.relay_failed(&mut run, f))?;
            if is_poison && self.state(&db).map_err(|e| e.to_string())? != *initial {
                let what =
                    format!("the reference solution reports an error for {message} but changes the database");
                return Err(self.with_run(&mut run, what));
            }
            poison.push(is_poison);
        }
        Ok(OracleStates { after_fresh, after_fresh_same_body, after_violation, poison })
    }
}

impl Harness<'_> {
    /// The reference's relay failed: what a teacher reads, with the run.
    fn relay_failed(&self, run: &mut Run, failure: super::Failure) -> String {
        let what = match failure {
            super::Failure::Student(problem) => {
                format!("the reference solution's relay fails: {}", problem.text.en)
            }
            super::Failure::OutOfTime => "the reference solution's relay ran out of time".to_string(),
            super::Failure::Internal(error) => error.to_string(),
        };
        self.with_run(run, what)
    }

    /// `what` went wrong, followed by the reference's run as a report shows a run (its
    /// deliveries, statements with their lines, SQL errors, what it returned or raised), so that a
    /// teacher can see why.
    fn with_run(&self, run: &mut Run, what: String) -> String {
        let (events, omitted) = std::mem::take(run).trace.into_parts();
        let source = self.compiled.source().map(|s| s.text());
        let mut out = format!("{what}\n    the reference solution's run:");
        for line in render_trace(&events, Lang::En, self.voice, source) {
            out.push_str("\n      ");
            out.push_str(&line);
        }
        if omitted > 0 {
            out.push_str(&format!("\n      ({omitted} more events not shown)"));
        }
        out
    }
}

/// How a delivery of the reference ended, in words.
fn ended(outcome: &DeliveryOutcome) -> String {
    let open = if outcome.transaction_left_open { " with its transaction left open" } else { "" };
    match &outcome.end {
        DeliveryEnd::Returned(1) => format!("it returned 1{open}"),
        DeliveryEnd::Returned(0) => format!("it returned 0 (already processed){open}"),
        DeliveryEnd::Returned(n) => format!("it returned {n} (an error){open}"),
        DeliveryEnd::Crashed { point, .. } => format!("it was stopped at crash point {point}"),
        DeliveryEnd::Faulted { code, message } => format!("it failed ({code}): {}", message.en),
    }
}
