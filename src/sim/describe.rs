//! Turns simulation traces into timelines a student reads: one line per event, with its tick and a
//! German and an English sentence ("t=3: zahlung-1 ist wieder sichtbar ..."). Reports quote these
//! lines to explain why a prediction was wrong.

use serde::{Deserialize, Serialize};

use super::log::{CommitRefusal, EventLog, LogEvent};
use super::network::{Network, NetworkEvent};
use super::queue::{AckOutcome, Queue, QueueEvent};
use super::{Tick, TraceEntry};
use crate::text;
use crate::text::{Lang, Text};

/// One line of a timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineLine {
    pub tick: Tick,
    pub text: Text,
}

impl TimelineLine {
    /// `t=3: ...` in the given language.
    pub fn render(&self, lang: Lang) -> String {
        format!("t={}: {}", self.tick, self.text.get(lang))
    }
}

fn who(consumer: &Option<String>) -> Text {
    match consumer {
        Some(name) => Text::same(name.clone()),
        None => Text::new("Ein Konsument", "A consumer"),
    }
}

/// The queue's trace as a timeline (time passing is implied by the ticks and not listed).
pub(crate) fn queue_timeline<B: Clone>(queue: &Queue<B>, label: impl Fn(&B) -> String) -> Vec<TimelineLine> {
    queue.trace().iter().filter_map(|entry| queue_line(queue, entry, &label)).collect()
}

/// One event of a queue's trace as a timeline line; `None` for events a timeline leaves out.
pub(crate) fn queue_line<B: Clone>(
    queue: &Queue<B>,
    entry: &TraceEntry<QueueEvent>,
    label: &impl Fn(&B) -> String,
) -> Option<TimelineLine> {
    let TraceEntry { tick, event } = entry;
    let name = |id: u64| queue.body(id).map(label).unwrap_or_else(|| format!("#{id}"));
    let text = match event {
        QueueEvent::Sent { id } => {
            text!("{m} wird gesendet (id {id})", "{m} is sent (id {id})", m = name(*id))
        }
        QueueEvent::Received { id, attempt, consumer, invisible_until } => {
            let who = who(consumer);
            Text {
                de: format!(
                    "{} erhält {} (Versuch {attempt}), unsichtbar bis t={invisible_until}",
                    who.de,
                    name(*id)
                ),
                en: format!(
                    "{} receives {} (attempt {attempt}), invisible until t={invisible_until}",
                    who.en,
                    name(*id)
                ),
            }
        }
        QueueEvent::ReceivedNothing { consumer } => {
            let who = who(consumer);
            Text {
                de: format!("{} findet keine sichtbare Nachricht (receive() liefert None)", who.de),
                en: format!("{} finds no visible message (receive() returns None)", who.en),
            }
        }
        QueueEvent::Ack { id, outcome } => {
            let m = name(*id);
            match outcome {
                AckOutcome::Deleted => text!("Ack für {m}: gelöscht", "ack for {m}: deleted"),
                AckOutcome::AlreadyAcked => text!(
                    "Ack für {m} ist wirkungslos: die Nachricht ist schon gelöscht",
                    "ack for {m} has no effect: the message is already deleted"
                ),
                AckOutcome::DeadLettered => text!(
                    "Ack für {m} ist wirkungslos: die Nachricht liegt in der Dead Letter Queue",
                    "ack for {m} has no effect: the message is in the dead letter queue"
                ),
                AckOutcome::Unknown => text!(
                    "Ack für id {id} ist wirkungslos: diese id gibt es nicht",
                    "ack for id {id} has no effect: there is no such id"
                ),
            }
        }
        QueueEvent::VisibleAgain { id, attempts } => Text {
            de: format!(
                "kein Ack für {} innerhalb des Visibility Timeouts: wieder sichtbar (nach {attempts} {})",
                name(*id),
                if *attempts == 1 { "Versuch" } else { "Versuchen" }
            ),
            en: format!(
                "no ack for {} within the visibility timeout: visible again (after {attempts} {})",
                name(*id),
                if *attempts == 1 { "attempt" } else { "attempts" }
            ),
        },
        QueueEvent::DeadLettered { id, attempts } => text!(
            "{m} kommt nach {attempts} Versuchen in die Dead Letter Queue",
            "{m} moves to the dead letter queue after {attempts} attempts",
            m = name(*id)
        ),
        QueueEvent::OpenCounted { ids } => {
            let names: Vec<String> = ids.iter().map(|id| name(*id)).collect();
            let n = ids.len();
            if n == 0 {
                text!(
                    "offen() liefert 0: jede Nachricht ist bestätigt (oder in der Dead Letter Queue)",
                    "open() returns 0: every message is acked (or in the dead letter queue)"
                )
            } else {
                text!(
                    "offen() liefert {n}: noch nicht bestätigt ist {list}",
                    "open() returns {n}: not acked yet is {list}",
                    list = names.join(", ")
                )
            }
        }
        QueueEvent::Ticked { .. } => return None,
        QueueEvent::Note { text } => text.clone(),
    };
    Some(TimelineLine { tick: *tick, text })
}

/// The network's trace as a timeline, ordered by tick (sends and decisions before arrivals at the
/// same tick).
pub(crate) fn network_timeline<B: Clone>(
    network: &Network<B>,
    label: impl Fn(&B) -> String,
) -> Vec<TimelineLine> {
    let name = |message: Tick| network.body(message).map(&label).unwrap_or_else(|| format!("#{message}"));
    let c = network.config();
    let mut lines: Vec<TimelineLine> = network
        .trace()
        .iter()
        .map(|TraceEntry { tick, event }| {
            let text = match event {
                NetworkEvent::Sent { message, rolls } => text!(
                    "{m} wird gesendet (Würfe: Verlust {l}, Doppelt {d}, Verzögerung {d1}/{d2}, Dauer {t1}/{t2})",
                    "{m} is sent (rolls: loss {l}, duplicate {d}, delay {d1}/{d2}, duration {t1}/{t2})",
                    m = name(*message),
                    l = rolls.loss,
                    d = rolls.duplicate,
                    d1 = rolls.delay[0],
                    d2 = rolls.delay[1],
                    t1 = rolls.duration[0],
                    t2 = rolls.duration[1],
                ),
                NetworkEvent::Lost { message } => text!(
                    "{m} geht verloren (Verlust-Wurf < {p})",
                    "{m} is lost (loss roll < {p})",
                    m = name(*message),
                    p = c.loss_per_mille
                ),
                NetworkEvent::Duplicated { message } => text!(
                    "{m} wird verdoppelt (Doppelt-Wurf < {p})",
                    "{m} is duplicated (duplicate roll < {p})",
                    m = name(*message),
                    p = c.duplicate_per_mille
                ),
                NetworkEvent::Delayed { message, copy, by, arrival } => text!(
                    "Kopie {copy} von {m} wird um {by} verzögert (Verzögerungs-Wurf < {p}), Ankunft t={arrival}",
                    "copy {copy} of {m} is delayed by {by} (delay roll < {p}), arrives at t={arrival}",
                    m = name(*message),
                    p = c.delay_per_mille
                ),
                NetworkEvent::Arrived { message, copy } => text!(
                    "{m} kommt an (Kopie {copy})",
                    "{m} arrives (copy {copy})",
                    m = name(*message)
                ),
            };
            TimelineLine { tick: *tick, text }
        })
        .collect();
    lines.sort_by_key(|l| l.tick);
    lines
}

/// The event log's trace as a timeline (the tick is the log's step counter).
pub(crate) fn log_timeline<B: Clone>(log: &EventLog<B>, label: impl Fn(&B) -> String) -> Vec<TimelineLine> {
    log.trace().iter().map(|entry| log_line(log, entry, &label)).collect()
}

/// One event of a log's trace as a timeline line.
pub(crate) fn log_line<B: Clone>(
    log: &EventLog<B>,
    entry: &TraceEntry<LogEvent>,
    label: &impl Fn(&B) -> String,
) -> TimelineLine {
    let TraceEntry { tick, event } = entry;
    let name = |p: u32, o: u64| log.body(p, o).map(label).unwrap_or_else(|| format!("{p}/{o}"));
    let text = match event {
        LogEvent::Appended { partition, offset } => text!(
            "{m} wird an Partition {partition} angehängt (Offset {offset})",
            "{m} is appended to partition {partition} (offset {offset})",
            m = name(*partition, *offset)
        ),
        LogEvent::Polled { group, consumer, partition, offset, deliveries } => {
            let m = name(*partition, *offset);
            let again = if *deliveries > 1 {
                text!(
                    ", zum {deliveries}. Mal in dieser Gruppe",
                    ", for the {deliveries}th time in this group"
                )
            } else {
                Text::same("")
            };
            Text {
                de: format!(
                    "{consumer} ({group}) liest {m} (Partition {partition}, Offset {offset}){}",
                    again.de
                ),
                en: format!(
                    "{consumer} ({group}) reads {m} (partition {partition}, offset {offset}){}",
                    again.en
                ),
            }
        }
        LogEvent::PolledNothing { group, consumer } => text!(
            "{consumer} ({group}) findet nichts Neues in seinen Partitionen",
            "{consumer} ({group}) finds nothing new in its partitions"
        ),
        LogEvent::Committed { group, partition, offset, from } if offset < from => text!(
            "{group} schreibt Offset {offset} für Partition {partition} fest: der Offset geht zurück (vorher {from})",
            "{group} commits offset {offset} for partition {partition}: the offset moves back (was {from})"
        ),
        LogEvent::Committed { group, partition, offset, from } => text!(
            "{group} schreibt Offset {offset} für Partition {partition} fest (vorher {from}): nach einem Neustart geht es bei {offset} weiter",
            "{group} commits offset {offset} for partition {partition} (was {from}): after a restart it goes on at {offset}"
        ),
        LogEvent::CommitRefused { group, partition, offset, why } => {
            let why = match why {
                CommitRefusal::Negative => {
                    text!("negative Offsets gibt es nicht", "there are no negative offsets")
                }
                CommitRefusal::BeforeStart { start } => text!(
                    "vor dem ersten Eintrag des Logs (Offset {start}): ältere Einträge sind gelöscht",
                    "before the log's first record (offset {start}): older records are deleted"
                ),
                CommitRefusal::BeyondEnd { end } => text!(
                    "hinter dem Ende der Partition (nächster Offset {end})",
                    "beyond the partition's end (next offset {end})"
                ),
                CommitRefusal::UnknownPartition => {
                    text!("die Partition gibt es nicht", "the partition does not exist")
                }
            };
            Text {
                de: format!(
                    "{group}: Commit von Offset {offset} für Partition {partition} abgelehnt: {}",
                    why.de
                ),
                en: format!(
                    "{group}: commit of offset {offset} for partition {partition} refused: {}",
                    why.en
                ),
            }
        }
        LogEvent::Crashed { group, consumer, resumes } => {
            let list = resumes.iter().map(|(p, o)| format!("{p}:{o}")).collect::<Vec<_>>().join(", ");
            text!(
                "{consumer} ({group}) stürzt ab; es geht beim festgeschriebenen Offset weiter (Partition:Offset {list})",
                "{consumer} ({group}) crashes; reading resumes at the committed offset (partition:offset {list})"
            )
        }
        LogEvent::Note { text } => text.clone(),
    };
    TimelineLine { tick: *tick, text }
}

/// Merges timelines of several simulations by tick; lines of the same tick keep their order
/// (simulations in the order given).
pub(crate) fn merge(timelines: impl IntoIterator<Item = Vec<TimelineLine>>) -> Vec<TimelineLine> {
    let mut all: Vec<TimelineLine> = timelines.into_iter().flatten().collect();
    all.sort_by_key(|l| l.tick);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{NetworkConfig, QueueConfig};

    #[test]
    fn queue_timeline_tells_the_story() {
        let mut q = Queue::new(QueueConfig::new(3)).unwrap();
        q.send("zahlung-1".to_string());
        let a = q.receive_for("A").unwrap();
        q.tick(4).unwrap();
        let c = q.receive_for("C").unwrap();
        q.ack(c.id);
        q.ack(a.id);
        q.open();
        let lines: Vec<String> =
            queue_timeline(&q, |b| b.clone()).iter().map(|l| l.render(Lang::De)).collect();
        assert_eq!(
            lines,
            vec![
                "t=0: zahlung-1 wird gesendet (id 1)",
                "t=0: A erhält zahlung-1 (Versuch 1), unsichtbar bis t=3",
                "t=3: kein Ack für zahlung-1 innerhalb des Visibility Timeouts: wieder sichtbar (nach 1 Versuch)",
                "t=4: C erhält zahlung-1 (Versuch 2), unsichtbar bis t=7",
                "t=4: Ack für zahlung-1: gelöscht",
                "t=4: Ack für zahlung-1 ist wirkungslos: die Nachricht ist schon gelöscht",
                "t=4: offen() liefert 0: jede Nachricht ist bestätigt (oder in der Dead Letter Queue)",
            ]
        );
        let mut one = Queue::new(QueueConfig::new(3)).unwrap();
        one.send("zahlung-1".to_string());
        one.open();
        let line = queue_timeline(&one, |b| b.clone())[1].render(Lang::En);
        assert_eq!(line, "t=0: open() returns 1: not acked yet is zahlung-1");
        let en = queue_timeline(&q, |b| b.clone())[5].render(Lang::En);
        assert_eq!(en, "t=4: ack for zahlung-1 has no effect: the message is already deleted");
    }

    #[test]
    fn network_timeline_is_ordered_by_tick() {
        let mut net = Network::new(11, NetworkConfig::default()).unwrap();
        for i in 0..8 {
            net.send(i);
        }
        net.deliver();
        let lines = network_timeline(&net, |b| format!("m{b}"));
        assert!(lines.windows(2).all(|w| w[0].tick <= w[1].tick));
        assert_eq!(lines.len(), net.trace().len());
    }

    #[test]
    fn log_timeline_says_where_reading_resumes() {
        let mut log = EventLog::new(1).unwrap();
        log.append(0, "bestellung-1".to_string()).unwrap();
        log.poll("statistik", "S1").unwrap();
        log.commit("statistik", 0, 1).unwrap();
        log.crash("statistik", "S1").unwrap();
        log.commit("statistik", 0, 5).unwrap();
        let lines: Vec<String> =
            log_timeline(&log, |b| b.clone()).iter().map(|l| l.render(Lang::De)).collect();
        assert_eq!(
            lines,
            vec![
                "t=1: bestellung-1 wird an Partition 0 angehängt (Offset 0)",
                "t=2: S1 (statistik) liest bestellung-1 (Partition 0, Offset 0)",
                "t=3: statistik schreibt Offset 1 für Partition 0 fest (vorher 0): nach einem Neustart geht es bei 1 weiter",
                "t=4: S1 (statistik) stürzt ab; es geht beim festgeschriebenen Offset weiter (Partition:Offset 0:1)",
                "t=5: statistik: Commit von Offset 5 für Partition 0 abgelehnt: hinter dem Ende der Partition (nächster Offset 1)",
            ]
        );
    }
}
