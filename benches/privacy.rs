//! Benchmark of what a store of a whole course costs the privacy and operations commands: a backup
//! (`pruefstein backup`, `VACUUM INTO` and the check), a retention sweep of every submission (each
//! batch one transaction: its duration is how long intake and grading may wait behind it), and the
//! erasure of one learner among all the others, on a SQLite store of `--submissions` graded
//! submissions (100,000 by default, 1,000 learners, each with a result of about 2 KiB of report).
//!
//! The store is filled by SQL in one transaction (the schema of the migrations, a tenth of the time
//! intake would take), once, and copied for each round.
//!
//! Run: `cargo bench --bench privacy` (add `-- --submissions 10000 --rounds 5`).

use std::path::Path;
use std::time::{Duration, Instant};

use pruefstein::service::learner::Learner;
use pruefstein::service::privacy::{self, Actor};
use pruefstein::service::store::sqlite::{DATABASE_FILE, Durability, SqliteStore};
use pruefstein::service::store::{LearnerFound, Store};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// A store in `dir` with `count` graded submissions, created on days 0 to 99.
fn fill(dir: &Path, count: usize) {
    let store = SqliteStore::open(dir, Durability::Normal).expect("store");
    let client = store.add_client("lms", "hash", "whsec_x", 0).expect("client");
    drop(store);
    let mut conn = rusqlite::Connection::open(dir.join(DATABASE_FILE)).expect("open");
    let tx = conn.transaction().expect("transaction");
    let report = format!("{{\"text\":\"{}\"}}", "bericht ".repeat(256));
    let day = 24 * 3600 * 1000_i64;
    for n in 0..count {
        let created = (n as i64 * 100 / count as i64) * day;
        let answer = format!("({n}, {}, 0)", n % 7);
        tx.execute(
            "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, request_hash, \
             created_at) VALUES (?1, '01-visibility-timeout', ?2, 'answer', ?3, ?4, ?4, ?5)",
            rusqlite::params![
                client.id,
                format!("learner-{}", n % 1000),
                answer.as_bytes(),
                n.to_string(),
                created
            ],
        )
        .expect("submission");
        let id = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO results (submission_id, status, verdict, points, max_points, report, attempts, \
             finished_at, grade_ms) VALUES (?1, 'graded', 'passed', 2, 2, ?2, 1, ?3, 1)",
            rusqlite::params![id, report, created],
        )
        .expect("result");
        tx.execute(
            "INSERT INTO outbox (event_id, submission_id, client_id, url, payload, state, next_attempt_at, \
             created_at, delivered_at) VALUES (?1, ?2, ?3, 'https://lms.example/hook', '{}', 'delivered', ?4, ?4, ?4)",
            rusqlite::params![format!("evt_sub_{id}"), id, client.id, created],
        )
        .expect("event");
    }
    tx.commit().expect("commit");
}

fn copy_of(template: &Path, into: &Path) {
    std::fs::create_dir_all(into).expect("dir");
    std::fs::copy(template.join(DATABASE_FILE), into.join(DATABASE_FILE)).expect("copy");
}

fn main() {
    let count = arg("--submissions", 100_000);
    let rounds = arg("--rounds", 3);
    let scratch = tempfile::tempdir().expect("tempdir");
    let template = scratch.path().join("template");
    let started = Instant::now();
    fill(&template, count);
    let bytes = std::fs::metadata(template.join(DATABASE_FILE)).map(|m| m.len()).unwrap_or(0);
    println!(
        "store: {count} submissions, {:.1} MiB, filled in {}",
        bytes as f64 / 1048576.0,
        ms(started.elapsed())
    );

    let (mut backups, mut sweeps, mut erasures, mut batches) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut batch_count = 0;
    for round in 0..rounds {
        let data = scratch.path().join(format!("round-{round}"));
        copy_of(&template, &data);
        let dest = scratch.path().join(format!("backup-{round}.db"));
        let t = Instant::now();
        pruefstein::service::backup::backup(&data.join(DATABASE_FILE), &dest).expect("backup");
        backups.push(t.elapsed());

        let store = SqliteStore::open(&data, Durability::Normal).expect("store");
        let learner = Learner::parse("learner-7").expect("learner");
        let t = Instant::now();
        let erased =
            privacy::erase(&store, b"report key", &learner, &Actor::operator(None), 1).expect("erase");
        erasures.push(t.elapsed());
        assert!(matches!(erased, LearnerFound::Found(_)));

        // Everything older than day 100: every submission, batch by batch.
        let before = 101 * 24 * 3600 * 1000_i64;
        let t = Instant::now();
        batch_count = 0;
        loop {
            let b = Instant::now();
            let swept = store
                .sweep_retention(before, pruefstein::limits::RETENTION_BATCH_ROWS_MAX, before)
                .expect("sweep");
            batches.push(b.elapsed());
            batch_count += 1;
            if swept.values().all(|n| (*n as usize) < pruefstein::limits::RETENTION_BATCH_ROWS_MAX) {
                break;
            }
        }
        sweeps.push(t.elapsed());
        std::fs::remove_dir_all(&data).ok();
        std::fs::remove_file(&dest).ok();
    }
    let longest = batches.iter().max().copied().unwrap_or_default();
    println!("backup (VACUUM INTO, integrity check, rename): median {}", ms(median(&mut backups)));
    println!("erasure of one learner ({} submissions): median {}", count / 1000, ms(median(&mut erasures)));
    println!(
        "retention sweep of every submission: median {} in {batch_count} batches of {}; batch median {}, longest {}",
        ms(median(&mut sweeps)),
        pruefstein::limits::RETENTION_BATCH_ROWS_MAX,
        ms(median(&mut batches)),
        ms(longest)
    );
}
