//! Consumers in source languages: the Python, JavaScript and TypeScript guests.

use super::sandbox::*;

/// Bytes of a Python consumer's source (`consumer.py`); a longer file is rejected
/// (`source-too-large`). The guest's buffer (`PF_SOURCE_BYTES_MAX` in its glue) has this size.
pub const PYTHON_SOURCE_BYTES_MAX: usize = 64 * 1024;
/// The interpreter's heap (its garbage-collected objects), fixed in the guest (`PF_HEAP_BYTES`):
/// growing beyond it raises `MemoryError` in the student's code (limit "interpreter heap").
pub const PYTHON_HEAP_BYTES: u64 = 2 * 1024 * 1024;
/// The interpreter's own stack for C frames (its shadow stack, 1 MiB) is checked by the
/// interpreter at this depth: deeper recursion raises `RuntimeError: maximum recursion depth
/// exceeded` (limit "recursion depth").
pub const PYTHON_RECURSION_STACK_BYTES: u64 = 768 * 1024;
/// Fuel to load the student's file into an instance (compile it and run its top level); the
/// interpreter itself starts from a snapshot taken once per process.
pub const PYTHON_FUEL_TO_LOAD: u64 = 20_000_000;
/// Fuel for starting the interpreter once per process (the snapshot): its own code, no student's.
pub const PYTHON_FUEL_TO_INIT: u64 = 100_000_000;

const _: () = assert!(PYTHON_HEAP_BYTES + 2 * 1024 * 1024 < MEMORY_BYTES_MAX);
const _: () = assert!(PYTHON_RECURSION_STACK_BYTES < 1024 * 1024);

// ---- Consumers in JavaScript (the QuickJS-ng guest, `graders/consumer/interpreters/javascript`) ----

/// Bytes of a JavaScript consumer's source (`consumer.js`); a longer file is rejected
/// (`source-too-large`). The guest's buffer (`PF_SOURCE_BYTES_MAX` in its glue) has this size.
pub const JAVASCRIPT_SOURCE_BYTES_MAX: usize = 64 * 1024;
/// The interpreter's heap, fixed in the guest (`PF_HEAP_BYTES`, QuickJS's memory limit): growing
/// beyond it throws `InternalError: out of memory` (limit "interpreter heap").
pub const JAVASCRIPT_HEAP_BYTES: u64 = 8 * 1024 * 1024;
/// The interpreter checks its own stack (its shadow stack, 1 MiB) at this depth: deeper recursion
/// throws `RangeError: Maximum call stack size exceeded` (limit "recursion depth").
pub const JAVASCRIPT_RECURSION_STACK_BYTES: u64 = 640 * 1024;
/// Fuel to load the student's file into an instance (compile it and run its top level).
pub const JAVASCRIPT_FUEL_TO_LOAD: u64 = 20_000_000;
/// Fuel for starting the interpreter once per process (the snapshot).
pub const JAVASCRIPT_FUEL_TO_INIT: u64 = 100_000_000;

const _: () = assert!(JAVASCRIPT_HEAP_BYTES + 2 * 1024 * 1024 < MEMORY_BYTES_MAX);
const _: () = assert!(JAVASCRIPT_RECURSION_STACK_BYTES < 1024 * 1024);

// ---- Consumers in TypeScript (the type stripper, `graders/consumer/interpreters/typescript`) ----

/// Fuel, memory and wall-clock time the type stripper may use for one file (its work grows with the
/// file, which is at most [`JAVASCRIPT_SOURCE_BYTES_MAX`]); a file that needs more is rejected,
/// naming the limit.
pub const TYPESCRIPT_STRIP_FUEL: u64 = 500_000_000;
pub const TYPESCRIPT_STRIP_MEMORY_BYTES: u64 = 64 * 1024 * 1024;
pub const TYPESCRIPT_STRIP_WALL_MS: u64 = 5_000;
/// Bytes of JavaScript the stripper may return (it prints the module anew: a little more than the
/// source at most); the JavaScript guest then takes at most [`JAVASCRIPT_SOURCE_BYTES_MAX`].
pub const TYPESCRIPT_STRIP_OUTPUT_BYTES_MAX: usize = 4 * JAVASCRIPT_SOURCE_BYTES_MAX;
/// Bytes the stripper may write to its standard output or error (a panic message) before it is
/// stopped; what it writes is dropped.
pub const TYPESCRIPT_STRIP_STDIO_BYTES_MAX: u64 = 64 * 1024;

// ---- Every interpreter guest ----

/// The wasm stack an interpreter's engine gets (an interpreter's frames are larger than a compiled
/// module's; the default [`WASM_STACK_BYTES_MAX`] would end recursion far earlier than the
/// interpreter's own check, such as [`PYTHON_RECURSION_STACK_BYTES`]).
pub const INTERPRETER_WASM_STACK_BYTES: usize = 2 * 1024 * 1024;
/// Wall-clock time for starting an interpreter once per process (the snapshot).
pub const INTERPRETER_INIT_WALL_MS: u64 = 10_000;
/// Bytes of the entry function's name (the exercise's `entry`) an interpreter guest takes: its
/// buffer (`PF_ENTRY_BYTES_MAX` in each guest's glue) has this size.
pub const INTERPRETER_ENTRY_BYTES_MAX: usize = 64;
