//! The interleavings runner of the concurrent-duplicate check: two instances get the same message
//! at once (the visibility timeout expired while the first was still working) and run interleaved,
//! statement by statement. Every choice sequence up to a bound is explored, then samples are drawn
//! from the submission's seed (see `interleave::explore`); a replay spec names one sequence.

use std::sync::Arc;

use super::runner::{Expect, delivery_problem, evidence_of, left_open};
use super::{Failure, Found, Harness, Run, Step};
use crate::consumer::checks::catalogue::problem;
use crate::consumer::checks::texts::{Problem, Prose, plain};
use crate::consumer::interleave;
use crate::consumer::oracle::Oracle;
use crate::consumer::process::{ConsumerProcess, DeliveryEnd};
use crate::consumer::state::State;
use crate::exercise::GradeError;
use crate::report::consumer::{StateEvidence, TraceEvent};
use crate::text;

/// The outcome of one interleaved run of the concurrent-duplicate check.
struct ConcurrentRun {
    run: Run,
    choices: Vec<usize>,
    order: Vec<usize>,
    problem: Option<Problem>,
    evidence: StateEvidence,
}

impl<'a> Harness<'a> {
    pub(super) fn concurrent_duplicate(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        spec: Option<&str>,
    ) -> Step<Found> {
        if let Some(spec) = spec {
            let choices = parse_choices(spec).ok_or_else(|| {
                Failure::Internal(GradeError::Replay(format!(
                    "\"{spec}\" is not a sequence of interleaving choices (0 and 1)"
                )))
            })?;
            let replayed = self.concurrent_run(oracle, &choices, &mut || 0)?;
            return Ok(show_concurrent(run, replayed));
        }
        let seed = self.seed ^ 0x636f_6e63_7572_7265; // "concurre": one stream per check
        let mut first: Option<ConcurrentRun> = None;
        let mut internal: Option<Failure> = None;
        let exploration = interleave::explore(seed, |prefix, chooser| {
            match self.in_time().and_then(|()| self.concurrent_run(oracle, prefix, chooser)) {
                Ok(outcome) => {
                    let choices = outcome.choices.clone();
                    if outcome.problem.is_some() {
                        return Err(Box::new(outcome));
                    }
                    first.get_or_insert(outcome);
                    Ok(choices)
                }
                Err(error) => {
                    internal = Some(error);
                    // Stop exploring: report the internal error below.
                    Err(Box::new(ConcurrentRun {
                        run: Run::default(),
                        choices: Vec::new(),
                        order: Vec::new(),
                        problem: None,
                        evidence: evidence_of(State::new(), State::new(), State::new(), None),
                    }))
                }
            }
        });
        if let Some(failure) = internal {
            return Err(failure);
        }
        self.coverage.push(crate::report::Coverage {
            name: "interleavings".into(),
            label: text!("Reihenfolgen zweier gleichzeitiger Prozesse", "orders of two processes at once"),
            exercised: exploration.explored as u64,
            total: exploration.exhaustive.then_some(exploration.explored as u64),
        });
        let shown = match exploration.failure {
            Some(failing) => *failing,
            None => match first {
                Some(passing) => passing,
                None => return Ok(Found::passed()),
            },
        };
        Ok(show_concurrent(run, shown))
    }

    /// One interleaved run: two instances get the same message at once (the visibility timeout
    /// expired while the first was still working); afterwards every delivery that ended in an
    /// error is redelivered, as the queue would.
    fn concurrent_run(
        &mut self,
        oracle: &Oracle,
        prefix: &[usize],
        chooser: &mut dyn FnMut() -> usize,
    ) -> Step<ConcurrentRun> {
        let mut run = Run::default();
        let message = Arc::clone(&self.exercise.messages.fresh);
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let gates = crate::consumer::gate::gates();
        let mut processes = Vec::with_capacity(2);
        for gate in &gates {
            match self.start(&mut run, &db, Some(gate.clone())) {
                Ok(process) => processes.push(process),
                Err(Failure::Student(problem)) => {
                    let evidence =
                        evidence_of(before.clone(), before, oracle.states.after_fresh.clone(), None);
                    return Ok(ConcurrentRun {
                        run,
                        choices: Vec::new(),
                        order: Vec::new(),
                        problem: Some(problem),
                        evidence,
                    });
                }
                Err(other) => return Err(other),
            }
        }
        note_same_message(&mut run, &processes, &message);
        let [mut first, mut second]: [ConsumerProcess; 2] = match processes.try_into() {
            Ok(pair) => pair,
            Err(_) => return Err(GradeError::Internal("two instances expected".into()).into()),
        };
        let interleaved = interleave::drive(&mut first, &mut second, &gates[0], &message, prefix, chooser);
        drop((first, second));
        run.trace.extend(interleaved.trace);
        let mut processed = 0;
        let mut problem = None;
        let mut redeliver = 0;
        for outcome in interleaved.outcomes.iter() {
            let Some(outcome) = outcome else {
                return Err(
                    GradeError::Internal("an interleaved instance did not report its end".into()).into()
                );
            };
            run.fuel_used += outcome.fuel_used;
            match outcome.returned() {
                Some(1) => processed += 1,
                Some(0) => {}
                _ => redeliver += 1,
            }
            if let (None, DeliveryEnd::Faulted { message, .. }) = (&problem, &outcome.end) {
                problem = Some(Problem::fault(message.clone()));
            }
            if problem.is_none() {
                // Its transaction was rolled back: whatever it returned, nothing of it counts.
                problem = left_open(outcome);
            }
        }
        for _ in 0..redeliver {
            if problem.is_some() {
                break;
            }
            self.in_time()?;
            run.queue(text!(
                "eine Zustellung endete mit einem Fehler: die Queue stellt erneut zu",
                "one delivery ended in an error: the queue delivers again"
            ));
            let middle = self.observed_state(&mut run, &db)?;
            let mut again = match self.start(&mut run, &db, None) {
                Ok(process) => process,
                Err(Failure::Student(found)) => {
                    problem = Some(found);
                    break;
                }
                Err(other) => return Err(other),
            };
            let note = text!("erneute Zustellung", "redelivery");
            let outcome = self.deliver(&mut run, &mut again, &message, None, Some(note));
            let expect =
                if middle == oracle.states.after_fresh { Expect::Duplicate } else { Expect::Processed };
            if outcome.returned() == Some(1) {
                processed += 1;
            }
            problem = delivery_problem(&outcome, expect, self.voice);
        }
        let after = self.observed_state(&mut run, &db)?;
        if problem.is_none() {
            problem = self.judge_concurrent(processed, after == oracle.states.after_fresh);
        }
        let evidence = evidence_of(before, after, oracle.states.after_fresh.clone(), None);
        Ok(ConcurrentRun { run, choices: interleaved.choices, order: interleaved.order, problem, evidence })
    }
    /// What is wrong when both instances are done: the message processed other than once, or its
    /// effect not the reference's.
    /// With nothing else wrong, an invariant a state of this run broke is: the first interleaving
    /// that broke one is the run the check shows.
    fn judge_concurrent(&self, processed: usize, effect_right: bool) -> Option<Problem> {
        if effect_right && processed == 1 {
            return self.invariant_problem();
        }
        let count = [("count", plain(processed))];
        Some(match (processed > 1, effect_right) {
            (true, false) => self::problem(Prose::ConcurrentTwice, &count),
            (true, true) => self::problem(Prose::ConcurrentTwiceOnce, &count),
            (false, false) => self::problem(Prose::ConcurrentNotOnce, &[]),
            // The effect is right and no process reported it processed: both said duplicate.
            (false, true) => self::problem(Prose::FreshReturnedDuplicate, &[("ended", self.voice.ended(0))]),
        })
    }
}

/// The trace says that both instances got the same message: the first works slowly, and the
/// visibility timeout ran out while it did.
fn note_same_message(run: &mut Run, processes: &[ConsumerProcess], message: &Arc<serde_json::Value>) {
    for process in processes {
        let note = if process.instance == 1 {
            text!("arbeitet langsam", "works slowly")
        } else {
            text!(
                "dieselbe Nachricht: das Visibility Timeout lief ab, während #1 noch arbeitete",
                "the same message: the visibility timeout expired while #1 was still working"
            )
        };
        run.trace.push(TraceEvent::Deliver {
            instance: process.instance,
            message: (**message).clone(),
            note: Some(note),
        });
    }
}

/// Puts one interleaved run into the check's trace; its problem and evidence are the check's.
fn show_concurrent(run: &mut Run, shown: ConcurrentRun) -> Found {
    let replay_spec = Some(shown.choices.iter().map(|c| if *c == 0 { '0' } else { '1' }).collect());
    let order: Vec<String> = shown.order.iter().map(|w| format!("#{}", w + 1)).collect();
    let note = text!(
        "Reihenfolge (wer die nächste Anweisung ausführt): {order}",
        "order (who runs the next statement): {order}",
        order = order.join(" ")
    );
    run.trace.push(TraceEvent::Queue { text: note });
    run.adopt(shown.run);
    Found { problem: shown.problem, state: Some(shown.evidence), replay_spec, ..Found::default() }
}

/// "0110" -> [0, 1, 1, 0]; an empty spec is the first interleaving.
fn parse_choices(spec: &str) -> Option<Vec<usize>> {
    spec.chars()
        .map(|c| match c {
            '0' => Some(0),
            '1' => Some(1),
            _ => None,
        })
        .collect()
}
