//! What every check is made of: starting an instance (a failed start is handled here, once),
//! delivering a message, and comparing what a delivery did with what it had to do, in words a
//! student understands.

use std::path::Path;
use std::sync::Arc;

use super::{Failure, Harness, Run, Step};
use crate::consumer::detail::{StateEvidence, TraceEvent};
use crate::consumer::interleave::GateHandle;
use crate::consumer::process::{
    CompiledConsumer, ConsumerProcess, DeliveryEnd, DeliveryOutcome, Launch, StartError,
};
use crate::consumer::state::{State, diff};
use crate::grade::GradeError;
use crate::text;
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
    pub(super) fn start(&self, run: &mut Run, db: &Path, gate: Option<GateHandle>) -> Step<ConsumerProcess> {
        run.instances += 1;
        let instance = run.instances;
        run.trace.push(TraceEvent::Start { instance });
        match ConsumerProcess::start(&self.launch(self.compiled), db, instance, gate) {
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
                Err(Failure::Student(Text {
                    de: format!("Der Konsument konnte nicht starten: {}", message.de),
                    en: format!("The consumer could not start: {}", message.en),
                }))
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
        if let Some(problem) = delivery_problem(&outcome, Expect::Processed) {
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
    StateEvidence { before, after, expected, also_allowed, diff }
}

/// The problem when the state after a delivery is not the expected one.
pub(super) fn state_problem(after: &State, expected: &State, outcome: &DeliveryOutcome) -> Option<Text> {
    if after == expected {
        return None;
    }
    Some(with_notes(
        text!(
            "Die Datenbank stimmt danach nicht mit der Referenzlösung überein (siehe Unterschied: - fehlt, + zu viel).",
            "Afterwards the database does not match the reference solution (see the difference: - missing, + extra)."
        ),
        outcome,
    ))
}

/// Appends notes on limits met without a trap (a stopped statement, a cut log).
pub(super) fn with_notes(mut text: Text, outcome: &DeliveryOutcome) -> Text {
    for note in &outcome.notes {
        text.de.push(' ');
        text.de.push_str(&note.de);
        text.en.push(' ');
        text.en.push_str(&note.en);
    }
    text
}

pub(super) fn prefix_first_delivery(problem: Text) -> Text {
    Text {
        de: format!("Schon die erste Zustellung der neuen Nachricht ging schief: {}", problem.de),
        en: format!("Already the first delivery of the fresh message went wrong: {}", problem.en),
    }
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

/// Why `outcome` is not what `expect` requires, in words a student understands.
pub(super) fn delivery_problem(outcome: &DeliveryOutcome, expect: Expect) -> Option<Text> {
    let problem = match (&outcome.end, expect) {
        (DeliveryEnd::Crashed { point, after }, _) => {
            let after = after.describe();
            Some(Text {
                de: format!("Der Prozess wurde an Absturzpunkt {point} abgeschossen, {}.", after.de),
                en: format!("The process was killed at crash point {point}, {}.", after.en),
            })
        }
        (DeliveryEnd::Faulted { code, .. }, Expect::Error) if code.is_deliberate() => None,
        (DeliveryEnd::Faulted { message, .. }, _) => Some(message.clone()),
        (DeliveryEnd::Returned(1), Expect::Processed) | (DeliveryEnd::Returned(0), Expect::Duplicate) => None,
        (DeliveryEnd::Returned(v), Expect::Error) if *v != 0 && *v != 1 => None,
        (DeliveryEnd::Returned(0), Expect::Processed) => Some(text!(
            "Rückgabe 0 (Duplikat) für eine Nachricht, die noch nicht verarbeitet war: die Queue bestätigt sie, \
             und ihre Wirkung tritt nie ein.",
            "Returned 0 (duplicate) for a message that was not yet processed: the queue acks it and its effect \
             never happens."
        )),
        (DeliveryEnd::Returned(v), Expect::Processed) => Some(text!(
            "Rückgabe {v} (Fehler) für eine Nachricht, die verarbeitet werden sollte; erwartet war 1.",
            "Returned {v} (error) for a message that should have been processed; expected 1."
        )),
        (DeliveryEnd::Returned(1), Expect::Duplicate) => Some(text!(
            "Rückgabe 1 (verarbeitet) für ein Duplikat: die Nachricht war schon verarbeitet, erwartet war 0.",
            "Returned 1 (processed) for a duplicate: the message had already been processed; expected 0."
        )),
        (DeliveryEnd::Returned(v), Expect::Duplicate) => Some(text!(
            "Rückgabe {v} (Fehler) für ein Duplikat: die Queue würde es nie bestätigen und endlos neu zustellen. \
             Ein erkanntes Duplikat gibt 0 zurück.",
            "Returned {v} (error) for a duplicate: the queue would never ack it and redeliver it forever. A \
             recognised duplicate returns 0."
        )),
        (DeliveryEnd::Returned(v), Expect::Error) => Some(text!(
            "Rückgabe {v}, obwohl die Wirkung an einer Bedingung der Datenbank scheiterte: der Fehler wurde \
             verschluckt. Die Queue bestätigt die Nachricht, und sie ist verloren. Gib den Fehler weiter \
             (einen Wert ungleich 0 und 1).",
            "Returned {v} although the effect failed on a database constraint: the error was swallowed. The queue \
             acks the message and it is lost. Pass the error on (a value other than 0 and 1)."
        )),
    };
    if problem.is_some() {
        return problem.map(|p| with_notes(p, outcome));
    }
    if outcome.transaction_left_open {
        return Some(text!(
            "Transaktion offen gelassen: beim Zurückkehren war noch eine Transaktion offen, der Prüfstand hat \
             sie zurückgerollt. In einem langlebigen Konsumenten hielte sie die Schreibsperre und blockierte \
             die nächste Zustellung. Schließe jede Transaktion mit COMMIT oder ROLLBACK.",
            "Transaction left open: a transaction was still open on return, and the harness rolled it back. In \
             a long-running consumer it would hold the write lock and block the next delivery. End every \
             transaction with COMMIT or ROLLBACK."
        ));
    }
    None
}
