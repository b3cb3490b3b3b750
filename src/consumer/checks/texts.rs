//! Failure texts: the bilingual prose a student reads when a check fails. The texts themselves are
//! templates in `graders/consumer/checks.toml` (`[failure.<key>]`), one [`Prose`] each, with named
//! placeholders (`{value}`, `{place}`, …) that [`failure`] fills in, in one place. Which
//! placeholders a text may name is written here ([`Prose::placeholders`]); a template naming any
//! other is an error when the catalogue is loaded.

use std::fmt::Display;

use crate::text::Text;

/// One failure text of the harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Prose {
    CouldNotStart,
    FirstDeliveryWentWrong,
    KilledAtCrashPoint,
    FreshReturnedDuplicate,
    FreshReturnedError,
    DuplicateReturnedProcessed,
    DuplicateReturnedError,
    ErrorSwallowed,
    TransactionLeftOpen,
    StateDiffers,
    ViolationChangedState,
    NoWrites,
    CrashPartial,
    CrashAdviceMemoryFirst,
    CrashAdviceEffectFirst,
    CrashAdviceWrite,
    CrashRedeliveryWrong,
    CrashLogSkipped,
    CrashLogSkippedInLog,
    CrashFailingEffectChanged,
    CrashDuplicateChanged,
    ConcurrentTwice,
    ConcurrentTwiceOnce,
    ConcurrentNotOnce,
    ScheduleStopped,
    PoisonAcked,
    MessageLost,
    PoisonNotDeadLettered,
    ScheduleStateWrong,
    NotRun,
    RelayFailed,
    CrashRelayWrong,
}

impl Prose {
    /// Every failure text.
    pub(crate) const ALL: [Prose; 32] = [
        Prose::CouldNotStart,
        Prose::FirstDeliveryWentWrong,
        Prose::KilledAtCrashPoint,
        Prose::FreshReturnedDuplicate,
        Prose::FreshReturnedError,
        Prose::DuplicateReturnedProcessed,
        Prose::DuplicateReturnedError,
        Prose::ErrorSwallowed,
        Prose::TransactionLeftOpen,
        Prose::StateDiffers,
        Prose::ViolationChangedState,
        Prose::NoWrites,
        Prose::CrashPartial,
        Prose::CrashAdviceMemoryFirst,
        Prose::CrashAdviceEffectFirst,
        Prose::CrashAdviceWrite,
        Prose::CrashRedeliveryWrong,
        Prose::CrashLogSkipped,
        Prose::CrashLogSkippedInLog,
        Prose::CrashFailingEffectChanged,
        Prose::CrashDuplicateChanged,
        Prose::ConcurrentTwice,
        Prose::ConcurrentTwiceOnce,
        Prose::ConcurrentNotOnce,
        Prose::ScheduleStopped,
        Prose::PoisonAcked,
        Prose::MessageLost,
        Prose::PoisonNotDeadLettered,
        Prose::ScheduleStateWrong,
        Prose::NotRun,
        Prose::RelayFailed,
        Prose::CrashRelayWrong,
    ];

    /// The text's key in `checks.toml` (`[failure.<key>]`).
    pub(crate) const fn key(self) -> &'static str {
        match self {
            Prose::CouldNotStart => "could-not-start",
            Prose::FirstDeliveryWentWrong => "first-delivery-went-wrong",
            Prose::KilledAtCrashPoint => "killed-at-crash-point",
            Prose::FreshReturnedDuplicate => "fresh-returned-duplicate",
            Prose::FreshReturnedError => "fresh-returned-error",
            Prose::DuplicateReturnedProcessed => "duplicate-returned-processed",
            Prose::DuplicateReturnedError => "duplicate-returned-error",
            Prose::ErrorSwallowed => "error-swallowed",
            Prose::TransactionLeftOpen => "transaction-left-open",
            Prose::StateDiffers => "state-differs",
            Prose::ViolationChangedState => "violation-changed-state",
            Prose::NoWrites => "no-writes",
            Prose::CrashPartial => "crash-partial",
            Prose::CrashAdviceMemoryFirst => "crash-advice-memory-first",
            Prose::CrashAdviceEffectFirst => "crash-advice-effect-first",
            Prose::CrashAdviceWrite => "crash-advice-write",
            Prose::CrashRedeliveryWrong => "crash-redelivery-wrong",
            Prose::CrashLogSkipped => "crash-log-skipped",
            Prose::CrashLogSkippedInLog => "crash-log-skipped-in-log",
            Prose::CrashFailingEffectChanged => "crash-failing-effect-changed",
            Prose::CrashDuplicateChanged => "crash-duplicate-changed",
            Prose::ConcurrentTwice => "concurrent-twice",
            Prose::ConcurrentTwiceOnce => "concurrent-twice-once",
            Prose::ConcurrentNotOnce => "concurrent-not-once",
            Prose::ScheduleStopped => "schedule-stopped",
            Prose::PoisonAcked => "poison-acked",
            Prose::MessageLost => "message-lost",
            Prose::PoisonNotDeadLettered => "poison-not-dead-lettered",
            Prose::ScheduleStateWrong => "schedule-state-wrong",
            Prose::NotRun => "not-run",
            Prose::RelayFailed => "relay-failed",
            Prose::CrashRelayWrong => "crash-relay-wrong",
        }
    }

    /// The placeholders the text may name; the harness fills every one of them.
    pub(crate) const fn placeholders(self) -> &'static [&'static str] {
        match self {
            Prose::CouldNotStart => &["message"],
            Prose::FirstDeliveryWentWrong => &["problem"],
            Prose::KilledAtCrashPoint => &["point", "after"],
            Prose::FreshReturnedDuplicate => &["ended"],
            Prose::FreshReturnedError => &["ended", "processed"],
            Prose::DuplicateReturnedProcessed | Prose::DuplicateReturnedError => &["ended", "duplicate"],
            Prose::ErrorSwallowed => &["ended", "raise"],
            Prose::CrashPartial => &["place", "advice"],
            Prose::CrashAdviceMemoryFirst | Prose::CrashAdviceEffectFirst | Prose::CrashAdviceWrite => {
                &["transaction"]
            }
            Prose::CrashRedeliveryWrong | Prose::CrashFailingEffectChanged | Prose::CrashDuplicateChanged => {
                &["place"]
            }
            Prose::CrashLogSkipped | Prose::CrashLogSkippedInLog => {
                &["place", "partition", "offset", "committed"]
            }
            Prose::ConcurrentTwice | Prose::ConcurrentTwiceOnce => &["count"],
            Prose::ScheduleStopped => &["deliveries"],
            Prose::PoisonAcked => &["message", "ended"],
            Prose::MessageLost => &["message", "attempts"],
            Prose::PoisonNotDeadLettered => &["message"],
            Prose::NotRun => &["limit"],
            Prose::RelayFailed => &["message"],
            Prose::CrashRelayWrong => &["place"],
            Prose::TransactionLeftOpen
            | Prose::StateDiffers
            | Prose::ViolationChangedState
            | Prose::NoWrites
            | Prose::ConcurrentNotOnce
            | Prose::ScheduleStateWrong => &[],
        }
    }

    /// The text whose key is `key`.
    pub(crate) fn by_key(key: &str) -> Option<Prose> {
        Prose::ALL.into_iter().find(|prose| prose.key() == key)
    }
}

/// A piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Placeholder(String),
}

/// A template in one language, parsed once at load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template(Vec<Piece>);

/// Why a template cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TemplateError {
    /// `{` without a `}`, or `}` without a `{`.
    Unbalanced,
    /// A placeholder the text may not name.
    UnknownPlaceholder(String),
}

impl Template {
    /// Parses `source`, allowing the placeholders `allowed`. Placeholders are `{name}`; braces
    /// appear nowhere else.
    pub(crate) fn parse(source: &str, allowed: &[&str]) -> Result<Template, TemplateError> {
        let mut pieces = Vec::new();
        let mut rest = source;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err(TemplateError::Unbalanced);
            }
            let close = rest[open..].find('}').ok_or(TemplateError::Unbalanced)? + open;
            let name = &rest[open + 1..close];
            if name.contains('{') {
                return Err(TemplateError::Unbalanced);
            }
            if !allowed.contains(&name) {
                return Err(TemplateError::UnknownPlaceholder(name.to_string()));
            }
            if open > 0 {
                pieces.push(Piece::Literal(rest[..open].to_string()));
            }
            pieces.push(Piece::Placeholder(name.to_string()));
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Literal(rest.to_string()));
        }
        Ok(Template(pieces))
    }

    /// The template with each placeholder replaced by its value (`values` maps names to values).
    fn fill<'v>(&self, value: impl Fn(&str) -> Option<&'v str>) -> String {
        let mut out = String::new();
        for piece in &self.0 {
            match piece {
                Piece::Literal(text) => out.push_str(text),
                Piece::Placeholder(name) => match value(name) {
                    Some(text) => out.push_str(text),
                    // The harness passes every placeholder the text may name (a test checks it).
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                },
            }
        }
        out
    }
}

/// A failure text in both languages, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Templates {
    pub de: Template,
    pub en: Template,
}

/// A value for a placeholder that reads the same in both languages (a number, a label).
pub(crate) fn plain(value: impl Display) -> Text {
    Text::same(value.to_string())
}

/// Why a check failed: the failure text a student reads, and the key of the text it was made from
/// (`[failure.<key>]` in `checks.toml`, or `fault` for a consumer that died), which the report's
/// diagnosis reads instead of the prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub key: &'static str,
    pub text: Text,
}

impl Problem {
    /// The key of a problem that is the fault of a dying consumer (a trap, a limit).
    pub(crate) const FAULT: &'static str = "fault";
    /// The key of a problem that is the submission's time running out.
    pub(crate) const OUT_OF_TIME: &'static str = "out-of-time";
    /// The key of a problem that is an exercise's invariant found violated.
    pub(crate) const INVARIANT: &'static str = "invariant";

    pub(crate) fn fault(text: Text) -> Problem {
        Problem { key: Problem::FAULT, text }
    }
}

pub(crate) fn fill(templates: &Templates, values: &[(&str, Text)]) -> Text {
    let find = |name: &str| values.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
    Text {
        de: templates.de.fill(|name| find(name).map(|v| v.de.as_str())),
        en: templates.en.fill(|name| find(name).map(|v| v.en.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_names_only_its_placeholders_and_balances_its_braces() {
        let allowed = ["count"];
        assert!(Template::parse("{count} times", &allowed).is_ok());
        assert_eq!(
            Template::parse("{count} of {total}", &allowed),
            Err(TemplateError::UnknownPlaceholder("total".into()))
        );
        assert_eq!(Template::parse("{count", &allowed), Err(TemplateError::Unbalanced));
        assert_eq!(Template::parse("count}", &allowed), Err(TemplateError::Unbalanced));
        assert_eq!(Template::parse("{{count}}", &allowed), Err(TemplateError::Unbalanced));
    }

    #[test]
    fn filling_replaces_each_placeholder_in_its_language() {
        let templates = Templates {
            de: Template::parse("Nach {place}: {count}-mal", &["place", "count"]).expect("de"),
            en: Template::parse("{count} times after {place}", &["place", "count"]).expect("en"),
        };
        let filled =
            fill(&templates, &[("place", Text::new("dem COMMIT", "the COMMIT")), ("count", plain(2))]);
        assert_eq!(filled, Text::new("Nach dem COMMIT: 2-mal", "2 times after the COMMIT"));
    }
}
