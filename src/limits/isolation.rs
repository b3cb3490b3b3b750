//! Grading in worker processes: margins, operating-system limits, messages.

use super::sandbox::*;

/// Time a worker process is given beyond the submission's own wall-clock budget
/// ([`Limits::wall_ms_per_submission`]) before it is killed: the harness stops itself at the
/// deadline; this margin covers writing the report and a loaded machine.
pub const WORKER_KILL_MARGIN_MS: u64 = 2_000;
/// Time a worker process is given for the grader's own set-up of a submission, before the
/// submission's time starts (it says `Ready` when done): compiling a source submission's interpreter,
/// reading it from the module cache, or waiting while the service's warm-up compiles it.
pub const WORKER_SETUP_MS_MAX: u64 = 60_000;
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
/// Largest `sslrootcert` file (the CA certificates to check PostgreSQL's certificate against) read,
/// in bytes: a bundle of every public CA is about 250 KiB.
pub const PG_ROOT_CERT_BYTES_MAX: u64 = 4 * 1024 * 1024;
/// Time a caller waits for a free pooled connection.
pub const PG_POOL_WAIT_MS: u64 = 10_000;
/// Longest one SQL statement may run (`statement_timeout`): a stuck query frees its connection.
pub const PG_STATEMENT_TIMEOUT_MS: u64 = 30_000;
/// Time the listener (`LISTEN/NOTIFY`) waits before it connects again after losing its connection;
/// meanwhile the workers and waiting requests fall back to polling.
pub const PG_LISTEN_RETRY_MS: u64 = 1_000;

/// Time a graceful shutdown waits for running gradings before their leases are released.
pub const SHUTDOWN_GRACE_MS: u64 = 10_000;
