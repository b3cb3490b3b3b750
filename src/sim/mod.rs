//! The one simulation of the project: a [`Queue`] with a visibility timeout and a dead-letter list,
//! a seeded, lossy [`Network`], and an [`EventLog`] with partitions and committed offsets per
//! consumer group. Both are deterministic: time is a counter ([`Tick`]), every random
//! choice comes from an explicit seed through ChaCha8, and every operation leaves a typed event in a
//! trace. Prediction exercises compute their expected answers by running these types; the consumer
//! harness schedules deliveries with them. [`describe`] turns traces into bilingual timelines.

pub(crate) mod describe;
pub(crate) mod log;
pub(crate) mod network;
pub(crate) mod queue;

pub use describe::TimelineLine;
pub use log::{CommitRefusal, EventLog, LogError, LogEvent, Offset, Record};
pub use network::{CopyFate, Fate, Network, NetworkConfig, NetworkEvent};
pub use queue::{AckOutcome, Delivery, MessageId, MessageState, Queue, QueueConfig, QueueEvent};

/// Simulated time: a counter that only [`Queue::tick`] moves forward (the network counts sends).
pub(crate) type Tick = u64;

/// One event of a trace, stamped with the tick it happened at.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct TraceEntry<E> {
    pub tick: Tick,
    pub event: E,
}

/// A simulation parameter outside what the simulation supports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("visibility_timeout must be at least 1 tick")]
    ZeroVisibilityTimeout,
    #[error("max_receives must be at least 1")]
    ZeroMaxReceives,
    #[error("{name} = {value} is not a probability per mille (0..=1000)")]
    PerMille { name: &'static str, value: u32 },
    #[error("max_delay must be at least 1 when delay_per_mille > 0")]
    ZeroMaxDelay,
    #[error("time would overflow")]
    TimeOverflow,
}
