//! A submission as it arrives: a prediction answer (text), a consumer module (wasm binary or WAT
//! text), or a consumer's source in a language Prüfstein interprets in the sandbox (Python,
//! JavaScript, TypeScript). Its
//! identity is the SHA-256 of its bytes.

use sha2::{Digest, Sha256};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// A prediction, as typed by the student: JSON (`[2, 2, 0]`) or a Python tuple (`(2, 2, 0)`).
    Answer(String),
    /// A consumer module: wasm binary or WAT text, exactly as uploaded.
    Module(Vec<u8>),
    /// A consumer's source text, run by the language's interpreter guest.
    Source { language: Language, text: String },
}

/// A language whose source a consumer exercise accepts, run by an interpreter compiled to
/// WebAssembly (see `graders/consumer/interpreters/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Python,
    JavaScript,
    /// Run as JavaScript once its types are stripped (in the sandbox).
    TypeScript,
}

impl Language {
    pub const ALL: [Language; 3] = [Language::Python, Language::JavaScript, Language::TypeScript];

    /// Why source in this language is refused by an exercise that accepts `accepted`: the one
    /// sentence the intake and the report say.
    pub(crate) fn not_accepted(self, accepted: &[Language]) -> crate::text::Text {
        let names: Vec<&str> = accepted.iter().map(|l| l.name()).collect();
        let names = if names.is_empty() { "-".to_string() } else { names.join(", ") };
        let language = self.name();
        crate::text::Text::new(
            format!(
                "Diese Aufgabe nimmt keinen Quelltext in {language} an (angenommen: {names}); reiche ein WebAssembly-Modul ein."
            ),
            format!(
                "This exercise does not accept source in {language} (accepted: {names}); submit a WebAssembly module."
            ),
        )
    }

    /// The name the intake, the catalogue and `exercise.toml` use.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
        }
    }

    /// The file extension a source file in this language has (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            Language::Python => "py",
            Language::JavaScript => "js",
            Language::TypeScript => "ts",
        }
    }

    /// Bytes a source file in this language may have (the interpreter guest's buffer).
    pub(crate) fn source_bytes_max(self) -> usize {
        match self {
            Language::Python => crate::limits::PYTHON_SOURCE_BYTES_MAX,
            Language::JavaScript | Language::TypeScript => crate::limits::JAVASCRIPT_SOURCE_BYTES_MAX,
        }
    }

    /// The language a file name's extension names.
    pub fn from_extension(extension: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.extension().eq_ignore_ascii_case(extension))
    }
}

impl std::str::FromStr for Language {
    type Err = String;
    fn from_str(name: &str) -> Result<Self, String> {
        Language::ALL.into_iter().find(|l| l.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
            format!("unknown language \"{name}\" (known: {})", known.join(", "))
        })
    }
}

/// The kinds of submission, as the intake and the catalogue name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmissionKind {
    Answer,
    Module,
}

impl SubmissionKind {}

impl Submission {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Submission::Answer(text) => text.as_bytes(),
            Submission::Module(bytes) => bytes,
            Submission::Source { text, .. } => text.as_bytes(),
        }
    }

    /// Hex SHA-256 of the submitted bytes.
    pub fn sha256(&self) -> String {
        sha256_hex(self.bytes())
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
