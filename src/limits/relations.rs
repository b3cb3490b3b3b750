//! Relationships between the limits, checked when compiling: where a limit's documentation says
//! how it relates to another, the relation is asserted here, so changing one limit cannot
//! silently break what another one's comment promises.

use super::{grading::*, isolation::*, sandbox::*, service::*, world::*};

/// A job's lease outlives a whole grading and its kill margin, so a live grader never loses it.
const _: () = assert!(JOB_LEASE_MS > WALL_MS_PER_SUBMISSION + WORKER_KILL_MARGIN_MS);
const _: () = assert!(JOB_LEASE_RENEWALS_PER_LEASE >= 2 && JOB_LEASE_MS / JOB_LEASE_RENEWALS_PER_LEASE > 0);
/// A worker's set-up outlasts the wait for another process's compile of an interpreter.
const _: () = assert!(WORKER_SETUP_MS_MAX > MODULE_CACHE_COMPILE_WAIT_MS);
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
/// An instructor's launch link expires within what the command line may sign.
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
/// Every delivery of the longest schedule may make one outside call, and a recorded payload is
/// no longer than a value the guest may bind.
const _: () = assert!(OUTSIDE_CALLS_PER_RUN_MAX >= SCHEDULE_DELIVERIES_MAX);
const _: () = assert!(OUTSIDE_PAYLOAD_BYTES_MAX <= SQL_VALUE_BYTES_MAX);
const _: () = assert!(PROVIDER_KEY_BYTES_MAX <= OUTSIDE_ADDRESS_BYTES_MAX);
/// A schedule sends each message at most twice; if every send reached the dead letter queue after
/// the most receives a queue may declare, the schedule would still end within its deliveries.
const _: () = assert!(BATCH_MESSAGES_MAX * 2 * MAX_RECEIVE_COUNT_MAX as usize <= SCHEDULE_DELIVERIES_MAX);
