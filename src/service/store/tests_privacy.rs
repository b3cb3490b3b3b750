//! Learners' data on every backend: an export holds everything of the learner in scope and nothing
//! of anyone else; an erasure leaves no row of the learner, records itself without the learner's
//! id, and a grading that completes after it brings nothing back; the retention sweep deletes
//! exactly what is older, in batches, and never a submission whose job is open. And on each
//! backend's own files: a canary planted in an erased learner's id and source is found nowhere.

use super::*;

/// A learner's id and source text that nothing else in a test contains.
const CANARY: &str = "kanarienvogel-7f3a91";

fn privacy_scope(learner: &str, client_id: Option<i64>) -> LearnerScope {
    let learner = crate::service::learner::Learner::parse(learner).unwrap();
    crate::service::privacy::scope(b"report key", &learner, client_id)
}

fn audit(client_id: Option<i64>) -> AuditEntry {
    AuditEntry {
        id: 0,
        at: 50,
        actor: "lms".into(),
        client_id,
        action: AuditAction::Erase,
        subject: String::new(),
        counts: RowCounts::new(),
    }
}

fn of_learner(client_id: i64, learner: &str, text: &str) -> NewSubmission {
    NewSubmission {
        learner: learner.into(),
        submission: Submission::Source { language: crate::submission::Language::Python, text: text.into() },
        ..new_submission(client_id, None, text)
    }
}

/// Submits and grades (with a report that quotes the text) a submission of `learner`.
fn graded_submission(store: &dyn Store, new: &NewSubmission, now: Millis) -> i64 {
    let Intake::Created(record) = store.submit(new, 100, now).unwrap() else { panic!("not created") };
    let job = lease(store, now).unwrap();
    assert_eq!(job.submission_id, record.id);
    let report = serde_json::json!({ "quoted": String::from_utf8_lossy(new.submission.bytes()) }).to_string();
    let outcome = JobOutcome::Graded {
        verdict: "passed".into(),
        points: 2,
        max_points: 2,
        report,
        grade_ms: 1,
        exercise_hash: "v1".into(),
        grader_version: "consumer@test".into(),
    };
    assert!(complete(store, &job, &outcome, Some(&event(&job)), now));
    record.id
}

on_every_backend!(
    a_learner_is_exported_whole_then_erased_to_the_last_row_and_only_in_scope,
    a_grading_completed_after_the_erasure_stores_nothing,
    an_lti_learner_takes_its_launch_records_only_through_its_platforms_client,
    the_retention_sweep_deletes_exactly_what_is_older_in_batches_and_spares_open_jobs,
    the_audit_log_reads_back_in_order,
);

fn a_learner_is_exported_whole_then_erased_to_the_last_row_and_only_in_scope(backend: &dyn Backend) {
    let store = backend.node("a");
    let (a, b) = (
        store.add_client("a", "ha", "whsec_a", 0).unwrap(),
        store.add_client("b", "hb", "whsec_b", 0).unwrap(),
    );
    let first = graded_submission(store.as_ref(), &of_learner(a.id, CANARY, &format!("# {CANARY} 1")), 1);
    let second = graded_submission(store.as_ref(), &of_learner(a.id, CANARY, &format!("# {CANARY} 2")), 2);
    store.queue_regrades(&[second], Some("v2")).unwrap();
    let regrade = lease(store.as_ref(), 3).unwrap();
    assert!(complete(store.as_ref(), &regrade, &graded("failed", 0, "v2"), Some(&event(&regrade)), 3));
    let other = graded_submission(store.as_ref(), &of_learner(a.id, "berta", "# berta"), 4);
    let elsewhere = graded_submission(store.as_ref(), &of_learner(b.id, CANARY, "# other client"), 5);

    let scope = privacy_scope(CANARY, Some(a.id));
    let LearnerFound::Found(data) = store.learner_data(&scope).unwrap() else { panic!("not found") };
    let ids: Vec<i64> = data.submissions.iter().map(|s| s.record.id).collect();
    assert_eq!(ids, [first, second], "the learner's submissions through this client only");
    assert_eq!(data.submissions[1].versions.iter().map(|v| v.version).collect::<Vec<_>>(), [1, 2]);
    assert!(data.submissions[1].versions.iter().all(|v| v.report.is_some()), "every version with its report");
    assert_eq!(data.submissions[1].versions[1].exercise_hash.as_deref(), Some("v2"));
    assert!(
        matches!(&data.submissions[0].submission, Submission::Source { text, .. } if text.contains(CANARY))
    );

    let LearnerFound::Found(counts) = store.erase_learner(&scope, &audit(Some(a.id)), 50).unwrap() else {
        panic!("not erased")
    };
    let expected: RowCounts = [
        ("jobs", 0),
        ("lti_contexts", 0),
        ("outbox", 3),
        ("result_versions", 1),
        ("results", 2),
        ("submissions", 2),
    ]
    .into_iter()
    .map(|(t, n)| (t.to_string(), n))
    .collect();
    assert_eq!(counts, expected);
    for id in [first, second] {
        assert!(store.submission(id).unwrap().is_none());
        assert!(store.submission_gone(id).unwrap(), "its links answer 410");
        assert!(store.submission_payload(id).unwrap().is_none());
    }
    assert!(!store.submission_gone(other).unwrap());
    assert!(store.submission(other).unwrap().is_some(), "another learner is untouched");
    assert!(store.submission(elsewhere).unwrap().is_some(), "the same id of another client is untouched");
    let everyone = store.exercise_submissions("01-visibility-timeout", 100).unwrap();
    assert_eq!(
        everyone.iter().map(|s| s.id).collect::<Vec<_>>(),
        [other, elsewhere],
        "analytics read no more of it"
    );
    assert!(matches!(store.learner_data(&scope).unwrap(), LearnerFound::Erased { at: 50 }));
    assert!(matches!(
        store.erase_learner(&scope, &audit(Some(a.id)), 60).unwrap(),
        LearnerFound::Erased { at: 50 }
    ));
    let log = store.audit_log(0, 10).unwrap();
    assert_eq!(log.len(), 1, "an erasure of nothing is not recorded");
    assert_eq!(
        (log[0].action, &log[0].subject, &log[0].counts),
        (AuditAction::Erase, &scope.learner_key, &expected)
    );
    assert!(!format!("{log:?}").contains(CANARY), "the log names no learner in clear");
    let unknown = privacy_scope("niemand", Some(a.id));
    assert!(matches!(store.erase_learner(&unknown, &audit(Some(a.id)), 70).unwrap(), LearnerFound::Unknown));
    assert!(matches!(store.learner_data(&unknown).unwrap(), LearnerFound::Unknown));
    // The operator's scope (every client) sees the erasure too, and erases the other client's.
    let everywhere = privacy_scope(CANARY, None);
    assert!(matches!(store.erase_learner(&everywhere, &audit(None), 80).unwrap(), LearnerFound::Found(_)));
    assert!(store.submission(elsewhere).unwrap().is_none());
    assert_eq!(store.submission(other).unwrap().map(|s| s.learner), Some("berta".into()));
}

fn a_grading_completed_after_the_erasure_stores_nothing(backend: &dyn Backend) {
    let store = backend.node("a");
    let client = store.add_client("a", "ha", "whsec_a", 0).unwrap();
    let Intake::Created(record) = store.submit(&of_learner(client.id, CANARY, CANARY), 100, 1).unwrap()
    else {
        panic!("not created")
    };
    let job = lease(store.as_ref(), 2).unwrap();
    let scope = privacy_scope(CANARY, Some(client.id));
    let LearnerFound::Found(counts) = store.erase_learner(&scope, &audit(Some(client.id)), 3).unwrap() else {
        panic!("not erased")
    };
    assert_eq!((counts["jobs"], counts["submissions"]), (1, 1), "the running job goes with it");
    assert!(!store.renew_lease(record.id, job.attempt, 1_000, 4).unwrap(), "the grader hears it is gone");
    assert!(!complete(store.as_ref(), &job, &graded("passed", 2, "v1"), Some(&event(&job)), 5));
    assert!(store.submission(record.id).unwrap().is_none());
    assert!(store.result_versions(record.id).unwrap().is_empty(), "no result came back");
    assert!(backend.outbox_ids().is_empty(), "no event came back");
    assert!(matches!(store.learner_data(&scope).unwrap(), LearnerFound::Erased { .. }));
    assert!(lease(store.as_ref(), 10_000).is_none(), "no job came back");
}

fn an_lti_learner_takes_its_launch_records_only_through_its_platforms_client(backend: &dyn Backend) {
    let store = backend.node("a");
    let client = store.add_client("lti", "hl", "whsec_l", 0).unwrap();
    let stranger = store.add_client("other", "ho", "whsec_o", 0).unwrap();
    let platform = NewPlatform {
        name: "moodle".into(),
        issuer: "https://lms.example".into(),
        client_id: "tool".into(),
        auth_url: "https://lms.example/auth".into(),
        token_url: "https://lms.example/token".into(),
        jwks_url: "https://lms.example/jwks".into(),
        deployment_id: None,
    };
    let platform = store.add_platform(&platform, client.id, 0).unwrap();
    let kept = store.lti_context(platform.id, "sub-2", "01-visibility-timeout", "", 1).unwrap();
    store.lti_context(platform.id, "sub-1", "01-visibility-timeout", "", 1).unwrap();
    store.lti_context(platform.id, "sub-1", "02-other", "https://lms.example/li/1", 1).unwrap();
    let learner = format!("lti:{}:sub-1", platform.id);
    assert!(matches!(
        store
            .erase_learner(&privacy_scope(&learner, Some(stranger.id)), &audit(Some(stranger.id)), 2)
            .unwrap(),
        LearnerFound::Unknown
    ));
    let scope = privacy_scope(&learner, Some(client.id));
    let LearnerFound::Found(data) = store.learner_data(&scope).unwrap() else { panic!("not found") };
    assert_eq!(data.lti_contexts.len(), 2);
    let LearnerFound::Found(counts) = store.erase_learner(&scope, &audit(Some(client.id)), 3).unwrap() else {
        panic!("not erased")
    };
    assert_eq!(counts["lti_contexts"], 2);
    assert_eq!(store.lti_context_by_id(kept.id).unwrap(), Some(kept), "another learner's launch stays");
    // A subject that could not be part of a learner id is named by its hash.
    let odd = "x".repeat(crate::limits::LEARNER_CHARS_MAX + 1);
    store.lti_context(platform.id, &odd, "01-visibility-timeout", "", 4).unwrap();
    let hashed = format!("lti:{}:sha256:{}", platform.id, crate::submission::sha256_hex(odd.as_bytes()));
    let LearnerFound::Found(counts) =
        store.erase_learner(&privacy_scope(&hashed, None), &audit(None), 5).unwrap()
    else {
        panic!("not erased")
    };
    assert_eq!(counts["lti_contexts"], 1);
}

fn the_retention_sweep_deletes_exactly_what_is_older_in_batches_and_spares_open_jobs(backend: &dyn Backend) {
    let store = backend.node("a");
    let client = store.add_client("a", "ha", "whsec_a", 0).unwrap();
    let old = [10, 20, 30]
        .map(|t| graded_submission(store.as_ref(), &of_learner(client.id, "l", &format!("old {t}")), t));
    let young = graded_submission(store.as_ref(), &of_learner(client.id, "l", "young"), 200);
    let Intake::Created(open) = store.submit(&of_learner(client.id, "l", "open"), 100, 40).unwrap() else {
        panic!("not created")
    };
    store.put_jobe_file(client.id, "old", b"x", (10, 100), 50).unwrap();
    store.put_jobe_file(client.id, "young", b"y", (10, 100), 210).unwrap();
    let platform = NewPlatform {
        name: "p".into(),
        issuer: "https://lms.example".into(),
        client_id: "tool".into(),
        auth_url: "https://lms.example/a".into(),
        token_url: "https://lms.example/t".into(),
        jwks_url: "https://lms.example/j".into(),
        deployment_id: None,
    };
    let platform = store.add_platform(&platform, client.id, 0).unwrap();
    store.lti_context(platform.id, "s", "01-visibility-timeout", "", 60).unwrap();
    let young_launch = store.lti_context(platform.id, "t", "01-visibility-timeout", "", 220).unwrap();
    // Launched first long ago, and again since: its age counts from the last launch.
    let relaunched = store.lti_context(platform.id, "u", "01-visibility-timeout", "", 5).unwrap();
    assert_eq!(store.lti_context(platform.id, "u", "01-visibility-timeout", "", 150).unwrap(), relaunched);

    let before = 100;
    let first = store.sweep_retention(before, 2, 300).unwrap();
    // Two submissions with their events, and older events on their own: the third one's.
    assert_eq!((first["submissions"], first["results"], first["outbox"]), (2, 2, 3));
    assert_eq!((first["jobe_files"], first["lti_contexts"]), (1, 1));
    let second = store.sweep_retention(before, 2, 300).unwrap();
    assert_eq!((second["submissions"], second["results"], second["outbox"]), (1, 1, 0));
    let third = store.sweep_retention(before, 2, 300).unwrap();
    assert!(third.values().all(|n| *n == 0), "nothing older is left: {third:?}");
    for id in old {
        assert!(store.submission(id).unwrap().is_none() && store.submission_gone(id).unwrap());
    }
    assert!(store.submission(open.id).unwrap().is_some(), "a queued job's submission stays, however old");
    assert!(store.submission(young).unwrap().is_some());
    assert!(store.jobe_file(client.id, "old").unwrap().is_none());
    assert!(store.jobe_file(client.id, "young").unwrap().is_some());
    assert_eq!(store.lti_context_by_id(young_launch.id).unwrap(), Some(young_launch));
    assert_eq!(store.lti_context_by_id(relaunched.id).unwrap(), Some(relaunched));
    let job = lease(store.as_ref(), 300).unwrap();
    assert_eq!(job.submission_id, open.id, "the old open job is still graded");
}

fn the_audit_log_reads_back_in_order(backend: &dyn Backend) {
    let store = backend.node("a");
    for (at, action) in [(1, AuditAction::Regrade), (2, AuditAction::Analytics), (3, AuditAction::Retention)]
    {
        let entry = AuditEntry {
            at,
            action,
            subject: "03-idempotenter-konsument".into(),
            counts: [("submissions".to_string(), at as u64)].into(),
            ..audit(Some(7))
        };
        store.record_audit(&entry).unwrap();
    }
    let all = store.audit_log(0, 10).unwrap();
    assert_eq!(
        all.iter().map(|e| (e.at, e.action)).collect::<Vec<_>>(),
        [(1, AuditAction::Regrade), (2, AuditAction::Analytics), (3, AuditAction::Retention)]
    );
    assert_eq!(all[1].counts["submissions"], 2);
    assert_eq!(store.audit_log(all[0].id, 1).unwrap(), all[1..2]);
}

/// SQLite: after an erasure, the canary (in the learner's id and source) is in no byte of the
/// database file, its write-ahead log or its free pages; the other learner's rows are intact.
#[test]
fn sqlite_keeps_no_byte_of_an_erased_learner() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
    let client = store.add_client("a", "ha", "whsec_a", 0).unwrap();
    let big = format!("# {CANARY}\n{}", "x = 1\n".repeat(2_000)); // overflow pages too
    for (t, text) in [(1, format!("# {CANARY}")), (2, big)] {
        graded_submission(&store, &of_learner(client.id, CANARY, &text), t);
    }
    let kept = graded_submission(&store, &of_learner(client.id, "berta", "# berta"), 3);
    let raw = |name: &str| std::fs::read(dir.path().join(name)).unwrap_or_default();
    let found = |bytes: &[u8]| bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes());
    assert!(
        found(&raw(sqlite::DATABASE_FILE)) || found(&raw(sqlite::WAL_FILE)),
        "the canary is stored first"
    );
    let scope = privacy_scope(CANARY, None);
    assert!(matches!(store.erase_learner(&scope, &audit(None), 9).unwrap(), LearnerFound::Found(_)));
    for file in [sqlite::DATABASE_FILE, sqlite::WAL_FILE] {
        assert!(!found(&raw(file)), "{file} still holds the canary");
    }
    assert_eq!(raw(sqlite::WAL_FILE).len(), 0, "the log is truncated");
    assert!(store.submission(kept).unwrap().is_some());
}

/// PostgreSQL: after an erasure (which vacuums), no row of any table holds the canary, as text or
/// as the hex of a byte column.
#[test]
fn postgres_keeps_no_row_of_an_erased_learner() {
    let backend = Postgres::new();
    let store = backend.open("a", postgres::LeaseClock::Caller);
    let client = store.add_client("a", "ha", "whsec_a", 0).unwrap();
    graded_submission(&store, &of_learner(client.id, CANARY, &format!("# {CANARY}")), 1);
    let kept = graded_submission(&store, &of_learner(client.id, "berta", "# berta"), 2);
    let hex = hex::encode(CANARY);
    let holding = |store: &postgres::PgStore| -> Vec<String> {
        let tables = store
            .query_texts(
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
            )
            .unwrap();
        tables
            .into_iter()
            .filter(|table| {
                let sql: &'static str = Box::leak(format!("SELECT t::text FROM {table} t").into_boxed_str());
                store.query_texts(sql).unwrap().iter().any(|row| row.contains(CANARY) || row.contains(&hex))
            })
            .collect()
    };
    assert!(!holding(&store).is_empty(), "the canary is stored first");
    let scope = privacy_scope(CANARY, Some(client.id));
    assert!(matches!(
        store.erase_learner(&scope, &audit(Some(client.id)), 9).unwrap(),
        LearnerFound::Found(_)
    ));
    assert_eq!(holding(&store), Vec::<String>::new());
    assert!(store.submission(kept).unwrap().is_some());
}

/// PostgreSQL: after an erasure (which vacuums) and a checkpoint, no table, index or TOAST file of
/// the database holds the canary's bytes (before the erasure, one does). PostgreSQL's write-ahead
/// log (`pg_wal`) still does until its segments are recycled: see decision record 0120.
#[test]
fn postgres_keeps_no_byte_of_an_erased_learner_in_its_table_files() {
    let backend = Postgres::new();
    let store = backend.open("a", postgres::LeaseClock::Caller);
    let client = store.add_client("a", "ha", "whsec_a", 0).unwrap();
    graded_submission(&store, &of_learner(client.id, CANARY, &format!("# {CANARY}")), 1);
    let kept = graded_submission(&store, &of_learner(client.id, "berta", "# berta"), 2);
    let holding = |store: &postgres::PgStore| -> Vec<String> {
        store.query_texts("CHECKPOINT").unwrap();
        let dir = store.query_texts("SELECT setting FROM pg_settings WHERE name = 'data_directory'").unwrap();
        assert!(
            std::path::Path::new(&dir[0]).is_dir(),
            "this test reads the server's files: it needs the throwaway server on this machine, not {}",
            scratch::TEST_DATABASE_VAR
        );
        let files = store
            .query_texts(
                "SELECT pg_relation_filepath(c.oid) FROM pg_class c \
                 WHERE c.relkind IN ('r', 'i', 't') AND pg_relation_filepath(c.oid) IS NOT NULL",
            )
            .unwrap();
        files
            .into_iter()
            .filter(|file| {
                let bytes = std::fs::read(std::path::Path::new(&dir[0]).join(file)).unwrap_or_default();
                bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes())
            })
            .collect()
    };
    assert!(!holding(&store).is_empty(), "the canary is on disk first");
    let scope = privacy_scope(CANARY, Some(client.id));
    assert!(matches!(
        store.erase_learner(&scope, &audit(Some(client.id)), 9).unwrap(),
        LearnerFound::Found(_)
    ));
    assert_eq!(holding(&store), Vec::<String>::new());
    assert!(store.submission(kept).unwrap().is_some());
}
