//! The lesson's `FakeNetz`: a seeded network that loses, duplicates and delays (and so reorders)
//! messages.
//!
//! # What a seed means
//!
//! The algorithm is fixed, so a seed gives the same outcome on every machine and in every version
//! that keeps this description (golden tests pin it):
//!
//! 1. The generator is ChaCha8 (`rand_chacha::ChaCha8Rng`) keyed with 32 bytes: the seed as a
//!    little-endian `u64`, then 24 zero bytes.
//! 2. Every sent message takes exactly six `u32` draws (`next_u32`), in this order, whether or not a
//!    draw matters: loss, duplicate, delay of copy 1, duration of copy 1, delay of copy 2, duration
//!    of copy 2.
//! 3. A draw `x` becomes a roll per mille `floor(x * 1000 / 2^32)` (0..=999), and a duration
//!    `1 + floor(x * max_delay / 2^32)` (1..=max_delay). Only integer arithmetic is used.
//! 4. The message is lost if its loss roll is below `loss_per_mille`. Otherwise it travels as two
//!    copies if its duplicate roll is below `duplicate_per_mille`, else as one. Copy k is delayed by
//!    its duration if its delay roll is below `delay_per_mille`, else not at all.
//! 5. The n-th message (counting from 0) is sent at tick n; a copy arrives at `n + delay`.
//!    [`Network::deliver`] hands out everything in flight ordered by arrival tick, then by send
//!    tick, then by copy number.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{SimError, Tick, TraceEntry};

/// Probabilities are integers per mille, compared with rolls derived from `next_u32` (never floats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkConfig {
    pub loss_per_mille: u32,
    pub duplicate_per_mille: u32,
    pub delay_per_mille: u32,
    /// Longest delay in ticks (a delayed copy waits 1..=max_delay ticks).
    pub max_delay: u32,
}

impl Default for NetworkConfig {
    /// The lesson's network: 20 % loss, 20 % duplicates, 30 % of copies delayed by 1 to 3 ticks.
    fn default() -> Self {
        NetworkConfig { loss_per_mille: 200, duplicate_per_mille: 200, delay_per_mille: 300, max_delay: 3 }
    }
}

impl NetworkConfig {
    pub(crate) fn validate(&self) -> Result<(), SimError> {
        for (name, value) in [
            ("loss_per_mille", self.loss_per_mille),
            ("duplicate_per_mille", self.duplicate_per_mille),
            ("delay_per_mille", self.delay_per_mille),
        ] {
            if value > 1000 {
                return Err(SimError::PerMille { name, value });
            }
        }
        if self.delay_per_mille > 0 && self.max_delay == 0 {
            return Err(SimError::ZeroMaxDelay);
        }
        Ok(())
    }
}

/// The six rolls of one message (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rolls {
    /// Per mille, 0..=999.
    pub loss: u32,
    /// Per mille.
    pub duplicate: u32,
    /// Per mille, per copy.
    pub delay: [u32; 2],
    /// Ticks, 1..=max_delay, per copy (used only when that copy is delayed).
    pub duration: [u32; 2],
}

/// What the network decided for one copy of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyFate {
    /// Ticks of delay (0 = not delayed).
    pub delay: u32,
    pub arrival: Tick,
}

/// What the network decided for one message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fate {
    /// The send tick, which is also the message's index (from 0).
    pub sent: Tick,
    pub rolls: Rolls,
    /// Empty if the message was lost; two copies if it was duplicated.
    pub copies: Vec<CopyFate>,
}

impl Fate {
    #[cfg(test)]
    pub(crate) fn lost(&self) -> bool {
        self.copies.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum NetworkEvent {
    Sent { message: Tick, rolls: Rolls },
    Lost { message: Tick },
    Duplicated { message: Tick },
    Delayed { message: Tick, copy: u32, by: u32, arrival: Tick },
    Arrived { message: Tick, copy: u32 },
}

/// A copy that [`Network::deliver`] hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival<B> {
    /// The send tick (= index) of the message.
    pub message: Tick,
    /// 1 for the original, 2 for the duplicate.
    pub copy: u32,
    pub arrival: Tick,
    pub body: B,
}

#[derive(Debug, Clone)]
pub struct Network<B> {
    seed: u64,
    config: NetworkConfig,
    rng: ChaCha8Rng,
    bodies: Vec<B>,
    fates: Vec<Fate>,
    /// (arrival, message, copy) of copies not yet delivered.
    in_flight: Vec<(Tick, Tick, u32)>,
    trace: Vec<TraceEntry<NetworkEvent>>,
}

/// `floor(x * n / 2^32)`: maps a uniform `u32` onto `0..n` without floats.
fn scale(x: u32, n: u32) -> u32 {
    ((u64::from(x) * u64::from(n)) >> 32) as u32
}

impl<B: Clone> Network<B> {
    pub fn new(seed: u64, config: NetworkConfig) -> Result<Self, SimError> {
        config.validate()?;
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        Ok(Network {
            seed,
            config,
            rng: ChaCha8Rng::from_seed(key),
            bodies: Vec::new(),
            fates: Vec::new(),
            in_flight: Vec::new(),
            trace: Vec::new(),
        })
    }

    pub(crate) fn seed(&self) -> u64 {
        self.seed
    }

    pub(crate) fn config(&self) -> NetworkConfig {
        self.config
    }

    /// Sends a message: the network decides its fate now (six draws) and returns it.
    pub fn send(&mut self, body: B) -> &Fate {
        let sent = self.fates.len() as Tick;
        let mut draw = || self.rng.next_u32();
        let (loss, duplicate, delay1, duration1, delay2, duration2) =
            (draw(), draw(), draw(), draw(), draw(), draw());
        let c = self.config;
        let rolls = Rolls {
            loss: scale(loss, 1000),
            duplicate: scale(duplicate, 1000),
            delay: [scale(delay1, 1000), scale(delay2, 1000)],
            duration: [1 + scale(duration1, c.max_delay), 1 + scale(duration2, c.max_delay)],
        };
        self.trace.push(TraceEntry { tick: sent, event: NetworkEvent::Sent { message: sent, rolls } });
        let mut copies = Vec::new();
        if rolls.loss < c.loss_per_mille {
            self.trace.push(TraceEntry { tick: sent, event: NetworkEvent::Lost { message: sent } });
        } else {
            let count = if rolls.duplicate < c.duplicate_per_mille {
                self.trace.push(TraceEntry { tick: sent, event: NetworkEvent::Duplicated { message: sent } });
                2
            } else {
                1
            };
            for k in 0..count {
                let delay = if rolls.delay[k] < c.delay_per_mille { rolls.duration[k] } else { 0 };
                let arrival = sent + Tick::from(delay);
                let copy = k as u32 + 1;
                if delay > 0 {
                    self.trace.push(TraceEntry {
                        tick: sent,
                        event: NetworkEvent::Delayed { message: sent, copy, by: delay, arrival },
                    });
                }
                self.in_flight.push((arrival, sent, copy));
                copies.push(CopyFate { delay, arrival });
            }
        }
        self.bodies.push(body);
        self.fates.push(Fate { sent, rolls, copies });
        &self.fates[sent as usize]
    }

    /// Everything in flight, in arrival order (arrival tick, then send tick, then copy); the
    /// network is empty afterwards.
    pub fn deliver(&mut self) -> Vec<Arrival<B>> {
        self.in_flight.sort_unstable();
        let arrivals: Vec<Arrival<B>> = self
            .in_flight
            .drain(..)
            .map(|(arrival, message, copy)| Arrival {
                message,
                copy,
                arrival,
                body: self.bodies[message as usize].clone(),
            })
            .collect();
        for a in &arrivals {
            self.trace.push(TraceEntry {
                tick: a.arrival,
                event: NetworkEvent::Arrived { message: a.message, copy: a.copy },
            });
        }
        arrivals
    }

    /// The fate of every message sent so far, in send order.
    pub(crate) fn fates(&self) -> &[Fate] {
        &self.fates
    }

    /// The body of the message sent at tick `message`.
    pub(crate) fn body(&self, message: Tick) -> Option<&B> {
        usize::try_from(message).ok().and_then(|i| self.bodies.get(i))
    }

    /// Every event in the order it was recorded (sends, then deliveries; see [`describe`](super::describe)
    /// for a timeline ordered by tick).
    pub(crate) fn trace(&self) -> &[TraceEntry<NetworkEvent>] {
        &self.trace
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(seed: u64, n: usize) -> Vec<String> {
        let mut net = Network::new(seed, NetworkConfig::default()).unwrap();
        for i in 1..=n {
            net.send(format!("bestellung-{i}"));
        }
        net.deliver().into_iter().map(|a| a.body).collect()
    }

    #[test]
    fn same_seed_same_outcome() {
        assert_eq!(run(7, 20), run(7, 20));
        assert_ne!(run(7, 20), run(8, 20));
    }

    #[test]
    fn scale_has_no_float_and_covers_the_range() {
        assert_eq!(scale(0, 1000), 0);
        assert_eq!(scale(u32::MAX, 1000), 999);
        assert_eq!(scale(u32::MAX, 3), 2);
        assert_eq!(scale(1 << 31, 1000), 500);
    }

    #[test]
    fn certain_loss_and_certain_duplicates() {
        let lose_all = NetworkConfig { loss_per_mille: 1000, ..NetworkConfig::default() };
        let mut net = Network::new(1, lose_all).unwrap();
        net.send("a");
        assert!(net.deliver().is_empty());
        let twice =
            NetworkConfig { loss_per_mille: 0, duplicate_per_mille: 1000, delay_per_mille: 0, max_delay: 0 };
        let mut net = Network::new(1, twice).unwrap();
        net.send("a");
        net.send("b");
        let got: Vec<_> = net.deliver().into_iter().map(|a| (a.body, a.copy)).collect();
        assert_eq!(got, vec![("a", 1), ("a", 2), ("b", 1), ("b", 2)]);
    }

    #[test]
    fn invalid_configs() {
        let bad = NetworkConfig { loss_per_mille: 1001, ..NetworkConfig::default() };
        assert!(matches!(Network::<()>::new(0, bad), Err(SimError::PerMille { name: "loss_per_mille", .. })));
        let bad = NetworkConfig { max_delay: 0, ..NetworkConfig::default() };
        assert_eq!(Network::<()>::new(0, bad).err(), Some(SimError::ZeroMaxDelay));
    }

    #[test]
    fn delays_reorder_by_arrival_then_send_order() {
        let mut net = Network::new(3, NetworkConfig::default()).unwrap();
        for i in 0..50 {
            net.send(i);
        }
        let arrivals = net.deliver();
        assert!(
            arrivals
                .windows(2)
                .all(|w| (w[0].arrival, w[0].message, w[0].copy) < (w[1].arrival, w[1].message, w[1].copy))
        );
        for a in &arrivals {
            let fate = &net.fates()[a.message as usize];
            assert_eq!(fate.copies[(a.copy - 1) as usize].arrival, a.arrival);
        }
        let lost = net.fates().iter().filter(|f| f.lost()).count();
        let copies: usize = net.fates().iter().map(|f| f.copies.len()).sum();
        assert_eq!(copies, arrivals.len());
        assert!(lost > 0 && lost < 50, "50 messages at 20 % loss lose some, not all");
    }
}
/// Golden values: if one of these changes, a seed no longer means what exercises and reports say.
#[cfg(test)]
mod golden {
    use super::*;

    fn arrivals(seed: u64) -> Vec<(u32, u32)> {
        let mut net = Network::new(seed, NetworkConfig::default()).unwrap();
        for i in 1..=5 {
            net.send(i);
        }
        net.deliver().into_iter().map(|a| (a.body, a.copy)).collect()
    }

    #[test]
    fn chacha8_stream_is_the_documented_one() {
        let mut rng = ChaCha8Rng::from_seed([0u8; 32]);
        let words: Vec<u32> = (0..4).map(|_| rng.next_u32()).collect();
        assert_eq!(words, vec![804192318, 3594542985, 3904396159, 2711947551]);
    }

    #[test]
    fn five_messages_for_fixed_seeds() {
        assert_eq!(arrivals(0), vec![(2, 1), (2, 2), (3, 1), (3, 2), (5, 1), (4, 1)]);
        assert_eq!(arrivals(1), vec![(1, 1), (2, 1), (4, 1), (5, 1), (3, 1)]);
        assert_eq!(arrivals(42), vec![(2, 1), (4, 1)]);
        // The lesson's outcome: 2 lost, 3 twice, 4 overtakes 3.
        assert_eq!(arrivals(806), vec![(1, 1), (4, 1), (3, 2), (3, 1), (5, 1)]);
    }

    #[test]
    fn rolls_of_seed_806() {
        let mut net = Network::new(806, NetworkConfig::default()).unwrap();
        let third = (0..3).map(|i| net.send(i).clone()).last().unwrap();
        assert_eq!(third.rolls, Rolls { loss: 340, duplicate: 138, delay: [280, 179], duration: [3, 2] });
        assert_eq!(third.copies, vec![CopyFate { delay: 3, arrival: 5 }, CopyFate { delay: 2, arrival: 4 }]);
    }
}
