//! The checks of one or two deliveries without a crash: the fresh message, a duplicate at the same
//! instance or after a restart, the same body under a new id, a lost ack, and the message whose
//! effect violates a constraint.

use super::runner::{Expect, compare, delivery_problem, evidence_of, with_notes};
use super::{Found, Harness, Run, Step};
use crate::consumer::checks::catalogue::problem;
use crate::consumer::checks::texts::Prose;
use crate::consumer::oracle::Oracle;
use crate::consumer::state::State;
use crate::text;
use crate::text::Text;

/// The second delivery of [`Harness::second_delivery`]: what happens between the two, and what the
/// second must do.
struct SecondDelivery<'a> {
    /// What the trace says between the first delivery and the second.
    between: Text,
    /// The second delivery goes to a new instance (the first one died or restarted).
    restart: bool,
    /// How the trace labels the second delivery.
    note: Text,
    /// The second message is the same body under a new id, not the same message again.
    same_body: bool,
    expect: Expect,
    /// The state the second delivery must leave.
    expected: &'a State,
}

impl<'a> Harness<'a> {
    pub(super) fn fresh_message(&mut self, run: &mut Run, oracle: &Oracle) -> Step<Found> {
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let mut process = self.start(run, &db, None)?;
        let outcome = self.deliver(run, &mut process, &self.exercise.messages.fresh, None, None);
        drop(process);
        let after = self.observed_state(run, &db)?;
        Ok(compare(&outcome, (Expect::Processed, self.voice), before, after, &oracle.states.after_fresh))
    }

    pub(super) fn duplicate_same_instance(&mut self, run: &mut Run, oracle: &Oracle) -> Step<Found> {
        self.second_delivery(
            run,
            SecondDelivery {
                between: text!(
                    "bestätigt (Ack); der Produzent sendet dieselbe Nachricht noch einmal",
                    "acked; the producer sends the same message again"
                ),
                restart: false,
                note: text!("Duplikat", "duplicate"),
                same_body: false,
                expect: Expect::Duplicate,
                expected: &oracle.states.after_fresh,
            },
        )
    }

    pub(super) fn duplicate_after_restart(&mut self, run: &mut Run, oracle: &Oracle) -> Step<Found> {
        self.second_delivery(
            run,
            SecondDelivery {
                between: text!(
                    "bestätigt (Ack); der Konsument wird neu gestartet, dann kommt dieselbe Nachricht noch einmal",
                    "acked; the consumer restarts, then the same message arrives again"
                ),
                restart: true,
                note: text!("Duplikat nach Neustart", "duplicate after a restart"),
                same_body: false,
                expect: Expect::Duplicate,
                expected: &oracle.states.after_fresh,
            },
        )
    }

    pub(super) fn same_body_new_id(&mut self, run: &mut Run, oracle: &Oracle) -> Step<Found> {
        self.second_delivery(
            run,
            SecondDelivery {
                between: text!("bestätigt (Ack)", "acked"),
                restart: false,
                note: text!("neue ID, gleicher Inhalt", "new id, same body"),
                same_body: true,
                expect: Expect::Processed,
                expected: &oracle.states.after_fresh_same_body,
            },
        )
    }

    pub(super) fn lost_ack(&mut self, run: &mut Run, oracle: &Oracle) -> Step<Found> {
        self.second_delivery(
            run,
            SecondDelivery {
                between: text!(
                    "das Ack geht verloren: der Prozess stirbt, bevor es die Queue erreicht; nach dem Visibility Timeout stellt die Queue erneut zu",
                    "the ack is lost: the process dies before it reaches the queue; after the visibility timeout the queue delivers again"
                ),
                restart: true,
                note: text!("erneute Zustellung (Ack verloren)", "redelivery (ack lost)"),
                same_body: false,
                expect: Expect::Duplicate,
                expected: &oracle.states.after_fresh,
            },
        )
    }

    /// The fresh message is processed and acked; then a second message arrives (the same again, or
    /// the same body under a new id), at the same instance or at a new one, and must have the
    /// expected outcome and leave the expected state.
    fn second_delivery(&mut self, run: &mut Run, second: SecondDelivery<'_>) -> Step<Found> {
        let db = self.fresh_db()?;
        let mut process = self.start(run, &db, None)?;
        self.process_first(run, &mut process, &self.exercise.messages.fresh)?;
        self.in_time()?;
        run.queue(second.between);
        self.relay_before_reading(run, &db)?;
        let before = if second.restart {
            drop(process);
            let before = self.state(&db)?;
            process = self.start(run, &db, None)?;
            before
        } else {
            self.state(&db)?
        };
        let message =
            if second.same_body { &self.exercise.messages.same_body } else { &self.exercise.messages.fresh };
        let outcome = self.deliver(run, &mut process, message, None, Some(second.note));
        drop(process);
        let after = self.observed_state(run, &db)?;
        let mut found = compare(&outcome, (second.expect, self.voice), before, after, second.expected);
        // The first delivery's effect is in `before`: the evidence keeps the state without it.
        if let Some(state) = found.state.as_mut() {
            state.baseline = Some(self.exercise.initial_state.clone());
        }
        Ok(found)
    }

    pub(super) fn constraint_violation(&mut self, run: &mut Run, oracle: &Oracle) -> Step<Found> {
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let mut process = self.start(run, &db, None)?;
        let note = text!("die Wirkung verletzt eine Bedingung", "the effect violates a constraint");
        let outcome = self.deliver(run, &mut process, &self.exercise.messages.violation, None, Some(note));
        drop(process);
        let after = self.observed_state(run, &db)?;
        let evidence = evidence_of(before, after.clone(), oracle.states.after_violation.clone(), None);
        if let Some(problem) = delivery_problem(&outcome, Expect::Error, self.voice) {
            return Ok(Found::compared(evidence, Some(problem)));
        }
        run.queue(text!(
            "nicht bestätigt: die Nachricht kommt später erneut",
            "not acked: the message will come again"
        ));
        let problem = (after != oracle.states.after_violation)
            .then(|| with_notes(problem(Prose::ViolationChangedState, &[]), &outcome));
        Ok(Found::compared(evidence, problem))
    }
}
