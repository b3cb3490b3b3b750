//! The check catalogue (`graders/consumer/checks.toml`): the title and explanation of every
//! [`Check`] and the failure texts ([`Prose`]) as templates, compiled into the binary and parsed
//! once. Loading is strict: an entry that names no check or text, a second entry for the same
//! check, a check or text without an entry, or a template naming an unknown placeholder is an
//! error, so the catalogue and the code cannot drift apart.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::check::Check;
use super::texts::{Problem, Prose, Template, TemplateError, Templates};
use crate::report::voice::Voice;
use crate::text::Text;

const CATALOGUE_TOML: &str = include_str!("../../../graders/consumer/checks.toml");

/// What a student reads about one check.
#[derive(Debug, Clone)]
pub(crate) struct CheckInfo {
    pub title: Text,
    pub explanation: Text,
}

/// A check's title and its explanation as a template (naming the return values in the words of
/// the student's language: `{processed}`, `{duplicate}`).
#[derive(Debug, Clone)]
struct CheckEntry {
    title: Text,
    explanation: Templates,
}

/// The placeholders a check's explanation may name.
const EXPLANATION_PLACEHOLDERS: [&str; 2] = ["processed", "duplicate"];

/// Why `checks.toml` cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CatalogueError {
    #[error("checks.toml is not valid: {0}")]
    Syntax(String),
    #[error("checks.toml describes \"{0}\", which is no check (known: {known})", known = Check::known_names())]
    UnknownCheck(String),
    #[error("checks.toml describes \"{0}\" twice")]
    Duplicate(&'static str),
    #[error("checks.toml has no entry for the check \"{0}\"")]
    Missing(&'static str),
    #[error("checks.toml: the {1} of \"{0}\" is empty in German or English")]
    Empty(&'static str, &'static str),
    #[error("checks.toml has a failure text \"{0}\" that the harness does not use")]
    UnknownFailure(String),
    #[error("checks.toml has no failure text \"{0}\"")]
    MissingFailure(&'static str),
    #[error(
        "checks.toml: the failure text \"{text}\" ({lang}) names the placeholder {{{placeholder}}}, which it \
         does not have (it has: {allowed})"
    )]
    UnknownPlaceholder { text: &'static str, lang: &'static str, placeholder: String, allowed: String },
    #[error(
        "checks.toml: the failure text \"{text}\" ({lang}) has a brace that opens or closes no placeholder"
    )]
    Unbalanced { text: &'static str, lang: &'static str },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    title: Text,
    explanation: Text,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    check: Vec<Entry>,
    failure: BTreeMap<String, Text>,
}

/// The loaded catalogue: one entry per check.
#[derive(Debug)]
pub(crate) struct Catalogue {
    checks: BTreeMap<Check, CheckEntry>,
    failures: BTreeMap<Prose, Templates>,
}

impl Catalogue {
    /// Parses and validates a catalogue.
    pub(crate) fn parse(source: &str) -> Result<Catalogue, CatalogueError> {
        let file: File = toml::from_str(source).map_err(|e| CatalogueError::Syntax(e.to_string()))?;
        let mut checks = BTreeMap::new();
        for entry in file.check {
            let check =
                Check::by_current_name(&entry.name).ok_or(CatalogueError::UnknownCheck(entry.name))?;
            for (what, text) in [("title", &entry.title), ("explanation", &entry.explanation)] {
                if text.de.trim().is_empty() || text.en.trim().is_empty() {
                    return Err(CatalogueError::Empty(check.name(), what));
                }
            }
            let parse = |source: &str, lang: &'static str| {
                Template::parse(source, &EXPLANATION_PLACEHOLDERS).map_err(|error| match error {
                    TemplateError::UnknownPlaceholder(placeholder) => CatalogueError::UnknownPlaceholder {
                        text: check.name(),
                        lang,
                        placeholder,
                        allowed: EXPLANATION_PLACEHOLDERS.join(", "),
                    },
                    TemplateError::Unbalanced => CatalogueError::Unbalanced { text: check.name(), lang },
                })
            };
            let explanation = Templates {
                de: parse(&entry.explanation.de, "de")?,
                en: parse(&entry.explanation.en, "en")?,
            };
            let info = CheckEntry { title: entry.title, explanation };
            if checks.insert(check, info).is_some() {
                return Err(CatalogueError::Duplicate(check.name()));
            }
        }
        if let Some(missing) = Check::ALL.into_iter().find(|check| !checks.contains_key(check)) {
            return Err(CatalogueError::Missing(missing.name()));
        }
        let mut failures = BTreeMap::new();
        for (key, text) in file.failure {
            let prose = Prose::by_key(&key).ok_or(CatalogueError::UnknownFailure(key))?;
            let parse = |source: &str, lang: &'static str| {
                let allowed = prose.placeholders();
                Template::parse(source, allowed).map_err(|error| match error {
                    TemplateError::UnknownPlaceholder(placeholder) => CatalogueError::UnknownPlaceholder {
                        text: prose.key(),
                        lang,
                        placeholder,
                        allowed: if allowed.is_empty() { "none".into() } else { allowed.join(", ") },
                    },
                    TemplateError::Unbalanced => CatalogueError::Unbalanced { text: prose.key(), lang },
                })
            };
            if text.de.trim().is_empty() || text.en.trim().is_empty() {
                return Err(CatalogueError::Empty(prose.key(), "text"));
            }
            failures.insert(prose, Templates { de: parse(&text.de, "de")?, en: parse(&text.en, "en")? });
        }
        if let Some(missing) = Prose::ALL.into_iter().find(|prose| !failures.contains_key(prose)) {
            return Err(CatalogueError::MissingFailure(missing.key()));
        }
        Ok(Catalogue { checks, failures })
    }

    /// The title and explanation of `check` (every check has them: [`Catalogue::parse`] made
    /// sure), in `voice`'s words.
    pub(crate) fn info(&self, check: Check, voice: Voice) -> CheckInfo {
        let entry = &self.checks[&check];
        let values = [("processed", voice.processed()), ("duplicate", voice.duplicate())];
        CheckInfo { title: entry.title.clone(), explanation: super::texts::fill(&entry.explanation, &values) }
    }
}

/// The failure text `prose`, parsed (every text has one: [`Catalogue::parse`] made sure).
pub(crate) fn failure_templates(prose: Prose) -> &'static Templates {
    &catalogue().failures[&prose]
}

/// The failure text `prose` as a [`Problem`], its placeholders filled with `values`.
pub(crate) fn problem(prose: Prose, values: &[(&str, Text)]) -> Problem {
    Problem { key: prose.key(), text: failure(prose, values) }
}

/// The failure text `prose`, its placeholders filled with `values` (name, value per language).
pub(crate) fn failure(prose: Prose, values: &[(&str, Text)]) -> Text {
    super::texts::fill(self::failure_templates(prose), values)
}

/// The catalogue compiled into the binary.
pub(crate) fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| match Catalogue::parse(CATALOGUE_TOML) {
        Ok(catalogue) => catalogue,
        // The catalogue is part of the source; a test loads it, so this cannot ship broken.
        Err(error) => panic!("graders/consumer/checks.toml: {error}"),
    })
}

/// The title and explanation a report gives for `check`, in `voice`'s words: the one place a
/// report looks them up (the lesson's texts; an exercise's own would take precedence here).
pub(crate) fn info(check: Check, voice: Voice) -> CheckInfo {
    catalogue().info(check, voice)
}

#[cfg(test)]
mod tests {
    use super::{CATALOGUE_TOML, Catalogue, CatalogueError, Check, Prose};
    use crate::consumer::checks::check::{FORMER_NAMES, current_name};

    fn entry(name: &str) -> String {
        format!(
            "[[check]]\nname = \"{name}\"\ntitle.de = \"T\"\ntitle.en = \"T\"\n\
             explanation.de = \"E\"\nexplanation.en = \"E\"\n"
        )
    }

    /// A failure text naming every placeholder it may.
    fn failure(key: &str, placeholders: &[&str]) -> String {
        let named: String = placeholders.iter().map(|p| format!(" {{{p}}}")).collect();
        format!("[failure.{key}]\nde = \"D{named}\"\nen = \"E{named}\"\n")
    }

    fn failures_but(skip: Option<Prose>) -> String {
        Prose::ALL
            .into_iter()
            .filter(|p| Some(*p) != skip)
            .map(|p| failure(p.key(), p.placeholders()))
            .collect()
    }

    /// Every check's entry except `skip`, then every failure text.
    fn all_but(skip: Option<Check>) -> String {
        let checks: String =
            Check::ALL.into_iter().filter(|c| Some(*c) != skip).map(|c| entry(c.name())).collect();
        checks + failures_but(None).as_str()
    }

    /// Check entries come before the failure tables in a TOML file.
    fn with_entry(skip: Option<Check>, extra: &str) -> String {
        let checks: String =
            Check::ALL.into_iter().filter(|c| Some(*c) != skip).map(|c| entry(c.name())).collect();
        [checks, extra.to_string(), failures_but(None)].concat()
    }

    #[test]
    fn the_shipped_catalogue_describes_every_check_in_both_languages() {
        let catalogue = Catalogue::parse(CATALOGUE_TOML).expect("checks.toml loads");
        for check in Check::ALL {
            let info = catalogue.info(check, crate::report::voice::Voice::Python);
            assert!(!info.explanation.de.is_empty() && !info.explanation.en.is_empty(), "{check}");
            assert!(!info.explanation.de.contains('{') && !info.explanation.en.contains('{'), "{check}");
        }
        assert!(Catalogue::parse(&all_but(None)).is_ok());
    }

    #[test]
    fn an_entry_naming_no_check_is_an_error_at_load() {
        let source = with_entry(None, &entry("crash-in-the-middle"));
        assert_eq!(
            Catalogue::parse(&source).unwrap_err(),
            CatalogueError::UnknownCheck("crash-in-the-middle".into())
        );
        // A former name is not a current one: the catalogue uses current names only.
        let source = with_entry(Some(Check::CrashPoints), &entry("crash-after-write"));
        assert_eq!(
            Catalogue::parse(&source).unwrap_err(),
            CatalogueError::UnknownCheck("crash-after-write".into())
        );
    }

    #[test]
    fn a_check_without_an_entry_is_an_error_at_load() {
        let source = all_but(Some(Check::LostAck));
        let error = Catalogue::parse(&source).unwrap_err();
        assert_eq!(error, CatalogueError::Missing("lost-ack"));
        assert!(error.to_string().contains("no entry for the check \"lost-ack\""), "{error}");
    }

    #[test]
    fn a_check_described_twice_or_with_an_empty_text_is_an_error_at_load() {
        let source = with_entry(None, &entry("lost-ack"));
        assert_eq!(Catalogue::parse(&source).unwrap_err(), CatalogueError::Duplicate("lost-ack"));
        let blank = entry("lost-ack").replace("title.en = \"T\"", "title.en = \" \"");
        let source = with_entry(Some(Check::LostAck), &blank);
        assert_eq!(Catalogue::parse(&source).unwrap_err(), CatalogueError::Empty("lost-ack", "title"));
    }

    #[test]
    fn a_failure_text_naming_an_unknown_placeholder_is_an_error_at_load() {
        let checks: String = Check::ALL.into_iter().map(|c| entry(c.name())).collect();
        let wrong = failure(Prose::ConcurrentTwice.key(), &["count", "total"]);
        let source = [checks, failures_but(Some(Prose::ConcurrentTwice)), wrong].concat();
        let error = Catalogue::parse(&source).unwrap_err();
        assert_eq!(
            error,
            CatalogueError::UnknownPlaceholder {
                text: "concurrent-twice",
                lang: "de",
                placeholder: "total".into(),
                allowed: "count".into()
            }
        );
        assert!(error.to_string().contains("names the placeholder {total}"), "{error}");
    }

    #[test]
    fn a_failure_text_the_harness_does_not_use_or_lacks_is_an_error_at_load() {
        let source = all_but(None) + failure("lost-in-translation", &[]).as_str();
        assert_eq!(
            Catalogue::parse(&source).unwrap_err(),
            CatalogueError::UnknownFailure("lost-in-translation".into())
        );
        let checks: String = Check::ALL.into_iter().map(|c| entry(c.name())).collect();
        let source = checks + failures_but(Some(Prose::NoWrites)).as_str();
        assert_eq!(Catalogue::parse(&source).unwrap_err(), CatalogueError::MissingFailure("no-writes"));
        let checks: String = Check::ALL.into_iter().map(|c| entry(c.name())).collect();
        let unbalanced = "[failure.no-writes]\nde = \"D {\"\nen = \"E\"\n";
        let source = [checks, failures_but(Some(Prose::NoWrites)), unbalanced.to_string()].concat();
        assert_eq!(
            Catalogue::parse(&source).unwrap_err(),
            CatalogueError::Unbalanced { text: "no-writes", lang: "de" }
        );
    }

    #[test]
    fn a_former_name_leads_to_a_check_that_exists() {
        for (former, _) in FORMER_NAMES {
            let current = current_name(former);
            assert_ne!(current, *former);
            assert!(Check::by_current_name(current).is_some(), "{former} -> {current}");
            assert!(Check::by_current_name(former).is_none(), "{former} is not a current name");
        }
        assert_eq!(current_name("lost-ack"), "lost-ack");
    }

    /// Every text of the shipped catalogue, filled with every placeholder it may name, keeps no
    /// brace: nothing is left unfilled.
    #[test]
    fn every_shipped_text_is_filled_completely() {
        for prose in Prose::ALL {
            let values: Vec<(&str, crate::text::Text)> =
                prose.placeholders().iter().map(|name| (*name, super::super::texts::plain("X"))).collect();
            let text = super::failure(prose, &values);
            for lang in [&text.de, &text.en] {
                assert!(
                    !lang.contains('{') && !lang.contains('}') && !lang.is_empty(),
                    "{}: {lang}",
                    prose.key()
                );
            }
        }
    }
}
