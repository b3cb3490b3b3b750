//! `Check`: the one list of the consumer grader's checks. Everything that names a check (the
//! catalogue in `graders/consumer/checks.toml`, replay tokens, `expect-fail:` lines of mutants, the
//! report) goes through this type, so a check's name is written once, in [`Check::name`].

use std::fmt;
use std::str::FromStr;

/// One check of the crash harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Check {
    FreshMessage,
    DuplicateSameInstance,
    DuplicateAfterRestart,
    SameBodyNewId,
    ConstraintViolation,
    CrashPoints,
    LostAck,
    ConcurrentDuplicate,
    AtLeastOnceSchedule,
}

impl Check {
    /// Every check, in the order they run.
    pub const ALL: [Check; 9] = [
        Check::FreshMessage,
        Check::DuplicateSameInstance,
        Check::DuplicateAfterRestart,
        Check::SameBodyNewId,
        Check::ConstraintViolation,
        Check::CrashPoints,
        Check::LostAck,
        Check::ConcurrentDuplicate,
        Check::AtLeastOnceSchedule,
    ];

    /// The check's name in reports, the catalogue, replay tokens and `expect-fail:` lines.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Check::FreshMessage => "fresh-message",
            Check::DuplicateSameInstance => "duplicate-same-instance",
            Check::DuplicateAfterRestart => "duplicate-after-restart",
            Check::SameBodyNewId => "same-body-new-id",
            Check::ConstraintViolation => "constraint-violation",
            Check::CrashPoints => "crash-points",
            Check::LostAck => "lost-ack",
            Check::ConcurrentDuplicate => "concurrent-duplicate",
            Check::AtLeastOnceSchedule => "at-least-once-schedule",
        }
    }

    /// The check whose current name is exactly `name` (former names not included).
    pub(crate) fn by_current_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|check| check.name() == name)
    }

    /// Every current name, separated by commas (for messages that list the known checks).
    pub(crate) fn known_names() -> String {
        Check::ALL.map(Check::name).join(", ")
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// Former names of checks, with the name they go by now. Mutants and replay tokens written with a
/// former name keep working.
pub(crate) const FORMER_NAMES: &[(&str, &str)] = &[("crash-after-write", "crash-points")];

/// The current name of check `name` (itself, unless it is a former name).
pub(crate) fn current_name(name: &str) -> &str {
    FORMER_NAMES.iter().find(|(former, _)| *former == name).map_or(name, |(_, current)| current)
}

/// A name that is neither a check's current name nor a former one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown check \"{name}\" (known: {known})", known = Check::known_names())]
pub struct UnknownCheck {
    pub name: String,
}

impl FromStr for Check {
    type Err = UnknownCheck;

    /// A check by its current name or by a former one ([`FORMER_NAMES`]).
    fn from_str(name: &str) -> Result<Check, UnknownCheck> {
        let current = current_name(name);
        Check::by_current_name(current).ok_or_else(|| UnknownCheck { name: current.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::Check;

    #[test]
    fn every_name_parses_back_to_its_check_and_names_are_distinct() {
        for check in Check::ALL {
            assert_eq!(check.name().parse::<Check>(), Ok(check));
            assert_eq!(Check::ALL.iter().filter(|c| c.name() == check.name()).count(), 1, "{check}");
        }
    }

    #[test]
    fn a_former_name_parses_to_the_current_check_and_an_unknown_one_is_named() {
        assert_eq!("crash-after-write".parse::<Check>(), Ok(Check::CrashPoints));
        assert_eq!(Check::by_current_name("crash-after-write"), None);
        let error = "no-such-check".parse::<Check>().unwrap_err();
        assert_eq!(error.name, "no-such-check");
        assert!(error.to_string().contains("known: fresh-message, duplicate-same-instance"), "{error}");
    }
}
