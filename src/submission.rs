//! A submission as it arrives: a prediction answer (text) or a consumer module (wasm binary or WAT
//! text). Its identity is the SHA-256 of its bytes.

use sha2::{Digest, Sha256};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// A prediction, as typed by the student: JSON (`[2, 2, 0]`) or a Python tuple (`(2, 2, 0)`).
    Answer(String),
    /// A consumer module: wasm binary or WAT text, exactly as uploaded.
    Module(Vec<u8>),
}

/// The kinds of submission, as the intake and the catalogue name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmissionKind {
    Answer,
    Module,
}

impl SubmissionKind {
    pub fn name(self) -> &'static str {
        match self {
            SubmissionKind::Answer => "answer",
            SubmissionKind::Module => "module",
        }
    }
}

impl Submission {
    pub fn kind(&self) -> SubmissionKind {
        match self {
            Submission::Answer(_) => SubmissionKind::Answer,
            Submission::Module(_) => SubmissionKind::Module,
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Submission::Answer(text) => text.as_bytes(),
            Submission::Module(bytes) => bytes,
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
