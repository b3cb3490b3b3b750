//! Every limit Prüfstein enforces, as a named constant with its default, and [`Limits`], the set in
//! force for one exercise (an exercise may override any of them in `exercise.toml` under `[limits]`).
//!
//! Untrusted input (a student's module, a teacher's script, an HTTP body) meets one of these limits
//! before it can hang, crash or slow down the service. Each limit has a name that reports quote.

use serde::{Deserialize, Serialize};

/// Largest accepted submission module (binary wasm or WAT text), in bytes.
pub const MODULE_BYTES_MAX: usize = 2 * 1024 * 1024;
/// Largest linear memory a guest may have, in bytes.
pub const MEMORY_BYTES_MAX: u64 = 64 * 1024 * 1024;
/// Largest wasm table a guest may have, in elements.
pub const TABLE_ELEMENTS_MAX: usize = 10_000;
/// The guest's wasm stack, in bytes.
pub const WASM_STACK_BYTES_MAX: usize = 512 * 1024;
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
/// Statements one delivery may run.
pub const SQL_STATEMENTS_PER_DELIVERY: u32 = 1_000;
/// Longest SQL text of one statement, in bytes.
pub const SQL_TEXT_BYTES_MAX: usize = 16 * 1024;
/// Longest string or blob value SQLite will build for the guest, in bytes.
pub const SQL_VALUE_BYTES_MAX: usize = 1024 * 1024;
/// Log output kept per delivery, in bytes; the rest is cut and the cut is reported.
pub const LOG_BYTES_PER_RUN: usize = 16 * 1024;
/// Wall-clock backstop for one delivery, in milliseconds (fuel is the real budget).
pub const WALL_MS_PER_DELIVERY: u64 = 1_000;
/// Wall-clock budget for grading one whole submission, in milliseconds.
pub const WALL_MS_PER_SUBMISSION: u64 = 5_000;
/// Largest HTTP request body, in bytes.
pub const REQUEST_BODY_BYTES_MAX: usize = 4 * 1024 * 1024;
/// Largest serialized report, in bytes; traces are trimmed to stay below it.
pub const REPORT_BYTES_MAX: usize = 256 * 1024;
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
/// Learner variants whose expected answer is kept in memory per exercise (two generations of half
/// this size: learners who keep answering stay, the others are retired a generation at a time).
pub const VARIANT_CACHE_MAX: usize = 4_096;
/// Draws to find parameters that satisfy an exercise's constraint before the variant is an error.
pub const VARIANT_DRAWS_MAX: u32 = 1_000;

// ---- The grading service (`pruefstein serve`) ----

/// Longest `?wait=` a client may ask for: the request holds a connection that long at most.
pub const WAIT_MS_MAX: u64 = 30_000;
/// A grading job's lease (visibility timeout): a job whose worker has not finished it (or renewed
/// the lease) by then is leased again. Well above [`WALL_MS_PER_SUBMISSION`]; the grading thread
/// renews it while it grades, so a live grader never loses its lease.
pub const JOB_LEASE_MS: u64 = 60_000;
/// Times a grading thread renews the lease of the job it grades within one lease (heartbeat, every
/// quarter of [`JOB_LEASE_MS`]): a lease never runs out under a live grader, however slow the
/// machine. A grading thread leases one job at a time, when it is free, so no leased job waits.
pub const JOB_LEASE_RENEWALS_PER_LEASE: u64 = 4;
/// Leases a job may take before it fails with a stated reason (a submission that kills its worker
/// every time must not be retried forever).
pub const JOB_ATTEMPTS_MAX: u32 = 5;
/// Submissions waiting to be graded before intake answers 503 with `Retry-After`.
pub const QUEUE_DEPTH_MAX: u64 = 100_000;
/// How long an `Idempotency-Key` is remembered (the IETF draft asks for at least 24 hours).
pub const IDEMPOTENCY_KEY_RETENTION_MS: u64 = 7 * 24 * 3600 * 1000;
/// Longest `Idempotency-Key`, learner id, exercise slug and client name, in bytes.
pub const IDEMPOTENCY_KEY_BYTES_MAX: usize = 255;
pub const LEARNER_BYTES_MAX: usize = 255;
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
/// Connecting to a webhook receiver, and waiting for its answer.
pub const WEBHOOK_CONNECT_TIMEOUT_MS: u64 = 5_000;
pub const WEBHOOK_RESPONSE_TIMEOUT_MS: u64 = 10_000;
/// Webhook events one sender leases at once and delivers one after the other.
pub const WEBHOOK_LEASE_BATCH_MAX: usize = 4;
/// A webhook event is leased by one sender for this long: longer than a batch of deliveries that
/// all time out, so a live sender never loses its lease. A server that starts gives back every lease.
pub const WEBHOOK_LEASE_MS: u64 =
    WEBHOOK_LEASE_BATCH_MAX as u64 * (WEBHOOK_CONNECT_TIMEOUT_MS + WEBHOOK_RESPONSE_TIMEOUT_MS) + 30_000;
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

// ---- Grading in worker processes (`src/isolation/`) ----

/// Time a worker process is given beyond the submission's own wall-clock budget
/// ([`Limits::wall_ms_per_submission`]) before it is killed: the harness stops itself at the
/// deadline; this margin covers writing the report and a loaded machine.
pub const WORKER_KILL_MARGIN_MS: u64 = 2_000;
/// Address space (virtual memory) of one worker process, in bytes (`RLIMIT_AS`). The wasm engine
/// reserves each linear memory at the guest's largest size (see `sandbox::engine_config`), not at
/// 4 GiB; a worker grading exercise 03 peaks at about 245 MB of address space, so this leaves room
/// for two guest memories at the largest an exercise may allow (512 MiB each).
pub const WORKER_ADDRESS_SPACE_BYTES: u64 = 1536 * 1024 * 1024;
/// CPU seconds one grading may use in its worker process (`RLIMIT_CPU`, raised before each
/// submission): a backstop behind the wall-clock kill, should the service thread itself stall.
pub const WORKER_CPU_SECONDS_PER_SUBMISSION: u64 = 60;
/// Open files of one worker process (`RLIMIT_NOFILE`).
pub const WORKER_OPEN_FILES_MAX: u64 = 256;
/// Times a submission may take its worker process down (overrun or crash) before it fails for
/// good with the reason, instead of being graded again.
pub const WORKER_KILLS_PER_SUBMISSION_MAX: u32 = 2;
/// Largest message between the service and a worker process, in bytes (a submission or an
/// exercise folder, base64-encoded, or a report).
pub const WORKER_MESSAGE_BYTES_MAX: usize = 64 * 1024 * 1024;
/// Exercise versions one worker process keeps loaded (compiled reference, database template).
pub const WORKER_EXERCISES_KEPT: usize = 32;
/// Largest exercise folder, all files together, in bytes, and most files in it: the folder is read
/// whole at load, so that a worker process grades the very version the service loaded.
pub const EXERCISE_FOLDER_BYTES_MAX: u64 = 16 * 1024 * 1024;
pub const EXERCISE_FOLDER_FILES_MAX: usize = 1_000;

/// Time a graceful shutdown waits for running gradings before their leases are released.
pub const SHUTDOWN_GRACE_MS: u64 = 10_000;

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
        }
    }
}

impl Limits {
    /// Checks that overrides stay within what the service can afford; a teacher cannot lift a
    /// limit to a value that would let one submission starve the others.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u64, u64); 6] = [
            ("module_bytes", self.module_bytes as u64, 16 * 1024 * 1024),
            ("memory_bytes", self.memory_bytes, 512 * 1024 * 1024),
            ("wasm_stack_bytes", self.wasm_stack_bytes as u64, 8 * 1024 * 1024),
            ("fuel_per_delivery", self.fuel_per_delivery, 1_000_000_000),
            ("sql_steps_per_statement", self.sql_steps_per_statement, 100_000_000),
            ("wall_ms_per_submission", self.wall_ms_per_submission, 60_000),
        ];
        for (name, value, max) in checks {
            if value == 0 || value > max {
                return Err(format!("limits.{name} = {value} is outside 1..={max}"));
            }
        }
        Ok(())
    }
}
