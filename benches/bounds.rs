//! Benchmark of the bounds on growing input: the costliest single SQLite step a guest can build at
//! the length limits (`instr`, `replace`, `LIKE`, `GLOB` over the longest values and patterns), and
//! how long the compile budget takes to reject hostile modules (and to pass the reference).
//!
//! Run: `cargo bench --bench bounds` (add `-- --rounds 51` for more rounds).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pruefstein::consumer::guestdb::{GuestDb, status};
use pruefstein::limits::{Limits, SQL_LIKE_PATTERN_BYTES_MAX, SQL_STEPS_PER_STATEMENT, SQL_VALUE_BYTES_MAX};
use pruefstein::sandbox::budget;

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn leb(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// `count` functions of type () -> (), each declaring `locals` i32 locals.
fn module(count: u32, locals: u32) -> Vec<u8> {
    let mut out = b"\0asm\x01\0\0\0".to_vec();
    let section = |id: u8, payload: Vec<u8>, out: &mut Vec<u8>| {
        out.push(id);
        leb(payload.len() as u64, out);
        out.extend(payload);
    };
    section(1, vec![1, 0x60, 0, 0], &mut out);
    let mut functions = Vec::new();
    leb(count.into(), &mut functions);
    functions.extend(std::iter::repeat_n(0u8, count as usize));
    section(3, functions, &mut out);
    let mut body = vec![1];
    leb(locals.into(), &mut body);
    body.extend([0x7f, 0x0b]);
    let mut code = Vec::new();
    leb(count.into(), &mut code);
    for _ in 0..count {
        leb(body.len() as u64, &mut code);
        code.extend(&body);
    }
    section(10, code, &mut out);
    out
}

fn main() {
    let rounds: usize =
        std::env::args().skip_while(|a| a != "--rounds").nth(1).and_then(|n| n.parse().ok()).unwrap_or(21);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.db");
    rusqlite::Connection::open(&path)
        .and_then(|c| c.execute_batch("CREATE TABLE t (k TEXT)"))
        .expect("schema");
    let tables: Arc<[String]> = vec!["t".to_string()].into();
    let mut db = GuestDb::open(&path, tables, SQL_STEPS_PER_STATEMENT).expect("open");

    // A little under the limit: replace() needs a few bytes of room while it builds its result.
    let value = SQL_VALUE_BYTES_MAX - 16;
    let pattern = SQL_LIKE_PATTERN_BYTES_MAX;
    let a = |n: usize| format!("replace(hex(zeroblob({})), '0', 'a')", n / 2);
    let cases = [
        (
            "instr, haystack a…a, needle a…ab (half as long)",
            format!("SELECT instr({}, {} || 'b')", a(value), a(value / 2)),
        ),
        ("replace, the same", format!("SELECT length(replace({}, {} || 'b', 'x'))", a(value), a(value / 2))),
        (
            "LIKE '%a…ab' at the pattern limit",
            format!("SELECT {} LIKE '%{}b'", a(value), "a".repeat(pattern - 2)),
        ),
        (
            "GLOB '*a…ab' at the pattern limit",
            format!("SELECT {} GLOB '*{}b'", a(value), "a".repeat(pattern - 2)),
        ),
        ("building the longest value alone", format!("SELECT length({})", a(value))),
    ];
    println!(
        "Worst single SQLite steps at SQL_VALUE_BYTES_MAX = {value}, SQL_LIKE_PATTERN_BYTES_MAX = {pattern} (median of {rounds}):"
    );
    for (name, sql) in &cases {
        let mut samples = Vec::new();
        for _ in 0..rounds {
            let start = Instant::now();
            let result = db.run(sql, false);
            samples.push(start.elapsed());
            assert_eq!(result.status, status::OK, "{name}: {:?}", result.error);
        }
        println!("  {name:50} {}", ms(median(&mut samples)));
    }

    let limits = Limits::default();
    let reference = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("exercises/03-idempotenter-konsument/solutions/reference.wat"),
    )
    .expect("reference");
    let reference = wat::parse_bytes(&reference).expect("wat").into_owned();
    let hostile = [
        ("400,000 empty functions (1.6 MB)", module(400_000, 0)),
        ("1,800 functions x 50,000 locals (14 KB)", module(1_800, 50_000)),
        ("exercise 03 reference (passes)", reference),
    ];
    println!("Compile budget check (median of {rounds}):");
    for (name, bytes) in &hostile {
        let mut samples = Vec::new();
        for _ in 0..rounds {
            let start = Instant::now();
            let outcome = budget::check(bytes, &limits);
            samples.push(start.elapsed());
            assert!(outcome.is_ok(), "{name}: readable");
        }
        println!("  {name:50} {}", ms(median(&mut samples)));
    }
}
