//! How an instance's end is told: the epoch deadline of a start or delivery (capped to the
//! submission's time left), and a trap or host fault turned into a [`FaultCode`] and a message a
//! student understands, naming the limit that was hit.

use wasmtime::Trap;

use super::abi::HostFault;
use super::fault::FaultCode;
use crate::deadline::Deadline;
use crate::limits::Limits;
use crate::sandbox;
use crate::sandbox::limiter::LimitHit;
use crate::text;
use crate::text::Text;

/// Epoch ticks for one start or delivery: its own wall-clock budget, capped to the time the
/// submission has left; the second value says whether the cap binds.
pub(super) fn epoch_ticks(limits: &Limits, deadline: &Deadline) -> (u64, bool) {
    let left = deadline.remaining().as_millis().min(u128::from(u64::MAX)) as u64;
    let capped = left < limits.wall_ms_per_delivery;
    if !capped {
        return (sandbox::epoch_ticks(limits.wall_ms_per_delivery), false);
    }
    // Rounded up, plus one tick for the ticker's phase: a trap at the cap comes only once the
    // deadline has passed, so the check that meets it knows that the submission's time is up.
    let tick = sandbox::EPOCH_TICK.as_millis() as u64;
    (left.div_ceil(tick) + 1, true)
}

/// [`classify`], except that an interrupt at an epoch deadline capped to the submission's names
/// the submission's limit.
pub(super) fn classify_at(
    error: &wasmtime::Error,
    limits: &Limits,
    deadline: &Deadline,
    capped: bool,
) -> (FaultCode, Text) {
    if matches!(cause::<Trap>(error), Some(Trap::Interrupt)) && (capped || deadline.expired()) {
        return (FaultCode::SubmissionTimeLimit, deadline.limit_text());
    }
    classify(error, limits)
}

/// The first error of type `E` in `error`'s chain: a trap or host fault that passed through an
/// interpreter guest's trampolines arrives wrapped in the context of the calls it unwound.
pub(super) fn cause<E: std::error::Error + Send + Sync + 'static>(error: &wasmtime::Error) -> Option<&E> {
    error.downcast_ref::<E>().or_else(|| error.chain().find_map(|c| c.downcast_ref::<E>()))
}

/// Turns a trap or host fault into a stable code and a message a student understands.
pub(super) fn classify(error: &wasmtime::Error, limits: &Limits) -> (FaultCode, Text) {
    if let Some(fault) = cause::<HostFault>(error) {
        return fault.explain();
    }
    if let Some(hit) = cause::<LimitHit>(error) {
        return match hit {
            LimitHit::Memory { desired, max } => (
                FaultCode::MemoryLimit,
                text!(
                    "Das Modul wollte seinen Speicher auf {d} KiB vergrößern; erlaubt sind {m} KiB (Grenze „Speicher“).",
                    "The module tried to grow its memory to {d} KiB; {m} KiB are allowed (limit \"memory\").",
                    d = desired / 1024,
                    m = max / 1024
                ),
            ),
            LimitHit::Table { desired, max } => (
                FaultCode::TableLimit,
                text!(
                    "Das Modul wollte eine Tabelle auf {desired} Einträge vergrößern; erlaubt sind {max}.",
                    "The module tried to grow a table to {desired} elements; {max} are allowed."
                ),
            ),
        };
    }
    if let Some(trap) = cause::<Trap>(error) {
        let (code, message) = match trap {
            Trap::OutOfFuel => (
                FaultCode::FuelExhausted,
                text!(
                    "Das Rechenbudget ist aufgebraucht ({fuel} Einheiten Treibstoff pro Zustellung, Grenze „fuel“). \
                     Läuft eine Schleife endlos?",
                    "The computation budget is used up ({fuel} units of fuel per delivery, limit \"fuel\"). \
                     Is there a loop that never ends?",
                    fuel = limits.fuel_per_delivery
                ),
            ),
            Trap::Interrupt => (
                FaultCode::WallClockLimit,
                text!(
                    "Die Zustellung dauerte länger als {ms} ms (Grenze „Zeit pro Zustellung“).",
                    "The delivery took longer than {ms} ms (limit \"time per delivery\").",
                    ms = limits.wall_ms_per_delivery
                ),
            ),
            Trap::StackOverflow => (
                FaultCode::StackLimit,
                text!(
                    "Der Stapelspeicher ist übergelaufen ({kib} KiB, Grenze „Stack“): eine zu tiefe oder endlose Rekursion?",
                    "The stack overflowed ({kib} KiB, limit \"stack\"): recursion too deep or endless?",
                    kib = limits.wasm_stack_bytes / 1024
                ),
            ),
            Trap::MemoryOutOfBounds => (
                FaultCode::MemoryOutOfBounds,
                text!(
                    "Zugriff außerhalb des Speichers (memory out of bounds).",
                    "Memory access out of bounds."
                ),
            ),
            Trap::UnreachableCodeReached => (
                FaultCode::Unreachable,
                text!(
                    "Das Modul hat „unreachable“ erreicht (so endet z. B. ein panic oder abort).",
                    "The module reached \"unreachable\" (this is how a panic or abort ends)."
                ),
            ),
            other => (
                FaultCode::Trap,
                text!("Das Modul ist abgestürzt (trap): {other}", "The module trapped: {other}"),
            ),
        };
        return (code, message);
    }
    let first = format!("{error:#}").lines().next().unwrap_or("").to_string();
    (FaultCode::Trap, text!("Das Modul ist abgestürzt: {first}", "The module failed: {first}"))
}
