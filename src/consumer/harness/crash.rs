//! The crash-point check: kills the consumer at every crash point of the fresh message (after each
//! write and after each statement that committed a transaction) and redelivers; then does the same
//! for the deliveries that must leave nothing durable behind (the message whose effect fails, and a
//! duplicate). See [`CrashPoint`] for why these points are all that matter. Beyond
//! [`CRASH_POINTS_MAX`] points per path, a sample drawn from the seed is tried.

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::runner::{Expect, delivery_problem, evidence_of, prefix_first_delivery, with_notes};
use super::{Failure, Found, Harness, Run, Step};
use crate::consumer::checks::catalogue::{failure, problem};
use crate::consumer::checks::texts::{Problem, Prose};
use crate::consumer::oracle::Oracle;
use crate::consumer::process::{DeliveryEnd, DeliveryOutcome};
use crate::consumer::state::State;
use crate::limits::{CRASH_POINTS_EDGE, CRASH_POINTS_MAX};
use crate::report::consumer::{Boundary, CrashPoint, CrashPoints};
use crate::report::roles::{Role, Roles};
use crate::text;
use crate::text::Text;

/// A delivery that must leave nothing durable behind, whose crash points the crash check tries too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuietPath {
    /// The message whose effect violates a constraint.
    FailingEffect,
    /// The fresh message again, after it was processed.
    Duplicate,
}

/// The crash check while it runs: the run it records, the oracle, and the crash points counted,
/// tried and failed so far (kept when the check ends early, so the coverage line still counts).
pub(super) struct CrashCheck<'c> {
    pub(super) run: &'c mut Run,
    pub(super) oracle: &'c Oracle,
    seed: u64,
    counted: Option<CrashPoints>,
}

impl CrashCheck<'_> {
    /// The crash points of one path that the check tries: all of them, or a sample drawn from the
    /// seed beyond [`CRASH_POINTS_MAX`] (recorded, so the coverage line says so).
    pub(super) fn points_to_try<'p>(&mut self, points: &'p [CrashPoint]) -> Vec<&'p CrashPoint> {
        let (numbers, sampled) = crash_points_to_test(points.len() as u32, self.seed);
        if let Some(counted) = self.counted.as_mut() {
            counted.sampled |= sampled;
        }
        numbers.iter().filter_map(|&k| points.get(k as usize - 1)).collect()
    }

    /// Adds the crash points of one probe to the counts.
    pub(super) fn count(&mut self, points: &[CrashPoint]) {
        let Some(counted) = self.counted.as_mut() else { return };
        for point in points {
            match point.after {
                Boundary::Write { .. } => counted.writes += 1,
                Boundary::Commit { .. } => counted.commits += 1,
                Boundary::Call { .. } => counted.calls += 1,
            }
        }
    }

    /// Counts one more crash point as tested; returns its number over the whole check.
    pub(super) fn mark_tested(&mut self) -> u32 {
        match self.counted.as_mut() {
            Some(points) => {
                points.tested += 1;
                points.tested
            }
            None => 0,
        }
    }

    pub(super) fn mark_failed(&mut self, k: u32, place: &Text) {
        if let Some(points) = self.counted.as_mut() {
            points.failed_at = Some(k);
            points.failed_where = Some(place.clone());
        }
    }
}

impl<'a> Harness<'a> {
    /// The crash-point check; returns its outcome and the crash points it counted, tried and failed
    /// (also when it ended early).
    pub(super) fn crash_points(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
    ) -> (Step<Found>, Option<CrashPoints>) {
        let mut check = CrashCheck { run, oracle, seed: self.seed, counted: None };
        let outcome = self.crash_paths(&mut check);
        (outcome, check.counted)
    }

    /// The crash paths in turn, up to the first that fails: its own comparison, or an invariant
    /// one of its states broke (the check then fails with the invariant, at that path's run).
    fn crash_paths(&mut self, check: &mut CrashCheck<'_>) -> Step<Found> {
        let found = self.crash_fresh(check)?;
        if found.problem.is_some() || self.invariant_broken() {
            return Ok(found);
        }
        let found = self.crash_quiet(check, QuietPath::FailingEffect)?;
        if found.problem.is_some() || self.invariant_broken() {
            return Ok(found);
        }
        let found = self.crash_quiet(check, QuietPath::Duplicate)?;
        if found.problem.is_some() || self.invariant_broken() || self.compiled.relay().is_none() {
            return Ok(found);
        }
        self.crash_relay(check)
    }

    /// Every crash point of the fresh message: afterwards all or nothing must have happened, and a
    /// redelivery must finish the effect exactly once.
    /// A fault-free run of the fresh message that finds the crash points (one after each write
    /// and each COMMIT) and counts them; a consumer that does not process it, or writes nothing,
    /// fails here.
    fn probe_fresh(&mut self, check: &mut CrashCheck<'_>) -> Step<Vec<CrashPoint>> {
        check.run.queue(text!(
            "Probelauf ohne Fehler: nach welchen Anweisungen kann ein Absturz etwas ausmachen (nach jedem Schreibzugriff und jedem COMMIT)?",
            "fault-free run: after which statements can a crash matter (after every write and every COMMIT)?"
        ));
        let probe_db = self.fresh_db()?;
        let mut probe = self.start(check.run, &probe_db, None)?;
        let outcome = self.deliver(check.run, &mut probe, &self.exercise.messages.fresh, None, None);
        drop(probe);
        if let Some(problem) = delivery_problem(&outcome, Expect::Processed, self.voice) {
            return Err(Failure::Student(prefix_first_delivery(problem)));
        }
        let points = outcome.crash_points;
        check.counted = Some(CrashPoints {
            writes: 0,
            commits: 0,
            calls: 0,
            tested: 0,
            sampled: false,
            failed_at: None,
            failed_where: None,
        });
        check.count(&points);
        if outcome.writes == 0 {
            return Err(Failure::Student(problem(Prose::NoWrites, &[])));
        }
        Ok(points)
    }

    fn crash_fresh(&mut self, check: &mut CrashCheck<'_>) -> Step<Found> {
        let oracle = check.oracle;
        let points = self.probe_fresh(check)?;
        let total = points.len();
        for point in check.points_to_try(&points) {
            self.in_time()?;
            let k = point.number;
            let place = point.describe();
            let tested = check.mark_tested();
            check.run.queue(Text {
                de: format!("Absturzpunkt {k} von {total}: {}", place.de),
                en: format!("crash point {k} of {total}: {}", place.en),
            });
            let db = self.fresh_db()?;
            let before = self.exercise.initial_state.clone();
            let mut victim = self.start(check.run, &db, None)?;
            let outcome = self.deliver(check.run, &mut victim, &self.exercise.messages.fresh, Some(k), None);
            drop(victim); // the process dies: its connection closes, SQLite discards what was not committed
            let crashed = matches!(outcome.end, DeliveryEnd::Crashed { .. });
            if !crashed {
                // The same message, the same database: a deterministic consumer passes the same crash
                // points as in the probe. One that does not is reported as it behaved.
                if let Some(problem) = delivery_problem(&outcome, Expect::Processed, self.voice) {
                    check.mark_failed(tested, &place);
                    return Ok(Found::failed(problem));
                }
            }
            let middle = self.observed_state(check.run, &db)?;
            // What happened outside stays after a crash: "nothing" is said of the database alone.
            let nothing = self.inside(&middle) == self.inside(&before);
            let everything = middle == oracle.states.after_fresh;
            let processed = self.effect_changed(&before, &middle);
            let log = self.log_after_crash(&db, &self.exercise.messages.fresh, processed);
            // A log that keeps the offsets delivers the record again when only its offset is
            // missing: the database is complete, and the redelivery must commit the offset.
            let redelivered = log.as_ref().is_some_and(|l| l.keeps_offsets && !l.skips())
                && self.inside(&middle) == self.inside(&oracle.states.after_fresh);
            if let Some(log) = log {
                check.run.queue(log.note.clone());
                if log.skips() && !everything {
                    // The log resumes past the record: no redelivery comes, its effect is missing.
                    check.mark_failed(tested, &place);
                    let evidence = evidence_of(before, middle, oracle.states.after_fresh.clone(), None);
                    return Ok(Found::compared(evidence, Some(log.skipped(place))));
                }
            }
            if !nothing && !everything && !redelivered {
                check.mark_failed(tested, &place);
                let evidence =
                    evidence_of(before.clone(), middle, oracle.states.after_fresh.clone(), Some(before));
                let advice = failure(
                    crash_advice(&self.roles, &evidence.before, &evidence.after),
                    &[("transaction", self.voice.transaction())],
                );
                let problem = problem(Prose::CrashPartial, &[("place", place.clone()), ("advice", advice)]);
                return Ok(Found::compared(evidence, Some(problem)));
            }
            if self.invariant_broken() {
                // Nothing else is wrong here: the invariant is the check's failure, and this crash
                // point is where it broke.
                check.mark_failed(tested, &place);
                let evidence = evidence_of(before, middle, oracle.states.after_fresh.clone(), None);
                return Ok(Found::compared(evidence, None));
            }
            if everything {
                // The process died after all its work: the redelivery is the check "lost-ack".
                check.run.queue(text!(
                    "alles ist passiert, nur das Ack fehlt: die erneute Zustellung prüft „Verlorenes Ack“",
                    "everything happened, only the ack is missing: the redelivery is the check \"lost ack\""
                ));
                continue;
            }
            if let Some(found) = self.redeliver_after_crash(check, &db, before, &place, redelivered)? {
                check.mark_failed(tested, &place);
                return Ok(found);
            }
        }
        Ok(Found::passed())
    }

    /// The fresh message delivered again on `db` after a crash at `place` (`redelivered`: by a log
    /// that keeps the offsets, to a complete database); what is wrong afterwards, if anything.
    fn redeliver_after_crash(
        &mut self,
        check: &mut CrashCheck<'_>,
        db: &crate::consumer::rundb::RunDb,
        before: State,
        place: &Text,
        redelivered: bool,
    ) -> Step<Option<Found>> {
        let oracle = check.oracle;
        check.run.queue(redelivery_note(redelivered));
        let mut second = self.start(check.run, db, None)?;
        let note = text!("erneute Zustellung nach dem Absturz", "redelivery after the crash");
        let redelivery =
            self.deliver(check.run, &mut second, &self.exercise.messages.fresh, None, Some(note));
        drop(second);
        let after = self.observed_state(check.run, db)?;
        // After a complete database the record was processed before: the redelivery is a duplicate.
        let expect = if redelivered { Expect::Duplicate } else { Expect::Processed };
        let problem = delivery_problem(&redelivery, expect, self.voice);
        if problem.is_none() && after == oracle.states.after_fresh && !self.invariant_broken() {
            return Ok(None);
        }
        let evidence = evidence_of(before, after, oracle.states.after_fresh.clone(), None);
        // With the state right, the broken invariant is the failure (the check says so).
        let state_wrong = after_differs(&evidence);
        let problem = problem.or_else(|| {
            state_wrong.then(|| {
                with_notes(
                    self::problem(Prose::CrashRedeliveryWrong, &[("place", place.clone())]),
                    &redelivery,
                )
            })
        });
        Ok(Some(Found::compared(evidence, problem)))
    }

    /// The crash points of a delivery that must change nothing durable: the message whose effect
    /// violates a constraint, or a duplicate. Whatever a crash on such a path leaves behind must be
    /// nothing; the redelivery then meets the state a check without a crash already tried.
    fn crash_quiet(&mut self, check: &mut CrashCheck<'_>, path: QuietPath) -> Step<Found> {
        let oracle = check.oracle;
        let (message, expect, expected) = match path {
            QuietPath::FailingEffect => (
                Arc::clone(&self.exercise.messages.violation),
                Expect::Error,
                oracle.states.after_violation.clone(),
            ),
            QuietPath::Duplicate => (
                Arc::clone(&self.exercise.messages.fresh),
                Expect::Duplicate,
                oracle.states.after_fresh.clone(),
            ),
        };
        let (label, probe_note) = match path {
            QuietPath::FailingEffect => (
                text!("der scheiternden Nachricht", "of the failing message"),
                text!(
                    "Probelauf ohne Fehler mit der Nachricht, deren Wirkung an einer Bedingung scheitert",
                    "fault-free run with the message whose effect fails on a constraint"
                ),
            ),
            QuietPath::Duplicate => (
                text!("des Duplikats", "of the duplicate"),
                text!(
                    "Probelauf ohne Fehler mit einem Duplikat: die neue Nachricht ist verarbeitet, ein neuer Prozess erhält sie noch einmal",
                    "fault-free run with a duplicate: the fresh message is processed, a new process receives it again"
                ),
            ),
        };
        check.run.queue(probe_note);
        let probe_db = self.fresh_db()?;
        let outcome = self.deliver_quietly(check.run, &probe_db, &message, path, None)?;
        self.relay_before_reading(check.run, &probe_db)?;
        if delivery_problem(&outcome, expect, self.voice).is_some() || self.state(&probe_db)? != expected {
            // The checks without crashes report how this delivery goes wrong.
            check.run.queue(text!(
                "diese Zustellung geht schon ohne Absturz schief (siehe die anderen Prüfungen); keine weiteren Absturzpunkte",
                "this delivery goes wrong without a crash already (see the other checks); no more crash points"
            ));
            return Ok(Found::passed());
        }
        let points = outcome.crash_points;
        check.count(&points);
        let total = points.len();
        for point in check.points_to_try(&points) {
            self.in_time()?;
            let k = point.number;
            let place = point.describe();
            let tested = check.mark_tested();
            check.run.queue(Text {
                de: format!("Absturzpunkt {k} von {total} {}: {}", label.de, place.de),
                en: format!("crash point {k} of {total} {}: {}", label.en, place.en),
            });
            let db = self.fresh_db()?;
            let outcome = self.deliver_quietly(check.run, &db, &message, path, Some(k))?;
            let crashed = matches!(outcome.end, DeliveryEnd::Crashed { .. });
            if !crashed && let Some(problem) = delivery_problem(&outcome, expect, self.voice) {
                check.mark_failed(tested, &place);
                return Ok(Found::failed(problem));
            }
            let middle = self.observed_state(check.run, &db)?;
            if middle == expected && self.invariant_broken() {
                // The invariant is the check's failure; this crash point is where it broke.
                check.mark_failed(tested, &place);
                return Ok(Found::compared(evidence_of(expected.clone(), middle, expected, None), None));
            }
            if middle != expected {
                check.mark_failed(tested, &place);
                let before = match path {
                    QuietPath::FailingEffect => self.exercise.initial_state.clone(),
                    QuietPath::Duplicate => oracle.states.after_fresh.clone(),
                };
                let mut evidence = evidence_of(before, middle, expected, None);
                if path == QuietPath::Duplicate {
                    evidence.baseline = Some(self.exercise.initial_state.clone());
                }
                return Ok(Found::compared(evidence, Some(quiet_path_changed(path, &place))));
            }
            // Nothing changed: a redelivery meets the state a check without a crash already tried.
            check.run.queue(text!(
                "nichts hat sich geändert; die erneute Zustellung trifft denselben Zustand wie vorher",
                "nothing changed; the redelivery meets the same state as before"
            ));
        }
        Ok(Found::passed())
    }

    /// Delivers `message` on `db` for a path of [`Self::crash_quiet`]: for a duplicate, first the
    /// fresh message to a first process, then `message` to a new one, which is killed at crash point
    /// `crash_after`.
    fn deliver_quietly(
        &mut self,
        run: &mut Run,
        db: &crate::consumer::rundb::RunDb,
        message: &Arc<serde_json::Value>,
        path: QuietPath,
        crash_after: Option<u32>,
    ) -> Step<DeliveryOutcome> {
        if path == QuietPath::Duplicate {
            let mut first = self.start(run, db, None)?;
            self.process_first(run, &mut first, &self.exercise.messages.fresh)?;
            drop(first);
            run.queue(text!(
                "bestätigt (Ack); dieselbe Nachricht kommt noch einmal",
                "acked; the same message comes again"
            ));
        }
        let mut process = self.start(run, db, None)?;
        let note = match path {
            QuietPath::Duplicate => Some(text!("Duplikat", "duplicate")),
            QuietPath::FailingEffect => None,
        };
        let outcome = self.deliver(run, &mut process, message, crash_after, note);
        drop(process); // a crash: the connection closes, SQLite discards what was not committed
        Ok(outcome)
    }
}

/// The problem when a crash on a path that must change nothing left something behind.
fn quiet_path_changed(path: QuietPath, place: &Text) -> Problem {
    let prose = match path {
        QuietPath::FailingEffect => Prose::CrashFailingEffectChanged,
        QuietPath::Duplicate => Prose::CrashDuplicateChanged,
    };
    problem(prose, &[("place", place.clone())])
}

/// The advice after a crash that left part of the work durable, by which part the state shows:
/// only the remembered ids changed, only the effect, or both or neither can be told apart.
fn crash_advice(roles: &Roles, before: &State, middle: &State) -> Prose {
    let changed = |role: Role| {
        let names = roles.names(role);
        !names.is_empty() && names.iter().any(|name| before.get(name) != middle.get(name))
    };
    match (changed(Role::Memory), changed(Role::Effect)) {
        (true, false) => Prose::CrashAdviceMemoryFirst,
        (false, true) => Prose::CrashAdviceEffectFirst,
        _ => Prose::CrashAdviceWrite,
    }
}

/// The crash points to test for a consumer that makes `writes` writes, ascending, and whether they
/// are a sample: every one up to [`CRASH_POINTS_MAX`]; beyond it the first and last
/// [`CRASH_POINTS_EDGE`] (where a transaction begins and commits) and the rest drawn without
/// repetition from `seed`, so a regrade tests the same points.
pub fn crash_points_to_test(writes: u32, seed: u64) -> (Vec<u32>, bool) {
    if writes <= CRASH_POINTS_MAX {
        return ((1..=writes).collect(), false);
    }
    let edge = CRASH_POINTS_EDGE.min(CRASH_POINTS_MAX / 2);
    let mut points: std::collections::BTreeSet<u32> = (1..=edge).chain(writes - edge + 1..=writes).collect();
    let middle = (edge + 1, writes - edge);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6372_6173_6870_6f69); // "crashpoi"
    while points.len() < CRASH_POINTS_MAX as usize {
        let span = middle.1 - middle.0 + 1;
        points.insert(middle.0 + rng.next_u32() % span);
    }
    (points.into_iter().collect(), true)
}

/// The state a check read differs from the one it expected.
fn after_differs(evidence: &crate::report::consumer::StateEvidence) -> bool {
    evidence.after != evidence.expected
}

/// What comes after a crash that left nothing behind, or (`log_redelivers`) a complete database
/// whose offset a log that keeps the offsets does not hold yet.
fn redelivery_note(log_redelivers: bool) -> Text {
    if log_redelivers {
        text!(
            "die Datenbank ist vollständig, nur der Offset fehlt im Log: das Log stellt neu zu",
            "the database is complete, only the offset is missing in the log: the log redelivers"
        )
    } else {
        text!("nichts ist passiert; die Queue stellt neu zu", "nothing happened; the queue redelivers")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_crash_point_is_tested_up_to_the_bound() {
        assert_eq!(crash_points_to_test(2, 7), (vec![1, 2], false));
        let (all, sampled) = crash_points_to_test(CRASH_POINTS_MAX, 7);
        assert_eq!(all, (1..=CRASH_POINTS_MAX).collect::<Vec<_>>());
        assert!(!sampled);
        assert_eq!(crash_points_to_test(0, 7), (vec![], false));
    }

    /// Beyond the bound: exactly the bound many, ascending, distinct, the edges always in, the
    /// middle drawn from the seed (the same seed, the same points; another seed, others).
    #[test]
    fn many_crash_points_are_sampled_from_the_seed_with_both_edges() {
        let writes = 992;
        let (points, sampled) = crash_points_to_test(writes, 7);
        assert!(sampled);
        assert_eq!(points.len(), CRASH_POINTS_MAX as usize);
        assert!(points.windows(2).all(|w| w[0] < w[1]), "ascending and distinct");
        assert!(points.iter().all(|k| (1..=writes).contains(k)));
        for k in (1..=CRASH_POINTS_EDGE).chain(writes - CRASH_POINTS_EDGE + 1..=writes) {
            assert!(points.contains(&k), "edge point {k}");
        }
        assert_eq!(crash_points_to_test(writes, 7).0, points);
        assert_ne!(crash_points_to_test(writes, 8).0, points);
        let (just_over, _) = crash_points_to_test(CRASH_POINTS_MAX + 1, 3);
        assert_eq!(just_over.len(), CRASH_POINTS_MAX as usize);
    }
}
