//! Grading as a whole: the wall-clock backstops, crash points, interleavings and schedules, the
//! caches of compiled modules and reference states, fingerprints, request and report sizes,
//! answers and prediction scripts.

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
/// How long a process that misses an entry waits for another process compiling into the same
/// cache (the service's warm-up of the interpreters at start), in milliseconds, before it compiles
/// on its own: longer than a cold compile of the largest interpreter takes in a release build.
pub const MODULE_CACHE_COMPILE_WAIT_MS: u64 = 20_000;
/// How often such a process looks again whether the other has finished, in milliseconds.
pub const MODULE_CACHE_COMPILE_POLL_MS: u64 = 20;
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
/// The most state differences a diagnosis names in its sentence (the report's state diff shows
/// them all).
pub const EVIDENCE_ITEMS_MAX: usize = 4;
