//! Deterministic interleaving of two consumer instances at statement boundaries.
//!
//! Both instances run on fibers of this one thread (`call_async`, polled by hand), so nothing here
//! depends on the operating system's scheduler. Before every statement an instance's `db.exec`
//! waits at its [`GateHandle`] until the controller grants it the turn; the controller decides who
//! goes next from a *choice sequence*, so a run is fully determined by its choices, and [`explore`]
//! enumerates every choice sequence (stateless model checking: rerun from scratch with a longer forced
//! prefix) up to a bound, then samples further sequences from a seed.
//!
//! A statement that finds the database locked waits, as `busy_timeout` would: the instance reports
//! itself blocked and retries when the lock holder's transaction has ended. When both are blocked,
//! SQLite would return `SQLITE_BUSY` to the one promoting a read lock (it has written nothing yet) and
//! let the other wait; the controller does the same. A lock wait always ends: an instance that
//! dies (a trap, a limit) has its transaction rolled back at once, which wakes the waiter, and a
//! waiter whose retry still finds the lock taken after the other instance has ended gives up with
//! that reason instead of being granted the same retry forever. The trace records a wait once per
//! statement, not once per retry.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::gate::{Arrival, GateHandle, GiveUp, Signal};
use super::process::{ConsumerProcess, DeliveryOutcome};
use crate::limits::{INTERLEAVINGS_MAX, SAMPLED_INTERLEAVINGS};
use crate::report::consumer::TraceEvent;

/// The state of one instance as the controller sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Ready,
    Blocked { has_written: bool, since: usize },
    Done,
}

/// One complete interleaved run.
pub(crate) struct InterleavedRun {
    /// Who ran at each decision point where both could run (0 or 1).
    pub choices: Vec<usize>,
    /// The instance that ran each statement, in order (for the report).
    pub order: Vec<usize>,
    pub trace: Vec<TraceEvent>,
    pub outcomes: [Option<DeliveryOutcome>; 2],
}

type Delivery<'p> = Pin<Box<dyn Future<Output = (DeliveryOutcome, Vec<TraceEvent>)> + Send + 'p>>;

/// Delivers `message` to both instances (started with the two [`gates`]) and interleaves them,
/// making the choices in `prefix` first and asking `chooser` for later ones.
pub(crate) fn drive(
    first: &mut ConsumerProcess,
    second: &mut ConsumerProcess,
    gate: &GateHandle,
    message: &Arc<serde_json::Value>,
    prefix: &[usize],
    chooser: &mut dyn FnMut() -> usize,
) -> InterleavedRun {
    let mut run =
        InterleavedRun { choices: Vec::new(), order: Vec::new(), trace: Vec::new(), outcomes: [None, None] };
    let mut deliveries: [Option<Delivery<'_>>; 2] = [
        Some(Box::pin(first.deliver_interleaved(Arc::clone(message)))),
        Some(Box::pin(second.deliver_interleaved(Arc::clone(message)))),
    ];
    let mut phase = [Phase::Ready, Phase::Ready];
    let mut step = 0usize;
    // Start them one after the other: code before the first statement touches nothing shared.
    for who in 0..2 {
        advance(&mut deliveries, who, gate, &mut run, &mut phase, step);
    }
    loop {
        let ready: Vec<usize> = (0..2).filter(|&w| phase[w] == Phase::Ready).collect();
        let (who, signal) = match ready.as_slice() {
            [] => {
                let blocked: Vec<usize> =
                    (0..2).filter(|&w| matches!(phase[w], Phase::Blocked { .. })).collect();
                match blocked.as_slice() {
                    [] => break,
                    // The other has ended, and still the retry after its end found the lock
                    // taken: nobody will release it.
                    [only] => (*only, Signal::GiveUp(GiveUp::HolderEnded)),
                    _ => (deadlock_victim(&phase), Signal::GiveUp(GiveUp::Deadlock)),
                }
            }
            [only] => (*only, Signal::Go),
            _ => {
                let choice = prefix.get(run.choices.len()).copied().unwrap_or_else(&mut *chooser) % 2;
                run.choices.push(choice);
                (choice, Signal::Go)
            }
        };
        step += 1;
        run.order.push(who);
        if let Ok(mut shared) = gate.shared.lock() {
            shared.granted[who] = Some(signal);
        }
        advance(&mut deliveries, who, gate, &mut run, &mut phase, step);
    }
    run
}

/// Runs instance `who` until it waits at its gate again or finishes.
fn advance(
    deliveries: &mut [Option<Delivery<'_>>; 2],
    who: usize,
    gate: &GateHandle,
    run: &mut InterleavedRun,
    phase: &mut [Phase; 2],
    step: usize,
) {
    let Some(delivery) = deliveries[who].as_mut() else { return };
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let polled = delivery.as_mut().poll(&mut cx);
    let (events, waiting) = match gate.shared.lock() {
        Ok(mut shared) => (std::mem::take(&mut shared.events), shared.waiting[who]),
        Err(_) => (Vec::new(), None),
    };
    run.trace.extend(events);
    match polled {
        Poll::Ready((outcome, events)) => {
            deliveries[who] = None;
            run.trace.extend(events);
            run.outcomes[who] = Some(outcome);
            phase[who] = Phase::Done;
            release(phase, who);
        }
        Poll::Pending => match waiting {
            Some(Arrival::Ready { in_transaction }) => {
                phase[who] = Phase::Ready;
                if !in_transaction {
                    release(phase, who);
                }
            }
            Some(Arrival::Blocked { has_written }) => {
                phase[who] = Phase::Blocked { has_written, since: step }
            }
            // Pending without waiting at the gate cannot happen (nothing else suspends); treat the
            // instance as ready so the run still ends.
            None => phase[who] = Phase::Ready,
        },
    }
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

/// `who` holds no lock any more: the other may retry.
fn release(phase: &mut [Phase; 2], who: usize) {
    let other = 1 - who;
    if matches!(phase[other], Phase::Blocked { .. }) {
        phase[other] = Phase::Ready;
    }
}

/// The result of exploring the interleavings of one scenario.
pub(crate) struct Exploration<T> {
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
pub(crate) fn explore<T>(
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
