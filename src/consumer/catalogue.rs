//! The check catalogue (`graders/consumer/checks.toml`): names, titles and explanations of the
//! consumer grader's checks, compiled into the binary and parsed once.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::text::Text;

const CATALOGUE_TOML: &str = include_str!("../../graders/consumer/checks.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckInfo {
    pub name: String,
    pub title: Text,
    pub explanation: Text,
}

#[derive(Debug, Deserialize)]
struct Catalogue {
    check: Vec<CheckInfo>,
}

fn catalogue() -> &'static [CheckInfo] {
    static CATALOGUE: OnceLock<Vec<CheckInfo>> = OnceLock::new();
    CATALOGUE.get_or_init(|| match toml::from_str::<Catalogue>(CATALOGUE_TOML) {
        Ok(catalogue) => catalogue.check,
        // The catalogue is part of the source; a test parses it, so this cannot ship broken.
        Err(error) => panic!("graders/consumer/checks.toml is invalid: {error}"),
    })
}

/// Every check name, in catalogue order.
pub fn names() -> Vec<&'static str> {
    catalogue().iter().map(|c| c.name.as_str()).collect()
}

/// The catalogue entry for `name`.
pub fn info(name: &str) -> CheckInfo {
    catalogue().iter().find(|c| c.name == name).cloned().unwrap_or_else(|| CheckInfo {
        name: name.to_string(),
        title: Text::same(name),
        explanation: Text::default(),
    })
}

/// Former names of checks, with the name they go by now. Mutants and replay tokens written with a
/// former name keep working.
const FORMER_NAMES: &[(&str, &str)] = &[("crash-after-write", "crash-points")];

/// The current name of check `name` (itself, unless it is a former name).
pub fn current_name(name: &str) -> &str {
    FORMER_NAMES.iter().find(|(former, _)| *former == name).map_or(name, |(_, current)| current)
}

pub fn contains(name: &str) -> bool {
    catalogue().iter().any(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_check_the_harness_runs_is_in_the_catalogue() {
        for name in super::super::checks::CHECKS {
            assert!(super::contains(name), "{name} is missing from graders/consumer/checks.toml");
            let info = super::info(name);
            assert!(!info.explanation.de.is_empty() && !info.explanation.en.is_empty(), "{name}");
        }
        assert_eq!(super::names().len(), super::super::checks::CHECKS.len());
    }

    #[test]
    fn a_former_name_leads_to_a_check_that_exists() {
        for (former, _) in super::FORMER_NAMES {
            let current = super::current_name(former);
            assert_ne!(current, *former);
            assert!(super::contains(current), "{former} -> {current}");
            assert!(!super::contains(former), "{former} is not a current name");
        }
        assert_eq!(super::current_name("lost-ack"), "lost-ack");
    }
}
