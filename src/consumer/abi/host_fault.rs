//! `HostFault`: what the host detects in a guest's call and ends the instance for (an injected
//! crash, a bad pointer or path, a limit), with its stable code and a message a student understands.

use crate::consumer::fault::FaultCode;
use crate::report::consumer::Boundary;
use crate::text;
use crate::text::Text;

/// A fault the host detects in a guest's call; ends the instance like a trap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostFault {
    #[error("crash injected at crash point {point}")]
    InjectedCrash { point: u32, after: Boundary },
    #[error("{call}: the range {ptr}..{ptr}+{len} lies outside the module's memory ({memory} bytes)")]
    OutOfBounds { call: &'static str, ptr: u32, len: u32, memory: usize },
    #[error("{call}: the message has no {problem}")]
    MessagePath { call: &'static str, path: String, problem: String },
    #[error("{call}: the {what} is not valid UTF-8")]
    NotUtf8 { call: &'static str, what: &'static str },
    #[error("abort called: {message} at {file}:{line}:{column}")]
    Abort { message: String, file: String, line: u32, column: u32 },
    #[error("more than {limit} statements in one delivery")]
    StatementLimit { limit: u32 },
    #[error("the module has no memory export")]
    NoMemory,
    #[error("world.send_mail called, but the exercise declares no mail provider")]
    NoProvider,
    #[error("world.publish called, but the exercise declares no broker")]
    NoBroker,
    #[error("world.commit_offset called, but the exercise declares no log that keeps the offsets")]
    NoLog,
    #[error("more than {limit} calls to outside services in one run")]
    OutsideCallLimit { limit: usize },
}

impl HostFault {
    /// A stable code and a message a student understands.
    pub(crate) fn explain(&self) -> (FaultCode, Text) {
        match self {
            HostFault::InjectedCrash { point, after } => {
                let after = after.describe();
                (
                    FaultCode::Crash,
                    Text {
                        de: format!(
                            "Absturz an Absturzpunkt {point}, {} (von der Prüfung ausgelöst)",
                            after.de
                        ),
                        en: format!("crash at crash point {point}, {} (injected by the harness)", after.en),
                    },
                )
            }
            HostFault::OutOfBounds { call, ptr, len, memory } => (
                FaultCode::PointerOutOfBounds,
                text!(
                    "{call}: Zeiger {ptr} mit Länge {len} liegt außerhalb des Speichers ({memory} Bytes). \
                     Übergib Zeiger und Länge eines Puffers, der wirklich im Modulspeicher liegt.",
                    "{call}: pointer {ptr} with length {len} lies outside the memory ({memory} bytes). \
                     Pass the pointer and length of a buffer that really is in the module's memory."
                ),
            ),
            HostFault::MessagePath { call, path, problem } => (
                FaultCode::MessagePath,
                text!(
                    "{call}(\"{path}\"): {problem}. Pfade sind z. B. \"id\" oder \"body.kunde\".",
                    "{call}(\"{path}\"): {problem}. Paths look like \"id\" or \"body.kunde\"."
                ),
            ),
            HostFault::NotUtf8 { call, what } => (
                FaultCode::NotUtf8,
                text!("{call}: {what} ist kein gültiges UTF-8.", "{call}: the {what} is not valid UTF-8."),
            ),
            HostFault::Abort { message, file, line, column } => (
                FaultCode::Abort,
                text!(
                    "Das Modul hat abort aufgerufen: „{message}“ ({file}:{line}:{column}).",
                    "The module called abort: \"{message}\" ({file}:{line}:{column})."
                ),
            ),
            HostFault::StatementLimit { limit } => (
                FaultCode::StatementLimit,
                text!(
                    "Mehr als {limit} SQL-Anweisungen in einer Zustellung (Grenze „Anweisungen pro Zustellung“).",
                    "More than {limit} SQL statements in one delivery (limit \"statements per delivery\")."
                ),
            ),
            HostFault::NoProvider => (
                FaultCode::NoProvider,
                text!(
                    "send_mail wurde aufgerufen, aber diese Aufgabe hat keinen Mail-Dienst.",
                    "send_mail was called, but this exercise has no mail provider."
                ),
            ),
            HostFault::NoBroker => (
                FaultCode::NoProvider,
                text!(
                    "publish wurde aufgerufen, aber diese Aufgabe hat keinen Broker.",
                    "publish was called, but this exercise has no broker."
                ),
            ),
            HostFault::NoLog => (
                FaultCode::NoProvider,
                text!(
                    "commit_offset wurde aufgerufen, aber in dieser Aufgabe hält kein Log die Offsets (offsets = \"broker\").",
                    "commit_offset was called, but in this exercise no log keeps the offsets (offsets = \"broker\")."
                ),
            ),
            HostFault::OutsideCallLimit { limit } => (
                FaultCode::OutsideCallLimit,
                text!(
                    "Mehr als {limit} Aufrufe externer Dienste in einem Lauf (Grenze „Aufrufe externer Dienste pro Lauf“).",
                    "More than {limit} calls to outside services in one run (limit \"outside calls per run\")."
                ),
            ),
            HostFault::NoMemory => (
                FaultCode::MissingMemory,
                text!(
                    "Das Modul exportiert keinen Speicher „memory“.",
                    "The module exports no memory \"memory\"."
                ),
            ),
        }
    }
}
