//! The messages between the service (or the CLI) and a worker process, and their framing: each
//! message is a 4-byte little-endian length and that many bytes of JSON. Bytes (a module, the files
//! of an exercise folder) travel base64-encoded. Nothing here depends on actix or tokio.

use std::io::{Read, Write};

use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::exercise::FolderSnapshot;
use crate::grade::{Compiler, GradeError, GradeOptions};
use crate::limits::WORKER_MESSAGE_BYTES_MAX;
use crate::report::Report;
use crate::submission::Submission;

/// Grade one submission against the exercise version named by `exercise_id`.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct GradeRequest {
    /// The content identity of the exercise version ([`FolderSnapshot::id`]).
    pub exercise_id: String,
    /// The version's files: sent when the worker answered [`Response::NeedExercise`].
    pub exercise: Option<WireSnapshot>,
    pub submission: WireSubmission,
    pub options: WireOptions,
}

/// What the worker answers.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Response {
    Graded(Box<Report>),
    /// Grading returned an error (the exercise is broken, a replay token is wrong, a bug).
    Error {
        kind: ErrorKind,
        slug: Option<String>,
        message: String,
    },
    /// The worker does not hold this exercise version: send the request again with its files.
    NeedExercise,
    /// The grader's own set-up of a submission that has one ([`has_setup`]) is done (the
    /// exercise held, its interpreter ready): the submission's time starts now. The answer
    /// follows.
    Ready,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) enum ErrorKind {
    Exercise,
    Replay,
    Internal,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WireSnapshot {
    pub id: String,
    pub folder: String,
    /// Relative path and base64 contents.
    pub files: Vec<(String, String)>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum WireSubmission {
    Answer(String),
    /// Base64.
    Module(String),
    /// A consumer's source: the language's name and the text.
    Source {
        language: String,
        text: String,
    },
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WireOptions {
    pub learner: Option<String>,
    pub course_secret: String,
    pub cranelift: bool,
    pub replay: Option<String>,
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

impl WireSnapshot {
    pub(crate) fn from_snapshot(snapshot: &FolderSnapshot) -> WireSnapshot {
        WireSnapshot {
            id: snapshot.id.clone(),
            folder: snapshot.folder.clone(),
            files: snapshot.files.iter().map(|(path, bytes)| (path.clone(), b64().encode(bytes))).collect(),
        }
    }

    pub(crate) fn into_snapshot(self) -> Result<FolderSnapshot, String> {
        let files = self
            .files
            .into_iter()
            .map(|(path, data)| {
                b64().decode(data.as_bytes()).map(|bytes| (path, bytes)).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let snapshot = FolderSnapshot { id: self.id, folder: self.folder, files };
        if snapshot.is_intact() {
            Ok(snapshot)
        } else {
            Err("the exercise files do not match their identity".into())
        }
    }
}

impl WireSubmission {
    pub(crate) fn from_submission(submission: &Submission) -> WireSubmission {
        match submission {
            Submission::Answer(answer) => WireSubmission::Answer(answer.clone()),
            Submission::Module(bytes) => WireSubmission::Module(b64().encode(bytes)),
            Submission::Source { language, text } => {
                WireSubmission::Source { language: language.name().to_string(), text: text.clone() }
            }
        }
    }

    pub(crate) fn into_submission(self) -> Result<Submission, String> {
        match self {
            WireSubmission::Answer(answer) => Ok(Submission::Answer(answer)),
            WireSubmission::Module(data) => {
                b64().decode(data.as_bytes()).map(Submission::Module).map_err(|e| e.to_string())
            }
            WireSubmission::Source { language, text } => {
                Ok(Submission::Source { language: language.parse()?, text })
            }
        }
    }
}

impl WireOptions {
    pub(crate) fn from_options(options: &GradeOptions) -> WireOptions {
        WireOptions {
            learner: options.learner.clone(),
            course_secret: options.course_secret.clone(),
            cranelift: options.compiler == Compiler::Cranelift,
            replay: options.replay.clone(),
        }
    }

    pub(crate) fn into_options(self) -> GradeOptions {
        GradeOptions {
            learner: self.learner,
            course_secret: self.course_secret,
            compiler: if self.cranelift { Compiler::Cranelift } else { Compiler::Winch },
            replay: self.replay,
        }
    }
}

impl Response {
    pub(crate) fn from_result(result: Result<Report, GradeError>) -> Response {
        match result {
            Ok(report) => Response::Graded(Box::new(report)),
            Err(GradeError::Exercise { slug, message }) => {
                Response::Error { kind: ErrorKind::Exercise, slug: Some(slug), message }
            }
            Err(GradeError::Replay(message)) => {
                Response::Error { kind: ErrorKind::Replay, slug: None, message }
            }
            Err(GradeError::Internal(message)) => {
                Response::Error { kind: ErrorKind::Internal, slug: None, message }
            }
        }
    }
}

/// Turns an error answer back into the error grading returned in the worker.
pub(crate) fn grade_error(kind: ErrorKind, slug: Option<String>, message: String) -> GradeError {
    match kind {
        ErrorKind::Exercise => GradeError::Exercise { slug: slug.unwrap_or_default(), message },
        ErrorKind::Replay => GradeError::Replay(message),
        ErrorKind::Internal => GradeError::Internal(message),
    }
}

/// Whether grading `submission` starts with the grader's own set-up, for which the worker says
/// [`Response::Ready`]: a source submission's interpreter. A module or an answer has none, and its
/// time starts when it is sent (no message more on the way of the commonest submissions).
pub(crate) fn has_setup(submission: &crate::submission::Submission) -> bool {
    matches!(submission, crate::submission::Submission::Source { .. })
}

/// Writes one message: its length, then its JSON.
pub(crate) fn write_message<T: Serialize>(out: &mut impl Write, message: &T) -> std::io::Result<()> {
    let json = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    if json.len() > WORKER_MESSAGE_BYTES_MAX {
        return Err(std::io::Error::other(format!(
            "a message of {} bytes is larger than worker_message_bytes_max ({WORKER_MESSAGE_BYTES_MAX})",
            json.len()
        )));
    }
    out.write_all(&(json.len() as u32).to_le_bytes())?;
    out.write_all(&json)?;
    out.flush()
}

/// Reads one message; `Ok(None)` at a clean end of the stream (before a length).
pub(crate) fn read_message<T: serde::de::DeserializeOwned>(
    input: &mut impl Read,
) -> std::io::Result<Option<T>> {
    let mut length = [0u8; 4];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u32::from_le_bytes(length) as usize;
    if length > WORKER_MESSAGE_BYTES_MAX {
        return Err(std::io::Error::other(format!(
            "a message of {length} bytes is larger than worker_message_bytes_max ({WORKER_MESSAGE_BYTES_MAX})"
        )));
    }
    let mut json = vec![0u8; length];
    input.read_exact(&mut json)?;
    serde_json::from_slice(&json).map(Some).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_round_trips_and_an_oversized_length_is_refused() {
        let mut buffer = Vec::new();
        let request = WireSubmission::from_submission(&Submission::Module(vec![0, 1, 2, 255]));
        write_message(&mut buffer, &request).unwrap();
        let read: WireSubmission = read_message(&mut buffer.as_slice()).unwrap().unwrap();
        assert_eq!(read.into_submission().unwrap(), Submission::Module(vec![0, 1, 2, 255]));
        assert!(read_message::<WireSubmission>(&mut [].as_slice()).unwrap().is_none());
        let huge = ((WORKER_MESSAGE_BYTES_MAX + 1) as u32).to_le_bytes();
        let error = read_message::<WireSubmission>(&mut huge.as_slice()).unwrap_err();
        assert!(error.to_string().contains("worker_message_bytes_max"), "{error}");
        // A length with fewer bytes behind it is an error, not a clean end.
        let mut cut = 10u32.to_le_bytes().to_vec();
        cut.extend_from_slice(b"{}");
        assert!(read_message::<WireSubmission>(&mut cut.as_slice()).is_err());
    }
}
