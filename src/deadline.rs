//! The one wall-clock deadline of a grading: created once when a submission's grading starts
//! ([`Deadline::for_submission`], from `Limits::wall_ms_per_submission`) and obeyed by everything
//! that follows: every loop of the consumer harness checks it, every delivery's epoch deadline and
//! every SQL statement's wall-clock backstop is capped to the time it leaves, and a lock wait or an
//! instantiation ends with it.
//!
//! Fuel and counted SQL steps remain the budget that decides a verdict; the deadline is the
//! backstop that makes every submission end. A fast submission never meets it, so its report does
//! not depend on time. A submission that does meet it fails with the limit named
//! ([`Deadline::limit_text`]) and the checks it did not reach are listed as not run.

use std::time::{Duration, Instant};

use crate::limits::Limits;
use crate::text;
use crate::text::Text;

/// A point in time by which a submission's grading must be done, with the budget it was made from
/// (for the reports that name the limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Instant,
    budget_ms: u64,
}

impl Deadline {
    /// A deadline `budget_ms` milliseconds from now.
    pub fn after_ms(budget_ms: u64) -> Deadline {
        Deadline { at: Instant::now() + Duration::from_millis(budget_ms), budget_ms }
    }

    /// The deadline of one submission graded under `limits` (`wall_ms_per_submission`), from now.
    pub fn for_submission(limits: &Limits) -> Deadline {
        Deadline::after_ms(limits.wall_ms_per_submission)
    }

    /// The instant the deadline passes.
    #[cfg(test)]
    pub(crate) fn at(&self) -> Instant {
        self.at
    }

    pub(crate) fn expired(&self) -> bool {
        Instant::now() >= self.at
    }

    /// Time left (zero once expired).
    pub(crate) fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// The earlier of "`budget` from now" and this deadline; the second value says whether this
    /// deadline is the one that binds.
    pub(crate) fn cap(&self, budget: Duration) -> (Instant, bool) {
        let own = Instant::now() + budget;
        if self.at <= own { (self.at, true) } else { (own, false) }
    }

    /// The limit's name with its value, as reports quote it: "Zeitlimit pro Abgabe (5 s)".
    pub(crate) fn limit_name(&self) -> Text {
        let value = format_ms(self.budget_ms);
        text!("Zeitlimit pro Abgabe ({value})", "time limit per submission ({value})")
    }

    /// Why a check stopped or did not run: the submission's time is used up.
    pub(crate) fn limit_text(&self) -> Text {
        let value = format_ms(self.budget_ms);
        text!(
            "Die Zeit für die ganze Abgabe ist abgelaufen (Zeitlimit pro Abgabe ({value}), Grenze „Zeit pro Abgabe“). \
             Braucht eine Zustellung sehr lange, oder wartet sie auf etwas, das nie kommt?",
            "The time for the whole submission ran out (time limit per submission ({value}), limit \"time per \
             submission\"). Does a delivery take very long, or wait for something that never comes?"
        )
    }
}

/// "5 s" for 5000, "1500 ms" for 1500.
pub(crate) fn format_ms(ms: u64) -> String {
    if ms >= 1_000 && ms.is_multiple_of(1_000) { format!("{} s", ms / 1_000) } else { format!("{ms} ms") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_caps_a_longer_budget_and_leaves_a_shorter_one() {
        let deadline = Deadline::after_ms(60_000);
        let (short, binds) = deadline.cap(Duration::from_millis(10));
        assert!(!binds && short < deadline.at());
        let (long, binds) = deadline.cap(Duration::from_secs(3_600));
        assert!(binds && long == deadline.at());
        assert!(!deadline.expired());
        assert!(Deadline::after_ms(0).expired());
        assert_eq!(Deadline::after_ms(0).remaining(), Duration::ZERO);
    }

    #[test]
    fn the_limit_is_named_in_both_languages_with_its_value() {
        let deadline = Deadline::after_ms(5_000);
        assert_eq!(deadline.limit_name().de, "Zeitlimit pro Abgabe (5 s)");
        assert_eq!(deadline.limit_name().en, "time limit per submission (5 s)");
        assert!(Deadline::after_ms(1_500).limit_text().en.contains("(1500 ms)"));
    }
}
