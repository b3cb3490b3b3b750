//! The grading service (`pruefstein serve`): intake, queue, webhooks, pages, the Jobe endpoint,
//! several nodes on one store.

use super::grading::*;

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
/// Rows of each kind one retention sweep batch deletes in one transaction: a batch is short, so
/// that intake and grading wait for it at most a few milliseconds (`--retention-days`).
pub const RETENTION_BATCH_ROWS_MAX: usize = 500;
/// Batches one retention sweep runs at most; what is left waits for the next sweep.
pub const RETENTION_BATCHES_MAX: usize = 1_000;
/// How often the retention sweep runs.
pub const RETENTION_SWEEP_EVERY_MS: u64 = 3600 * 1000;
/// The longest retention the service takes (about 100 years): beyond it, milliseconds overflow nothing
/// but the setting means "forever", which is no `--retention-days` at all.
pub const RETENTION_DAYS_MAX: u32 = 36_500;
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

// The teachers' dashboard (`src/service/dashboard/`, `src/service/http/teach.rs`).

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

// Backups (`src/service/backup.rs`, `src/service/erasures.rs`).

/// Largest erasure log `pruefstein restore --erasures` reads, in bytes (one line is about 120
/// bytes: some 500,000 erasures).
pub const ERASURE_LOG_BYTES_MAX: u64 = 64 * 1024 * 1024;
/// Most backups `pruefstein backup DIR --keep N` keeps in its directory.
pub const BACKUPS_KEPT_MAX: usize = 10_000;
