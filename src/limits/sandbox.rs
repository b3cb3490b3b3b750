//! What a student's guest may use while it runs: module size and compile budget, memory, stack,
//! instance pools, fuel, SQL (steps, statements, texts, values, parser depths), the scratch
//! database, the observed state, the log and the trace.

/// Largest accepted submission module (binary wasm or WAT text), in bytes.
pub const MODULE_BYTES_MAX: usize = 2 * 1024 * 1024;
/// Compile budget: a module is checked against these counts before it is compiled, because the
/// compilers' time and memory grow with them (a 16 KB module can declare millions of locals). The
/// defaults leave ample room for modules built from the starter kits (AssemblyScript, C, Zig, Rust);
/// an exercise with a larger guest (an interpreter) raises them under `[limits]`.
/// Functions a module may define.
pub const WASM_FUNCTIONS_MAX: u32 = 10_000;
/// Locals (not parameters) one function may declare.
pub const WASM_LOCALS_PER_FUNCTION_MAX: u32 = 2_000;
/// Locals all functions of a module may declare together.
pub const WASM_LOCALS_TOTAL_MAX: u64 = 200_000;
/// Size of the code section, in bytes.
pub const WASM_CODE_BYTES_MAX: u32 = 2 * 1024 * 1024;
/// Size of one function body, in bytes.
pub const WASM_FUNCTION_BODY_BYTES_MAX: u32 = 512 * 1024;
/// Bytes of all data segments together.
pub const WASM_DATA_BYTES_MAX: u32 = 2 * 1024 * 1024;
/// Entries of the type, import, export, global, table, element and data sections (each section on
/// its own).
pub const WASM_TYPES_MAX: u32 = 2_000;
pub const WASM_IMPORTS_MAX: u32 = 100;
pub const WASM_EXPORTS_MAX: u32 = 1_000;
pub const WASM_GLOBALS_MAX: u32 = 1_000;
pub const WASM_TABLES_MAX: u32 = 4;
pub const WASM_ELEMENT_SEGMENTS_MAX: u32 = 1_000;
pub const WASM_DATA_SEGMENTS_MAX: u32 = 1_000;
/// Largest linear memory a guest may have, in bytes.
pub const MEMORY_BYTES_MAX: u64 = 64 * 1024 * 1024;
/// The most an exercise may raise its guests' memory to (`limits.memory_bytes`).
pub const MEMORY_BYTES_OVERRIDE_MAX: u64 = 512 * 1024 * 1024;
/// Largest wasm table a guest may have, in elements.
pub const TABLE_ELEMENTS_MAX: usize = 10_000;
/// The guest's wasm stack, in bytes.
pub const WASM_STACK_BYTES_MAX: usize = 512 * 1024;
/// Different wasm stack sizes the exercises of one process may ask for (`limits.wasm_stack_bytes`):
/// wasmtime fixes the stack per engine, so each size has an engine of its own, kept for the life of
/// the process. A grading that needs one more fails with this limit named.
pub const WASM_STACK_ENGINES_MAX: usize = 8;
/// Instances one grading holds at once, at most: the two interleaved instances of the concurrent
/// check, or a schedule's instance and the one that takes over its lease, with the reference run
/// that gives a schedule's expected state. Checked in debug builds whenever an instance starts.
pub const POOL_INSTANCES_PER_GRADING: u32 = 3;
/// Instance slots of a pooled engine in a grading worker process, which grades one submission at a
/// time: the instances of one grading, with room to spare. Each slot reserves [`MEMORY_BYTES_MAX`]
/// of address space (and a fiber stack).
pub const POOL_SLOTS_WORKER: u32 = 4;
/// Instance slots of a pooled engine in any other process (the CLI, a service that grades on its own
/// threads, the tests): gradings on up to 170 threads at once. Address space only: a slot's memory
/// is touched only when an instance uses it.
pub const POOL_SLOTS_SHARED: u32 = 512;
/// Pooled engines one process makes at most (the two compilers at the default wasm stack, and
/// exercises with stacks of their own); further engines allocate their instances one by one.
pub const POOLED_ENGINES_MAX: usize = 4;
/// Pooled engines a grading worker process makes at most (the first two it needs, usually the two
/// compilers at the default wasm stack), so that the address space it reserves stays bounded.
pub const POOLED_ENGINES_MAX_WORKER: usize = 2;
/// Bytes of a pool slot's memory and tables kept mapped when an instance ends (zeroed, not handed
/// back to the kernel): a guest of the course touches a page or two.
pub const POOL_KEEP_RESIDENT_BYTES: usize = 64 * 1024;
/// Fiber stacks an engine that maps its instances one by one keeps for its next interleaved call
/// instead of unmapping them (`sandbox::fiber_stacks`): an interpreter guest nests a few per
/// statement.
pub const FIBER_STACKS_KEPT_MAX: usize = 8;
/// Bytes below the top of a kept fiber stack that stay resident; the deeper pages go back to the
/// kernel when a call ends, so a deep recursion does not keep its memory.
pub const FIBER_STACK_KEPT_RESIDENT_BYTES: usize = 256 * 1024;
const _: () = assert!(FIBER_STACK_KEPT_RESIDENT_BYTES.is_multiple_of(4096));
const _: () = assert!(POOL_INSTANCES_PER_GRADING <= POOL_SLOTS_WORKER);
const _: () = assert!(POOLED_ENGINES_MAX_WORKER <= POOLED_ENGINES_MAX);
const _: () = assert!(170 * POOL_INSTANCES_PER_GRADING <= POOL_SLOTS_SHARED);
/// Fuel (wasm operations, plus host-call charges) for one delivery, including instantiation.
/// A correct solution of the bundled exercises uses well under 1 % of it (see BENCHMARKS.md).
pub const FUEL_PER_DELIVERY: u64 = 10_000_000;
/// Fuel charged for every host call, on top of the wasm operations that lead to it.
pub const FUEL_PER_HOST_CALL: u64 = 1_000;
/// Fuel charged per byte a host call copies in or out of guest memory.
pub const FUEL_PER_HOST_BYTE: u64 = 1;
/// SQLite virtual-machine steps one statement may take before it is stopped. Counted, not timed,
/// so the verdict is the same on every machine (roughly 10 ms of work on a 2 GHz core).
pub const SQL_STEPS_PER_STATEMENT: u64 = 2_000_000;
/// SQLite virtual-machine steps that building an exercise's database template may take when the
/// exercise is loaded: its whole `schema.sql` (seed rows included) and its state queries together.
/// A teacher's recursive query that never ends fails the load with this limit named, instead of
/// hanging the loader (and the service's reload). Roughly 0.25 s of work.
pub const SCHEMA_SQL_STEPS_MAX: u64 = 50_000_000;
/// The largest database file a `schema.sql` may build; the template is copied for every run.
pub const SCHEMA_DB_BYTES_MAX: u64 = 64 * 1024 * 1024;
/// Statements one delivery may run.
pub const SQL_STATEMENTS_PER_DELIVERY: u32 = 1_000;
/// Longest SQL text of one statement, in bytes.
pub const SQL_TEXT_BYTES_MAX: usize = 16 * 1024;
/// Statements a guest connection keeps prepared for the next call with the same text (its
/// statement cache, least recently used dropped first), and the longest text it keeps: what the
/// cache holds stays small beside the connection's page cache, whatever texts a guest sends.
pub const SQL_STATEMENTS_CACHED_PER_CONNECTION: usize = 16;
pub const SQL_CACHED_STATEMENT_TEXT_BYTES_MAX: usize = 1024;
/// Longest string or blob value (and table row) SQLite will build for the guest, in bytes. One
/// SQLite step over such values (`instr`, `replace`: value length squared; `LIKE`: value length
/// times pattern length) must stay in milliseconds, since the step counter cannot see inside a
/// step: at 16 KB the worst `instr`/`replace` costs about 1 ms, at the former 1 MB 11 s.
pub const SQL_VALUE_BYTES_MAX: usize = 16 * 1024;
/// Longest LIKE or GLOB pattern, in bytes: `x LIKE '%aaa…ab'` costs value length times pattern
/// length (about 5 ms at 16 KB and 100 bytes; 60 ms with the former 1,000).
pub const SQL_LIKE_PATTERN_BYTES_MAX: usize = 100;
/// Deepest expression nesting, most terms of a compound SELECT, most arguments of one function call.
pub const SQL_EXPR_DEPTH_MAX: usize = 100;
pub const SQL_COMPOUND_SELECT_MAX: usize = 50;
pub const SQL_FUNCTION_ARGS_MAX: usize = 16;
/// Highest `?` index a guest may bind.
pub const SQL_PARAMETERS_MAX: usize = 32;
/// Most columns of a table, a result row, an index or an ORDER BY / GROUP BY: no more than a real
/// schema needs.
pub const SQL_COLUMNS_MAX: usize = 100;
/// Deepest nesting of triggers.
pub const SQL_TRIGGER_DEPTH_MAX: usize = 10;
/// Largest the scratch database of one run (kept in memory) may grow, in bytes (the exercise's
/// tables with everything a consumer writes into them). A write beyond it fails with "database full".
pub const SCRATCH_DB_BYTES_MAX: u64 = 16 * 1024 * 1024;
/// Page cache of one guest connection, in bytes.
pub const SQL_CACHE_BYTES_MAX: u64 = 2 * 1024 * 1024;
/// Page cache of the harness's observer connection to a run database (it reads the exercise's
/// few observable rows after a run), in bytes.
pub const SQL_OBSERVER_CACHE_BYTES_MAX: u64 = 256 * 1024;
/// Heap a dedicated grading process lets SQLite use in all (its connections, their caches, sort and
/// temporary tables). Only set in such a process: see `sandbox::limit_grading_process`.
pub const GRADING_PROCESS_SQL_HEAP_BYTES_MAX: u64 = 256 * 1024 * 1024;
/// Run databases a grading keeps for its next runs, restored in place instead of created anew (a
/// check holds at most two at once: a probe run's and its current run's); a grading thread hands
/// them on to its next grading of the same exercise.
pub const RUN_DBS_KEPT_MAX: usize = 2;
/// Guest connections a run database keeps for the next instances on it (as many instances as a
/// grading holds at once).
pub const SPARE_CONNECTIONS_PER_RUN_DB_MAX: usize = POOL_INSTANCES_PER_GRADING as usize;
/// Rows and bytes of one state read (all state queries of one database together): the evidence a
/// check compares and shows. A state beyond it is cut, and the cut is a visible row that matches
/// nothing, so the check fails and says why.
pub const STATE_ROWS_MAX: usize = 10_000;
pub const STATE_BYTES_MAX: usize = 1024 * 1024;
/// Log output kept per delivery, in bytes; the rest is cut and the cut is reported.
pub const LOG_BYTES_PER_RUN: usize = 16 * 1024;
/// Longest text copied from a guest into the trace or a failure text (a message path, an SQL
/// statement, a bound value, an error message, a log line), in bytes; the rest is replaced by a
/// visible mark "… (n bytes omitted)" at the moment it is copied.
pub const GUEST_TEXT_BYTES_MAX: usize = 1024;
/// UTF-16 code units read from guest memory for each string of an AssemblyScript `env.abort` (its
/// message and file name); the rest is not read.
pub const ABORT_MESSAGE_UNITS_MAX: usize = 512;
/// Trace events, and their bytes (as JSON), one check records while it runs; later events are only
/// counted. The report shows at most [`TRACE_EVENTS_PER_CHECK_MAX`] of them, a replay all that were
/// recorded.
pub const TRACE_EVENTS_RECORDED_MAX: usize = 2_000;
pub const TRACE_BYTES_RECORDED_MAX: usize = 512 * 1024;
/// The most trace events one check keeps in the report.
pub const TRACE_EVENTS_PER_CHECK_MAX: usize = 400;
