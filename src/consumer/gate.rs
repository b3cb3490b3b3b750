//! The gate at which a consumer instance waits before each statement while two instances run
//! interleaved: the instance's side (a [`GateHandle`] kept in its store, awaited by the host
//! function that runs a statement) and what the controller in [`super::interleave`] grants it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use crate::report::consumer::TraceEvent;

/// What the controller grants a waiting instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    /// Run the statement (or retry it).
    Go,
    /// Give up waiting for the lock: the statement fails with "database is locked".
    GiveUp(GiveUp),
}

/// Why a waiting instance gives up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GiveUp {
    /// Both wait for each other; SQLite answers this one with `SQLITE_BUSY`.
    Deadlock,
    /// The other instance has ended, and the lock is still taken.
    HolderEnded,
}

impl GiveUp {
    /// What the statement's error says after [`LOCKED_PREFIX`](super::guestdb::LOCKED_PREFIX), if
    /// more than SQLite's own message.
    pub(crate) fn reason(self) -> Option<&'static str> {
        match self {
            GiveUp::Deadlock => None,
            GiveUp::HolderEnded => Some(
                "the other instance has ended, and the lock it held was not released; waiting longer cannot help",
            ),
        }
    }
}

/// Why an instance waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// Before a statement.
    Ready { in_transaction: bool },
    /// The statement found the database locked.
    Blocked { has_written: bool },
}

#[derive(Default)]
pub(super) struct Shared {
    pub(super) granted: [Option<Signal>; 2],
    pub(super) waiting: [Option<Arrival>; 2],
    /// Trace events the instances handed over at their boundaries, in order.
    pub(super) events: Vec<TraceEvent>,
}

/// An instance's side of the turn-taking, kept in its store.
#[derive(Clone)]
pub struct GateHandle {
    pub(super) shared: Arc<Mutex<Shared>>,
    pub(super) who: usize,
}

impl GateHandle {
    /// Waits until the controller grants the turn; hands over the trace events recorded so far.
    pub(crate) fn wait(
        &self,
        arrival: Arrival,
        events: Vec<TraceEvent>,
    ) -> impl Future<Output = Signal> + Send + 'static {
        if let Ok(mut shared) = self.shared.lock() {
            shared.events.extend(events);
        }
        Turn { shared: Arc::clone(&self.shared), who: self.who, arrival }
    }
}

struct Turn {
    shared: Arc<Mutex<Shared>>,
    who: usize,
    arrival: Arrival,
}

impl Future for Turn {
    type Output = Signal;
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Signal> {
        let Ok(mut shared) = self.shared.lock() else {
            return Poll::Ready(Signal::GiveUp(GiveUp::HolderEnded));
        };
        match shared.granted[self.who].take() {
            Some(signal) => {
                shared.waiting[self.who] = None;
                Poll::Ready(signal)
            }
            None => {
                shared.waiting[self.who] = Some(self.arrival);
                Poll::Pending
            }
        }
    }
}

/// A gate pair for two instances about to run interleaved.
pub(crate) fn gates() -> [GateHandle; 2] {
    let shared = Arc::new(Mutex::new(Shared::default()));
    [GateHandle { shared: Arc::clone(&shared), who: 0 }, GateHandle { shared, who: 1 }]
}
