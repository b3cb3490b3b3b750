//! A consumer exercise folder's own texts per check (`[consumer.checks.<check>]`): read and
//! checked when the folder loads, and filled with the return values in the student's language
//! when a report uses them. Also the folder's other names checked as it loads: statements without
//! placeholders, and the relay's entry (`[consumer] relay`).

use serde::Deserialize;

use crate::exercise::ExerciseError;

/// `[consumer.checks.<check>]`: what the report says about one check in this exercise, instead of
/// the lesson's explanation, and a hint when it fails.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckTexts {
    /// What the check proves, in this exercise's words.
    #[serde(default)]
    pub explanation: Option<crate::text::Text>,
    /// What to look at when it fails.
    #[serde(default)]
    pub hint: Option<crate::text::Text>,
}

/// The placeholders a folder's check text may name: the return values, in the words of the
/// student's language (`True`/`False`, `true`/`false`, 1/0).
pub(super) const FOLDER_TEXT_PLACEHOLDERS: [&str; 2] = ["processed", "duplicate"];

/// `text` with each of `values`' placeholders (`{name}`) replaced by its value in that language.
pub(super) fn fill_folder_text(
    text: &crate::text::Text,
    values: &[(&str, crate::text::Text)],
) -> crate::text::Text {
    let fill = |source: &str, pick: &dyn Fn(&crate::text::Text) -> &str| {
        values
            .iter()
            .fold(source.to_string(), |out, (name, value)| out.replace(&format!("{{{name}}}"), pick(value)))
    };
    crate::text::Text { de: fill(&text.de, &|t| &t.de), en: fill(&text.en, &|t| &t.en) }
}

/// The first `{name}` in `text` (outside code in backticks) that is not a placeholder of
/// [`FOLDER_TEXT_PLACEHOLDERS`]: a word in braces a teacher meant as one, which students would
/// read as written.
fn unknown_placeholder(text: &str) -> Option<&str> {
    text.split('`').step_by(2).find_map(|prose| {
        prose.match_indices('{').find_map(|(start, _)| {
            let rest = &prose[start + 1..];
            let name = &rest[..rest.find('}')?];
            let a_name = !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            (a_name && !FOLDER_TEXT_PLACEHOLDERS.contains(&name)).then_some(name)
        })
    })
}

/// `[consumer.checks]`, checked: each key a check's name, each text free of unknown placeholders.
/// A problem names its key.
pub(super) fn read_check_texts(
    sections: &std::collections::BTreeMap<String, CheckTexts>,
    at: &dyn Fn(&[&str], String) -> ExerciseError,
) -> Result<std::collections::BTreeMap<String, CheckTexts>, ExerciseError> {
    let mut check_texts = std::collections::BTreeMap::new();
    for (name, texts) in sections {
        let check: super::checks::Check = name
            .parse()
            .map_err(|e| at(&["consumer", "checks", name.as_str()], format!("[consumer.checks]: {e}")))?;
        for (what, text) in [("explanation", &texts.explanation), ("hint", &texts.hint)] {
            let Some(text) = text else { continue };
            for (lang, words) in [("de", &text.de), ("en", &text.en)] {
                if let Some(placeholder) = unknown_placeholder(words) {
                    return Err(at(
                        &["consumer", "checks", name.as_str(), what, lang],
                        format!(
                            "[consumer.checks.{check}] {what}.{lang} names {{{placeholder}}}, which is not a placeholder \
                             (a check's text may name {{processed}} and {{duplicate}}, the return values in \
                             the student's language)",
                            check = check.name()
                        ),
                    ));
                }
            }
        }
        check_texts.insert(check.name().to_string(), texts.clone());
    }
    Ok(check_texts)
}

/// A consumer statement is shown as written: a `{{name}}` (which a prediction statement fills in)
/// would reach students literally, so it is an error at its line and column.
pub(super) fn no_placeholders(files: &crate::exercise::FolderFiles<'_>) -> Result<(), ExerciseError> {
    for file in ["statement.de.md", "statement.en.md"] {
        let Ok(text) = files.text(file) else { continue };
        for (index, line) in text.lines().enumerate() {
            let Some(start) = line.find("{{") else { continue };
            let Some(length) = line[start..].find("}}") else { continue };
            let name = &line[start + 2..start + length];
            return Err(ExerciseError::At {
                path: files.path(file),
                line: index + 1,
                column: line[..start].chars().count() + 1,
                message: format!(
                    "{{{{{name}}}}} is not filled in: a consumer statement has no placeholders (only prediction \
                     statements do), so students would read it as written; write the value itself"
                ),
            });
        }
    }
    Ok(())
}

/// `[consumer] relay`, checked: the name of a second entry, not the first one's, that a module
/// exports and a source file defines.
pub(super) fn read_relay(
    relay: Option<&str>,
    entry: &str,
    at: &dyn Fn(&[&str], String) -> ExerciseError,
) -> Result<Option<String>, ExerciseError> {
    let Some(relay) = relay else { return Ok(None) };
    let fits = !relay.is_empty()
        && relay.len() <= crate::limits::INTERPRETER_ENTRY_BYTES_MAX
        && relay.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !relay.as_bytes()[0].is_ascii_digit();
    if !fits || relay == entry {
        let max = crate::limits::INTERPRETER_ENTRY_BYTES_MAX;
        return Err(at(
            &["consumer", "relay"],
            format!(
                "[consumer] relay {relay:?} must name a function other than the entry {entry:?}: letters, digits \
                 and '_', not starting with a digit, at most {max} bytes"
            ),
        ));
    }
    Ok(Some(relay.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relay_is_a_function_name_other_than_the_entry() {
        let at =
            |_: &[&str], message: String| ExerciseError::Invalid { path: "exercise.toml".into(), message };
        assert_eq!(read_relay(None, "verarbeite", &at).ok(), Some(None));
        assert_eq!(
            read_relay(Some("weiterleiten"), "verarbeite", &at).ok(),
            Some(Some("weiterleiten".into()))
        );
        let long = "r".repeat(crate::limits::INTERPRETER_ENTRY_BYTES_MAX + 1);
        for bad in ["", "verarbeite", "1relay", "weiter leiten", "relay()", long.as_str()] {
            let Err(ExerciseError::Invalid { message, .. }) = read_relay(Some(bad), "verarbeite", &at) else {
                panic!("{bad:?} is refused");
            };
            assert!(message.contains("[consumer] relay"), "{message}");
        }
    }
}
