//! The exercise's relay (`[consumer] relay`): a second entry of the submission, which the harness
//! runs as an instance of its own on the run's database before it reads a state ([`Harness::relay_before_reading`]):
//! the outbox pattern's relay, which publishes what the outbox holds to the broker and marks it
//! sent. The crash check also kills the relay at each of its crash points (after every write,
//! COMMIT and `publish`) and starts it again: a crash after `publish`, before the marking, sends
//! the event twice, which a receiver that deduplicates by its key absorbs.

use std::sync::Arc;

use super::crash::CrashCheck;
use super::runner::{evidence_of, left_open};
use super::{Failure, Found, Harness, Run, Step};
use crate::consumer::checks::catalogue::problem;
use crate::consumer::checks::texts::{Problem, Prose};
use crate::consumer::process::{CompiledConsumer, DeliveryEnd, DeliveryOutcome};
use crate::consumer::rundb::RunDb;
use crate::report::consumer::{Boundary, CrashPoint, TraceEvent, quote_sql};
use crate::text;
use crate::text::Text;

impl Harness<'_> {
    /// Runs `relay` once on `db` in a new instance, to its end or to crash point `crash_after`.
    /// Its message names the run (`{"lauf": n}`, n the instance): it reads its work from the outbox.
    fn run_relay(
        &self,
        run: &mut Run,
        db: &RunDb,
        relay: &CompiledConsumer,
        crash_after: Option<u32>,
    ) -> Step<DeliveryOutcome> {
        let mut process = self.start_of(run, db, (relay, None))?;
        run.trace.push(TraceEvent::Relay { instance: process.instance });
        let message = Arc::new(serde_json::json!({ "lauf": process.instance }));
        let outcome = process.deliver(&message, crash_after);
        run.trace.extend(process.take_events());
        run.fuel_used += outcome.fuel_used;
        Ok(outcome)
    }

    /// Before the harness reads a state: the submission's relay, if the exercise has one, runs once
    /// without faults and publishes what is waiting. A relay that fails fails the check.
    pub(super) fn relay_before_reading(&self, run: &mut Run, db: &RunDb) -> Step<()> {
        self.relay_before_reading_with(run, db, self.compiled)
    }

    /// [`Self::relay_before_reading`] with the relay of `compiled` (the reference's, for an expected state).
    /// When nothing was committed since the relay last ran to its end on `db`, it has nothing new
    /// to do, and does not run again (a relay woken by commits).
    pub(super) fn relay_before_reading_with(
        &self,
        run: &mut Run,
        db: &RunDb,
        compiled: &CompiledConsumer,
    ) -> Step<()> {
        let Some(relay) = compiled.relay() else { return Ok(()) };
        let version = data_version(db)?;
        if self.settled.borrow().as_ref() == Some(&(db.uri().to_path_buf(), version)) {
            return Ok(());
        }
        let outcome = self.run_relay(run, db, relay, None)?;
        if let Some(problem) = self.relay_problem(&outcome) {
            // A relay stopped by the submission's deadline ran out of time, it did not fail.
            return Err(if self.deadline.expired() { Failure::OutOfTime } else { Failure::Student(problem) });
        }
        self.settled.replace(Some((db.uri().to_path_buf(), data_version(db)?)));
        Ok(())
    }

    /// What is wrong with a relay's run: an error it raised or returned, a fault, a transaction it
    /// left open. Returning 0 or 1 is a run that ended well; a crash the harness injected is none.
    fn relay_problem(&self, outcome: &DeliveryOutcome) -> Option<Problem> {
        let message = match &outcome.end {
            DeliveryEnd::Crashed { .. } => return None,
            DeliveryEnd::Returned(0 | 1) => return left_open(outcome),
            DeliveryEnd::Returned(value) => {
                let mut ended = self.voice.ended(*value);
                for note in &outcome.notes {
                    ended.de = format!("{} {}", ended.de, note.de);
                    ended.en = format!("{} {}", ended.en, note.en);
                }
                Text { de: format!("es {}.", ended.de), en: format!("it {}.", ended.en) }
            }
            DeliveryEnd::Faulted { message, .. } => message.clone(),
        };
        Some(problem(Prose::RelayFailed, &[("message", message)]))
    }

    /// The fresh message, processed on `db` by an instance that then ends.
    fn fresh_first(&self, run: &mut Run, db: &RunDb) -> Step<()> {
        let mut process = self.start(run, db, None)?;
        self.process_first(run, &mut process, &self.exercise.messages.fresh)
    }

    /// The relay's crash points: the fresh message is processed, then the relay is killed at each
    /// point of its run, started again, and the state must be the one without a crash (what the
    /// receiver got compared as any state; a duplicate publication is allowed where the
    /// exercise's state leaves it out).
    pub(super) fn crash_relay(&mut self, check: &mut CrashCheck<'_>) -> Step<Found> {
        let Some(relay) = self.compiled.relay() else { return Ok(Found::passed()) };
        check.run.queue(text!(
            "Probelauf des Relays ohne Fehler, nachdem die neue Nachricht verarbeitet ist: nach welchen Anweisungen des Relays kann ein Absturz etwas ausmachen?",
            "fault-free run of the relay once the fresh message is processed: after which of the relay's statements can a crash matter?"
        ));
        let probe_db = self.fresh_db()?;
        self.fresh_first(check.run, &probe_db)?;
        let outcome = self.run_relay(check.run, &probe_db, relay, None)?;
        if let Some(problem) = self.relay_problem(&outcome) {
            return Ok(Found::failed(problem));
        }
        let points = outcome.crash_points;
        check.count(&points);
        let total = points.len();
        let expected = check.oracle.states.after_fresh.clone();
        for point in check.points_to_try(&points) {
            self.in_time()?;
            let k = point.number;
            let place = relay_place(point);
            let tested = check.mark_tested();
            check.run.queue(Text {
                de: format!("Absturzpunkt {k} von {total} des Relays: {}", place.de),
                en: format!("crash point {k} of {total} of the relay: {}", place.en),
            });
            let db = self.fresh_db()?;
            self.fresh_first(check.run, &db)?;
            let outcome = self.run_relay(check.run, &db, relay, Some(k))?;
            if let Some(problem) = self.relay_problem(&outcome) {
                check.mark_failed(tested, &place);
                return Ok(Found::failed(problem));
            }
            check.run.queue(text!("das Relay startet neu", "the relay starts again"));
            let after = self.observed_state(check.run, &db)?;
            let before = self.exercise.initial_state.clone();
            if after != expected {
                check.mark_failed(tested, &place);
                let evidence = evidence_of(before, after, expected, None);
                let problem = problem(Prose::CrashRelayWrong, &[("place", place.clone())]);
                return Ok(Found::compared(evidence, Some(problem)));
            }
            if self.invariant_broken() {
                // The invariant is the check's failure; this is where it broke.
                check.mark_failed(tested, &place);
                return Ok(Found::compared(evidence_of(before, after, expected, None), None));
            }
        }
        Ok(Found::passed())
    }
}

/// SQLite's `data_version` of `db` seen from its observer: it changes whenever another connection
/// commits.
fn data_version(db: &RunDb) -> Step<i64> {
    db.observe(|conn| conn.query_row("PRAGMA data_version", [], |row| row.get(0))).map_err(|e| {
        Failure::Internal(crate::exercise::GradeError::Internal(format!("cannot read the data version: {e}")))
    })
}

/// Where a crash point of the relay lies: after a call followed by a write, "nach `publish`, vor
/// dem Markieren" (the moment that sends an event twice); elsewhere as any crash point.
fn relay_place(point: &CrashPoint) -> Text {
    let next = point.next.as_deref().unwrap_or("");
    let first = next.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
    match point.after {
        Boundary::Call { name, .. } if matches!(first.as_str(), "UPDATE" | "DELETE" | "INSERT") => {
            let next = quote_sql(next);
            Text {
                de: format!("nach `{name}`, vor dem Markieren (`{next}`)"),
                en: format!("after `{name}`, before marking it sent (`{next}`)"),
            }
        }
        _ => point.describe(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(after: Boundary, next: Option<&str>) -> CrashPoint {
        CrashPoint { number: 1, after, statement: "publish(…)".into(), next: next.map(str::to_string) }
    }

    #[test]
    fn a_crash_after_publish_before_a_write_is_the_one_before_the_marking() {
        let publish = Boundary::Call { call: 1, name: "publish", in_transaction: false };
        let marking = relay_place(&point(publish, Some("UPDATE outbox SET gesendet = 1 WHERE nr = ?")));
        assert_eq!(
            marking.de,
            "nach `publish`, vor dem Markieren (`UPDATE outbox SET gesendet = 1 WHERE nr = ?`)"
        );
        assert!(marking.en.starts_with("after `publish`, before marking it sent"));
        // After the relay's last publication it returns, or reads the next row: said as any point.
        let last = relay_place(&point(publish, None));
        assert_eq!(last, point(publish, None).describe());
        let read = relay_place(&point(publish, Some("SELECT nr FROM outbox")));
        assert!(!read.de.contains("Markieren"), "{}", read.de);
        let commit = relay_place(&point(Boundary::Commit { transaction: 1 }, Some("UPDATE outbox …")));
        assert!(commit.de.starts_with("nach dem COMMIT"), "{}", commit.de);
    }
}
