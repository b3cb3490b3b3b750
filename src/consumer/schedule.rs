//! The seeded at-least-once schedule check: a batch of messages (one of them a poison message whose
//! effect always violates a constraint) goes through [`crate::sim::Queue`] with a visibility timeout
//! and a receive limit, while a ChaCha seed draws the faults: duplicate and reordered sends, crashes
//! at crash points (after a write or after a COMMIT), lost acks, slow consumers, restarts. The run goes on until the queue is empty.
//! Afterwards every ordinary message must have taken effect exactly once (the state equals the
//! reference's for them), the poison message must sit in the dead-letter list with no effect, and no
//! message may be lost. A failing schedule is shrunk before it is reported.

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::sim::Tick;
use crate::text;
use crate::text::Text;

/// Schedules run per submission (each from its own seed, derived from the submission's hash).
pub const SCHEDULES_PER_SUBMISSION: u64 = 6;
/// The queue's visibility timeout in the schedules, in ticks; a delivery takes one tick.
pub(crate) const VISIBILITY_TIMEOUT: Tick = 2;
/// Deliveries after which an unacked message moves to the dead-letter list.
pub(crate) const MAX_RECEIVES: u32 = 3;
/// The highest crash point a drawn crash strikes at (crash points are counted per delivery: after each
/// write and each COMMIT; a correct consumer of the lesson's exercises has three). Part of how
/// schedules are drawn (a replay token depends on it), not a limit.
const HIGHEST_DRAWN_CRASH_POINT: u32 = 3;

/// What goes wrong at one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Fault {
    None,
    /// The consumer is killed at its k-th crash point of the delivery (after a write or a COMMIT).
    Crash(u32),
    /// The consumer finishes, but its ack is lost on the way to the queue.
    LoseAck,
    /// The consumer works so slowly that the visibility timeout runs out and a second instance
    /// receives the message before the first finishes.
    Slow,
    /// The consumer process restarts before this delivery (memory lost).
    Restart,
    /// The consumer finishes its work, COMMIT included, and dies before its ack reaches the queue.
    /// Never drawn from a seed: the redrive schedule of an exercise that declares a queue
    /// (`[consumer.world.queue]`) strikes every delivery with it but a message's last.
    CrashBeforeAck,
}

impl Fault {
    fn code(self) -> String {
        match self {
            Fault::None => "-".into(),
            Fault::Crash(k) => format!("c{k}"),
            Fault::LoseAck => "a".into(),
            Fault::Slow => "s".into(),
            Fault::Restart => "r".into(),
            Fault::CrashBeforeAck => "k".into(),
        }
    }

    fn parse(code: &str) -> Option<Fault> {
        match code {
            "-" => Some(Fault::None),
            "a" => Some(Fault::LoseAck),
            "s" => Some(Fault::Slow),
            "r" => Some(Fault::Restart),
            "k" => Some(Fault::CrashBeforeAck),
            _ => code.strip_prefix('c')?.parse().ok().filter(|k| *k >= 1).map(Fault::Crash),
        }
    }

    fn describe(self, delivery: usize) -> Option<Text> {
        Some(match self {
            Fault::None => return None,
            Fault::Crash(k) => text!(
                "Zustellung {delivery}: Absturz an Absturzpunkt {k}",
                "delivery {delivery}: crash at crash point {k}"
            ),
            Fault::LoseAck => {
                text!("Zustellung {delivery}: das Ack geht verloren", "delivery {delivery}: the ack is lost")
            }
            Fault::Slow => text!(
                "Zustellung {delivery}: der Konsument ist langsamer als das Visibility Timeout",
                "delivery {delivery}: the consumer is slower than the visibility timeout"
            ),
            Fault::Restart => text!(
                "Zustellung {delivery}: der Prozess startet vorher neu",
                "delivery {delivery}: the process restarts before it"
            ),
            Fault::CrashBeforeAck => text!(
                "Zustellung {delivery}: Absturz nach dem COMMIT, vor dem Ack",
                "delivery {delivery}: crash after the COMMIT, before the ack"
            ),
        })
    }
}

/// One schedule: what is sent in which order, and the fault at each delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Schedule {
    pub seed: u64,
    /// The size of the schedule this one was shrunk from (its own size if it was not shrunk).
    pub original_size: usize,
    /// Indices into the batch, in send order; an index sent twice is a duplicate (a producer retry).
    pub sends: Vec<usize>,
    /// The fault at the n-th delivery; deliveries beyond the list have none.
    pub faults: Vec<Fault>,
}

impl Schedule {
    /// Draws a schedule for a batch of `messages` from `seed`.
    pub(crate) fn generate(seed: u64, messages: usize) -> Schedule {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut below = |n: u32| rng.next_u32() % n.max(1);
        // A shuffled send order (the network reorders), with some sends duplicated later on.
        let mut sends: Vec<usize> = (0..messages).collect();
        for i in (1..sends.len()).rev() {
            let j = below(i as u32 + 1) as usize;
            sends.swap(i, j);
        }
        let mut with_duplicates = Vec::with_capacity(sends.len() * 2);
        let mut later = Vec::new();
        for index in sends {
            with_duplicates.push(index);
            if below(4) == 0 {
                later.push(index);
            }
            if !later.is_empty() && below(2) == 0 {
                with_duplicates.push(later.remove(0));
            }
        }
        with_duplicates.extend(later);
        let deliveries = with_duplicates.len() * 2;
        let faults = (0..deliveries)
            .map(|_| match below(100) {
                0..45 => Fault::None,
                45..67 => Fault::Crash(1 + below(HIGHEST_DRAWN_CRASH_POINT)),
                67..80 => Fault::LoseAck,
                80..92 => Fault::Slow,
                _ => Fault::Restart,
            })
            .collect();
        let mut schedule = Schedule { seed, original_size: 0, sends: with_duplicates, faults };
        schedule.trim();
        schedule.original_size = schedule.size();
        schedule
    }

    /// The redrive schedule of `calm` (an exercise with a declared queue): the same sends, and every
    /// delivery that may be disturbed ends in a crash after its COMMIT, before its ack. A correct
    /// consumer's redelivery is then an ack without effect, so no processed message moves towards
    /// the dead letter queue: its last allowed receive is spared and acks it.
    pub(crate) fn redrive(calm: &Schedule, max_receives: u32) -> Schedule {
        let deliveries = calm.sends.len() * max_receives as usize;
        let faults = vec![Fault::CrashBeforeAck; deliveries];
        let mut schedule = Schedule { seed: calm.seed, original_size: 0, sends: calm.sends.clone(), faults };
        schedule.original_size = schedule.size();
        schedule
    }

    /// Sends plus faults: what the shrinker makes smaller.
    pub(crate) fn size(&self) -> usize {
        self.sends.len() + self.faults.iter().filter(|f| **f != Fault::None).count()
    }

    fn trim(&mut self) {
        while self.faults.last() == Some(&Fault::None) {
            self.faults.pop();
        }
    }

    /// `seed.original_size.sends.faults`, e.g. `9f2c.14.0,2,1,2.-,c2,a`: the replay spec.
    pub(crate) fn encode(&self) -> String {
        let sends: Vec<String> = self.sends.iter().map(|i| i.to_string()).collect();
        let faults: Vec<String> = self.faults.iter().map(|f| f.code()).collect();
        format!("{:x}.{}.{}.{}", self.seed, self.original_size, sends.join(","), faults.join(","))
    }

    pub(crate) fn decode(spec: &str, messages: usize) -> Option<Schedule> {
        let mut parts = spec.split('.');
        let seed = u64::from_str_radix(parts.next()?, 16).ok()?;
        let original_size = parts.next()?.parse().ok()?;
        let sends: Vec<usize> = match parts.next()? {
            "" => Vec::new(),
            list => {
                list.split(',').map(|i| i.parse().ok().filter(|i| *i < messages)).collect::<Option<_>>()?
            }
        };
        let faults: Vec<Fault> = match parts.next().unwrap_or("") {
            "" => Vec::new(),
            list => list.split(',').map(Fault::parse).collect::<Option<_>>()?,
        };
        if parts.next().is_some() || sends.is_empty() {
            return None;
        }
        Some(Schedule { seed, original_size, sends, faults })
    }

    /// The schedule in words: what was sent, which faults struck.
    pub(crate) fn describe(&self, label: &dyn Fn(usize) -> String) -> Text {
        let sends: Vec<String> = self.sends.iter().map(|i| label(*i)).collect();
        let faults: Vec<Text> =
            self.faults.iter().enumerate().filter_map(|(n, f)| f.describe(n + 1)).collect();
        let list = |lang: crate::text::Lang| {
            if faults.is_empty() {
                match lang {
                    crate::text::Lang::De => "keine".to_string(),
                    crate::text::Lang::En => "none".to_string(),
                }
            } else {
                faults.iter().map(|f| f.get(lang).to_string()).collect::<Vec<_>>().join("; ")
            }
        };
        Text {
            de: format!("gesendet: {}; Störungen: {}", sends.join(", "), list(crate::text::Lang::De)),
            en: format!("sent: {}; faults: {}", sends.join(", "), list(crate::text::Lang::En)),
        }
    }

    /// Smaller schedules to try, most promising first: fewer sends, fewer faults, earlier crashes.
    pub(crate) fn candidates(&self) -> Vec<Schedule> {
        let mut out = Vec::new();
        if self.sends.len() > 1 {
            for i in (0..self.sends.len()).rev() {
                let mut smaller = self.clone();
                smaller.sends.remove(i);
                out.push(smaller);
            }
        }
        for i in (0..self.faults.len()).rev() {
            if self.faults[i] != Fault::None {
                let mut smaller = self.clone();
                smaller.faults[i] = Fault::None;
                smaller.trim();
                out.push(smaller);
            }
        }
        for i in 0..self.faults.len() {
            if let Fault::Crash(k) = self.faults[i]
                && k > 1
            {
                let mut earlier = self.clone();
                earlier.faults[i] = Fault::Crash(k - 1);
                out.push(earlier);
            }
        }
        out
    }
}

pub use crate::report::consumer::ScheduleInfo;

/// What the report says of `schedule`, each message named by `label`.
pub(crate) fn schedule_info(schedule: &Schedule, label: &dyn Fn(usize) -> String) -> ScheduleInfo {
    ScheduleInfo {
        seed: format!("{:#018x}", schedule.seed),
        original_size: schedule.original_size,
        size: schedule.size(),
        description: schedule.describe(label),
    }
}

/// A message of the batch as the schedules name it: `m7` for id 7.
pub(crate) fn message_label(message: &Arc<serde_json::Value>) -> String {
    match &message["id"] {
        serde_json::Value::String(id) => format!("m{id}"),
        other => format!("m{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_always_draws_the_same_schedule() {
        assert_eq!(Schedule::generate(42, 5), Schedule::generate(42, 5));
        assert_ne!(Schedule::generate(42, 5), Schedule::generate(43, 5));
        let schedule = Schedule::generate(42, 5);
        for index in 0..5 {
            assert!(schedule.sends.contains(&index), "every message is sent");
        }
    }

    #[test]
    fn the_replay_spec_round_trips() {
        for seed in 0..20 {
            let schedule = Schedule::generate(seed, 6);
            assert_eq!(Schedule::decode(&schedule.encode(), 6), Some(schedule));
        }
        let redrive = Schedule::redrive(&Schedule::generate(3, 4), 3);
        assert!(redrive.faults.iter().all(|f| *f == Fault::CrashBeforeAck));
        assert_eq!(Schedule::decode(&redrive.encode(), 4), Some(redrive));
        assert_eq!(Schedule::decode("zz.1.0.-", 6), None);
        assert_eq!(Schedule::decode("1f.3.9.-", 6), None, "index outside the batch");
    }

    #[test]
    fn every_candidate_is_smaller_or_has_an_earlier_crash() {
        let schedule = Schedule::generate(7, 5);
        for candidate in schedule.candidates() {
            let earlier_crash = candidate.size() == schedule.size();
            assert!(candidate.size() < schedule.size() || earlier_crash);
        }
    }
}
