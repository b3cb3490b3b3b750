//! What every check is made of: starting an instance (a failed start is handled here, once),
//! delivering a message, and comparing what a delivery did with what it had to do, in words a
//! student understands.

use std::sync::Arc;

use super::{Failure, Found, Harness, Run, Step};
use crate::consumer::checks::catalogue::problem;
use crate::consumer::checks::texts::{Problem, Prose, plain};
use crate::consumer::gate::GateHandle;
use crate::consumer::process::{
    CompiledConsumer, ConsumerProcess, DeliveryEnd, DeliveryOutcome, Launch, StartError,
};
use crate::consumer::rundb::RunDb;
use crate::consumer::state::{State, diff};
use crate::exercise::GradeError;
use crate::report::consumer::{StateEvidence, TraceEvent};
use crate::report::voice::Voice;
use crate::text::Text;

impl<'a> Harness<'a> {
    /// What every instance of `compiled` in this grading starts from.
    pub(super) fn launch<'h>(&'h self, compiled: &'h CompiledConsumer) -> Launch<'h> {
        Launch {
            compiled,
            tables: Arc::clone(&self.exercise.tables),
            limits: self.limits,
            deadline: &self.deadline,
        }
    }

    /// Starts a new instance of the submission (waiting at `gate` before each statement of its
    /// deliveries, when given). A start that fails is the student's failure: its events and fuel
    /// go into the trace, and the problem says that the consumer could not start.
    pub(super) fn start(&self, run: &mut Run, db: &RunDb, gate: Option<GateHandle>) -> Step<ConsumerProcess> {
        self.start_of(run, db, (self.compiled, gate))
    }

    /// [`Self::start`] for `compiled` (the submission, or its relay).
    pub(super) fn start_of(
        &self,
        run: &mut Run,
        db: &RunDb,
        (compiled, gate): (&CompiledConsumer, Option<GateHandle>),
    ) -> Step<ConsumerProcess> {
        run.instances += 1;
        let instance = run.instances;
        run.trace.push(TraceEvent::Start { instance });
        match ConsumerProcess::start(&self.launch(compiled), db, instance, gate) {
            Ok(process) => Ok(process),
            Err(StartError::Internal(message)) => Err(Failure::Internal(GradeError::Internal(message))),
            Err(StartError::Fault { code, message, events, fuel_used }) => {
                run.trace.extend(events);
                run.fuel_used += fuel_used;
                run.trace.push(TraceEvent::Fault {
                    instance,
                    code: code.to_string(),
                    message: message.clone(),
                });
                Err(Failure::Student(problem(Prose::CouldNotStart, &[("message", message)])))
            }
        }
    }

    /// Delivers `message` to `process` (killed at crash point `crash_after`, when given) and records
    /// the delivery, its events and its fuel.
    pub(super) fn deliver(
        &self,
        run: &mut Run,
        process: &mut ConsumerProcess,
        message: &Arc<serde_json::Value>,
        crash_after: Option<u32>,
        note: Option<Text>,
    ) -> DeliveryOutcome {
        run.trace.push(TraceEvent::Deliver {
            instance: process.instance,
            message: (**message).clone(),
            note,
        });
        let outcome = process.deliver(message, crash_after);
        run.trace.extend(process.take_events());
        run.fuel_used += outcome.fuel_used;
        outcome
    }

    /// Delivers `message` to a fresh instance and requires a clean "processed" (1), the first step
    /// of most checks.
    pub(super) fn process_first(
        &self,
        run: &mut Run,
        process: &mut ConsumerProcess,
        message: &Arc<serde_json::Value>,
    ) -> Step<()> {
        let outcome = self.deliver(run, process, message, None, None);
        if let Some(problem) = delivery_problem(&outcome, Expect::Processed, self.voice) {
            return Err(Failure::Student(prefix_first_delivery(problem)));
        }
        Ok(())
    }
}

/// The state evidence of a comparison: `after` against `expected`, with their difference.
pub(super) fn evidence_of(
    before: State,
    after: State,
    expected: State,
    also_allowed: Option<State>,
) -> StateEvidence {
    let diff = diff(&after, &expected);
    StateEvidence { before, after, expected, also_allowed, baseline: None, diff }
}

/// Compares a delivery with what it had to do: first how it ended (`expect`), then the state it
/// left (`after` against `expected`). The evidence shows the state before, after and expected.
pub(super) fn compare(
    outcome: &DeliveryOutcome,
    (expect, voice): (Expect, Voice),
    before: State,
    after: State,
    expected: &State,
) -> Found {
    let problem =
        delivery_problem(outcome, expect, voice).or_else(|| state_problem(&after, expected, outcome));
    Found::compared(evidence_of(before, after, expected.clone(), None), problem)
}

/// The problem when the state after a delivery is not the expected one.
fn state_problem(after: &State, expected: &State, outcome: &DeliveryOutcome) -> Option<Problem> {
    if after == expected {
        return None;
    }
    Some(with_notes(problem(Prose::StateDiffers, &[]), outcome))
}

/// Appends notes on limits met without a trap (a stopped statement, a cut log).
pub(super) fn with_notes(mut problem: Problem, outcome: &DeliveryOutcome) -> Problem {
    for note in &outcome.notes {
        problem.text.de.push(' ');
        problem.text.de.push_str(&note.de);
        problem.text.en.push(' ');
        problem.text.en.push_str(&note.en);
    }
    problem
}

/// The problem of a check's first delivery, said as such; it keeps the key of what went wrong.
pub(super) fn prefix_first_delivery(inner: Problem) -> Problem {
    let text = problem(Prose::FirstDeliveryWentWrong, &[("problem", inner.text)]).text;
    Problem { key: inner.key, text }
}

/// What a delivery should end with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expect {
    /// Return 1, transaction closed.
    Processed,
    /// Return 0, transaction closed.
    Duplicate,
    /// The error surfaces: a return value other than 0 and 1, or a deliberate trap (abort,
    /// unreachable), transaction closed.
    Error,
}

/// Why `outcome` is not what `expect` requires, in words a student understands (in `voice`).
pub(super) fn delivery_problem(outcome: &DeliveryOutcome, expect: Expect, voice: Voice) -> Option<Problem> {
    let ended = |v: &i32| ("ended", voice.ended(*v));
    let found = match (&outcome.end, expect) {
        (DeliveryEnd::Crashed { point, after }, _) => {
            Some(problem(Prose::KilledAtCrashPoint, &[("point", plain(point)), ("after", after.describe())]))
        }
        (DeliveryEnd::Faulted { code, .. }, Expect::Error) if code.is_deliberate() => None,
        (DeliveryEnd::Faulted { message, .. }, _) => Some(Problem::fault(message.clone())),
        (DeliveryEnd::Returned(1), Expect::Processed) | (DeliveryEnd::Returned(0), Expect::Duplicate) => None,
        (DeliveryEnd::Returned(v), Expect::Error) if *v != 0 && *v != 1 => None,
        (DeliveryEnd::Returned(v @ 0), Expect::Processed) => {
            Some(problem(Prose::FreshReturnedDuplicate, &[ended(v)]))
        }
        (DeliveryEnd::Returned(v), Expect::Processed) => {
            Some(problem(Prose::FreshReturnedError, &[ended(v), ("processed", voice.processed())]))
        }
        (DeliveryEnd::Returned(v @ 1), Expect::Duplicate) => {
            Some(problem(Prose::DuplicateReturnedProcessed, &[ended(v), ("duplicate", voice.duplicate())]))
        }
        (DeliveryEnd::Returned(v), Expect::Duplicate) => {
            Some(problem(Prose::DuplicateReturnedError, &[ended(v), ("duplicate", voice.duplicate())]))
        }
        (DeliveryEnd::Returned(v), Expect::Error) => {
            Some(problem(Prose::ErrorSwallowed, &[ended(v), ("raise", voice.raise())]))
        }
    };
    if found.is_some() {
        return found.map(|p| with_notes(p, outcome));
    }
    left_open(outcome)
}

/// The problem of a delivery that returned with its transaction still open, if it did.
pub(super) fn left_open(outcome: &DeliveryOutcome) -> Option<Problem> {
    outcome.transaction_left_open.then(|| problem(Prose::TransactionLeftOpen, &[]))
}
