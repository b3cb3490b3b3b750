//! Deterministic interleaving of two consumer instances at statement boundaries.
//!
//! Each instance runs on its own thread, but only one runs at a time: before every statement the
//! instance reports to the controller and waits for its turn ([`Gate`]). The controller decides who
//! goes next from a *choice sequence*, so a run is fully determined by its choices, and
//! [`explore`] enumerates every choice sequence (stateless model checking: rerun from scratch with a
//! longer forced prefix) up to a bound, then samples further sequences from a seed.
//!
//! A statement that finds the database locked waits, as `busy_timeout` would: the instance reports
//! itself blocked and retries when the lock holder's transaction has ended. When both are blocked,
//! SQLite would return `SQLITE_BUSY` to the one promoting a read lock (it has written nothing yet) and
//! let the other wait; the controller does the same.

use std::sync::mpsc::{Receiver, Sender};

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::detail::TraceEvent;
use super::process::DeliveryOutcome;

/// What the controller tells a waiting instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// Run the statement (or retry it).
    Go,
    /// Give up waiting for the lock: the statement fails with "database is locked".
    GiveUp,
}

/// What an instance tells the controller.
#[derive(Debug)]
pub enum Report {
    /// Waiting before a statement. `events` happened since the last report.
    Arrived { who: usize, events: Vec<TraceEvent>, in_transaction: bool },
    /// The statement found the database locked; waiting to retry.
    Blocked { who: usize, events: Vec<TraceEvent>, has_written: bool },
    /// The delivery ended.
    Finished { who: usize, events: Vec<TraceEvent>, outcome: Box<DeliveryOutcome> },
}

/// An instance's side of the handshake, kept in its store.
pub struct Gate {
    pub who: usize,
    reports: Sender<Report>,
    signals: Receiver<Signal>,
}

impl Gate {
    pub fn new(who: usize, reports: Sender<Report>, signals: Receiver<Signal>) -> Self {
        Gate { who, reports, signals }
    }

    /// Reports arrival at a statement boundary and waits for the turn. A controller that went away
    /// counts as "go" (the run is being torn down).
    pub fn arrive(&self, events: Vec<TraceEvent>, in_transaction: bool) -> Signal {
        let _ = self.reports.send(Report::Arrived { who: self.who, events, in_transaction });
        self.signals.recv().unwrap_or(Signal::GiveUp)
    }

    /// Reports a lock wait and waits to retry or to give up.
    pub fn blocked(&self, events: Vec<TraceEvent>, has_written: bool) -> Signal {
        let _ = self.reports.send(Report::Blocked { who: self.who, events, has_written });
        self.signals.recv().unwrap_or(Signal::GiveUp)
    }

    pub fn finished(&self, events: Vec<TraceEvent>, outcome: DeliveryOutcome) {
        let _ = self.reports.send(Report::Finished { who: self.who, events, outcome: Box::new(outcome) });
    }

    /// Waits for the first turn, before the delivery starts.
    pub fn wait_start(&self) -> Signal {
        self.signals.recv().unwrap_or(Signal::GiveUp)
    }
}

/// The state of one instance as the controller sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Ready,
    Blocked { has_written: bool, since: usize },
    Done,
}

/// One complete interleaved run.
pub struct InterleavedRun {
    /// Who ran at each decision point where both could run (0 or 1).
    pub choices: Vec<usize>,
    /// The instance that ran each statement, in order (for the report).
    pub order: Vec<usize>,
    pub trace: Vec<TraceEvent>,
    pub outcomes: [Option<DeliveryOutcome>; 2],
}

/// Drives two instances whose gates report on `reports` and listen on `signals`, making the
/// choices in `prefix` first and asking `chooser` for later ones.
pub fn drive(
    reports: &Receiver<Report>,
    signals: &[Sender<Signal>; 2],
    prefix: &[usize],
    chooser: &mut dyn FnMut() -> usize,
) -> InterleavedRun {
    let mut run =
        InterleavedRun { choices: Vec::new(), order: Vec::new(), trace: Vec::new(), outcomes: [None, None] };
    let mut phase = [Phase::Ready, Phase::Ready];
    let mut step = 0usize;
    // Start them one after the other: code before the first statement touches nothing shared.
    for signal in signals {
        let _ = signal.send(Signal::Go);
        receive(reports, &mut run, &mut phase, step);
    }
    loop {
        let ready: Vec<usize> = (0..2).filter(|&w| phase[w] == Phase::Ready).collect();
        let next = match ready.as_slice() {
            [] => {
                let blocked: Vec<usize> =
                    (0..2).filter(|&w| matches!(phase[w], Phase::Blocked { .. })).collect();
                match blocked.as_slice() {
                    [] => break,
                    [only] => (*only, Signal::Go),
                    _ => (deadlock_victim(&phase), Signal::GiveUp),
                }
            }
            [only] => (*only, Signal::Go),
            _ => {
                let choice = prefix.get(run.choices.len()).copied().unwrap_or_else(&mut *chooser) % 2;
                run.choices.push(choice);
                (choice, Signal::Go)
            }
        };
        let (who, signal) = next;
        step += 1;
        run.order.push(who);
        let _ = signals[who].send(signal);
        receive(reports, &mut run, &mut phase, step);
    }
    run
}

/// The instance SQLite would answer with SQLITE_BUSY in a deadlock: the one that has not written
/// (it holds only a read lock), or else the one that blocked last.
fn deadlock_victim(phase: &[Phase; 2]) -> usize {
    match (phase[0], phase[1]) {
        (Phase::Blocked { has_written: false, .. }, Phase::Blocked { has_written: true, .. }) => 0,
        (Phase::Blocked { has_written: true, .. }, Phase::Blocked { has_written: false, .. }) => 1,
        (Phase::Blocked { since: a, .. }, Phase::Blocked { since: b, .. }) => usize::from(b > a),
        _ => 0,
    }
}

fn receive(reports: &Receiver<Report>, run: &mut InterleavedRun, phase: &mut [Phase; 2], step: usize) {
    let Ok(report) = reports.recv() else {
        // Both instance threads are gone (they cannot be: each sends Finished before it ends).
        *phase = [Phase::Done, Phase::Done];
        return;
    };
    match report {
        Report::Arrived { who, events, in_transaction } => {
            run.trace.extend(events);
            phase[who] = Phase::Ready;
            if !in_transaction {
                release(phase, who);
            }
        }
        Report::Blocked { who, events, has_written } => {
            run.trace.extend(events);
            phase[who] = Phase::Blocked { has_written, since: step };
        }
        Report::Finished { who, events, outcome } => {
            run.trace.extend(events);
            phase[who] = Phase::Done;
            run.outcomes[who] = Some(*outcome);
            release(phase, who);
        }
    }
}

/// `who` holds no lock any more: the other may retry.
fn release(phase: &mut [Phase; 2], who: usize) {
    let other = 1 - who;
    if matches!(phase[other], Phase::Blocked { .. }) {
        phase[other] = Phase::Ready;
    }
}

/// The most interleavings enumerated exhaustively; beyond it, [`SAMPLED_INTERLEAVINGS`] are drawn
/// at random from the submission's seed.
pub const INTERLEAVINGS_MAX: usize = 100;
/// Interleavings sampled when the space is larger than [`INTERLEAVINGS_MAX`].
pub const SAMPLED_INTERLEAVINGS: usize = 32;

/// The result of exploring the interleavings of one scenario.
pub struct Exploration<T> {
    /// Interleavings run.
    pub explored: usize,
    /// Whether every interleaving was run (the space was within the bound).
    pub exhaustive: bool,
    /// The first failing run, if any.
    pub failure: Option<T>,
}

/// Runs `run_one(prefix, chooser)` over every choice sequence (depth first), stopping at the first
/// failure (`Err`). Beyond [`INTERLEAVINGS_MAX`] runs it samples [`SAMPLED_INTERLEAVINGS`] random
/// sequences from `seed` instead.
pub fn explore<T>(
    seed: u64,
    mut run_one: impl FnMut(&[usize], &mut dyn FnMut() -> usize) -> Result<Vec<usize>, T>,
) -> Exploration<T> {
    let mut explored = 0;
    let mut prefix: Vec<usize> = Vec::new();
    loop {
        if explored == INTERLEAVINGS_MAX {
            break;
        }
        explored += 1;
        let choices = match run_one(&prefix, &mut || 0) {
            Ok(choices) => choices,
            Err(failure) => return Exploration { explored, exhaustive: false, failure: Some(failure) },
        };
        // Backtrack: the last decision that took 0 is flipped to 1; everything after is dropped.
        match choices.iter().rposition(|&c| c == 0) {
            Some(last) => {
                prefix = choices[..last].to_vec();
                prefix.push(1);
            }
            None => return Exploration { explored, exhaustive: true, failure: None },
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..SAMPLED_INTERLEAVINGS {
        explored += 1;
        let mut chooser = || (rng.next_u32() & 1) as usize;
        if let Err(failure) = run_one(&[], &mut chooser) {
            return Exploration { explored, exhaustive: false, failure: Some(failure) };
        }
    }
    Exploration { explored, exhaustive: false, failure: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two instances with `a` and `b` decision-free steps interleave in C(a+b, a) ways; a fake run
    /// that consumes choices like `drive` does must be enumerated exactly that often.
    #[test]
    fn explore_enumerates_every_interleaving_once() {
        let (a, b) = (4usize, 4usize);
        let mut seen = std::collections::BTreeSet::new();
        let exploration = explore::<()>(7, |prefix, chooser| {
            let (mut left, mut right) = (a, b);
            let mut choices = Vec::new();
            let mut order = Vec::new();
            while left > 0 || right > 0 {
                let who = if left > 0 && right > 0 {
                    let c = prefix.get(choices.len()).copied().unwrap_or_else(&mut *chooser);
                    choices.push(c);
                    c
                } else if left > 0 {
                    0
                } else {
                    1
                };
                if who == 0 {
                    left -= 1
                } else {
                    right -= 1
                }
                order.push(who);
            }
            assert!(seen.insert(order), "an interleaving ran twice");
            Ok(choices)
        });
        assert!(exploration.exhaustive);
        assert_eq!(exploration.explored, 70);
        assert_eq!(seen.len(), 70);
    }

    #[test]
    fn explore_samples_beyond_the_bound_from_the_seed() {
        let sample = |seed| {
            let mut orders = Vec::new();
            let exploration = explore::<()>(seed, |prefix, chooser| {
                let mut choices = Vec::new();
                for _ in 0..12 {
                    let c = prefix.get(choices.len()).copied().unwrap_or_else(&mut *chooser);
                    choices.push(c);
                }
                orders.push(choices.clone());
                Ok(choices)
            });
            assert!(!exploration.exhaustive);
            assert_eq!(exploration.explored, INTERLEAVINGS_MAX + SAMPLED_INTERLEAVINGS);
            orders
        };
        assert_eq!(sample(1), sample(1));
        assert_ne!(sample(1), sample(2));
    }
}
