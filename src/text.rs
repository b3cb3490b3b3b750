//! Bilingual texts. Everything a student or teacher reads exists in German (the course's language)
//! and English; the renderer picks one with [`Lang`].

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
    pub fn new(de: impl Into<String>, en: impl Into<String>) -> Self {
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
