//! The fuzz targets (`fuzz/src/targets.rs`) in the normal test command, bounded and deterministic:
//! every input of the kept corpus (`fuzz/corpus/<target>/`) is replayed, then a fixed number of
//! inputs is derived from a fixed ChaCha seed: mutations of corpus inputs (bit flips, inserted,
//! removed and repeated bytes, splices) and fresh random bytes. The same inputs run on every
//! machine, with or without a nightly toolchain; coverage-guided fuzzing (`cargo +nightly fuzz run
//! <target>`, see CONTRIBUTING) grows the corpus this test replays.

#[path = "../../../fuzz/src/targets.rs"]
mod targets;

use std::path::PathBuf;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::support::copy_tree;

/// The seed of the generated inputs. Changing it changes which inputs run, so keep it fixed.
const SEED: u64 = 0x5052_5546_5354_4e31;

/// The longest generated input (corpus inputs keep their length, plus a few mutated bytes).
const GENERATED_BYTES_MAX: usize = 4_096;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = targets::repo_root().join("fuzz").join("corpus").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, bytes)
        })
        .collect()
}

fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    if n == 0 { 0 } else { (rng.next_u64() % n as u64) as usize }
}

/// A corpus input changed in one to four places, the way libFuzzer's simplest mutators do.
fn mutate(rng: &mut ChaCha8Rng, base: &[u8], other: &[u8]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    for _ in 0..1 + below(rng, 4) {
        let at = below(rng, bytes.len() + 1);
        match below(rng, 6) {
            0 if at < bytes.len() => bytes[at] ^= 1 << below(rng, 8),
            1 => bytes.insert(at, rng.next_u32() as u8),
            2 if at < bytes.len() => {
                let end = (at + 1 + below(rng, 16)).min(bytes.len());
                bytes.drain(at..end);
            }
            3 if at < bytes.len() => {
                let end = (at + 1 + below(rng, 16)).min(bytes.len());
                let chunk = bytes[at..end].to_vec();
                bytes.splice(at..at, chunk.iter().copied().cycle().take(chunk.len() * (1 + below(rng, 8))));
            }
            4 if !other.is_empty() => {
                let from = below(rng, other.len());
                let end = (from + 1 + below(rng, 64)).min(other.len());
                bytes.splice(at..at, other[from..end].iter().copied());
            }
            _ => {
                let at = at.min(bytes.len().saturating_sub(1));
                if let Some(b) = bytes.get_mut(at) {
                    *b = [0, 0xff, b'(', b')', b',', b'"', b'\'', b'\n', b'\\', b'9'][below(rng, 10)];
                }
            }
        }
    }
    bytes
}

/// Replays the corpus of `name`, then runs `generated` inputs from the fixed seed.
fn run(name: &str, generated: usize) {
    let target = targets::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("no target {name}"));
    let kept = corpus(name);
    for (path, bytes) in &kept {
        guarded(name, &path.display().to_string(), bytes, target);
    }
    let salt = name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ salt);
    for i in 0..generated {
        let bytes = if !kept.is_empty() && rng.next_u32() % 4 != 0 {
            let base = &kept[below(&mut rng, kept.len())].1;
            let other = &kept[below(&mut rng, kept.len())].1;
            mutate(&mut rng, base, other)
        } else {
            let mut bytes = vec![0u8; below(&mut rng, GENERATED_BYTES_MAX + 1)];
            rng.fill_bytes(&mut bytes);
            bytes
        };
        guarded(name, &format!("generated input {i}"), &bytes, target);
    }
}

/// Runs one input; if it panics, says which input it was (and where the bytes are kept) first.
fn guarded(name: &str, label: &str, bytes: &[u8], target: targets::Target) {
    let outcome = std::panic::catch_unwind(|| target(bytes));
    if let Err(panic) = outcome {
        let dir = targets::repo_root().join("target").join("tmp").join("fuzz-failures").join(name);
        let kept = std::fs::create_dir_all(&dir).and_then(|()| {
            let path = dir.join(pruefstein::submission::sha256_hex(bytes));
            std::fs::write(&path, bytes).map(|()| path)
        });
        eprintln!("fuzz target {name}: {label} broke an invariant; input kept at {kept:?}");
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn answer_parser_and_prediction_grader() {
    run("answer", 2_000);
}

#[test]
fn intake_parsers() {
    run("intake", 2_000);
}

#[test]
fn exercise_loader() {
    run("exercise", 100);
}

#[test]
fn module_bytes() {
    run("module", 200);
}

#[test]
fn generated_guests_calling_the_abi() {
    run("guest", 16);
}

// Regressions: a teacher's `schema.sql` and state queries are semi-trusted; loading must end with an
// error that names the limit, never hang the loader (and with it the service's reload) or fill the disk.

/// The consumer exercise 03 copied to a temporary folder with `schema.sql` replaced and, if given,
/// the first state query's SQL replaced; the load's error text.
fn load_error_with(schema: &str, state_sql: Option<&str>) -> String {
    let base = targets::repo_root().join("exercises").join("03-idempotenter-konsument");
    let temp = tempfile::tempdir().expect("temporary folder");
    let dir = temp.path().join("03-idempotenter-konsument");
    copy_tree(&base, &dir);
    std::fs::write(dir.join("schema.sql"), schema).expect("schema written");
    if let Some(sql) = state_sql {
        let toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
        let start = toml.find("sql = ").expect("a state query");
        let end = start + toml[start..].find('\n').expect("end of line");
        let replaced = format!("{}sql = {sql:?}{}", &toml[..start], &toml[end..]);
        std::fs::write(dir.join("exercise.toml"), replaced).expect("exercise.toml written");
    }
    match pruefstein::graders::load(&dir) {
        Ok(_) => panic!("the exercise loaded"),
        Err(e) => e.to_string(),
    }
}

const ENDLESS: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c";

#[test]
fn a_schema_that_never_ends_fails_the_load_with_the_step_limit() {
    let schema = format!("CREATE TABLE zahlungen(id INTEGER PRIMARY KEY);\nCREATE TABLE t AS {ENDLESS};\n");
    let error = load_error_with(&schema, None);
    assert!(error.contains("SCHEMA_SQL_STEPS_MAX"), "{error}");
    assert!(error.contains("schema.sql:2:"), "the error names the statement's line: {error}");
}

#[test]
fn a_state_query_that_never_ends_fails_the_load_with_the_step_limit() {
    let schema =
        std::fs::read_to_string(targets::repo_root().join("exercises/03-idempotenter-konsument/schema.sql"))
            .expect("schema");
    // A count over an endless sequence never yields its one row (an endless list of rows would be
    // cut at STATE_ROWS_MAX instead).
    let endless_count = ENDLESS.replace("SELECT x FROM c", "SELECT count(*) FROM c");
    let error = load_error_with(&schema, Some(&endless_count));
    assert!(error.contains("[[consumer.state]]") && error.contains("SCHEMA_SQL_STEPS_MAX"), "{error}");
}

#[test]
fn a_schema_that_grows_without_end_fails_the_load_with_the_size_limit() {
    let schema = "CREATE TABLE t(x);\nWITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000000) \
                  INSERT INTO t SELECT zeroblob(10000) FROM c;\n";
    let error = load_error_with(schema, None);
    assert!(error.contains("SCHEMA_DB_BYTES_MAX"), "{error}");
}

#[test]
fn a_schema_value_over_the_value_limit_fails_the_load_naming_it() {
    let error = load_error_with("CREATE TABLE t AS SELECT zeroblob(2000000) AS x;\n", None);
    assert!(error.contains("SQL_VALUE_BYTES_MAX"), "{error}");
}

#[test]
fn an_accepted_answer_reads_back_from_its_rendering_even_at_the_depth_limit() {
    use pruefstein::limits::ANSWER_DEPTH_MAX;
    use pruefstein::prediction::answer::parse;
    let deepest = format!("{}{}", "[".repeat(ANSWER_DEPTH_MAX), "]".repeat(ANSWER_DEPTH_MAX));
    let value = parse(&deepest).expect("the deepest allowed answer");
    assert_eq!(value.depth(), ANSWER_DEPTH_MAX);
    assert_eq!(parse(&value.render()).expect("reads back"), value);
    // A bare tuple around it is one level more, as `(1, [[...]])` would be: refused, naming the limit.
    let error = parse(&format!("1, {deepest}")).expect_err("one level too deep");
    assert!(error.message.en.contains("nested too deeply"), "{error:?}");
    let one_less = format!("1, {}{}", "[".repeat(ANSWER_DEPTH_MAX - 1), "]".repeat(ANSWER_DEPTH_MAX - 1));
    let value = parse(&one_less).expect("a bare tuple within the limit");
    assert_eq!(parse(&value.render()).expect("reads back"), value);
}
