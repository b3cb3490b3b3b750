//! The SQLite store's behaviour through the [`Store`] trait: idempotency keys, leases and their
//! fences, deferred jobs, one result and one event per submission, dead letters, migrations run by
//! several openers at once.

use rusqlite::Connection;

use super::migrate::SCHEMA_VERSION;
use super::*;
use crate::submission::Submission;

/// Several processes (here: threads with their own connections) opening a new data directory
/// at once: each migration runs once, and every opener sees the finished schema.
#[test]
fn concurrent_first_opens_migrate_once() {
    let dir = tempfile::tempdir().unwrap();
    let openers: Vec<_> = (0..8)
        .map(|_| {
            let path = dir.path().to_path_buf();
            std::thread::spawn(move || SqliteStore::open(&path, Durability::Normal).map(|_| ()))
        })
        .collect();
    for opener in openers {
        opener.join().unwrap().unwrap();
    }
    let conn = Connection::open(dir.path().join(DATABASE_FILE)).unwrap();
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version as usize, SCHEMA_VERSION);
}

fn lease(store: &SqliteStore, now: Millis) -> Option<LeasedJob> {
    store.lease_jobs(1, 1, 1_000, now).unwrap().into_iter().next()
}

fn complete(
    store: &SqliteStore,
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

fn store() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
    (dir, store)
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
    }
}

#[test]
fn idempotency_key_same_and_different_request() {
    let (_dir, store) = store();
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

#[test]
fn lease_expires_then_one_result_and_one_event() {
    let (_dir, store) = store();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let first = lease(&store, 10).unwrap();
    assert_eq!(first.attempt, 1);
    // Leased: nobody else gets it until the lease expires.
    assert!(lease(&store, 500).is_none());
    let second = lease(&store, 1_010).unwrap();
    assert_eq!((second.submission_id, second.attempt), (first.submission_id, 2));
    let outcome = JobOutcome::Failed { reason: "r".into() };
    let event = NewEvent { event_id: "evt_1".into(), url: "http://x/".into(), payload: "{}".into() };
    assert!(complete(&store, &second, &outcome, Some(&event), 1_020));
    // The first worker comes back late: no second result, no second event.
    assert!(!complete(&store, &first, &outcome, Some(&event), 1_030));
    let record = store.submission(first.submission_id).unwrap().unwrap();
    assert_eq!(record.status, Status::Failed);
    assert_eq!(record.attempts, 2);
    assert_eq!(store.lease_events(10, 100, 2_000).unwrap().len(), 1);
    assert!(lease(&store, 5_000).is_none());
}

#[test]
fn a_deferred_job_waits_queued_until_its_time_and_counts_only_when_asked() {
    let (_dir, store) = store();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let first = lease(&store, 10).unwrap();
    store.defer_job(&first, 2_000, false).unwrap();
    let record = store.submission(first.submission_id).unwrap().unwrap();
    assert_eq!((record.status, record.attempts), (Status::Queued, 0), "waiting, not running");
    assert_eq!(store.stats().unwrap().jobs_queued, 1);
    assert!(lease(&store, 1_999).is_none(), "not due before its time");
    let again = lease(&store, 2_000).unwrap();
    assert_eq!(again.attempt, 1, "an uncounted wait is no attempt");
    store.defer_job(&again, 3_000, true).unwrap();
    assert!(lease(&store, 2_999).is_none());
    assert_eq!(lease(&store, 3_000).unwrap().attempt, 2, "a counted wait is one");
}

#[test]
fn a_renewed_lease_holds_its_job_and_a_stale_attempt_cannot_renew() {
    let (_dir, store) = store();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let first = lease(&store, 0).unwrap();
    let id = first.submission_id;
    // Heartbeats keep the job leased long past its first lease of 1 000 ms.
    for now in [800, 1_600, 2_400, 3_200] {
        assert!(store.renew_lease(id, first.attempt, 1_000, now).unwrap());
        assert!(lease(&store, now + 999).is_none(), "graded twice at {now}: its lease ran out");
    }
    assert_eq!(store.submission(id).unwrap().unwrap().attempts, 1);
    // Without a heartbeat the lease runs out and another attempt takes the job ...
    let second = lease(&store, 4_200).unwrap();
    assert_eq!(second.attempt, 2);
    // ... and the first, come back, is fenced out: it cannot take the lease back.
    assert!(!store.renew_lease(id, first.attempt, 1_000, 4_300).unwrap());
    assert!(store.renew_lease(id, second.attempt, 1_000, 4_300).unwrap());
    // A finished job has no lease to renew.
    assert!(complete(&store, &second, &JobOutcome::Failed { reason: "r".into() }, None, 4_400));
    assert!(!store.renew_lease(id, second.attempt, 1_000, 4_500).unwrap());
}

#[test]
fn leases_are_shared_between_workers_and_a_failed_write_spares_its_group() {
    let (_dir, store) = store();
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

#[test]
fn idempotency_keys_are_forgotten_after_the_retention_only() {
    let (_dir, store) = store();
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

#[test]
fn dead_events_are_redelivered_once_asked() {
    let (_dir, store) = store();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let job = lease(&store, 0).unwrap();
    let event = NewEvent { event_id: "evt_1".into(), url: "http://x/".into(), payload: "{}".into() };
    complete(&store, &job, &JobOutcome::Failed { reason: "r".into() }, Some(&event), 0);
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

#[test]
fn a_database_failure_names_the_operation_and_what_failed() {
    let (_dir, store) = store();
    store.add_client("lms", "h", "whsec_x", 0).unwrap();
    // Another name with the same token hash: SQLite's UNIQUE constraint refuses the write.
    let result = store.add_client("lms-2", "h", "whsec_y", 0);
    let Err(error @ StoreError::Database { operation, message }) = &result else {
        panic!("not a database error: {result:?}")
    };
    assert_eq!(*operation, "add a client");
    assert!(message.contains("UNIQUE constraint failed: clients.token_hash"), "{message}");
    assert_eq!(error.to_string(), "database (add a client): UNIQUE constraint failed: clients.token_hash");
    // The failed write left nothing, and the store goes on.
    assert_eq!(store.list_clients().unwrap().len(), 1);
}

#[test]
fn a_database_that_cannot_be_opened_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(DATABASE_FILE)).unwrap();
    match SqliteStore::open(dir.path(), Durability::Normal) {
        Err(StoreError::Database { operation, .. }) => assert_eq!(operation, "open the database"),
        other => panic!("a directory in the database's place was accepted: {other:?}"),
    }
}

// Teachers: result versions, regrades, listings.

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

fn outbox_ids(store: &SqliteStore) -> Vec<String> {
    store
        .read_sql(|conn| {
            let mut stmt = conn.prepare("SELECT event_id FROM outbox ORDER BY event_id")?;
            let ids = stmt.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
            Ok(ids)
        })
        .unwrap()
}

#[test]
fn a_regrade_writes_the_next_version_and_an_event_only_when_the_outcome_changed() {
    let (_dir, store) = store();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    let Intake::Created(record) = store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap()
    else {
        panic!("not created")
    };
    let job = lease(&store, 1).unwrap();
    assert_eq!((job.regrade, job.version), (false, 1));
    assert!(complete(&store, &job, &graded("passed", 2, "h1"), Some(&event(&job)), 2));
    let first = store.submission(record.id).unwrap().unwrap().result.unwrap();
    assert_eq!((first.version, first.exercise_hash.as_deref()), (1, Some("h1")));

    // Asked twice: queued once.
    let queued = store.queue_regrades(&[record.id]).unwrap();
    assert_eq!((queued.queued, queued.already_open), (vec![record.id], vec![]));
    let again = store.queue_regrades(&[record.id]).unwrap();
    assert_eq!((again.queued, again.already_open), (vec![], vec![record.id]));

    // The same outcome: version 2, no event. A worker lost to a crash: leased again, same version.
    let lost = lease(&store, 10).unwrap();
    assert_eq!((lost.regrade, lost.version, lost.attempt), (true, 2, 1));
    let job = lease(&store, 2_000).unwrap();
    assert_eq!((job.submission_id, job.version, job.attempt), (record.id, 2, 2));
    assert!(complete(&store, &job, &graded("passed", 2, "h2"), Some(&event(&job)), 2_001));
    // The lost worker comes back: no second version 2.
    assert!(!complete(&store, &lost, &graded("failed", 0, "h2"), Some(&event(&lost)), 2_002));
    assert_eq!(outbox_ids(&store), [format!("evt_sub_{}", record.id)]);

    // A changed outcome: version 3 and its event.
    store.queue_regrades(&[record.id]).unwrap();
    let job = lease(&store, 3_000).unwrap();
    assert_eq!(job.version, 3);
    assert!(complete(&store, &job, &graded("failed", 1, "h3"), Some(&event(&job)), 3_001));
    assert_eq!(outbox_ids(&store), [format!("evt_sub_{}", record.id), format!("evt_sub_{}_v3", record.id)]);
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

#[test]
fn first_gradings_are_leased_before_regrades() {
    let (_dir, store) = store();
    let client = store.add_client("lms", "h", "whsec_x", 0).unwrap();
    store.submit(&new_submission(client.id, None, "(1)"), 10, 0).unwrap();
    let job = lease(&store, 1).unwrap();
    assert!(complete(&store, &job, &graded("passed", 2, "h"), None, 2));
    store.queue_regrades(&[job.submission_id]).unwrap();
    let Intake::Created(newer) = store.submit(&new_submission(client.id, None, "(2)"), 10, 3).unwrap() else {
        panic!("not created")
    };
    let next = lease(&store, 4).unwrap();
    assert_eq!((next.submission_id, next.regrade), (newer.id, false));
    assert!(lease(&store, 4).unwrap().regrade);
}

#[test]
fn listings_page_by_id_and_filter_and_regrades_take_each_learners_latest() {
    let (_dir, store) = store();
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
        let job = lease(&store, n as i64 * 100).unwrap();
        assert!(complete(&store, &job, &graded(verdict, 1, "h"), None, n as i64 * 100 + 1));
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

#[test]
fn a_client_becomes_a_teacher() {
    let (_dir, store) = store();
    store.add_client("lms", "h1", "whsec_x", 0).unwrap();
    assert!(!store.client_by_token_hash("h1").unwrap().unwrap().teacher);
    assert!(store.set_teacher("lms", true).unwrap());
    assert!(store.client_by_token_hash("h1").unwrap().unwrap().teacher);
    assert!(!store.set_teacher("nobody", true).unwrap());
}

#[test]
fn a_source_payload_round_trips_and_a_module_is_never_taken_for_one() {
    use crate::submission::Language;
    let payload = super::source_payload(Language::Python, "def verarbeite(con, msg):\n    return True\n");
    assert_eq!(
        super::parse_source_payload(&payload),
        Some(Ok((Language::Python, "def verarbeite(con, msg):\n    return True\n".to_string())))
    );
    assert_eq!(super::parse_source_payload(b"\0asm\x01\0\0\0"), None);
    assert_eq!(super::parse_source_payload(b"(module)"), None);
    assert!(matches!(super::parse_source_payload(b"\0source:cobol\nx"), Some(Err(_))));
    assert!(matches!(super::parse_source_payload(b"\0source:python"), Some(Err(_))));
}
