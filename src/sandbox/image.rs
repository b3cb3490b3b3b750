//! A module's copy-on-write memory image, made when Prüfstein asks for it rather than at the first
//! instance's start, and tried again when the kernel refuses it for a moment.
//!
//! On Linux wasmtime writes a module's initial memory (for an interpreter guest, the whole heap of
//! its snapshot) into a new memfd and seals it (`F_SEAL_WRITE` among others), then maps it
//! privately into every instance. The kernel refuses `F_SEAL_WRITE` with `EBUSY` when the file has
//! a writable shared mapping (wasmtime makes none) or when, after waiting about 150 ms, a page of it
//! still holds a reference beyond the page cache's: on a loaded machine, reclaim, compaction and
//! migration hold freshly written pages for a moment. That was "cannot add seals to the memfd",
//! once in about 180 gradings. A fork elsewhere cannot hold the file: it is close-on-exec and
//! never mapped shared. The refusal passes, so the image is made again after a pause; wasmtime
//! keeps no failed image, so a new attempt starts afresh. A refusal that outlasts
//! [`MEMORY_IMAGE_ATTEMPTS_MAX`] attempts is the grader's fault, never the submission's: callers
//! report it as such.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use wasmtime::Module;

use crate::limits::{MEMORY_IMAGE_ATTEMPTS_MAX, MEMORY_IMAGE_RETRY_MS};

/// Refusals still to be injected in this process (tests only, see [`inject_refusals`]).
static INJECTED_REFUSALS: AtomicU32 = AtomicU32::new(0);

/// Makes the copy-on-write memory image of `module` now, trying again after a refusal; a no-op once
/// it is made. The error names the attempts and what the last one met.
pub(crate) fn prepare(module: &Module) -> Result<(), String> {
    let mut last = String::new();
    for attempt in 1..=MEMORY_IMAGE_ATTEMPTS_MAX {
        let made = if take_injected_refusal() {
            Err("cannot add seals to the memfd: Device or resource busy (os error 16), injected".to_string())
        } else {
            module.initialize_copy_on_write_image().map_err(|e| format!("{e:#}"))
        };
        match made {
            Ok(()) => return Ok(()),
            Err(error) => last = error,
        }
        if attempt < MEMORY_IMAGE_ATTEMPTS_MAX {
            std::thread::sleep(Duration::from_millis(MEMORY_IMAGE_RETRY_MS * u64::from(attempt)));
        }
    }
    Err(format!(
        "the grader could not make a module's memory image in {MEMORY_IMAGE_ATTEMPTS_MAX} attempts \
         (memory_image_attempts_max): {last}"
    ))
}

/// Makes the next `refusals` attempts of [`prepare`] in this process fail as the kernel's refusal
/// does (`u32::MAX`: every one). Only a grading process whose test asked for fault injection calls
/// this.
pub(crate) fn inject_refusals(refusals: u32) {
    INJECTED_REFUSALS.store(refusals, Ordering::SeqCst);
}

fn take_injected_refusal() -> bool {
    INJECTED_REFUSALS
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| match n {
            0 => None,
            u32::MAX => Some(u32::MAX),
            n => Some(n - 1),
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_module_with_data_gets_its_image_and_a_second_call_is_free() {
        let engine = crate::sandbox::engine(crate::exercise::Compiler::Winch).expect("engine");
        let module = wasmtime::Module::new(engine, r#"(module (memory 1) (data (i32.const 0) "image"))"#)
            .expect("compiles");
        super::prepare(&module).expect("made");
        super::prepare(&module).expect("kept");
    }
}
