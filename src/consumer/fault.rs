//! Why an instance died on its own, as a stable code ([`FaultCode`], shown in the trace as
//! `[code]`).

/// Why an instance died on its own, as a stable code (shown in the trace as `[code]`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultCode {
    /// The harness injected a crash (see [`HostFault::InjectedCrash`]).
    Crash,
    PointerOutOfBounds,
    MessagePath,
    NotUtf8,
    /// The module called `env.abort`.
    Abort,
    StatementLimit,
    MissingMemory,
    MemoryLimit,
    TableLimit,
    FuelExhausted,
    /// The delivery's own wall-clock budget.
    WallClockLimit,
    /// The submission's deadline.
    SubmissionTimeLimit,
    StackLimit,
    MemoryOutOfBounds,
    /// The module reached `unreachable` (a panic, an abort in most languages).
    Unreachable,
    /// Any other trap.
    Trap,
    /// The start function waited for something that never came.
    StartPending,
    /// `world.send_mail` (or `world.publish`) in an exercise that declares no such service.
    NoProvider,
    /// More calls to outside services in one run than [`crate::limits::OUTSIDE_CALLS_PER_RUN_MAX`].
    OutsideCallLimit,
}

impl FaultCode {
    /// The code as it appears in traces and reports.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            FaultCode::Crash => "crash",
            FaultCode::PointerOutOfBounds => "pointer-out-of-bounds",
            FaultCode::MessagePath => "message-path",
            FaultCode::NotUtf8 => "not-utf8",
            FaultCode::Abort => "abort",
            FaultCode::StatementLimit => "statement-limit",
            FaultCode::MissingMemory => "missing-memory",
            FaultCode::MemoryLimit => "memory-limit",
            FaultCode::TableLimit => "table-limit",
            FaultCode::FuelExhausted => "fuel-exhausted",
            FaultCode::WallClockLimit => "wall-clock-limit",
            FaultCode::SubmissionTimeLimit => "submission-time-limit",
            FaultCode::StackLimit => "stack-limit",
            FaultCode::MemoryOutOfBounds => "memory-out-of-bounds",
            FaultCode::Unreachable => "unreachable",
            FaultCode::Trap => "trap",
            FaultCode::StartPending => "start-pending",
            FaultCode::NoProvider => "no-provider",
            FaultCode::OutsideCallLimit => "outside-call-limit",
        }
    }

    /// A fault the consumer caused on purpose to report an error (abort, unreachable, another
    /// trap): for a message whose effect fails, that is the error surfacing, not a failure.
    pub(crate) const fn is_deliberate(self) -> bool {
        matches!(self, FaultCode::Abort | FaultCode::Unreachable | FaultCode::Trap)
    }
}

impl std::fmt::Display for FaultCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Debug shows the code as a string, as in traces (teachers read it in an oracle's error).
impl std::fmt::Debug for FaultCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}
