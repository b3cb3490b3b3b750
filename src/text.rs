//! Bilingual texts. Everything a student or teacher reads exists in German (the course's language)
//! and English; the renderer picks one with [`Lang`]. Also how a student's text is made safe to
//! show: [`for_terminal`] (control characters as escapes), [`reveal_bidi`] (bidirectional controls
//! named, for pages), and [`is_hidden_control`] (what no learner id may hold).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// A language a report or statement can be rendered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    De,
    En,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::De => "de",
            Lang::En => "en",
        }
    }
}

impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "de" | "deutsch" | "german" => Ok(Lang::De),
            "en" | "english" | "englisch" => Ok(Lang::En),
            other => Err(format!("unknown language {other:?}: use \"de\" or \"en\"")),
        }
    }
}

/// A text in German and English.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Text {
    pub de: String,
    pub en: String,
}

impl Text {
    pub(crate) fn new(de: impl Into<String>, en: impl Into<String>) -> Self {
        Text { de: de.into(), en: en.into() }
    }

    /// The same text in both languages (names, SQL, numbers).
    pub fn same(both: impl Into<String>) -> Self {
        let both = both.into();
        Text { de: both.clone(), en: both }
    }

    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::De => &self.de,
            Lang::En => &self.en,
        }
    }
}

/// Builds a [`Text`] from two format strings sharing the same arguments:
/// `text!("{n} Schreibzugriffe", "{n} writes", n = 3)`.
#[macro_export]
macro_rules! text {
    ($de:literal, $en:literal $(, $($args:tt)*)?) => {
        $crate::text::Text {
            de: format!($de $(, $($args)*)?),
            en: format!($en $(, $($args)*)?),
        }
    };
}

/// The bidirectional formatting controls that reorder text as it is displayed ("Trojan Source"):
/// embeddings and overrides U+202A–U+202E, isolates U+2066–U+2069, with their abbreviations.
const BIDI_CONTROLS: [(char, &str); 9] = [
    ('\u{202a}', "LRE"),
    ('\u{202b}', "RLE"),
    ('\u{202c}', "PDF"),
    ('\u{202d}', "LRO"),
    ('\u{202e}', "RLO"),
    ('\u{2066}', "LRI"),
    ('\u{2067}', "RLI"),
    ('\u{2068}', "FSI"),
    ('\u{2069}', "PDI"),
];

/// A bidirectional formatting control (U+202A–U+202E, U+2066–U+2069).
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A character that changes how text around it is shown instead of showing itself: a control
/// character (C0, DEL, C1) or a bidirectional control. No learner id may hold one.
pub(crate) fn is_hidden_control(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// `text` as a terminal may show it: every control character but newline and tab, and every
/// bidirectional control, written as a visible escape (`\x1b`, `\r`, `\u{202e}`), so that a
/// student's printed text, SQL or exception message can neither move the cursor, set the window
/// title, clear the screen nor reorder a line. Everything else is left as it is.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hidden_control(c) && !matches!(c, '\n' | '\t')) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("\\r"),
            c if c.is_control() && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if is_hidden_control(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// JSON text as a terminal may show it: the control characters JSON leaves raw in strings (DEL,
/// C1) and the bidirectional controls written as `\uXXXX` escapes, which a JSON reader reads back as
/// the same characters.
pub(crate) fn json_for_terminal(json: &str) -> Cow<'_, str> {
    if !json.chars().any(is_hidden_control) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        // Raw newlines and tabs are the pretty printer's layout; inside strings JSON escapes them.
        if is_hidden_control(c) && !matches!(c, '\n' | '\t') {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` with each bidirectional control replaced by its name in brackets (`[U+202E RLO]`), for a
/// page: a line that holds one then reads as it runs. Plain text without markup, so it is safe
/// anywhere in an HTML document, inside attributes too.
pub(crate) fn reveal_bidi(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_bidi_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 32);
    for c in text.chars() {
        match BIDI_CONTROLS.iter().find(|(b, _)| *b == c) {
            Some((b, name)) => out.push_str(&format!("[U+{:04X} {name}]", *b as u32)),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_sees_escapes_where_a_student_wrote_control_characters() {
        assert!(matches!(for_terminal("plain\ttext\nÄ€"), Cow::Borrowed(_)));
        assert_eq!(
            for_terminal("\x1b]0;t\x07\r\u{9b}x\u{7f}\u{202e}y\u{2069}\n"),
            "\\x1b]0;t\\x07\\r\\x9bx\\x7f\\u{202e}y\\u{2069}\n"
        );
    }

    #[test]
    fn json_for_a_terminal_reads_back_as_the_same_value() {
        let value = serde_json::json!({"log": "\u{1b}[2J\u{7f}\u{9b}\u{202e}x\n"});
        let json = serde_json::to_string_pretty(&value).unwrap();
        let shown = json_for_terminal(&json);
        assert!(!shown.chars().any(|c| is_hidden_control(c) && c != '\n'), "{shown}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&shown).unwrap(), value);
    }

    #[test]
    fn a_page_names_each_bidi_control() {
        assert!(matches!(reveal_bidi("a < b \u{200f}"), Cow::Borrowed(_)));
        let all: String = BIDI_CONTROLS.iter().map(|(c, _)| *c).collect();
        let shown = reveal_bidi(&all);
        assert!(!shown.chars().any(is_bidi_control), "{shown}");
        assert!(shown.starts_with("[U+202A LRE][U+202B RLE]") && shown.ends_with("[U+2069 PDI]"), "{shown}");
        assert!((0..0x11_0000).filter_map(char::from_u32).filter(|c| is_bidi_control(*c)).count() == 9);
    }
}
