//! Every limit Prüfstein enforces, as a named constant with its default, and [`Limits`], the set in
//! force for one exercise (an exercise may override any of them in `exercise.toml` under `[limits]`).
//!
//! Untrusted input (a student's module, a teacher's script, an HTTP body) meets one of these limits
//! before it can hang, crash or slow down the service. Each limit has a name that reports quote.

use serde::{Deserialize, Serialize};

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
/// Wall-clock backstop for one delivery, in milliseconds (fuel is the real budget).
pub const WALL_MS_PER_DELIVERY: u64 = 1_000;
/// Wall-clock budget for grading one whole submission, in milliseconds: the one deadline every
/// check, delivery, SQL statement, lock wait and instantiation obeys (`crate::deadline`). A
/// submission that meets it fails with the limit named, and the checks it did not reach are listed
/// as not run. Fuel and counted SQL steps stay the real budget; this is the backstop.
pub const WALL_MS_PER_SUBMISSION: u64 = 5_000;
/// Wall-clock backstop for one SQL statement, in milliseconds, beside the counted
/// [`SQL_STEPS_PER_STATEMENT`]: it stops a statement whose few steps are each very expensive (a
/// `LIKE` or `instr` over the largest strings, row after row). Fifty times what the counted steps
/// take, so a statement within the step limit never meets it on an ordinary machine.
pub const SQL_WALL_MS_PER_STATEMENT: u64 = 500;
/// Crash points the crash check tests at most. A consumer with more writes per message gets the
/// first and last [`CRASH_POINTS_EDGE`] and the rest of this many drawn from the submission's seed
/// (the coverage line says so): a correct consumer with a thousand writes then finishes well
/// within [`WALL_MS_PER_SUBMISSION`].
pub const CRASH_POINTS_MAX: u32 = 48;
/// The most interleavings the concurrent check enumerates exhaustively; beyond it,
/// [`SAMPLED_INTERLEAVINGS`] are drawn at random from the submission's seed.
pub const INTERLEAVINGS_MAX: usize = 100;
/// Interleavings sampled when the space is larger than [`INTERLEAVINGS_MAX`].
pub const SAMPLED_INTERLEAVINGS: usize = 32;
/// The most messages a schedule batch may have (`[consumer.messages]`; each schedule delivers every
/// one, some repeatedly).
pub const BATCH_MESSAGES_MAX: usize = 12;
/// Deliveries one schedule may make before it is stopped (a bound the receive limit keeps far away).
pub const SCHEDULE_DELIVERIES_MAX: usize = 200;
/// Schedule runs the shrinker may spend on one failing schedule.
pub const SHRINK_RUNS_MAX: usize = 120;
/// Reference states an exercise keeps (the reference's state after the batch messages in one order,
/// which the at-least-once schedules compare with): computed once per loaded exercise and order,
/// then shared by every grading. A submission that processes the batch in orders nobody else does
/// gets its further states computed for its own grading only, so a hostile submission cannot grow
/// an exercise's memory. Each state is a few rows: 256 of them are well under a megabyte.
pub const REFERENCE_STATES_CACHED_MAX: usize = 256;
/// Bytes of compiled modules a module cache directory keeps (`sandbox::module_cache`): the least
/// recently used entries go first. The Python interpreter compiled is about 3 MiB, a reference
/// solution a few KiB.
pub const MODULE_CACHE_BYTES_MAX: u64 = 128 * 1024 * 1024;
/// Bytes of one module cache entry: a larger file is neither written nor read.
pub const MODULE_CACHE_ENTRY_BYTES_MAX: u64 = 32 * 1024 * 1024;
/// Fingerprints for similarity hints (`sandbox::fingerprint`): operators read per function body,
/// function bodies per module, tokens of a submitted source. What lies beyond does not change the
/// fingerprint, so computing one is bounded whatever the submission.
pub const FINGERPRINT_OPERATORS_PER_FUNCTION_MAX: usize = 100_000;
pub const FINGERPRINT_FUNCTIONS_MAX: usize = 10_000;
pub const FINGERPRINT_SOURCE_TOKENS_MAX: usize = 50_000;
/// Crash points at each end (after the first and before the last writes) that are always tested
/// when the crash points are sampled.
pub const CRASH_POINTS_EDGE: u32 = 8;
/// Largest HTTP request body, in bytes.
pub const REQUEST_BODY_BYTES_MAX: usize = 4 * 1024 * 1024;
/// Time to receive a whole request body, in milliseconds, counted from the end of the headers
/// (actix-web's `client_request_timeout` covers the headers only). A client that sends its body a
/// byte at a time gets 408 and its connection is closed, so it cannot hold a connection or a worker.
/// 60 s carries the largest body at about 0.6 Mbit/s. An operator may set a shorter deadline
/// (`--request-body-timeout-ms`).
pub const REQUEST_BODY_MS_MAX: u64 = 60_000;
/// Largest serialized report, in bytes: a hard limit. A larger report is shrunk (traces first, then
/// state evidence, then long texts) and says so; no report over it is stored, served or posted.
pub const REPORT_BYTES_MAX: usize = 256 * 1024;
/// Longest text (a failure, a hint, an explanation) in a report that had to be shrunk, in bytes, and
/// the same for the last step before checks are left out (`report::limit_size`).
pub const REPORT_SHRUNK_TEXT_BYTES_MAX: usize = 2 * 1024;
pub const REPORT_SHRUNK_TEXT_BYTES_MIN: usize = 200;
/// Longest prediction answer, in bytes.
pub const ANSWER_BYTES_MAX: usize = 4 * 1024;
/// Deepest nesting of tuples and lists in a prediction answer.
pub const ANSWER_DEPTH_MAX: usize = 16;
/// Largest scenario script of a prediction exercise, in bytes.
pub const SCRIPT_BYTES_MAX: usize = 64 * 1024;
/// Operations one run of a scenario script may take before it is stopped (an endless loop ends
/// here, within a fraction of a second).
pub const SCRIPT_OPERATIONS_MAX: u64 = 500_000;
/// Nested function calls in a scenario script.
pub const SCRIPT_CALL_LEVELS_MAX: usize = 32;
/// Expression nesting in a scenario script (top level, inside functions).
pub const SCRIPT_EXPR_DEPTH_MAX: usize = 64;
pub const SCRIPT_FN_EXPR_DEPTH_MAX: usize = 32;
/// Longest string a scenario script may build, in bytes.
pub const SCRIPT_STRING_BYTES_MAX: usize = 16 * 1024;
/// Longest array and largest map a scenario script may build.
pub const SCRIPT_ARRAY_LEN_MAX: usize = 1_024;
pub const SCRIPT_MAP_LEN_MAX: usize = 256;
/// Wall-clock backstop for one run of a scenario script, in milliseconds. Operations are the real
/// budget (counted, so the same on every machine); this only stops a script whose few operations
/// are each very expensive (copying the largest strings and arrays over and over).
pub const SCRIPT_WALL_MS_MAX: u64 = 2_000;
/// Events all simulations of one scenario run may record together.
pub const SCRIPT_SIM_EVENTS_MAX: usize = 10_000;
/// Timeline lines a report shows per part; longer timelines are cut and the cut is said.
pub const TIMELINE_LINES_MAX: usize = 200;
/// Rows a sequence diagram of a report draws (one per trace event or timeline line); the rest are
/// counted in a last row "… n more", so a trace of any length gives a picture of bounded size. The
/// numbered list beside the diagram keeps every line the report has.
pub const DIAGRAM_ROWS_MAX: usize = 60;
/// Characters of the label a sequence diagram writes beside a row, wrapped onto lines (a
/// statement's SQL, a message); longer labels end in "…" (the list beside the diagram has the
/// whole line).
pub const DIAGRAM_LABEL_CHARS_MAX: usize = 44;
/// Lifelines a sequence diagram draws for consumer instances side by side: an instance that ended
/// leaves its place to a later one, and beyond this many at once instances share a lifeline (each
/// row's label names its instance).
pub const DIAGRAM_INSTANCE_LANES_MAX: usize = 3;
/// Learner variants whose expected answer is kept in memory per exercise (two generations of half
/// this size: learners who keep answering stay, the others are retired a generation at a time).
pub const VARIANT_CACHE_MAX: usize = 4_096;
/// Draws to find parameters that satisfy an exercise's constraint before the variant is an error.
pub const VARIANT_DRAWS_MAX: u32 = 1_000;

// ---- Consumers in Python (the MicroPython guest, `graders/consumer/interpreters/python`) ----

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

// ---- The grading service (`pruefstein serve`) ----

/// Longest `?wait=` a client may ask for: the request holds a connection that long at most.
pub const WAIT_MS_MAX: u64 = 30_000;
/// Submissions finished lately that the service remembers (their ids), so that a request that
/// waits for one finished between its intake and its registration reads the store once instead of
/// every waiting request reading it back. When more finish in between, the request reads anyway.
pub const WAITERS_FINISHED_KEPT: usize = 4_096;
/// A grading job's lease (visibility timeout): a job whose worker has not finished it (or renewed
/// the lease) by then is leased again. Well above [`WALL_MS_PER_SUBMISSION`]; the grading thread
/// renews it while it grades, so a live grader never loses its lease.
pub const JOB_LEASE_MS: u64 = 60_000;
/// Times a grading thread renews the lease of the job it grades within one lease (heartbeat, every
/// quarter of [`JOB_LEASE_MS`]): a lease never runs out under a live grader, however slow the
/// machine. The jobs a thread holds while it grades another are renewed with it.
pub const JOB_LEASE_RENEWALS_PER_LEASE: u64 = 4;
/// Most jobs one grading thread leases in one round trip to the store: its share of the due jobs
/// (divided by the number of grading threads, rounded up), held and graded in order. With one job
/// per lease, every job cost a durable commit the thread waited for before it could grade, and two
/// threads could not grade more than about 1,700 answers a second however short each grading was;
/// the bound keeps one thread from holding what a free one could grade.
pub const JOB_LEASE_BATCH_MAX: usize = 16;
/// Longest the jobs a grading thread holds wait behind the grading it is busy with: past it, they
/// are given back (uncounted) for a free thread to take, so that one slow or hostile submission
/// delays the jobs leased with it by this much, not by its whole deadline. A grading of the course's
/// consumers takes a few milliseconds; an interpreted one some tens.
pub const JOB_HELD_WAIT_MS_MAX: u64 = 100;
/// Leases a job may take before it fails with a stated reason (a submission that kills its worker
/// every time must not be retried forever).
pub const JOB_ATTEMPTS_MAX: u32 = 5;
/// A queued submission whose exercise cannot be loaded right now (its folder is being edited, is
/// broken, or was missing when the service started) waits and is tried again: first after this
/// many milliseconds, each further time after twice as long, at most
/// [`EXERCISE_UNAVAILABLE_RETRY_MAX_MS`]. Such a wait does not count as a grading attempt.
pub const EXERCISE_UNAVAILABLE_RETRY_MS: u64 = 1_000;
pub const EXERCISE_UNAVAILABLE_RETRY_MAX_MS: u64 = 30_000;
/// How long a submission's exercise may stay unloadable before its waits count as attempts: after
/// [`JOB_ATTEMPTS_MAX`] of those it fails, with the reason that its exercise could not be loaded.
pub const EXERCISE_UNAVAILABLE_GRACE_MS: u64 = 30 * 60 * 1000;
/// Submissions waiting to be graded before intake answers 503 with `Retry-After`.
pub const QUEUE_DEPTH_MAX: u64 = 100_000;
/// `GET /api/v1/submissions`: submissions per page when `limit` is not given, and at most.
pub const SUBMISSIONS_PAGE_DEFAULT: usize = 50;
pub const SUBMISSIONS_PAGE_MAX: usize = 200;
/// A regrade takes at most this many submissions (the latest of each learner, filtered); a larger
/// course regrades in parts (by learner or verdict).
pub const REGRADE_SUBMISSIONS_MAX: usize = 5_000;
/// A dry run grades every selected submission while the caller waits: at most this many.
pub const REGRADE_DRY_RUN_MAX: usize = 200;
/// Learners named in one regrade filter.
pub const REGRADE_LEARNERS_MAX: usize = 1_000;
/// Largest body of a regrade request, in bytes of JSON.
pub const REGRADE_BODY_BYTES_MAX: usize = 64 * 1024;
/// Course analytics count at most this many submissions of an exercise (the oldest first) and say
/// when there were more.
pub const ANALYTICS_SUBMISSIONS_MAX: usize = 20_000;
/// Similarity hints compare the latest consumer submission of at most this many learners (the
/// most recent), pairwise: at most n·(n−1)/2 comparisons of small sets.
pub const SIMILARITY_SUBMISSIONS_MAX: usize = 300;
/// Two submissions are a similar pair from this Jaccard similarity of their fingerprints on, in per
/// mille (800 = 80 % of their distinct function bodies shared).
pub const SIMILARITY_THRESHOLD_PER_MILLE: u32 = 800;
/// The closest pairs listed per exercise.
pub const SIMILARITY_PAIRS_MAX: usize = 50;
/// Bars an analytics chart draws at most (a longer list is cut; the JSON and CSV have all of
/// them), and the characters of a bar's label it shows.
pub const CHART_BARS_MAX: usize = 40;
pub const CHART_LABEL_CHARS_MAX: usize = 36;
/// How long an `Idempotency-Key` is remembered (the IETF draft asks for at least 24 hours).
pub const IDEMPOTENCY_KEY_RETENTION_MS: u64 = 7 * 24 * 3600 * 1000;
/// Longest `Idempotency-Key`, exercise slug and client name, in bytes.
pub const IDEMPOTENCY_KEY_BYTES_MAX: usize = 255;
/// Longest learner id, in characters as sent (surrounding white space included, so that the
/// OpenAPI document's `maxLength` says it exactly); at most four times as many bytes.
pub const LEARNER_CHARS_MAX: usize = 255;
pub const CLIENT_NAME_BYTES_MAX: usize = 64;
/// Largest `metadata` object a client may attach to a submission, in bytes of JSON.
pub const METADATA_BYTES_MAX: usize = 16 * 1024;
/// Longest callback URL, in bytes.
pub const CALLBACK_URL_BYTES_MAX: usize = 2_048;
/// Attempts to deliver one webhook event before it is dead (listed, redeliverable by hand).
pub const WEBHOOK_ATTEMPTS_MAX: u32 = 10;
/// First retry delay of a webhook; each further retry doubles it, up to [`WEBHOOK_BACKOFF_MAX_MS`].
/// The jitter takes a seeded random share of up to half of each delay away.
pub const WEBHOOK_BACKOFF_BASE_MS: u64 = 2_000;
pub const WEBHOOK_BACKOFF_MAX_MS: u64 = 3_600_000;
/// Connecting to one address of a webhook receiver (within [`WEBHOOK_ATTEMPT_MS_MAX`]).
pub const WEBHOOK_CONNECT_TIMEOUT_MS: u64 = 5_000;
/// One webhook delivery attempt as a whole: resolving the name, connecting, the TLS handshake,
/// writing the request and reading the answer's status line, together. A receiver that trickles
/// its answer a byte at a time cannot hold a sender longer than this; the attempt ends as a
/// timeout and is retried. An operator may set a shorter deadline (`--webhook-timeout-ms`).
pub const WEBHOOK_ATTEMPT_MS_MAX: u64 = 15_000;
/// Name lookups of webhook hosts still running after their attempt gave up on them (the system
/// resolver cannot be interrupted); while this many hang, further attempts fail at once, retried.
pub const WEBHOOK_LOOKUPS_PENDING_MAX: usize = 16;
/// Webhook events one sender leases at once and delivers one after the other.
pub const WEBHOOK_LEASE_BATCH_MAX: usize = 4;
/// A webhook event is leased by one sender for this long: longer than a batch of deliveries that
/// all time out, so a live sender never loses its lease. A server that starts gives back every lease.
pub const WEBHOOK_LEASE_MS: u64 = WEBHOOK_LEASE_BATCH_MAX as u64 * WEBHOOK_ATTEMPT_MS_MAX + 30_000;
/// Webhook deliveries in flight at once.
pub const WEBHOOK_SENDERS: usize = 4;
/// Bytes of a webhook receiver's answer that are read (the status line is all that counts).
pub const WEBHOOK_RESPONSE_BYTES_MAX: usize = 8 * 1024;
/// Dead webhook events one `GET /api/v1/webhooks/dead` lists.
pub const DEAD_EVENTS_LISTED_MAX: usize = 1_000;
/// A body larger than [`REQUEST_BODY_BYTES_MAX`] is read (and dropped) up to this size before 413
/// is answered, so that a client still sending gets the answer rather than a reset connection.
pub const OVERSIZED_BODY_DRAINED_MAX: usize = 4 * REQUEST_BODY_BYTES_MAX;
/// Writes the service's SQLite store commits together at most (one fsync for the group).
pub const GROUP_COMMIT_MAX: usize = 512;
/// Files of one starter kit that are listed and served, and the largest one, in bytes.
pub const KIT_FILES_MAX: usize = 200;
pub const KIT_FILE_BYTES_MAX: u64 = 1024 * 1024;

/// After a rotation of the report secret (`--rotate-report-secret`), links signed with the one
/// before stay valid this long: long enough for a course's students to open the reports they were
/// sent, short enough that a leaked old secret stops working.
pub const REPORT_SECRET_GRACE_MS: u64 = 30 * 24 * 3600 * 1000;
/// After `pruefstein client rotate`, the token before stays valid this long unless `--grace` says
/// otherwise; `--grace` may be at most [`CLIENT_TOKEN_GRACE_MS_MAX`].
pub const CLIENT_TOKEN_GRACE_MS: u64 = 24 * 3600 * 1000;
pub const CLIENT_TOKEN_GRACE_MS_MAX: u64 = 30 * 24 * 3600 * 1000;
/// Longest key the Jobe-compatible endpoint can be given by CodeRunner (its settings field says
/// "Max 40 chars"): `client jobe-key` makes keys this long at most.
pub const JOBE_KEY_CHARS_MAX: usize = 40;
/// Log lines waiting for the writer thread (`src/service/log.rs`); a line that finds the queue full
/// is dropped and counted rather than wait: logging never holds up grading.
pub const LOG_LINES_QUEUED_MAX: usize = 8_192;
/// At exit the service waits this long at most for its queued log lines to be written.
pub const LOG_FLUSH_MS_MAX: u64 = 2_000;
/// Longest log line, in bytes; the rest is cut (a line is one event, its fields bounded elsewhere).
pub const LOG_LINE_BYTES_MAX: usize = 64 * 1024;
/// `/readyz` answers 503 when jobs are waiting and no grading thread has finished a job or found
/// the queue empty for this long: the node is stalled, and a balancer should send work elsewhere.
pub const GRADING_STALL_MS: u64 = 60_000;
/// Longest a burst of file events may postpone the reload of an exercise folder, in milliseconds
/// (`src/service/reload.rs`): a folder that never stops changing is still read.
pub const RELOAD_DELAY_MS_MAX: u64 = 5_000;

// ---- The student's page (`src/service/http/learn.rs`) ----

/// A learner's earlier submissions for one exercise that the student's page lists, newest first.
pub const PAGE_HISTORY_MAX: usize = 50;

// ---- The Jobe-compatible endpoint (`src/service/http/jobe.rs`) ----

/// Files CodeRunner may upload that the service keeps per client, in the store (so that a run finds
/// its file on any node). Beyond it, or beyond [`JOBE_FILE_BYTES_PER_CLIENT_MAX`], the client's oldest
/// files are forgotten first: Jobe's file cache may forget files at any time, and CodeRunner uploads
/// a forgotten one again on 404.
pub const JOBE_FILES_MAX: usize = 256;
/// Bytes of uploaded files the service keeps per client.
pub const JOBE_FILE_BYTES_PER_CLIENT_MAX: u64 = 64 * 1024 * 1024;
/// Longest Jobe file id, in bytes.
pub const JOBE_FILE_ID_BYTES_MAX: usize = 128;

// ---- Several nodes on one store (`src/service/store/`, `src/service/worker.rs`) ----

/// How often a node renews its announcement in the store: that it lives, and the exercise versions
/// (content hashes) it serves. A reload of an exercise announces at once.
pub const NODE_HEARTBEAT_MS: u64 = 5_000;
/// A node whose announcement is older than this is taken for gone: the jobs recorded for a version
/// that only it served are then graded by the version a living node serves (the result records
/// which), rather than waiting for it forever.
pub const NODE_LIVENESS_MS: u64 = 30_000;
/// How long a node leaves a job of a version it does not serve, when its announcement said it did
/// (a reload between announcement and lease), before leasing it again.
pub const VERSION_MISMATCH_DEFER_MS: u64 = 1_000;

// ---- The teachers' dashboard (`src/service/dashboard/`, `src/service/http/teach.rs`) ----

/// How long a dashboard link opens the dashboard: one an instructor's LTI launch makes, and the
/// default of `pruefstein teacher link --expires`, in ms.
pub const DASHBOARD_LINK_TTL_MS: u64 = 8 * 3600 * 1000;
/// The longest `pruefstein teacher link --expires` signs, in ms: a leaked link stays a leak for
/// at most this long.
pub const DASHBOARD_LINK_TTL_MAX_MS: u64 = 30 * 24 * 3600 * 1000;
/// Longest LTI course id (the launch's `context` claim id) a dashboard link carries, in bytes.
pub const DASHBOARD_COURSE_BYTES_MAX: usize = 255;
/// A learner's submissions the dashboard lists, newest first.
pub const DASHBOARD_LEARNER_SUBMISSIONS_MAX: usize = 200;
/// Largest form the dashboard takes (a regrade button's), in bytes.
pub const DASHBOARD_FORM_BYTES_MAX: usize = 4 * 1024;

// ---- LTI 1.3 (`src/service/lti/`) ----

/// How long an OIDC login initiation (its `state` and `nonce`) waits for its launch, in ms.
pub const LTI_STATE_TTL_MS: u64 = 10 * 60 * 1000;
/// LTI logins waiting for their launch on one node, per client address and platform (`lti::logins`).
pub const LTI_LOGINS_PER_ADDRESS_MAX: usize = 200;
pub const LTI_LOGINS_PER_PLATFORM_MAX: usize = 2_000;
/// One exchange with a platform (its JWKS, its token endpoint), lookup to answer, in ms.
pub const LTI_FETCH_MS_MAX: u64 = 5_000;
/// Largest answer of a platform's JWKS or token endpoint that is read, in bytes.
pub const LTI_FETCH_BYTES_MAX: usize = 64 * 1024;
/// Largest form a platform may post to the tool (a launch with its `id_token`), in bytes.
pub const LTI_FORM_BYTES_MAX: usize = 64 * 1024;
/// Longest value of one login or launch parameter other than the `id_token`, in bytes.
pub const LTI_PARAM_BYTES_MAX: usize = 2_048;
/// Longest deep-linking `data` (its JSON text) carried through the picker (in base64url), in bytes.
pub const LTI_DEEP_LINK_DATA_BYTES_MAX: usize = LTI_PARAM_BYTES_MAX / 4 * 3;
/// Lifetime of the tool's own JWTs (client assertions, deep-linking responses), in seconds.
pub const LTI_JWT_TTL_S: u64 = 300;
/// An access token for score passback is used until this long before it expires, in seconds.
pub const LTI_TOKEN_MARGIN_S: u64 = 30;
/// A platform's JWKS (`lti::jwks`): refetch interval, longest and default lifetime, in ms.
pub const LTI_JWKS_INTERVAL_MS: u64 = 60_000;
pub const LTI_JWKS_MAX_AGE_MS: u64 = 24 * 60 * 60 * 1000;
pub const LTI_JWKS_MAX_AGE_DEFAULT_MS: u64 = 60 * 60 * 1000;
/// Clock difference allowed for a platform's `exp`, `nbf` and `iat`, in seconds.
pub const LTI_CLOCK_LEEWAY_S: u64 = 60;
/// Bits of the tool's RSA key, generated on first use and kept in the store.
pub const LTI_KEY_BITS: usize = 2048;
/// A running server reads the tool's keys again at least this often, so that a rollover started
/// from the command line (`platform tool-key --rotate`) is published within a minute.
pub const LTI_TOOL_KEYS_REFRESH_MS: u64 = 60_000;
/// A rollover of the tool's key: how long the new key is published before it signs (every
/// platform must have fetched it: their caches hold a JWKS for up to a day), and how long the key
/// before stays published after the switch (for the short-lived JWTs it signed).
pub const LTI_KEY_SWITCH_AFTER_MS: u64 = 24 * 3600 * 1000;
pub const LTI_KEY_WITHDRAW_AFTER_MS: u64 = 24 * 3600 * 1000;

// ---- Grading in worker processes (`src/isolation/`) ----

/// Time a worker process is given beyond the submission's own wall-clock budget
/// ([`Limits::wall_ms_per_submission`]) before it is killed: the harness stops itself at the
/// deadline; this margin covers writing the report and a loaded machine.
pub const WORKER_KILL_MARGIN_MS: u64 = 2_000;
/// Address space (virtual memory) of one worker process, in bytes (`RLIMIT_AS`). The wasm engine
/// reserves each linear memory at the guest's largest size (see `sandbox::engine_config`), not at
/// 4 GiB: the pooled engines reserve their slots up front ([`POOLED_ENGINES_MAX_WORKER`] engines of
/// [`POOL_SLOTS_WORKER`] slots of [`MEMORY_BYTES_MAX`]), an exercise that allows more memory maps
/// its instances one by one (two at the largest an exercise may allow, 512 MiB each), and SQLite's
/// heap is capped ([`GRADING_PROCESS_SQL_HEAP_BYTES_MAX`]). What a worker can touch stays bounded
/// by those limits; this one catches the host side running away.
pub const WORKER_ADDRESS_SPACE_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Address space a worker needs besides guest memories and SQLite's heap: its code, the compiled
/// modules, thread and fiber stacks, the allocator's arenas (a worker grading exercise 03 peaks at
/// about 245 MB of address space in all, its two guest memories included).
pub const WORKER_HOST_ADDRESS_SPACE_BYTES: u64 = 256 * 1024 * 1024;
// A worker holds SQLite's heap, its pools, two guest memories at the largest an exercise may allow
// (the interleaved instances) and its own needs within its address space.
const _: () = assert!(
    GRADING_PROCESS_SQL_HEAP_BYTES_MAX
        + POOLED_ENGINES_MAX_WORKER as u64 * POOL_SLOTS_WORKER as u64 * MEMORY_BYTES_MAX
        + 2 * MEMORY_BYTES_OVERRIDE_MAX
        + WORKER_HOST_ADDRESS_SPACE_BYTES
        <= WORKER_ADDRESS_SPACE_BYTES
);
/// CPU seconds one grading may use in its worker process (`RLIMIT_CPU`, raised before each
/// submission): a backstop behind the wall-clock kill, should the service thread itself stall.
pub const WORKER_CPU_SECONDS_PER_SUBMISSION: u64 = 60;
/// Open files of one worker process (`RLIMIT_NOFILE`).
pub const WORKER_OPEN_FILES_MAX: u64 = 256;
/// Times a submission may take its worker process down (overrun or crash), or meet a fault of the
/// grader's own, before it fails for good with the reason, instead of being graded again.
pub const WORKER_KILLS_PER_SUBMISSION_MAX: u32 = 2;
/// Attempts at a module's copy-on-write memory image (a sealed memfd on Linux) before the refusal
/// counts as a fault of the grading process (`sandbox::image`), and the pause before the next
/// attempt, times the attempt's number.
pub const MEMORY_IMAGE_ATTEMPTS_MAX: u32 = 4;
pub const MEMORY_IMAGE_RETRY_MS: u64 = 50;
/// Largest message between the service and a worker process, in bytes (a submission or an
/// exercise folder, base64-encoded, or a report).
pub const WORKER_MESSAGE_BYTES_MAX: usize = 64 * 1024 * 1024;
/// Exercise versions one worker process keeps loaded (compiled reference, database template).
pub const WORKER_EXERCISES_KEPT: usize = 32;
/// Largest exercise folder, all files together, in bytes, and most files in it: the folder is read
/// whole at load, so that a worker process grades the very version the service loaded.
pub const EXERCISE_FOLDER_BYTES_MAX: u64 = 16 * 1024 * 1024;
pub const EXERCISE_FOLDER_FILES_MAX: usize = 1_000;

/// Connections one node keeps to PostgreSQL (`--database postgres://…`): enough for its grading
/// threads, webhook senders and request handlers to take turns, few enough that many nodes fit
/// under the server's `max_connections` (100 by default). A caller waits for a free connection.
pub const PG_POOL_SIZE: usize = 8;
/// Time to open a connection to PostgreSQL before the store reports the database unreachable.
pub const PG_CONNECT_TIMEOUT_MS: u64 = 5_000;
/// Time a caller waits for a free pooled connection.
pub const PG_POOL_WAIT_MS: u64 = 10_000;
/// Longest one SQL statement may run (`statement_timeout`): a stuck query frees its connection.
pub const PG_STATEMENT_TIMEOUT_MS: u64 = 30_000;
/// Time the listener (`LISTEN/NOTIFY`) waits before it connects again after losing its connection;
/// meanwhile the workers and waiting requests fall back to polling.
pub const PG_LISTEN_RETRY_MS: u64 = 1_000;

/// Time a graceful shutdown waits for running gradings before their leases are released.
pub const SHUTDOWN_GRACE_MS: u64 = 10_000;

// ---- Relationships between the limits, checked when compiling ----
//
// Where a comment above says how two limits relate, the relation is asserted here, so changing one
// limit cannot silently break what another one's comment promises.

/// A job's lease outlives a whole grading and its kill margin, so a live grader never loses it.
const _: () = assert!(JOB_LEASE_MS > WALL_MS_PER_SUBMISSION + WORKER_KILL_MARGIN_MS);
const _: () = assert!(JOB_LEASE_RENEWALS_PER_LEASE >= 2 && JOB_LEASE_MS / JOB_LEASE_RENEWALS_PER_LEASE > 0);
/// The CPU backstop lies behind the wall-clock kill.
const _: () =
    assert!(WORKER_CPU_SECONDS_PER_SUBMISSION * 1000 > WALL_MS_PER_SUBMISSION + WORKER_KILL_MARGIN_MS);
/// The wall-clock backstops nest: a statement within a delivery within a submission.
const _: () = assert!(SQL_WALL_MS_PER_STATEMENT < WALL_MS_PER_DELIVERY);
const _: () = assert!(WALL_MS_PER_DELIVERY <= WALL_MS_PER_SUBMISSION);
/// Sampled crash points keep both edges whole.
const _: () = assert!(2 * CRASH_POINTS_EDGE <= CRASH_POINTS_MAX);
/// A report shows a part of the trace recorded; a shrunk report's texts get shorter step by step.
const _: () = assert!(TRACE_EVENTS_PER_CHECK_MAX <= TRACE_EVENTS_RECORDED_MAX);
const _: () = assert!(REPORT_SHRUNK_TEXT_BYTES_MIN <= REPORT_SHRUNK_TEXT_BYTES_MAX);
/// The compile budget's parts fit in its wholes.
const _: () = assert!(WASM_FUNCTION_BODY_BYTES_MAX <= WASM_CODE_BYTES_MAX);
const _: () = assert!(WASM_LOCALS_PER_FUNCTION_MAX as u64 <= WASM_LOCALS_TOTAL_MAX);
const _: () = assert!(WASM_CODE_BYTES_MAX as usize <= MODULE_BYTES_MAX);
/// The largest module still fits in a request as base64 (4 bytes for every 3), and so does an answer.
const _: () = assert!(MODULE_BYTES_MAX.div_ceil(3) * 4 <= REQUEST_BODY_BYTES_MAX);
const _: () = assert!(ANSWER_BYTES_MAX <= REQUEST_BODY_BYTES_MAX);
const _: () = assert!(OVERSIZED_BODY_DRAINED_MAX >= REQUEST_BODY_BYTES_MAX);
/// A value a guest binds fits in its scratch database; a guest text in the trace is shorter than a
/// statement may be.
const _: () = assert!(SQL_VALUE_BYTES_MAX as u64 <= SCRATCH_DB_BYTES_MAX);
/// A grading keeps its run databases in SQLite's heap: at most one more than it keeps for reuse at
/// once (a check's probe run and its current run are kept; a third while both are in use), each
/// with its rollback journal in memory. They fit in half a grading process's heap beside the page
/// caches of every connection to them: a holder, an observer and the spare guest connections of
/// each, and the live instances.
const _: () = assert!(
    (RUN_DBS_KEPT_MAX as u64 + 1) * 2 * SCRATCH_DB_BYTES_MAX
        + ((RUN_DBS_KEPT_MAX as u64 + 1) * (1 + SPARE_CONNECTIONS_PER_RUN_DB_MAX as u64)
            + POOL_INSTANCES_PER_GRADING as u64)
            * SQL_CACHE_BYTES_MAX
        + (RUN_DBS_KEPT_MAX as u64 + 1) * SQL_OBSERVER_CACHE_BYTES_MAX
        <= GRADING_PROCESS_SQL_HEAP_BYTES_MAX / 2
);
const _: () = assert!(GUEST_TEXT_BYTES_MAX <= SQL_TEXT_BYTES_MAX);
const _: () = assert!(SQL_CACHED_STATEMENT_TEXT_BYTES_MAX <= SQL_TEXT_BYTES_MAX);
/// A grade request to a worker carries the exercise folder and the module the first time.
const _: () = assert!(EXERCISE_FOLDER_BYTES_MAX + MODULE_BYTES_MAX as u64 <= WORKER_MESSAGE_BYTES_MAX as u64);
/// Webhooks: connecting is part of an attempt; a lease outlasts a batch of attempts that all time
/// out; backoff grows from its base to its cap.
const _: () = assert!(WEBHOOK_CONNECT_TIMEOUT_MS <= WEBHOOK_ATTEMPT_MS_MAX);
const _: () = assert!(WEBHOOK_LEASE_MS > WEBHOOK_LEASE_BATCH_MAX as u64 * WEBHOOK_ATTEMPT_MS_MAX);
const _: () = assert!(WEBHOOK_BACKOFF_BASE_MS <= WEBHOOK_BACKOFF_MAX_MS);
/// Pages are bounded; a dry run is a regrade that waits; a regrade fits the queue.
const _: () = assert!(SUBMISSIONS_PAGE_DEFAULT <= SUBMISSIONS_PAGE_MAX);
const _: () = assert!(REGRADE_DRY_RUN_MAX <= REGRADE_SUBMISSIONS_MAX);
// An instructor's launch link expires within what the command line may sign.
const _: () = assert!(DASHBOARD_LINK_TTL_MS <= DASHBOARD_LINK_TTL_MAX_MS);
const _: () = assert!((REGRADE_SUBMISSIONS_MAX as u64) < QUEUE_DEPTH_MAX);
const _: () = assert!(SIMILARITY_THRESHOLD_PER_MILLE <= 1000);
const _: () = assert!(SIMILARITY_SUBMISSIONS_MAX <= ANALYTICS_SUBMISSIONS_MAX);
/// An unloadable exercise is retried with growing waits well within its grace time.
const _: () = assert!(EXERCISE_UNAVAILABLE_RETRY_MS <= EXERCISE_UNAVAILABLE_RETRY_MAX_MS);
const _: () = assert!(EXERCISE_UNAVAILABLE_RETRY_MAX_MS < EXERCISE_UNAVAILABLE_GRACE_MS);
/// The idempotency window is at least the 24 hours the IETF draft asks for.
const _: () = assert!(IDEMPOTENCY_KEY_RETENTION_MS >= 24 * 3600 * 1000);
/// A `?wait=` ends before its lease could.
const _: () = assert!(WAIT_MS_MAX < JOB_LEASE_MS);
const _: () = assert!(NODE_LIVENESS_MS >= 3 * NODE_HEARTBEAT_MS);
const _: () = assert!(JOBE_FILE_BYTES_PER_CLIENT_MAX >= REQUEST_BODY_BYTES_MAX as u64);

/// The limits in force for one exercise. Defaults are the constants above; `exercise.toml` may
/// override each under `[limits]` (for example a larger fuel budget for a heavier exercise).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    pub module_bytes: usize,
    pub memory_bytes: u64,
    pub table_elements: usize,
    pub wasm_stack_bytes: usize,
    pub fuel_per_delivery: u64,
    pub sql_steps_per_statement: u64,
    pub sql_statements_per_delivery: u32,
    pub log_bytes_per_run: usize,
    pub wall_ms_per_delivery: u64,
    pub wall_ms_per_submission: u64,
    pub wasm_functions: u32,
    pub wasm_locals_per_function: u32,
    pub wasm_locals_total: u64,
    pub wasm_code_bytes: u32,
    pub wasm_function_body_bytes: u32,
    pub wasm_data_bytes: u32,
    pub wasm_types: u32,
    pub wasm_imports: u32,
    pub wasm_exports: u32,
    pub wasm_globals: u32,
    pub wasm_tables: u32,
    pub wasm_element_segments: u32,
    pub wasm_data_segments: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            module_bytes: MODULE_BYTES_MAX,
            memory_bytes: MEMORY_BYTES_MAX,
            table_elements: TABLE_ELEMENTS_MAX,
            wasm_stack_bytes: WASM_STACK_BYTES_MAX,
            fuel_per_delivery: FUEL_PER_DELIVERY,
            sql_steps_per_statement: SQL_STEPS_PER_STATEMENT,
            sql_statements_per_delivery: SQL_STATEMENTS_PER_DELIVERY,
            log_bytes_per_run: LOG_BYTES_PER_RUN,
            wall_ms_per_delivery: WALL_MS_PER_DELIVERY,
            wall_ms_per_submission: WALL_MS_PER_SUBMISSION,
            wasm_functions: WASM_FUNCTIONS_MAX,
            wasm_locals_per_function: WASM_LOCALS_PER_FUNCTION_MAX,
            wasm_locals_total: WASM_LOCALS_TOTAL_MAX,
            wasm_code_bytes: WASM_CODE_BYTES_MAX,
            wasm_function_body_bytes: WASM_FUNCTION_BODY_BYTES_MAX,
            wasm_data_bytes: WASM_DATA_BYTES_MAX,
            wasm_types: WASM_TYPES_MAX,
            wasm_imports: WASM_IMPORTS_MAX,
            wasm_exports: WASM_EXPORTS_MAX,
            wasm_globals: WASM_GLOBALS_MAX,
            wasm_tables: WASM_TABLES_MAX,
            wasm_element_segments: WASM_ELEMENT_SEGMENTS_MAX,
            wasm_data_segments: WASM_DATA_SEGMENTS_MAX,
        }
    }
}

impl Limits {
    /// The wall-clock budget of one submission's grading: a supervisor that runs gradings (a worker
    /// process) may stop one that is still running some margin after it.
    pub fn wall_per_submission(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.wall_ms_per_submission)
    }

    /// Checks that overrides stay within what the service can afford; a teacher cannot lift a
    /// limit to a value that would let one submission starve the others.
    pub fn validate(&self) -> Result<(), String> {
        // The upper bounds of the compile budget are wasmtime's own (its validator refuses more).
        let checks: [(&str, u64, u64); 19] = [
            ("module_bytes", self.module_bytes as u64, 16 * 1024 * 1024),
            ("memory_bytes", self.memory_bytes, MEMORY_BYTES_OVERRIDE_MAX),
            ("wasm_stack_bytes", self.wasm_stack_bytes as u64, 8 * 1024 * 1024),
            ("fuel_per_delivery", self.fuel_per_delivery, 1_000_000_000),
            ("sql_steps_per_statement", self.sql_steps_per_statement, 100_000_000),
            ("wall_ms_per_submission", self.wall_ms_per_submission, 60_000),
            ("wasm_functions", self.wasm_functions.into(), 1_000_000),
            ("wasm_locals_per_function", self.wasm_locals_per_function.into(), 50_000),
            ("wasm_locals_total", self.wasm_locals_total, 5_000_000),
            ("wasm_code_bytes", self.wasm_code_bytes.into(), 64 * 1024 * 1024),
            ("wasm_function_body_bytes", self.wasm_function_body_bytes.into(), 7_654_321),
            ("wasm_data_bytes", self.wasm_data_bytes.into(), 64 * 1024 * 1024),
            ("wasm_types", self.wasm_types.into(), 1_000_000),
            ("wasm_imports", self.wasm_imports.into(), 100_000),
            ("wasm_exports", self.wasm_exports.into(), 100_000),
            ("wasm_globals", self.wasm_globals.into(), 1_000_000),
            ("wasm_tables", self.wasm_tables.into(), 100),
            ("wasm_element_segments", self.wasm_element_segments.into(), 100_000),
            ("wasm_data_segments", self.wasm_data_segments.into(), 100_000),
        ];
        for (name, value, max) in checks {
            if value == 0 || value > max {
                return Err(format!("limits.{name} = {value} is outside 1..={max}"));
            }
        }
        Ok(())
    }
}

// An LTI exchange fits in the deadline of an outbox attempt; tokens outlive their margin.
const _: () = assert!(LTI_FETCH_MS_MAX <= WEBHOOK_ATTEMPT_MS_MAX);
const _: () = assert!(LTI_TOKEN_MARGIN_S < LTI_JWT_TTL_S);
const _: () = assert!(LTI_PARAM_BYTES_MAX < LTI_FORM_BYTES_MAX);
const _: () = assert!(
    LTI_LOGINS_PER_ADDRESS_MAX <= LTI_LOGINS_PER_PLATFORM_MAX
        && LTI_JWKS_INTERVAL_MS <= LTI_JWKS_MAX_AGE_DEFAULT_MS
        && LTI_JWKS_MAX_AGE_DEFAULT_MS <= LTI_JWKS_MAX_AGE_MS
);
