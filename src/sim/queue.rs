//! The lesson's queue: at-least-once delivery with acknowledgements and a visibility timeout.
//!
//! A message is *visible* until a consumer receives it; then it is *in flight* (invisible to others)
//! for `visibility_timeout` ticks. An [`ack`](Queue::ack) deletes it. Without an ack the message
//! becomes visible again when the timeout runs out, and the next [`receive`](Queue::receive) hands
//! it out once more with `attempts + 1` (the lesson's `versuche`). With a receive limit, a message
//! whose timeout runs out after its last allowed delivery moves to the dead-letter list instead.
//!
//! Time only moves in [`tick`](Queue::tick). `receive` hands out the visible message with the lowest
//! id (the oldest). Message ids count from 1 in send order.

use super::{SimError, Tick, TraceEntry};
use crate::text::Text;

/// A message's id, unique within one queue, counting from 1.
pub type MessageId = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueConfig {
    /// Ticks a received message stays invisible without an ack (at least 1).
    pub visibility_timeout: Tick,
    /// Deliveries after which a message that is still not acked moves to the dead-letter list.
    pub max_receives: Option<u32>,
}

impl QueueConfig {
    pub(crate) fn new(visibility_timeout: Tick) -> Self {
        QueueConfig { visibility_timeout, max_receives: None }
    }
}

/// What [`Queue::receive`] hands to a consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery<B> {
    pub id: MessageId,
    pub body: B,
    /// How often this message has been delivered, this delivery included (the lesson's `versuche`).
    pub attempts: u32,
}

/// Where a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageState {
    /// Waiting to be received.
    Visible,
    /// Received and not acked; visible again at `until` unless acked first.
    InFlight { until: Tick },
    /// Acked and deleted.
    Acked,
    /// Moved to the dead-letter list after too many deliveries.
    DeadLettered,
}

/// Why an ack deleted nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AckOutcome {
    /// The message was deleted by this ack.
    Deleted,
    /// The message had been deleted by an earlier ack.
    AlreadyAcked,
    /// The message is in the dead-letter list.
    DeadLettered,
    /// No message with this id was ever sent.
    Unknown,
}

/// One thing that happened in the queue.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum QueueEvent {
    Sent {
        id: MessageId,
    },
    Received {
        id: MessageId,
        attempt: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        consumer: Option<String>,
        invisible_until: Tick,
    },
    /// `receive()` found no visible message.
    ReceivedNothing {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        consumer: Option<String>,
    },
    /// An ack; `outcome` says whether it deleted the message or was a no-op.
    Ack {
        id: MessageId,
        outcome: AckOutcome,
    },
    /// The visibility timeout ran out without an ack: the message can be received again.
    VisibleAgain {
        id: MessageId,
        attempts: u32,
    },
    /// The visibility timeout ran out after the last allowed delivery.
    DeadLettered {
        id: MessageId,
        attempts: u32,
    },
    /// Someone asked how many messages are open (the lesson's `offen()`); `ids` are those messages.
    OpenCounted {
        ids: Vec<MessageId>,
    },
    /// Time moved forward.
    Ticked {
        from: Tick,
        to: Tick,
    },
    /// A remark by whoever drives the simulation (a consumer's effect, a crash).
    Note {
        text: Text,
    },
}

#[derive(Debug, Clone)]
struct Message<B> {
    body: B,
    attempts: u32,
    state: MessageState,
}

/// The queue. `B` is the message body (the scenario scripts use `String`).
#[derive(Debug, Clone)]
pub struct Queue<B> {
    config: QueueConfig,
    now: Tick,
    /// Every message ever sent, by `id - 1`.
    messages: Vec<Message<B>>,
    trace: Vec<TraceEntry<QueueEvent>>,
}

impl<B: Clone> Queue<B> {
    pub(crate) fn new(config: QueueConfig) -> Result<Self, SimError> {
        if config.visibility_timeout == 0 {
            return Err(SimError::ZeroVisibilityTimeout);
        }
        if config.max_receives == Some(0) {
            return Err(SimError::ZeroMaxReceives);
        }
        Ok(Queue { config, now: 0, messages: Vec::new(), trace: Vec::new() })
    }

    /// The current tick.
    pub(crate) fn now(&self) -> Tick {
        self.now
    }

    fn record(&mut self, tick: Tick, event: QueueEvent) {
        self.trace.push(TraceEntry { tick, event });
    }

    /// Appends a message; it is visible at once.
    pub(crate) fn send(&mut self, body: B) -> MessageId {
        self.messages.push(Message { body, attempts: 0, state: MessageState::Visible });
        let id = self.messages.len() as MessageId;
        self.record(self.now, QueueEvent::Sent { id });
        id
    }

    /// Receives the oldest visible message, if any, and hides it for the visibility timeout.
    pub(crate) fn receive(&mut self) -> Option<Delivery<B>> {
        self.receive_inner(None)
    }

    /// Like [`receive`](Self::receive), naming the consumer in the trace.
    pub(crate) fn receive_for(&mut self, consumer: impl Into<String>) -> Option<Delivery<B>> {
        self.receive_inner(Some(consumer.into()))
    }

    fn receive_inner(&mut self, consumer: Option<String>) -> Option<Delivery<B>> {
        let now = self.now;
        let until = now.saturating_add(self.config.visibility_timeout);
        let Some(index) = self.messages.iter().position(|m| m.state == MessageState::Visible) else {
            self.record(now, QueueEvent::ReceivedNothing { consumer });
            return None;
        };
        let message = &mut self.messages[index];
        message.attempts += 1;
        message.state = MessageState::InFlight { until };
        let delivery =
            Delivery { id: index as MessageId + 1, body: message.body.clone(), attempts: message.attempts };
        self.record(
            now,
            QueueEvent::Received {
                id: delivery.id,
                attempt: delivery.attempts,
                consumer,
                invisible_until: until,
            },
        );
        Some(delivery)
    }

    /// Deletes the message. Acking a message that is already gone is a no-op, and the trace says so.
    /// A message whose timeout ran out but that nobody received again is still deleted: the
    /// consumer did finish, only late.
    pub(crate) fn ack(&mut self, id: MessageId) -> AckOutcome {
        let outcome = match self.index(id) {
            None => AckOutcome::Unknown,
            Some(index) => {
                let message = &mut self.messages[index];
                match message.state {
                    MessageState::Acked => AckOutcome::AlreadyAcked,
                    MessageState::DeadLettered => AckOutcome::DeadLettered,
                    MessageState::Visible | MessageState::InFlight { .. } => {
                        message.state = MessageState::Acked;
                        AckOutcome::Deleted
                    }
                }
            }
        };
        self.record(self.now, QueueEvent::Ack { id, outcome });
        outcome
    }

    /// Moves time forward by `n` ticks. Messages whose visibility timeout runs out on the way become
    /// visible again (or move to the dead-letter list), each at the tick its timeout ran out, in the
    /// order of that tick and then of id.
    pub(crate) fn tick(&mut self, n: Tick) -> Result<(), SimError> {
        let from = self.now;
        let to = from.checked_add(n).ok_or(SimError::TimeOverflow)?;
        self.now = to;
        let mut expiring: Vec<(Tick, usize)> = self
            .messages
            .iter()
            .enumerate()
            .filter_map(|(i, m)| match m.state {
                MessageState::InFlight { until } if until <= to => Some((until, i)),
                _ => None,
            })
            .collect();
        expiring.sort_unstable();
        for (until, index) in expiring {
            let message = &mut self.messages[index];
            let id = index as MessageId + 1;
            let attempts = message.attempts;
            if self.config.max_receives.is_some_and(|max| attempts >= max) {
                message.state = MessageState::DeadLettered;
                self.record(until, QueueEvent::DeadLettered { id, attempts });
            } else {
                message.state = MessageState::Visible;
                self.record(until, QueueEvent::VisibleAgain { id, attempts });
            }
        }
        self.record(to, QueueEvent::Ticked { from, to });
        Ok(())
    }

    /// Adds a remark to the trace at the current tick.
    pub(crate) fn note(&mut self, text: Text) {
        self.record(self.now, QueueEvent::Note { text });
    }

    /// Messages not yet acked and not dead-lettered (visible or in flight): the lesson's `offen()`.
    /// Like every operation of a modelled actor, it leaves an event in the trace.
    pub(crate) fn open(&mut self) -> usize {
        let ids = self.open_ids();
        let count = ids.len();
        self.record(self.now, QueueEvent::OpenCounted { ids });
        count
    }

    /// The same count without a trace event, for whoever drives the simulation (a harness deciding
    /// whether to go on), not for a modelled consumer.
    pub(crate) fn open_count(&self) -> usize {
        self.messages
            .iter()
            .filter(|m| matches!(m.state, MessageState::Visible | MessageState::InFlight { .. }))
            .count()
    }

    /// The ids of the open messages, oldest first.
    pub(crate) fn open_ids(&self) -> Vec<MessageId> {
        self.ids_where(|s| matches!(s, MessageState::Visible | MessageState::InFlight { .. }))
    }

    /// The dead-letter list, in the order the messages were sent.
    pub(crate) fn dead_letters(&self) -> Vec<Delivery<B>> {
        self.messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.state == MessageState::DeadLettered)
            .map(|(i, m)| Delivery { id: i as MessageId + 1, body: m.body.clone(), attempts: m.attempts })
            .collect()
    }

    fn ids_where(&self, keep: impl Fn(MessageState) -> bool) -> Vec<MessageId> {
        self.messages
            .iter()
            .enumerate()
            .filter(|(_, m)| keep(m.state))
            .map(|(i, _)| i as MessageId + 1)
            .collect()
    }

    fn index(&self, id: MessageId) -> Option<usize> {
        let index = usize::try_from(id.checked_sub(1)?).ok()?;
        (index < self.messages.len()).then_some(index)
    }

    /// A message's body, whatever its state.
    pub(crate) fn body(&self, id: MessageId) -> Option<&B> {
        self.index(id).map(|i| &self.messages[i].body)
    }

    /// A message's state.
    #[cfg(test)]
    pub(crate) fn state(&self, id: MessageId) -> Option<MessageState> {
        self.index(id).map(|i| self.messages[i].state)
    }

    /// Every event so far, ordered by tick.
    pub(crate) fn trace(&self) -> &[TraceEntry<QueueEvent>] {
        &self.trace
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(timeout: Tick) -> Queue<&'static str> {
        Queue::new(QueueConfig::new(timeout)).expect("valid config")
    }

    #[test]
    fn lesson_exercise_1_by_hand() {
        let mut q = queue(3);
        let z1 = q.send("zahlung-1");
        let z2 = q.send("zahlung-2");
        let a = q.receive_for("A").expect("A gets a message");
        assert_eq!((a.id, a.body, a.attempts), (z1, "zahlung-1", 1));
        q.tick(2).unwrap();
        let b = q.receive_for("B").expect("B gets a message");
        assert_eq!((b.id, b.attempts), (z2, 1));
        assert_eq!(q.ack(b.id), AckOutcome::Deleted);
        q.tick(2).unwrap();
        let c = q.receive_for("C").expect("C gets zahlung-1 again");
        assert_eq!((c.id, c.attempts), (z1, 2));
        assert_eq!(q.ack(c.id), AckOutcome::Deleted);
        assert_eq!(q.ack(a.id), AckOutcome::AlreadyAcked);
        assert_eq!(q.open(), 0);
        let visible_again: Vec<_> =
            q.trace().iter().filter(|e| matches!(e.event, QueueEvent::VisibleAgain { .. })).collect();
        assert_eq!(visible_again.len(), 1);
        assert_eq!(visible_again[0].tick, 3, "visible again exactly when the timeout runs out");
        assert!(q.trace().windows(2).all(|w| w[0].tick <= w[1].tick), "trace ordered by tick");
    }

    #[test]
    fn invisible_until_the_timeout_runs_out() {
        let mut q = queue(3);
        q.send("m");
        assert!(q.receive().is_some());
        q.tick(2).unwrap();
        assert!(q.receive().is_none());
        q.tick(1).unwrap();
        let again = q.receive().expect("visible at t=3");
        assert_eq!(again.attempts, 2);
        assert_eq!(q.open(), 1);
        assert_eq!(q.open_ids(), vec![1]);
    }

    #[test]
    fn receive_limit_moves_to_dead_letters() {
        let mut q = Queue::new(QueueConfig { visibility_timeout: 2, max_receives: Some(2) }).unwrap();
        q.send("gift");
        q.send("gut");
        assert_eq!(q.receive().map(|d| d.body), Some("gift"));
        q.tick(2).unwrap();
        assert_eq!(q.receive().map(|d| (d.body, d.attempts)), Some(("gift", 2)));
        q.tick(2).unwrap();
        assert_eq!(q.dead_letters().iter().map(|d| (d.id, d.attempts)).collect::<Vec<_>>(), vec![(1, 2)]);
        assert_eq!(q.receive().map(|d| d.body), Some("gut"));
        assert_eq!(q.open(), 1);
        assert_eq!(q.ack(1), AckOutcome::DeadLettered);
        assert_eq!(q.state(1), Some(MessageState::DeadLettered));
        let dead = q.trace().iter().find(|e| matches!(e.event, QueueEvent::DeadLettered { .. }));
        assert_eq!(dead.map(|e| e.tick), Some(4));
    }

    #[test]
    fn ack_of_unknown_or_late_message() {
        let mut q = queue(1);
        assert_eq!(q.ack(7), AckOutcome::Unknown);
        assert_eq!(q.ack(0), AckOutcome::Unknown);
        q.send("m");
        q.receive();
        q.tick(5).unwrap();
        assert_eq!(q.state(1), Some(MessageState::Visible));
        assert_eq!(q.ack(1), AckOutcome::Deleted, "a late ack still deletes a message nobody took again");
        assert_eq!(q.open(), 0);
    }

    #[test]
    fn invalid_configs_and_overflow() {
        assert_eq!(Queue::<()>::new(QueueConfig::new(0)).err(), Some(SimError::ZeroVisibilityTimeout));
        let zero = QueueConfig { visibility_timeout: 1, max_receives: Some(0) };
        assert_eq!(Queue::<()>::new(zero).err(), Some(SimError::ZeroMaxReceives));
        let mut q = queue(1);
        q.tick(Tick::MAX).unwrap();
        assert_eq!(q.tick(1), Err(SimError::TimeOverflow));
    }

    #[test]
    fn every_operation_is_traced_with_its_tick() {
        let mut q = Queue::new(QueueConfig { visibility_timeout: 2, max_receives: Some(1) }).unwrap();
        q.send("a");
        q.send("b");
        q.receive();
        q.tick(1).unwrap();
        q.receive_for("K");
        assert_eq!(q.ack(2), AckOutcome::Deleted);
        assert_eq!(q.ack(2), AckOutcome::AlreadyAcked);
        q.tick(3).unwrap();
        assert!(q.receive().is_none());
        assert_eq!(q.open_count(), 0, "a peek leaves no event");
        assert_eq!(q.open(), 0);
        let events: Vec<(Tick, QueueEvent)> = q.trace().iter().map(|e| (e.tick, e.event.clone())).collect();
        use QueueEvent::*;
        assert_eq!(
            events,
            vec![
                (0, Sent { id: 1 }),
                (0, Sent { id: 2 }),
                (0, Received { id: 1, attempt: 1, consumer: None, invisible_until: 2 }),
                (1, Ticked { from: 0, to: 1 }),
                (1, Received { id: 2, attempt: 1, consumer: Some("K".into()), invisible_until: 3 }),
                (1, Ack { id: 2, outcome: AckOutcome::Deleted }),
                (1, Ack { id: 2, outcome: AckOutcome::AlreadyAcked }),
                (2, DeadLettered { id: 1, attempts: 1 }),
                (4, Ticked { from: 1, to: 4 }),
                (4, ReceivedNothing { consumer: None }),
                (4, OpenCounted { ids: vec![] }),
            ]
        );
    }

    #[test]
    fn oldest_visible_first() {
        let mut q = queue(2);
        q.send("1");
        q.send("2");
        q.receive();
        q.receive();
        q.send("3");
        q.tick(2).unwrap();
        let order: Vec<_> = std::iter::from_fn(|| q.receive().map(|d| d.body)).collect();
        assert_eq!(order, vec!["1", "2", "3"]);
    }
}
