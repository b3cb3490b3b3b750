//! The store's behaviour through the [`Store`] trait, on every backend: each test here runs on SQLite
//! and on PostgreSQL (a throwaway server, see [`postgres::scratch`]). Idempotency keys, leases and
//! their fences, deferred jobs, one result and one event per submission, dead letters, regrades and
//! listings; and what several nodes on one database need: a node gives back only its own leases,
//! two nodes never lease one job, one idempotency key makes one submission whichever node takes it.
//! Tests that only one backend can run (its files, its clock) follow at the end.

use std::sync::Arc;

use super::postgres::{LeaseClock, PgStore, scratch};
use super::sqlite::{Durability, SqliteStore};
use super::*;
use crate::submission::Submission;

/// A backend under test: one database, and stores opened on it for as many nodes as a test needs.
trait Backend {
    /// A store for `node` on this test's database (each call opens another, as a process would).
    fn node(&self, node: &str) -> Arc<dyn Store>;
    /// The outbox's event ids, in order.
    fn outbox_ids(&self) -> Vec<String>;
}

struct Sqlite {
    dir: tempfile::TempDir,
}

impl Sqlite {
    fn new() -> Sqlite {
        Sqlite { dir: tempfile::tempdir().unwrap() }
    }
}

impl Backend for Sqlite {
    fn node(&self, node: &str) -> Arc<dyn Store> {
        Arc::new(SqliteStore::open(self.dir.path(), Durability::Normal).unwrap().with_node(node))
    }

    fn outbox_ids(&self) -> Vec<String> {
        let conn = rusqlite::Connection::open(self.dir.path().join(sqlite::DATABASE_FILE)).unwrap();
        let mut stmt = conn.prepare("SELECT event_id FROM outbox ORDER BY event_id").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<Vec<String>, _>>().unwrap()
    }
}

struct Postgres {
    url: String,
}

impl Postgres {
    fn new() -> Postgres {
        Postgres { url: scratch::database() }
    }

    fn open(&self, node: &str, clock: LeaseClock) -> PgStore {
        PgStore::open(&self.url, node, clock).unwrap()
    }
}

impl Backend for Postgres {
    fn node(&self, node: &str) -> Arc<dyn Store> {
        // The tests step time by hand; `lease_deadlines_follow_the_database_clock` checks the other.
        Arc::new(self.open(node, LeaseClock::Caller))
    }

    fn outbox_ids(&self) -> Vec<String> {
        self.open("reader", LeaseClock::Caller)
            .query_texts("SELECT event_id FROM outbox ORDER BY event_id")
            .unwrap()
    }
}

/// Each test function, once per backend: `sqlite::name` and `postgres::name`.
macro_rules! on_every_backend {
    ($($test:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test]
            fn $test() {
                super::$test(&super::Sqlite::new())
            })*
        }
        mod on_postgres {
            $(#[test]
            fn $test() {
                super::$test(&super::Postgres::new())
            })*
        }
    };
}

on_every_backend!(
    idempotency_key_same_and_different_request,
    lease_expires_then_one_result_and_one_event,
    a_deferred_job_waits_queued_until_its_time_and_counts_only_when_asked,
    a_renewed_lease_holds_its_job_and_a_stale_attempt_cannot_renew,
    leases_are_shared_between_workers_and_a_failed_write_spares_its_group,
    idempotency_keys_are_forgotten_after_the_retention_only,
    dead_events_are_redelivered_once_asked,
    a_database_failure_names_the_operation_and_what_failed,
    a_regrade_writes_the_next_version_and_an_event_only_when_the_outcome_changed,
    first_gradings_are_leased_before_regrades,
    listings_page_by_id_and_filter_and_regrades_take_each_learners_latest,
    a_client_becomes_a_teacher,
    a_node_gives_back_only_its_own_leases,
    two_nodes_never_lease_one_job,
    one_idempotency_key_makes_one_submission_on_any_node,
    a_webhook_event_is_leased_by_one_node_at_a_time,
    lti_states_are_taken_once,
    a_node_leases_only_jobs_of_the_versions_it_serves_or_that_no_living_node_serves,
    a_regrade_is_graded_by_the_version_it_was_asked_under,
    uploaded_files_are_kept_per_client_within_their_limits_on_any_node,
    an_outcome_reads_back_as_the_record_a_waiting_request_is_answered_with,
    a_rotated_token_works_until_its_grace_ends_and_a_jobe_key_only_on_jobe,
    a_removed_client_frees_its_name_and_keeps_its_submissions,
    a_platform_is_updated_and_removed_with_its_logins_contexts_and_client,
);

/// `platform update` keeps the name and the API client and refuses another platform's issuer and
/// client id; `platform remove` takes its pending logins, launch contexts and API client with it.
fn a_platform_is_updated_and_removed_with_its_logins_contexts_and_client(backend: &dyn Backend) {
    let store = backend.node("a");
    let registration = |name: &str, client_id: &str| NewPlatform {
        name: name.into(),
        issuer: "https://lms.example".into(),
        client_id: client_id.into(),
        auth_url: "https://lms.example/auth".into(),
        token_url: "https://lms.example/token".into(),
        jwks_url: "https://lms.example/jwks".into(),
        deployment_id: None,
    };
    let client = store.add_client("lti-p", "hash-p", "whsec_x", 0).unwrap();
    let other = store.add_client("lti-q", "hash-q", "whsec_y", 0).unwrap();
    let record = store.add_platform(&registration("p", "tool-1"), client.id, 0).unwrap();
    store.add_platform(&registration("q", "tool-2"), other.id, 0).unwrap();
    let mut changed = registration("p", "tool-3");
    changed.jwks_url = "https://lms.example/keys".into();
    assert!(store.update_platform(&changed).unwrap());
    let listed = store.list_platforms().unwrap();
    let p = listed.iter().find(|r| r.platform.name == "p").unwrap();
    assert_eq!((p.id, p.api_client_id, &p.platform), (record.id, client.id, &changed));
    assert!(matches!(store.update_platform(&registration("p", "tool-2")), Err(StoreError::Conflict(_))));
    assert!(!store.update_platform(&registration("nobody", "tool-9")).unwrap());

    let entry = LtiState { nonce: "n".into(), platform_id: record.id };
    store.put_lti_state("s1", &entry, 1_000, None, 0).unwrap();
    let context = store.lti_context(record.id, "sub", "01-visibility-timeout", "", 1).unwrap();
    assert!(store.remove_platform("p", 5).unwrap());
    assert!(!store.remove_platform("p", 6).unwrap());
    assert_eq!(store.take_lti_state("s1", 6).unwrap(), None);
    assert_eq!(store.lti_context_by_id(context.id).unwrap(), None);
    assert!(store.list_platforms().unwrap().iter().all(|r| r.platform.name != "p"));
    let gone = store.client_by_token_hash("hash-p", TokenScope::Api, 6).unwrap().unwrap();
    assert_eq!(gone.revoked_at, Some(5), "its API client is removed");
    assert!(store.list_clients().unwrap().iter().all(|c| c.id != client.id));
    let again = store.add_client("lti-p", "hash-new", "whsec_z", 7).unwrap();
    store.add_platform(&registration("p", "tool-1"), again.id, 7).unwrap();
}

/// `client rotate`: the new token works at once, the old one until its grace period ends, and not
/// after; a Jobe key works for the Jobe scope only; a revoked client's tokens are found (the caller
/// refuses them with the reason) and it cannot be rotated or given keys.
fn a_rotated_token_works_until_its_grace_ends_and_a_jobe_key_only_on_jobe(backend: &dyn Backend) {
    let store = backend.node("a");
    let client = store.add_client("lms", "old-hash", "whsec_x", 0).unwrap();
    let find = |hash: &str, scope: TokenScope, now: Millis| {
        store.client_by_token_hash(hash, scope, now).unwrap().map(|c| c.id)
    };
    assert!(store.rotate_client_token("lms", "new-hash", 1_000, 10).unwrap());
    for scope in [TokenScope::Api, TokenScope::Jobe] {
        assert_eq!(find("new-hash", scope, 999), Some(client.id));
        assert_eq!(find("old-hash", scope, 999), Some(client.id), "within the grace period");
        assert_eq!(find("old-hash", scope, 1_000), None, "the grace period is over");
    }
    // A second rotation keeps the first's grace as it was and starts its own.
    assert!(store.rotate_client_token("lms", "newer-hash", 2_000, 500).unwrap());
    assert_eq!(find("old-hash", TokenScope::Api, 999), Some(client.id));
    assert_eq!(find("new-hash", TokenScope::Api, 1_999), Some(client.id));
    assert_eq!(find("newer-hash", TokenScope::Api, 5_000), Some(client.id));

    assert!(store.add_client_token("lms", "jobe-hash", TokenScope::Jobe, 0).unwrap());
    assert_eq!(find("jobe-hash", TokenScope::Jobe, 1_000_000), Some(client.id));
    assert_eq!(find("jobe-hash", TokenScope::Api, 0), None, "a Jobe key is not an API token");
    assert!(!store.rotate_client_token("nobody", "h", 1, 0).unwrap());
    assert!(!store.add_client_token("nobody", "h2", TokenScope::Jobe, 0).unwrap());

    store.revoke_client("lms", 3_000).unwrap();
    let revoked = store.client_by_token_hash("jobe-hash", TokenScope::Jobe, 3_000).unwrap().unwrap();
    assert_eq!(revoked.revoked_at, Some(3_000));
    assert!(!store.rotate_client_token("lms", "h3", 9_000, 3_000).unwrap(), "revoked");
    assert!(!store.add_client_token("lms", "h4", TokenScope::Jobe, 3_000).unwrap(), "revoked");
}

/// `client remove`: the client is revoked, its tokens are gone, its name is free for a new client
/// (which gets a new id), and the removed client's submissions stay under its id.
fn a_removed_client_frees_its_name_and_keeps_its_submissions(backend: &dyn Backend) {
    let store = backend.node("a");
    let old = store.add_client("lms", "old-hash", "whsec_x", 0).unwrap();
    store.add_client_token("lms", "jobe-hash", TokenScope::Jobe, 0).unwrap();
    let Intake::Created(submission) = store.submit(&new_submission(old.id, None, "(1)"), 10, 0).unwrap()
    else {
        panic!("not created")
    };
    assert!(store.add_client("lms", "other-hash", "whsec_y", 0).is_err(), "the name is taken");
    assert!(store.remove_client("lms", 5).unwrap());
    assert!(!store.remove_client("lms", 6).unwrap(), "no client of that name any more");
    assert_eq!(store.client_by_token_hash("jobe-hash", TokenScope::Jobe, 5).unwrap(), None);
    let gone = store.client_by_token_hash("old-hash", TokenScope::Api, 5).unwrap().unwrap();
    assert_eq!(gone.revoked_at, Some(5));
    assert!(store.list_clients().unwrap().iter().all(|c| c.id != old.id), "removed clients are not listed");
    let new = store.add_client("lms", "new-hash", "whsec_z", 6).unwrap();
    assert_ne!(new.id, old.id);
    assert_eq!(store.submission(submission.id).unwrap().unwrap().client_id, old.id);
}

/// Every job `store` may lease at `now` (for `lease_ms`), by id, with its recorded version and
/// whether a living node serves that version.
fn lease_all(store: &dyn Store, now: Millis, lease_ms: u64) -> Vec<(i64, Option<String>, bool)> {
    let mut jobs: Vec<_> = store
        .lease_jobs(100, 1, lease_ms, now)
        .unwrap()
        .into_iter()
        .map(|j| (j.submission_id, j.exercise_hash, j.recorded_version_served))
        .collect();
    jobs.sort();
    jobs
}

fn lease(store: &dyn Store, now: Millis) -> Option<LeasedJob> {
    store.lease_jobs(1, 1, 1_000, now).unwrap().into_iter().next()
}

fn complete(
    store: &dyn Store,
    job: &LeasedJob,
    outcome: &JobOutcome,
    event: Option<&NewEvent>,
    now: Millis,
) -> bool {
    let (sender, receiver) = std::sync::mpsc::channel();
    store.complete_job(
        job.clone(),
        outcome.clone(),
        event.cloned(),
        now,
        Box::new(move |r| sender.send(r.unwrap()).unwrap()),
    );
    receiver.recv().unwrap()
}

fn new_submission(client_id: i64, key: Option<&str>, answer: &str) -> NewSubmission {
    NewSubmission {
        client_id,
        exercise: "01-visibility-timeout".into(),
        learner: "l1".into(),
        submission: Submission::Answer(answer.into()),
        callback_url: Some("http://127.0.0.1:1/hook".into()),
        metadata: None,
        idempotency_key: key.map(str::to_string),
        request_hash: crate::submission::sha256_hex(answer.as_bytes()),
        exercise_hash: None,
    }
}

fn graded(verdict: &str, points: u32, hash: &str) -> JobOutcome {
    JobOutcome::Graded {
        verdict: verdict.into(),
        points,
        max_points: 2,
        report: "{}".into(),
        grade_ms: 1,
        exercise_hash: hash.into(),
        grader_version: "prediction@test".into(),
    }
}

fn event(job: &LeasedJob) -> NewEvent {
    NewEvent {
        event_id: crate::service::worker::version_event_id(job.submission_id, job.version),
        url: "http://x/".into(),
        payload: "{}".into(),
    }
}

fn idempotency_key_same_and_different_request(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    let Intake::Created(first) = store.submit(&new_submission(client.id, Some("k"), "(1)"), 10, 1).unwrap()
    else {
        panic!("not created")
    };
    let Intake::Existing(again) = store.submit(&new_submission(client.id, Some("k"), "(1)"), 10, 2).unwrap()
    else {
        panic!("not the same submission")
    };
    assert_eq!(first.id, again.id);
    assert!(matches!(
        store.submit(&new_submission(client.id, Some("k"), "(2)"), 10, 3).unwrap(),
        Intake::KeyReused(_)
    ));
    // Without a key, every request is new.
    assert!(matches!(
        store.submit(&new_submission(client.id, None, "(1)"), 10, 4).unwrap(),
        Intake::Created(_)
    ));
    assert!(matches!(
        store.submit(&new_submission(client.id, None, "(1)"), 2, 5).unwrap(),
        Intake::QueueFull { depth: 2 }
    ));
}

fn lease_expires_then_one_result_and_one_event(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let first = lease(store, 10).unwrap();
    assert_eq!(first.attempt, 1);
    // Leased: nobody else gets it until the lease expires.
    assert!(lease(store, 500).is_none());
    let second = lease(store, 1_010).unwrap();
    assert_eq!((second.submission_id, second.attempt), (first.submission_id, 2));
    let outcome = JobOutcome::Failed { reason: "r".into() };
    let event = NewEvent { event_id: "evt_1".into(), url: "http://x/".into(), payload: "{}".into() };
    assert!(complete(store, &second, &outcome, Some(&event), 1_020));
    // The first worker comes back late: no second result, no second event.
    assert!(!complete(store, &first, &outcome, Some(&event), 1_030));
    let record = store.submission(first.submission_id).unwrap().unwrap();
    assert_eq!(record.status, Status::Failed);
    assert_eq!(record.attempts, 2);
    assert_eq!(store.lease_events(10, 100, 2_000).unwrap().len(), 1);
    assert!(lease(store, 5_000).is_none());
}

fn a_deferred_job_waits_queued_until_its_time_and_counts_only_when_asked(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let first = lease(store, 10).unwrap();
    store.defer_job(&first, 2_000, false).unwrap();
    let record = store.submission(first.submission_id).unwrap().unwrap();
    assert_eq!((record.status, record.attempts), (Status::Queued, 0), "waiting, not running");
    assert_eq!(store.stats().unwrap().jobs_queued, 1);
    assert!(lease(store, 1_999).is_none(), "not due before its time");
    let again = lease(store, 2_000).unwrap();
    assert_eq!(again.attempt, 1, "an uncounted wait is no attempt");
    store.defer_job(&again, 3_000, true).unwrap();
    assert!(lease(store, 2_999).is_none());
    assert_eq!(lease(store, 3_000).unwrap().attempt, 2, "a counted wait is one");
}

fn a_renewed_lease_holds_its_job_and_a_stale_attempt_cannot_renew(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let first = lease(store, 0).unwrap();
    let id = first.submission_id;
    // Heartbeats keep the job leased long past its first lease of 1 000 ms.
    for now in [800, 1_600, 2_400, 3_200] {
        assert!(store.renew_lease(id, first.attempt, 1_000, now).unwrap());
        assert!(lease(store, now + 999).is_none(), "graded twice at {now}: its lease ran out");
    }
    assert_eq!(store.submission(id).unwrap().unwrap().attempts, 1);
    // Without a heartbeat the lease runs out and another attempt takes the job ...
    let second = lease(store, 4_200).unwrap();
    assert_eq!(second.attempt, 2);
    // ... and the first, come back, is fenced out: it cannot take the lease back.
    assert!(!store.renew_lease(id, first.attempt, 1_000, 4_300).unwrap());
    assert!(store.renew_lease(id, second.attempt, 1_000, 4_300).unwrap());
    // A finished job has no lease to renew.
    assert!(complete(store, &second, &JobOutcome::Failed { reason: "r".into() }, None, 4_400));
    assert!(!store.renew_lease(id, second.attempt, 1_000, 4_500).unwrap());
}

fn leases_are_shared_between_workers_and_a_failed_write_spares_its_group(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    for i in 0..5 {
        store.submit(&new_submission(client.id, None, &format!("({i})")), 10, 0).unwrap();
    }
    // Five due jobs, two workers: this one takes three, the next two, then none is left.
    assert_eq!(store.lease_jobs(16, 2, 1_000, 0).unwrap().len(), 3);
    assert_eq!(store.lease_jobs(16, 2, 1_000, 0).unwrap().len(), 1);
    assert_eq!(store.lease_jobs(16, 2, 1_000, 0).unwrap().len(), 1);
    assert!(store.lease_jobs(16, 2, 1_000, 0).unwrap().is_empty());
    // A write that fails (a duplicate client name) rolls back alone.
    assert!(matches!(store.add_client("lms", "h2", "s", 0), Err(StoreError::Conflict(_))));
    assert_eq!(store.list_clients().unwrap().len(), 1);
    assert!(store.add_client("lms-2", "h2", "s", 0).is_ok());
}

fn idempotency_keys_are_forgotten_after_the_retention_only(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, Some("old"), "(1)"), 10, 1_000).unwrap();
    store.submit(&new_submission(client.id, Some("new"), "(1)"), 10, 5_000).unwrap();
    assert_eq!(store.forget_idempotency_keys(2_000).unwrap(), 1);
    // The old key is free again; the new one still finds its submission.
    assert!(matches!(
        store.submit(&new_submission(client.id, Some("old"), "(1)"), 10, 6_000).unwrap(),
        Intake::Created(_)
    ));
    assert!(matches!(
        store.submit(&new_submission(client.id, Some("new"), "(1)"), 10, 6_000).unwrap(),
        Intake::Existing(_)
    ));
}

fn dead_events_are_redelivered_once_asked(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let job = lease(store, 0).unwrap();
    let event = NewEvent { event_id: "evt_1".into(), url: "http://x/".into(), payload: "{}".into() };
    complete(store, &job, &JobOutcome::Failed { reason: "r".into() }, Some(&event), 0);
    let leased = store.lease_events(10, 100, 0).unwrap();
    assert_eq!(leased.len(), 1);
    assert!(store.lease_events(10, 100, 50).unwrap().is_empty(), "leased events are not handed out twice");
    store.record_delivery("evt_1", &Delivery::Dead { error: "500".into() }, 60).unwrap();
    assert_eq!(store.dead_events(client.id, 10).unwrap().len(), 1);
    assert_eq!(store.redeliver(client.id + 1, "evt_1", 70).unwrap(), None, "another client's event");
    assert_eq!(store.redeliver(client.id, "evt_1", 70).unwrap(), Some(true));
    assert_eq!(store.redeliver(client.id, "evt_1", 70).unwrap(), Some(false));
    let again = store.lease_events(10, 100, 70).unwrap();
    assert_eq!(again[0].event_id, "evt_1");
    assert_eq!(again[0].attempts, 0);
}

fn a_database_failure_names_the_operation_and_what_failed(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    store.add_client("lms", "h", "whsec_x", 0).unwrap();
    // Another name with the same token hash: the database's unique constraint refuses the write.
    let result = store.add_client("lms-2", "h", "whsec_y", 0);
    let Err(error @ StoreError::Database { operation, message }) = &result else {
        panic!("not a database error: {result:?}")
    };
    assert_eq!(*operation, "add a client");
    // Each database says it in its own words, naming the column; the error's shape is the same.
    assert!(message.contains("token_hash"), "{message}");
    assert_eq!(error.to_string(), format!("database (add a client): {message}"));
    // The failed write left nothing, and the store goes on.
    assert_eq!(store.list_clients().unwrap().len(), 1);
}

fn a_regrade_writes_the_next_version_and_an_event_only_when_the_outcome_changed(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    let Intake::Created(record) = store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap()
    else {
        panic!("not created")
    };
    let job = lease(store, 1).unwrap();
    assert_eq!((job.regrade, job.version), (false, 1));
    assert!(complete(store, &job, &graded("passed", 2, "h1"), Some(&event(&job)), 2));
    let first = store.submission(record.id).unwrap().unwrap().result.unwrap();
    assert_eq!((first.version, first.exercise_hash.as_deref()), (1, Some("h1")));

    // Asked twice: queued once.
    let queued = store.queue_regrades(&[record.id], None).unwrap();
    assert_eq!((queued.queued, queued.already_open), (vec![record.id], vec![]));
    let again = store.queue_regrades(&[record.id], None).unwrap();
    assert_eq!((again.queued, again.already_open), (vec![], vec![record.id]));

    // The same outcome: version 2, no event. A worker lost to a crash: leased again, same version.
    let lost = lease(store, 10).unwrap();
    assert_eq!((lost.regrade, lost.version, lost.attempt), (true, 2, 1));
    let job = lease(store, 2_000).unwrap();
    assert_eq!((job.submission_id, job.version, job.attempt), (record.id, 2, 2));
    assert!(complete(store, &job, &graded("passed", 2, "h2"), Some(&event(&job)), 2_001));
    // The lost worker comes back: no second version 2.
    assert!(!complete(store, &lost, &graded("failed", 0, "h2"), Some(&event(&lost)), 2_002));
    assert_eq!(backend.outbox_ids(), [format!("evt_sub_{}", record.id)]);

    // A changed outcome: version 3 and its event.
    store.queue_regrades(&[record.id], None).unwrap();
    let job = lease(store, 3_000).unwrap();
    assert_eq!(job.version, 3);
    assert!(complete(store, &job, &graded("failed", 1, "h3"), Some(&event(&job)), 3_001));
    assert_eq!(backend.outbox_ids(), [format!("evt_sub_{}", record.id), format!("evt_sub_{}_v3", record.id)]);
    let latest = store.submission(record.id).unwrap().unwrap();
    let result = latest.result.unwrap();
    assert_eq!(
        (latest.status, result.version, result.verdict.as_deref(), result.points),
        (Status::Graded, 3, Some("failed"), Some(1))
    );
    let versions: Vec<(u32, Option<String>, Option<String>)> = store
        .result_versions(record.id)
        .unwrap()
        .into_iter()
        .map(|r| (r.version, r.verdict, r.exercise_hash))
        .collect();
    assert_eq!(
        versions,
        [
            (1, Some("passed".into()), Some("h1".into())),
            (2, Some("passed".into()), Some("h2".into())),
            (3, Some("failed".into()), Some("h3".into())),
        ],
        "every version kept"
    );
}

fn first_gradings_are_leased_before_regrades(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let job = lease(store, 1).unwrap();
    assert!(complete(store, &job, &graded("passed", 2, "h"), None, 2));
    store.queue_regrades(&[job.submission_id], None).unwrap();
    let Intake::Created(newer) = store.submit(&new_submission(client.id, None, "(2)"), 10, 3).unwrap() else {
        panic!("not created")
    };
    let next = lease(store, 4).unwrap();
    assert_eq!((next.submission_id, next.regrade), (newer.id, false));
    assert!(lease(store, 4).unwrap().regrade);
}

fn listings_page_by_id_and_filter_and_regrades_take_each_learners_latest(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    let lms = store.add_client("lms", "h1", "whsec_x", 0).unwrap();
    let other = store.add_client("other", "h2", "whsec_y", 0).unwrap();
    let mut ids = Vec::new();
    for (n, (client, learner, verdict)) in [
        (lms.id, "a", "passed"),
        (lms.id, "b", "failed"),
        (other.id, "a", "failed"),
        (lms.id, "a", "failed"),
        (lms.id, "c", "passed"),
    ]
    .into_iter()
    .enumerate()
    {
        let new =
            NewSubmission { learner: learner.into(), ..new_submission(client, None, &format!("({n})")) };
        let Intake::Created(record) = store.submit(&new, 10, n as i64 * 100).unwrap() else { panic!() };
        let job = lease(store, n as i64 * 100).unwrap();
        assert!(complete(store, &job, &graded(verdict, 1, "h"), None, n as i64 * 100 + 1));
        ids.push(record.id);
    }
    let list = |filter: &SubmissionFilter, after: i64, limit: usize| -> Vec<i64> {
        store.list_submissions(lms.id, filter, after, limit).unwrap().iter().map(|r| r.id).collect()
    };
    let all = SubmissionFilter::default();
    assert_eq!(list(&all, 0, 10), [ids[0], ids[1], ids[3], ids[4]], "only this client's, in id order");
    assert_eq!(list(&all, 0, 2), [ids[0], ids[1]]);
    assert_eq!(list(&all, ids[1], 2), [ids[3], ids[4]], "the next page starts after the cursor");
    let failed = SubmissionFilter { verdict: Some("failed".into()), ..all.clone() };
    assert_eq!(list(&failed, 0, 10), [ids[1], ids[3]]);
    let a_since = SubmissionFilter { learner: Some("a".into()), since: Some(200), ..all.clone() };
    assert_eq!(list(&a_since, 0, 10), [ids[3]]);
    let other_exercise = SubmissionFilter { exercise: Some("02-x".into()), ..all.clone() };
    assert!(list(&other_exercise, 0, 10).is_empty());
    assert!(store.list_submissions(lms.id, &all, 0, 1).unwrap()[0].result.as_ref().unwrap().report.is_none());

    // The latest of each (client, learner): lms/a's second, lms/b, other/a, lms/c.
    let latest = |filter: &RegradeFilter, limit: usize| -> Vec<i64> {
        store
            .latest_submissions("01-visibility-timeout", filter, limit)
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect()
    };
    assert_eq!(latest(&RegradeFilter::default(), 10), [ids[1], ids[2], ids[3], ids[4]]);
    assert_eq!(latest(&RegradeFilter::default(), 2), [ids[1], ids[2], ids[3]], "one more than the limit");
    let failing_a = RegradeFilter { learners: vec!["a".into()], verdict: Some("failed".into()) };
    assert_eq!(latest(&failing_a, 10), [ids[2], ids[3]]);
    assert_eq!(store.exercise_submissions("01-visibility-timeout", 10).unwrap().len(), 5);
    assert!(matches!(store.submission_payload(ids[0]).unwrap(), Some(Submission::Answer(a)) if a == "(0)"));
    assert!(store.submission_payload(9_999).unwrap().is_none());
}

fn a_client_becomes_a_teacher(backend: &dyn Backend) {
    let store = backend.node("a");
    let store = store.as_ref();
    store.add_client("lms", "h1", "whsec_x", 0).unwrap();
    assert!(!store.client_by_token_hash("h1", TokenScope::Api, 0).unwrap().unwrap().teacher);
    assert!(store.set_teacher("lms", true).unwrap());
    assert!(store.client_by_token_hash("h1", TokenScope::Api, 0).unwrap().unwrap().teacher);
    assert!(!store.set_teacher("nobody", true).unwrap());
}

// ---- Several nodes on one database ----

/// A node that restarts gives back the leases it held (its earlier run is dead), and never the
/// leases of another node, which may be grading right now.
fn a_node_gives_back_only_its_own_leases(backend: &dyn Backend) {
    let (a, b) = (backend.node("node-a"), backend.node("node-b"));
    let client = a.add_client("lms", "h", "whsec_x", 0).unwrap();
    for n in 0..2 {
        a.submit(&new_submission(client.id, None, &format!("({n})")), 10, 0).unwrap();
    }
    let held_by_a = lease(a.as_ref(), 0).unwrap();
    let held_by_b = lease(b.as_ref(), 0).unwrap();
    assert_ne!(held_by_a.submission_id, held_by_b.submission_id);
    // Node a restarts: a new store for the same node id.
    drop(a);
    let a = backend.node("node-a");
    assert_eq!(a.release_own_leases().unwrap(), 1, "a's one lease, not b's");
    // a's job is due again at once; b's stays leased until its lease runs out.
    let again = lease(a.as_ref(), 1).unwrap();
    assert_eq!((again.submission_id, again.attempt), (held_by_a.submission_id, 2));
    assert!(lease(a.as_ref(), 2).is_none(), "b's job was taken from it");
    assert!(b.renew_lease(held_by_b.submission_id, held_by_b.attempt, 1_000, 3).unwrap());
}

/// Many grading threads on two nodes lease at once: every job is leased exactly once.
fn two_nodes_never_lease_one_job(backend: &dyn Backend) {
    let nodes = [backend.node("node-a"), backend.node("node-b")];
    let client = nodes[0].add_client("lms", "h", "whsec_x", 0).unwrap();
    let jobs = 40;
    for n in 0..jobs {
        nodes[0].submit(&new_submission(client.id, None, &format!("({n})")), 100, 0).unwrap();
    }
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let store = nodes[t % 2].clone();
            std::thread::spawn(move || {
                let mut taken = Vec::new();
                while let Some(job) = store.lease_jobs(1, 1, 60_000, 0).unwrap().into_iter().next() {
                    taken.push(job.submission_id);
                }
                taken
            })
        })
        .collect();
    let mut taken: Vec<i64> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    taken.sort_unstable();
    let leased = taken.len();
    taken.dedup();
    assert_eq!((leased, taken.len()), (jobs, jobs), "every job leased once");
}

/// A client retries a submission with its key on two nodes at once: one submission, one job, and
/// every answer names it.
fn one_idempotency_key_makes_one_submission_on_any_node(backend: &dyn Backend) {
    let nodes = [backend.node("node-a"), backend.node("node-b")];
    let client = nodes[0].add_client("lms", "h", "whsec_x", 0).unwrap();
    let barrier = Arc::new(std::sync::Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (store, barrier) = (nodes[t % 2].clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                match store.submit(&new_submission(client.id, Some("retry-1"), "(1)"), 100, 0).unwrap() {
                    Intake::Created(r) => (true, r.id),
                    Intake::Existing(r) => (false, r.id),
                    other => panic!("{other:?}"),
                }
            })
        })
        .collect();
    let answers: Vec<(bool, i64)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(answers.iter().filter(|(created, _)| *created).count(), 1, "{answers:?}");
    assert!(answers.iter().all(|(_, id)| *id == answers[0].1), "{answers:?}");
    assert_eq!(nodes[1].stats().unwrap().jobs_queued, 1);
}

/// The outbox is leased like the jobs: an event one node's sender holds is not handed to another
/// node until its lease runs out.
fn a_webhook_event_is_leased_by_one_node_at_a_time(backend: &dyn Backend) {
    let (a, b) = (backend.node("node-a"), backend.node("node-b"));
    let client = a.add_client("lms", "h", "whsec_x", 0).unwrap();
    a.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let job = lease(a.as_ref(), 0).unwrap();
    assert!(complete(a.as_ref(), &job, &graded("passed", 2, "h"), Some(&event(&job)), 0));
    assert_eq!(a.lease_events(10, 100, 0).unwrap().len(), 1);
    assert!(b.lease_events(10, 100, 99).unwrap().is_empty(), "a holds it");
    let again = b.lease_events(10, 100, 100).unwrap();
    assert_eq!(again.len(), 1, "a's lease ran out: b sends it");
    // a restarting does not take it back from b.
    assert_eq!(backend.node("node-a").release_own_leases().unwrap(), 0);
    assert!(a.lease_events(10, 100, 150).unwrap().is_empty());
}

/// An LTI login state is taken once, whichever node the browser comes back to.
fn lti_states_are_taken_once(backend: &dyn Backend) {
    let (a, b) = (backend.node("node-a"), backend.node("node-b"));
    let client = a.add_client("lti-p", "h", "whsec_x", 0).unwrap();
    let platform = NewPlatform {
        name: "p".into(),
        issuer: "https://lms.example".into(),
        client_id: "tool".into(),
        auth_url: "https://lms.example/auth".into(),
        token_url: "https://lms.example/token".into(),
        jwks_url: "https://lms.example/jwks".into(),
        deployment_id: None,
    };
    let record = a.add_platform(&platform, client.id, 0).unwrap();
    assert_eq!(b.list_platforms().unwrap(), std::slice::from_ref(&record));
    let entry = LtiState { nonce: "n".into(), platform_id: record.id };
    a.put_lti_state("s1", &entry, 1_000, None, 0).unwrap();
    assert_eq!(b.take_lti_state("s1", 1).unwrap(), Some(entry.clone()));
    assert_eq!(a.take_lti_state("s1", 2).unwrap(), None, "taken already");
    // A login given up for another is gone with the same write.
    a.put_lti_state("s2", &entry, 1_000, None, 0).unwrap();
    b.put_lti_state("s3", &entry, 1_000, Some("s2"), 1).unwrap();
    assert_eq!(a.take_lti_state("s2", 2).unwrap(), None, "given up");
    assert_eq!(a.take_lti_state("s3", 2).unwrap(), Some(entry.clone()));
    // Expired logins are removed by the next one kept.
    a.put_lti_state("s4", &entry, 10, None, 0).unwrap();
    a.put_lti_state("s5", &entry, 1_000, None, 20).unwrap();
    assert_eq!(a.take_lti_state("s4", 5).unwrap(), None, "removed at 20, though asked for at 5");
    let context = b.lti_context(record.id, "sub", "01-visibility-timeout", "", 3).unwrap();
    assert_eq!(a.lti_context(record.id, "sub", "01-visibility-timeout", "", 4).unwrap(), context);
    assert_eq!(a.lti_context_by_id(context.id).unwrap(), Some(context));
    assert_eq!(a.setting_or_insert("k", "first").unwrap(), "first");
    assert_eq!(b.setting_or_insert("k", "second").unwrap(), "first");
    assert_eq!(b.setting("k").unwrap().as_deref(), Some("first"));
}

// ---- PostgreSQL only ----

/// Nodes measure lease deadlines by the database's clock: a node whose clock runs an hour ahead
/// cannot take a lease another node holds, and the holder renews it whatever its own clock says.
#[test]
fn lease_deadlines_follow_the_database_clock() {
    let database = Postgres::new();
    let a = database.open("node-a", LeaseClock::Database);
    let ahead = database.open("node-b", LeaseClock::Database);
    let client = a.add_client("lms", "h", "whsec_x", 0).unwrap();
    a.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let now = crate::service::clock::now_ms();
    let hour = 3_600_000;
    // a's clock stands at the epoch; b's runs an hour ahead. Neither matters.
    let job = a.lease_jobs(1, 1, 60_000, 0).unwrap().pop().expect("due by the database's clock");
    assert!(ahead.lease_jobs(1, 1, 60_000, now + hour).unwrap().is_empty(), "b took a live lease");
    assert!(a.renew_lease(job.submission_id, job.attempt, 60_000, 0).unwrap());
    // A deferred job waits its time by the database's clock, too.
    a.defer_job(&job, now + hour, false).unwrap();
    assert!(ahead.lease_jobs(1, 1, 60_000, now + 2 * hour).unwrap().is_empty(), "deferred an hour");
}

/// Nodes starting together on a new database: each migration runs once (the advisory lock), and
/// every node starts.
#[test]
fn nodes_starting_together_migrate_once() {
    let database = Postgres::new();
    let barrier = Arc::new(std::sync::Barrier::new(6));
    let openers: Vec<_> = (0..6)
        .map(|n| {
            let (url, barrier) = (database.url.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                PgStore::open(&url, &format!("node-{n}"), LeaseClock::Database).map(|_| ())
            })
        })
        .collect();
    for opener in openers {
        opener.join().unwrap().unwrap();
    }
    let applied = database
        .open("reader", LeaseClock::Database)
        .query_texts("SELECT name FROM schema_migrations ORDER BY version")
        .unwrap();
    let expected: Vec<String> =
        super::postgres::migrate::MIGRATIONS.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(applied, expected);
}

/// A database a newer version migrated further is refused at start, saying so and what to do, on
/// PostgreSQL as on SQLite (whose case `sqlite::migrate` tests).
#[test]
fn a_database_written_by_a_newer_version_is_refused_with_what_to_do() {
    let database = Postgres::new();
    let future = database
        .open("node-a", LeaseClock::Database)
        .query_texts(
            "INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future') RETURNING name",
        )
        .unwrap();
    assert_eq!(future, ["9999_future"]);
    let known = super::postgres::migrate::MIGRATIONS.len();
    match PgStore::open(&database.url, "node-b", LeaseClock::Database) {
        Err(error @ StoreError::NewerSchema { found, known: k }) => {
            assert_eq!((found, k), (known + 1, known));
            assert!(error.to_string().contains("written by a newer version of Prüfstein"), "{error}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

/// A server that cannot be reached is `Unavailable`, naming the operation, in the trait's words.
#[test]
fn an_unreachable_database_is_unavailable_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("postgresql:///x?host={}&user=postgres", dir.path().display());
    match PgStore::open(&url, "node-a", LeaseClock::Database) {
        Err(StoreError::Unavailable { operation, message }) => {
            assert_eq!(operation, "migrate the database");
            assert!(!message.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

/// A node listening on the database hears what another node did: jobs queued, a submission
/// finished (once committed), so that it need not wait for its next poll.
#[test]
fn a_listening_node_hears_queued_jobs_and_finished_submissions() {
    let database = Postgres::new();
    let (a, b) =
        (database.open("node-a", LeaseClock::Database), database.open("node-b", LeaseClock::Database));
    let (sender, heard) = std::sync::mpsc::channel();
    let sender = std::sync::Mutex::new(sender);
    a.listen(Arc::new(move |notice: Notice| {
        let _ = sender.lock().unwrap().send(notice);
    }))
    .unwrap();
    let next = || heard.recv_timeout(std::time::Duration::from_secs(20)).expect("a notice within 20 s");
    // Once listening, the listener says "jobs queued": it may have missed some before.
    assert_eq!(next(), Notice::JobsQueued);
    let client = b.add_client("lms", "h", "whsec_x", 0).unwrap();
    b.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    assert_eq!(next(), Notice::JobsQueued);
    let job = b.lease_jobs(1, 1, 60_000, 0).unwrap().pop().unwrap();
    // a's own submission is not news to a: it woke its own threads.
    a.submit(&new_submission(client.id, None, "(2)"), 10, 0).unwrap();
    assert!(complete(&b, &job, &graded("passed", 2, "h"), None, 0));
    assert_eq!(next(), Notice::Finished(job.submission_id));
    // A late second completion stores nothing and says nothing.
    assert!(!complete(&b, &job, &graded("passed", 2, "h"), None, 0));
    b.queue_regrades(&[job.submission_id], None).unwrap();
    assert_eq!(next(), Notice::JobsQueued, "the regrade, not a second 'finished'");
}

/// A submission of `answer` accepted under version `hash` of the exercise.
fn under_version(client_id: i64, answer: &str, hash: Option<&str>) -> NewSubmission {
    NewSubmission { exercise_hash: hash.map(str::to_string), ..new_submission(client_id, None, answer) }
}

/// Two nodes serve different versions of one exercise: each grades the jobs accepted under its
/// own, never the other's, while the other lives; jobs of no recorded version, and of versions no
/// living node serves, are anyone's. A node that is no longer heard of, or that withdrew, leaves its
/// version's jobs to the others.
fn a_node_leases_only_jobs_of_the_versions_it_serves_or_that_no_living_node_serves(backend: &dyn Backend) {
    // a holds what it leases; b's one lease runs out after a second.
    const LONG: u64 = 10_000_000;
    let (a, b) = (backend.node("node-a"), backend.node("node-b"));
    let exercise = "01-visibility-timeout";
    let versions = |hash: &str| vec![(exercise.to_string(), hash.to_string())];
    a.announce_node(&versions("v1"), 0).unwrap();
    b.announce_node(&versions("v2"), 0).unwrap();
    let client = a.add_client("lms", "h", "whsec_x", 0).unwrap();
    let mut ids = Vec::new();
    for (answer, hash) in [("(1)", Some("v1")), ("(2)", Some("v2")), ("(3)", None), ("(4)", Some("v0"))] {
        let Intake::Created(record) = a.submit(&under_version(client.id, answer, hash), 100, 0).unwrap()
        else {
            panic!("not created")
        };
        ids.push(record.id);
    }
    let census = a.version_census(1).unwrap();
    assert_eq!(
        census.served,
        vec![
            ServedVersion { node: "node-a".into(), exercise: exercise.into(), content_hash: "v1".into() },
            ServedVersion { node: "node-b".into(), exercise: exercise.into(), content_hash: "v2".into() },
        ]
    );
    let recorded: Vec<(&str, u64)> =
        census.recorded.iter().map(|r| (r.content_hash.as_str(), r.jobs)).collect();
    assert_eq!(recorded, vec![("v0", 1), ("v1", 1), ("v2", 1)]);
    // a takes its own version's job, the unrecorded one and the one of no living node's version.
    assert_eq!(
        lease_all(a.as_ref(), 1, LONG),
        vec![(ids[0], Some("v1".into()), true), (ids[2], None, false), (ids[3], Some("v0".into()), false)]
    );
    assert_eq!(lease_all(b.as_ref(), 1, 1_000), vec![(ids[1], Some("v2".into()), true)], "b takes v2's job");
    // b's lease runs out while b is still heard of: a does not take v2's job.
    b.announce_node(&versions("v2"), 5_000).unwrap();
    a.announce_node(&versions("v1"), 5_000).unwrap();
    assert!(lease_all(a.as_ref(), 5_000, LONG).is_empty(), "v2 is node b's while b lives");
    // b is not heard of for longer than the liveness: a takes v2's job.
    let later = 5_000 + crate::limits::NODE_LIVENESS_MS as i64 + 1;
    a.announce_node(&versions("v1"), later).unwrap();
    assert_eq!(lease_all(a.as_ref(), later, LONG), vec![(ids[1], Some("v2".into()), false)]);
    assert_eq!(
        a.version_census(later).unwrap().served.iter().map(|s| s.node.as_str()).collect::<Vec<_>>(),
        vec!["node-a"],
        "b is not counted among the living"
    );
    // b comes back, accepts a v2 job, then stops and withdraws: the job is a's at once.
    b.announce_node(&versions("v2"), later).unwrap();
    let Intake::Created(fifth) = b.submit(&under_version(client.id, "(5)", Some("v2")), 100, later).unwrap()
    else {
        panic!("not created")
    };
    assert!(lease_all(a.as_ref(), later, LONG).is_empty(), "b lives again");
    b.withdraw_node().unwrap();
    assert_eq!(lease_all(a.as_ref(), later, LONG), vec![(fifth.id, Some("v2".into()), false)]);
}

/// A regrade records the version of the node that asked for it: a node serving another version
/// leaves it to the one that serves it.
fn a_regrade_is_graded_by_the_version_it_was_asked_under(backend: &dyn Backend) {
    let (a, b) = (backend.node("node-a"), backend.node("node-b"));
    let exercise = "01-visibility-timeout";
    a.announce_node(&[(exercise.to_string(), "v1".to_string())], 0).unwrap();
    b.announce_node(&[(exercise.to_string(), "v2".to_string())], 0).unwrap();
    let client = a.add_client("lms", "h", "whsec_x", 0).unwrap();
    a.submit(&under_version(client.id, "(1)", Some("v1")), 100, 0).unwrap();
    let job = lease(a.as_ref(), 0).unwrap();
    assert!(complete(a.as_ref(), &job, &graded("failed", 0, "v1"), None, 0));
    assert_eq!(b.queue_regrades(&[job.submission_id], Some("v2")).unwrap().queued, vec![job.submission_id]);
    assert!(lease(a.as_ref(), 1).is_none(), "a serves v1: the regrade asked under v2 is b's");
    let regrade = lease(b.as_ref(), 1).unwrap();
    assert_eq!((regrade.submission_id, regrade.regrade, regrade.version), (job.submission_id, true, 2));
    assert_eq!(regrade.exercise_hash.as_deref(), Some("v2"));
}

/// Files uploaded to the Jobe endpoint live in the store: another node reads them; a client's
/// oldest go first beyond the count or the bytes, never the one just kept; clients are apart.
fn uploaded_files_are_kept_per_client_within_their_limits_on_any_node(backend: &dyn Backend) {
    let (a, b) = (backend.node("node-a"), backend.node("node-b"));
    let one = a.add_client("one", "h1", "whsec_x", 0).unwrap();
    let two = a.add_client("two", "h2", "whsec_y", 0).unwrap();
    let limits = (2, 10);
    a.put_jobe_file(one.id, "m1.wasm", b"1111", limits, 1).unwrap();
    a.put_jobe_file(two.id, "m1.wasm", b"other", limits, 1).unwrap();
    assert_eq!(b.jobe_file(one.id, "m1.wasm").unwrap().as_deref(), Some(&b"1111"[..]), "read on node b");
    assert_eq!(b.jobe_file(two.id, "m1.wasm").unwrap().as_deref(), Some(&b"other"[..]));
    assert_eq!(b.jobe_file(one.id, "absent").unwrap(), None);
    a.put_jobe_file(one.id, "m2.wasm", b"2222", limits, 2).unwrap();
    // A third file: two at most, the oldest goes.
    b.put_jobe_file(one.id, "m3.wasm", b"3333", limits, 3).unwrap();
    let held = |client: i64, id: &str| a.jobe_file(client, id).unwrap().is_some();
    assert_eq!(
        (held(one.id, "m1.wasm"), held(one.id, "m2.wasm"), held(one.id, "m3.wasm")),
        (false, true, true)
    );
    assert!(held(two.id, "m1.wasm"), "another client's file stays");
    // Kept again, m2 is the newest; then a file of 7 bytes leaves room for nothing else of 10.
    a.put_jobe_file(one.id, "m2.wasm", b"22", limits, 4).unwrap();
    a.put_jobe_file(one.id, "m4.wasm", b"4444444", limits, 5).unwrap();
    assert_eq!(
        (held(one.id, "m2.wasm"), held(one.id, "m3.wasm"), held(one.id, "m4.wasm")),
        (true, false, true)
    );
    // A file larger than the bytes limit is kept alone.
    a.put_jobe_file(one.id, "big.wasm", &[7; 11], limits, 6).unwrap();
    assert_eq!(
        (held(one.id, "big.wasm"), held(one.id, "m2.wasm"), held(one.id, "m4.wasm")),
        (true, false, false)
    );
}

/// A finished job answers waiting requests with `JobOutcome::record` before anyone reads the store:
/// it must be what the store then gives back, graded or failed.
fn an_outcome_reads_back_as_the_record_a_waiting_request_is_answered_with(backend: &dyn Backend) {
    let store = backend.node("a");
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    let outcomes = [graded("passed", 2, "v1"), JobOutcome::Failed { reason: "broken".into() }];
    for (n, outcome) in outcomes.iter().enumerate() {
        store.submit(&new_submission(client.id, None, &format!("({n})")), 10, 0).unwrap();
        let job = lease(store.as_ref(), 0).unwrap();
        assert!(complete(store.as_ref(), &job, outcome, None, 7));
        let stored = store.submission(job.submission_id).unwrap().unwrap();
        let (status, record) = outcome.record(job.version, 7);
        assert_eq!(stored.status, status);
        let read = stored.result.unwrap();
        assert_eq!(
            (&read.verdict, read.points, read.max_points, &read.report, &read.failure, read.grade_ms),
            (
                &record.verdict,
                record.points,
                record.max_points,
                &record.report,
                &record.failure,
                record.grade_ms
            )
        );
        assert_eq!(
            (&read.exercise_hash, &read.grader_version, read.version),
            (&record.exercise_hash, &record.grader_version, record.version)
        );
    }
}

#[path = "tests_privacy.rs"]
mod privacy;
