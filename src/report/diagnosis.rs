//! A report's reading of its own evidence: for each failed check a [`Finding`] (which kind of
//! mistake the evidence shows, in the lesson's words, with the delivery, the crash point, the
//! decisive line and the state difference that proves it), and one of them ranked first as the
//! report's main problem. The grader derives every finding from the check's trace and state (see
//! `consumer::diagnose`); [`Facts`] keeps what it derived from, so that anyone can check a claim
//! against the evidence the same report carries.

use serde::{Deserialize, Serialize};

use super::roles::Role;
use crate::text::Text;

/// The main problem and the other failed checks, most central first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    pub main: Finding,
    /// One finding per other failed check, by rank (then in the order the checks ran).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<Finding>,
}

/// What one failed check shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The check's name.
    pub check: String,
    /// The kind of mistake (its name in the catalogue of mistakes).
    pub mistake: String,
    /// Its rank: the lower, the more central to the lesson.
    pub rank: u32,
    /// What broke, in one line.
    pub title: Text,
    /// Why, in the lesson's words, said only as far as the facts show it.
    pub explanation: Text,
    /// What to change, in the words of the student's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Text>,
    /// Which delivery of which message, and the crash point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<Text>,
    /// The state difference that proves it ("`punkte`: ('anna', 200) statt ('anna', 150)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Text>,
    /// The decisive line of the student's source (interpreted consumers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The decisive statement (its SQL, shortened), where one decided the outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// The events of the check's trace (their indices) that make up the failing delivery.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<u32>,
    /// The main problem's kind of mistake, seen again in another check.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub same_cause: bool,
    pub facts: Facts,
}

/// What the evidence of a failed check shows, in a fixed vocabulary that kinds of mistake are
/// matched against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// The key of the check's failure text (`crash-partial`, `error-swallowed`, `fault`, …).
    pub problem: String,
    /// The effect, compared with the expected state.
    pub effect: Effect,
    /// How many times the effect happened, when it happened a whole number of times other than 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// The remembered ids, compared with the expected state.
    pub memory: Memory,
    /// The state queries that show the effect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effect_tables: Vec<String>,
    /// The state queries that show the remembered ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_tables: Vec<String>,
    /// Whose table the failing delivery wrote first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_first: Option<Role>,
    /// The failing delivery's first write was durable at once (outside a transaction).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub autocommit: bool,
    /// The check killed the consumer at a crash point on the way to its failure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crashed: bool,
    /// What the failing delivery returned (ABI v1's value: 1, 0, or an error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<i32>,
    /// A statement of the failing delivery failed (whether or not its error was caught).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed_statement: bool,
    /// The failing delivery wrote (or tried to write) a table of remembered ids.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub memory_attempted: bool,
    /// The failing delivery called an outside service (`send_mail`, `publish`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub called_outside: bool,
    /// The exercise's invariant a state the check read was first found to break.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariant: Option<String>,
}

impl Facts {
    /// How the failing delivery ended, as the catalogue of mistakes names it: `processed`,
    /// `duplicate`, `error`, or `none` (it crashed or died before returning).
    pub(crate) fn returned_name(&self) -> &'static str {
        match self.returned {
            Some(1) => "processed",
            Some(0) => "duplicate",
            Some(_) => "error",
            None => "none",
        }
    }
}

/// The effect tables after the check against the expected state and the state before the message
/// took effect (the baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// As expected.
    Right,
    /// As before the message: the effect did not happen (where it should have).
    Missing,
    /// Exactly twice the expected change.
    Doubled,
    /// A whole multiple (3, 4, …) of the expected change.
    Multiplied,
    /// Further than expected in the effect's direction, not a whole multiple.
    Beyond,
    /// Part of the way from before to the expected state.
    Partial,
    /// Changed where nothing should have changed.
    Changed,
    /// Otherwise different.
    Differs,
    /// No state evidence, or no effect tables.
    Unknown,
}

/// The memory tables after the check against the expected state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Memory {
    Right,
    /// An id the expected state remembers is not remembered.
    Missing,
    /// An id is remembered that the expected state does not hold.
    Extra,
    /// Both.
    Differs,
    Unknown,
}

impl Effect {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Effect::Right => "right",
            Effect::Missing => "missing",
            Effect::Doubled => "doubled",
            Effect::Multiplied => "multiplied",
            Effect::Beyond => "beyond",
            Effect::Partial => "partial",
            Effect::Changed => "changed",
            Effect::Differs => "differs",
            Effect::Unknown => "unknown",
        }
    }

    pub(crate) const ALL: [Effect; 9] = [
        Effect::Right,
        Effect::Missing,
        Effect::Doubled,
        Effect::Multiplied,
        Effect::Beyond,
        Effect::Partial,
        Effect::Changed,
        Effect::Differs,
        Effect::Unknown,
    ];
}

impl Memory {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Memory::Right => "right",
            Memory::Missing => "missing",
            Memory::Extra => "extra",
            Memory::Differs => "differs",
            Memory::Unknown => "unknown",
        }
    }

    pub(crate) const ALL: [Memory; 5] =
        [Memory::Right, Memory::Missing, Memory::Extra, Memory::Differs, Memory::Unknown];
}
