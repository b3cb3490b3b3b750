//! A learner's id, and the one rule every way in checks it by: the intake (JSON, form, Jobe's
//! template line), the exercise statement, the learner's page and its link, the submission
//! listing's filter, a regrade's filter and the id an LTI launch makes. The OpenAPI document
//! declares the same rule ([`Learner::PATTERN`], [`LEARNER_CHARS_MAX`]), so that a request valid by
//! the document is never refused for its learner, and one that is not is.
//!
//! The rule: at most [`LEARNER_CHARS_MAX`] characters as sent, none of them a control character
//! (Unicode Cc) or a bidirectional control, and not blank. The id is what remains once surrounding
//! white space is removed.

use crate::limits::LEARNER_CHARS_MAX;
use crate::text::{Text, is_hidden_control};

/// A learner's id that keeps the rule: build it with [`Learner::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Learner(String);

/// A learner id that breaks the rule; [`InvalidLearner::text`] says the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "learner is 1 to {LEARNER_CHARS_MAX} characters, not blank, without control or bidirectional characters"
)]
pub struct InvalidLearner;

/// A character class of the patterns: any character but a control or bidirectional control.
macro_rules! allowed {
    () => {
        "[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]"
    };
}

/// A character class of the patterns: an allowed character that `str::trim` does not remove.
macro_rules! visible {
    () => {
        "[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202a-\\u202f\\u205f\\u2066-\\u2069\\u3000]"
    };
}

impl Learner {
    /// The rule as a JSON-Schema pattern (with `maxLength` [`LEARNER_CHARS_MAX`]): no control or
    /// bidirectional character, at least one that is not white space.
    pub(crate) const PATTERN: &'static str = concat!("^", allowed!(), "*", visible!(), allowed!(), "*$");
    /// Where a learner is optional and a blank one means none (the exercise statement): the rule
    /// without "not blank".
    pub(crate) const OPTIONAL_PATTERN: &'static str = concat!("^", allowed!(), "*$");

    /// `raw` as a learner id: surrounding white space removed, if `raw` keeps the rule.
    pub fn parse(raw: &str) -> Result<Learner, InvalidLearner> {
        let trimmed = raw.trim();
        if trimmed.is_empty() || raw.chars().count() > LEARNER_CHARS_MAX || raw.chars().any(is_hidden_control)
        {
            return Err(InvalidLearner);
        }
        Ok(Learner(trimmed.to_string()))
    }

    /// An optional learner: none when absent or blank, else [`Learner::parse`].
    pub(crate) fn parse_optional(raw: Option<&str>) -> Result<Option<Learner>, InvalidLearner> {
        match raw {
            Some(raw) if raw.chars().any(is_hidden_control) => Err(InvalidLearner),
            Some(raw) if !raw.trim().is_empty() => Learner::parse(raw).map(Some),
            _ => Ok(None),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    pub(crate) fn into_string(self) -> String {
        self.0
    }
}

impl std::fmt::Display for Learner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl InvalidLearner {
    /// The rule, in German and English, for a problem's detail.
    pub(crate) fn text(self) -> Text {
        Text::new(
            format!(
                "learner ist 1 bis {LEARNER_CHARS_MAX} Zeichen lang, nicht leer, ohne Steuer- oder Richtungszeichen."
            ),
            format!(
                "learner is 1 to {LEARNER_CHARS_MAX} characters, not blank, without control or bidirectional characters."
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranges of a negated character class `[^\uXXXX-\uXXXX…]` as the patterns write it.
    fn negated_class(class: &str) -> Vec<(char, char)> {
        let inner =
            class.strip_prefix("[^").and_then(|c| c.strip_suffix(']')).unwrap_or_else(|| panic!("{class}"));
        let code = |hex: &str| {
            u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or_else(|| panic!("{hex} in {class}"))
        };
        let mut ranges = Vec::new();
        let mut rest = inner;
        while let Some(after) = rest.strip_prefix("\\u") {
            let from = code(&after[..4]);
            rest = &after[4..];
            let to = match rest.strip_prefix("-\\u") {
                Some(after) => {
                    rest = &after[4..];
                    code(&after[..4])
                }
                None => from,
            };
            ranges.push((from, to));
        }
        assert!(rest.is_empty(), "{class}: {rest}");
        ranges
    }

    /// The patterns are built of the two classes, and over every character of Unicode a class
    /// takes exactly what `parse` takes: `allowed` no hidden control, `visible` neither that nor
    /// what `str::trim` removes.
    #[test]
    fn the_patterns_say_what_parse_takes() {
        assert_eq!(Learner::PATTERN, format!("^{}*{}{}*$", allowed!(), visible!(), allowed!()));
        assert_eq!(Learner::OPTIONAL_PATTERN, format!("^{}*$", allowed!()));
        let allowed = negated_class(allowed!());
        let visible = negated_class(visible!());
        let outside =
            |ranges: &[(char, char)], c: char| !ranges.iter().any(|(from, to)| (*from..=*to).contains(&c));
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(outside(&allowed, c), !is_hidden_control(c), "{c:?}");
            let kept = Learner::parse(&c.to_string()).is_ok();
            assert_eq!(outside(&visible, c), kept, "{c:?}");
            assert_eq!(Learner::parse(&format!("a{c}")).is_ok(), outside(&allowed, c), "{c:?}");
        }
    }

    #[test]
    fn length_counts_characters_as_sent_and_the_id_is_trimmed() {
        let longest = "ü".repeat(LEARNER_CHARS_MAX);
        assert_eq!(Learner::parse(&longest).map(Learner::into_string), Ok(longest.clone()));
        assert_eq!(Learner::parse(&format!("{longest}x")), Err(InvalidLearner));
        assert_eq!(Learner::parse(&format!(" {longest}")), Err(InvalidLearner));
        assert_eq!(Learner::parse("  anna \u{3000}").map(Learner::into_string), Ok("anna".to_string()));
        assert_eq!(
            Learner::parse("anna\t"),
            Err(InvalidLearner),
            "a tab is a control character, even at the end"
        );
        assert_eq!(Learner::parse("   "), Err(InvalidLearner));
        assert_eq!(Learner::parse("an\u{202e}na"), Err(InvalidLearner));
        assert_eq!(Learner::parse_optional(Some("  ")), Ok(None));
        assert_eq!(Learner::parse_optional(None), Ok(None));
        assert_eq!(Learner::parse_optional(Some("\u{97}")), Err(InvalidLearner));
    }
}
