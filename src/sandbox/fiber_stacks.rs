//! Fiber stacks kept for the next call instead of unmapped: the stacks of an engine that maps its
//! instances one by one (an interpreter guest's, [`super::Allocation::Images`]).
//!
//! An interleaved run (the concurrent check, a schedule) calls its guests on fibers, and an
//! interpreter guest's setjmp trampolines nest one fiber per nesting: a Python submission's grading
//! made and unmapped hundreds of stacks, and mapping, faulting in and unmapping them was a seventh
//! of its grading time. A stack that ends goes back to a short list of its size instead
//! ([`FIBER_STACKS_KEPT_MAX`]); what lies deeper than [`FIBER_STACK_KEPT_RESIDENT_BYTES`] below its
//! top is handed back to the kernel first, so a deep recursion does not stay resident.
//!
//! A kept stack still holds the host frames of its last call. Nothing a guest runs can read them:
//! a wasm guest reads its linear memory, never the host's stack, and the host writes a frame
//! before it reads it. When wasmtime asks for a zeroed stack, a kept one is zeroed whole.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use wasmtime::{StackCreator, StackMemory};

use crate::limits::{FIBER_STACK_KEPT_RESIDENT_BYTES, FIBER_STACKS_KEPT_MAX};

use super::cow_memory::PAGE_BYTES;
/// The guard below each stack: inaccessible, so that an overflow faults.
const GUARD_BYTES: usize = PAGE_BYTES;

/// Makes the fiber stacks of one engine, reusing those that ended.
#[derive(Default)]
pub(crate) struct KeptStackCreator {
    kept: Arc<Mutex<Vec<Mapping>>>,
}

/// One stack's mapping: the guard page, then the stack.
struct Mapping {
    /// Start of the guard page.
    base: usize,
    /// Bytes of the stack above the guard.
    size: usize,
}

// SAFETY: each stack is a mapping owned by one `KeptStack` at a time (taken out of the list when
// handed out, put back only when that value drops); it is page aligned, readable and writable above
// a guard page that is not, and zero filled when it is first mapped or when zeroing is asked for.
#[allow(unsafe_code)]
unsafe impl StackCreator for KeptStackCreator {
    fn new_stack(&self, size: usize, zeroed: bool) -> wasmtime::Result<Box<dyn StackMemory>> {
        let size = size.div_ceil(PAGE_BYTES) * PAGE_BYTES;
        let reused = {
            let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            kept.iter().position(|m| m.size == size).map(|at| kept.swap_remove(at))
        };
        let mapping = match reused {
            Some(mapping) => {
                if zeroed {
                    mapping.release(mapping.stack().end)?;
                }
                mapping
            }
            None => Mapping::map(size)?,
        };
        Ok(Box::new(KeptStack { mapping: Some(mapping), kept: Arc::clone(&self.kept) }))
    }
}

/// A stack handed to wasmtime; back to its creator's list when it ends.
struct KeptStack {
    /// Always `Some` until the stack drops.
    mapping: Option<Mapping>,
    kept: Arc<Mutex<Vec<Mapping>>>,
}

impl KeptStack {
    fn mapping(&self) -> &Mapping {
        // Taken only in `drop`.
        self.mapping.as_ref().expect("a live stack has its mapping")
    }
}

// SAFETY: see `KeptStackCreator`: the ranges name the mapping this value owns.
#[allow(unsafe_code)]
unsafe impl StackMemory for KeptStack {
    fn top(&self) -> *mut u8 {
        self.mapping().stack().end as *mut u8
    }

    fn range(&self) -> Range<usize> {
        self.mapping().stack()
    }

    fn guard_range(&self) -> Range<*mut u8> {
        let mapping = self.mapping();
        mapping.base as *mut u8..(mapping.base + GUARD_BYTES) as *mut u8
    }
}

impl Drop for KeptStack {
    fn drop(&mut self) {
        let Some(mapping) = self.mapping.take() else { return };
        let stack = mapping.stack();
        let deep_end = stack.end.saturating_sub(FIBER_STACK_KEPT_RESIDENT_BYTES).max(stack.start);
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() < FIBER_STACKS_KEPT_MAX && mapping.release(deep_end).is_ok() {
            kept.push(mapping);
        }
        // Otherwise the mapping drops here and is unmapped.
    }
}

#[allow(unsafe_code)] // mmap, mprotect, madvise and munmap have no safe wrapper in the standard library.
impl Mapping {
    fn map(size: usize) -> wasmtime::Result<Mapping> {
        // SAFETY: sysconf only reads a constant of the system.
        if unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize != PAGE_BYTES {
            return Err(wasmtime::Error::msg("fiber stacks need 4 KiB pages"));
        }
        let os = |what: &str| {
            wasmtime::Error::msg(format!("cannot {what} a fiber stack: {}", std::io::Error::last_os_error()))
        };
        // SAFETY: a new anonymous mapping at an address the kernel chooses; nothing else uses it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                GUARD_BYTES + size,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os("map"));
        }
        let mapping = Mapping { base: base as usize, size };
        // SAFETY: the range lies inside the mapping just made.
        let opened = unsafe {
            libc::mprotect(
                (mapping.base + GUARD_BYTES) as *mut libc::c_void,
                size,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if opened != 0 {
            return Err(os("open"));
        }
        Ok(mapping)
    }

    /// The stack's bytes, above its guard.
    fn stack(&self) -> Range<usize> {
        self.base + GUARD_BYTES..self.base + GUARD_BYTES + self.size
    }

    /// Hands the stack's pages below `end` back to the kernel: they read as zero again.
    fn release(&self, end: usize) -> wasmtime::Result<()> {
        let start = self.stack().start;
        debug_assert!(start <= end && end <= self.stack().end && end.is_multiple_of(PAGE_BYTES));
        if end == start {
            return Ok(());
        }
        // SAFETY: the range lies inside this mapping, which no call runs on now.
        let released = unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
        if released != 0 {
            return Err(wasmtime::Error::msg(format!(
                "cannot release a fiber stack: {}",
                std::io::Error::last_os_error()
            )));
        }
        Ok(())
    }
}

impl Drop for Mapping {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `Mapping::map` and is owned by this value alone.
        unsafe { libc::munmap(self.base as *mut libc::c_void, GUARD_BYTES + self.size) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_that_ended_is_the_next_one_and_reads_as_zero_below_what_is_kept() {
        let creator = KeptStackCreator::default();
        let size = 4 * FIBER_STACK_KEPT_RESIDENT_BYTES;
        let first = creator.new_stack(size, false).expect("stack");
        let range = first.range();
        assert_eq!(range.len(), size);
        assert_eq!(first.guard_range().end as usize, range.start);
        // Write the whole stack: the bottom is released when it ends, the top is kept.
        #[allow(unsafe_code)]
        // SAFETY: the range is the stack's own readable and writable memory.
        unsafe {
            std::ptr::write_bytes(range.start as *mut u8, 0xA5, size)
        };
        drop(first);
        let second = creator.new_stack(size, false).expect("stack");
        assert_eq!(second.range(), range, "the kept stack is handed out again");
        #[allow(unsafe_code)]
        // SAFETY: as above.
        let bytes = unsafe { std::slice::from_raw_parts(range.start as *const u8, size) };
        let kept_from = size - FIBER_STACK_KEPT_RESIDENT_BYTES;
        assert!(bytes[..kept_from].iter().all(|b| *b == 0), "the deep part was released");
        assert!(bytes[kept_from..].iter().all(|b| *b == 0xA5), "the top stayed resident");
        drop(second);
        let zeroed = creator.new_stack(size, true).expect("stack");
        #[allow(unsafe_code)]
        // SAFETY: as above.
        let bytes = unsafe { std::slice::from_raw_parts(zeroed.range().start as *const u8, size) };
        assert!(bytes.iter().all(|b| *b == 0), "a zeroed stack is zero whole");
    }

    #[test]
    fn at_most_the_kept_number_of_stacks_stay_mapped() {
        let creator = KeptStackCreator::default();
        let stacks: Vec<_> = (0..FIBER_STACKS_KEPT_MAX + 3)
            .map(|_| creator.new_stack(64 * 1024, false).expect("stack"))
            .collect();
        drop(stacks);
        assert_eq!(creator.kept.lock().expect("list").len(), FIBER_STACKS_KEPT_MAX);
        let other_size = creator.new_stack(128 * 1024, false).expect("stack");
        assert_eq!(other_size.range().len(), 128 * 1024, "a stack of another size is mapped anew");
    }
}
