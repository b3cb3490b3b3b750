//! Hostile inputs that grow: compile input, traces, texts, reports, scratch databases, SQL functions.
//!
//! Each test grades one hostile module against exercise 03 and asserts that grading ends (within a
//! generous bounded wait, so that a regression fails instead of hanging) with the limit it met named
//! in the report, and that the report stays within `REPORT_BYTES_MAX`.

use std::time::Duration;

use pruefstein::consumer::detail::TraceEvent;
use pruefstein::limits::{
    GUEST_TEXT_BYTES_MAX, REPORT_BYTES_MAX, TRACE_BYTES_RECORDED_MAX, WASM_FUNCTIONS_MAX,
    WASM_LOCALS_PER_FUNCTION_MAX, WASM_LOCALS_TOTAL_MAX,
};
use pruefstein::report::{CheckDetail, Report, Verdict};

use crate::support::grade_guarded;

/// How long one hostile grading may take before the test calls it a hang. Far above a normal
/// grading (seconds in a debug build on a loaded machine); a regression runs for minutes or hours.
const HANG: Duration = Duration::from_secs(120);

/// Grades `bytes`, waiting at most [`HANG`] for the report.
fn grade_bounded(bytes: Vec<u8>) -> Report {
    let report = grade_guarded(bytes, HANG);
    let json = report.to_json();
    assert!(json.len() <= REPORT_BYTES_MAX, "the report is {} bytes, over REPORT_BYTES_MAX", json.len());
    report
}

fn rejection(report: &Report) -> (&str, &str, &str) {
    assert_eq!(report.verdict, Verdict::Rejected, "expected a rejection: {}", report.summary.en);
    let r = report.rejection.as_ref().expect("a rejection");
    (r.code.as_str(), r.message.de.as_str(), r.message.en.as_str())
}

// ---- Compile budget ----

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

fn section(id: u8, payload: &[u8], out: &mut Vec<u8>) {
    out.push(id);
    leb(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

/// A binary consumer module: the entry `verarbeite` (returns 1) and `extra` more functions, each
/// declaring `locals` i32 locals in one run. Built by hand so that it stays tiny however many locals
/// it declares.
fn module_with(extra: u32, locals: u32) -> Vec<u8> {
    let mut out = b"\0asm\x01\0\0\0".to_vec();
    // Types: 0 = () -> i32 (the entry), 1 = () -> ().
    section(1, &[2, 0x60, 0, 1, 0x7f, 0x60, 0, 0], &mut out);
    let mut functions = Vec::new();
    leb(u64::from(extra) + 1, &mut functions);
    functions.push(0);
    functions.extend(std::iter::repeat_n(1u8, extra as usize));
    section(3, &functions, &mut out);
    section(5, &[1, 0, 1], &mut out); // one memory, 1 page
    let mut exports = vec![2];
    exports.push(10);
    exports.extend_from_slice(b"verarbeite");
    exports.extend_from_slice(&[0, 0]);
    exports.push(6);
    exports.extend_from_slice(b"memory");
    exports.extend_from_slice(&[2, 0]);
    section(7, &exports, &mut out);
    let mut code = Vec::new();
    leb(u64::from(extra) + 1, &mut code);
    code.extend_from_slice(&[4, 0, 0x41, 1, 0x0b]); // entry: no locals, i32.const 1, end
    let mut body = Vec::new();
    if locals == 0 {
        body.push(0);
    } else {
        body.push(1);
        leb(u64::from(locals), &mut body);
        body.push(0x7f);
    }
    body.push(0x0b);
    for _ in 0..extra {
        leb(body.len() as u64, &mut code);
        code.extend_from_slice(&body);
    }
    section(10, &code, &mut out);
    out
}

#[test]
fn a_16_kb_module_with_millions_of_locals_is_rejected_before_it_is_compiled() {
    let module = module_with(1_800, 50_000);
    assert!(module.len() <= 16 * 1024, "{} bytes", module.len());
    let report = grade_bounded(module);
    let (code, de, en) = rejection(&report);
    assert_eq!(code, "compile-budget");
    assert!(en.contains("\"locals per function\"") && en.contains("wasm_locals_per_function"), "{en}");
    assert!(en.contains(&format!("at most {WASM_LOCALS_PER_FUNCTION_MAX}")), "{en}");
    assert!(de.contains("„lokale Variablen pro Funktion“"), "{de}");
}

#[test]
fn locals_just_under_the_per_function_limit_add_up_to_the_module_limit() {
    let per_function = WASM_LOCALS_PER_FUNCTION_MAX - 1;
    let functions = (WASM_LOCALS_TOTAL_MAX / u64::from(per_function)) as u32 + 1;
    let report = grade_bounded(module_with(functions, per_function));
    let (code, _, en) = rejection(&report);
    assert_eq!(code, "compile-budget");
    assert!(en.contains("\"locals in the whole module\""), "{en}");
}

#[test]
fn four_hundred_thousand_empty_functions_are_rejected_before_they_are_compiled() {
    let module = module_with(400_000, 0);
    assert!(module.len() <= pruefstein::limits::MODULE_BYTES_MAX, "within the module size: {}", module.len());
    let report = grade_bounded(module);
    let (code, _, en) = rejection(&report);
    assert_eq!(code, "compile-budget");
    assert!(en.contains("\"functions per module\""), "{en}");
    assert!(en.contains("400001") && en.contains(&format!("at most {WASM_FUNCTIONS_MAX}")), "{en}");
}

#[test]
fn a_module_within_the_budget_is_graded_as_before() {
    // 100 small functions with a few locals each: far below every limit.
    let report = grade_bounded(module_with(100, 8));
    assert_ne!(report.verdict, Verdict::Rejected, "{:?}", report.rejection);
}

// ---- SQL: functions, tables, sizes ----

/// A WAT string literal for `text` (ASCII).
fn wat_string(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A consumer that runs each statement once per delivery, ignores the status and returns 1.
fn running(statements: &[&str]) -> Vec<u8> {
    let mut data = String::new();
    let mut body = String::new();
    let mut offset = 1024usize;
    for sql in statements {
        data.push_str(&format!("(data (i32.const {offset}) \"{}\")\n", wat_string(sql)));
        body.push_str(&format!("(drop (call $exec (i32.const {offset}) (i32.const {})))\n", sql.len()));
        offset += sql.len() + 16;
    }
    let pages = offset / 65_536 + 1;
    format!(
        "(module\n (import \"db\" \"exec\" (func $exec (param i32 i32) (result i32)))\n \
         (memory (export \"memory\") {pages})\n{data} (func (export \"verarbeite\") (result i32)\n{body} (i32.const 1)))"
    )
    .into_bytes()
}

/// The statements of the first check's trace: (sql, status, error).
fn statements(report: &Report) -> Vec<(String, i32, Option<String>)> {
    let check = report.checks.first().expect("checks ran");
    let CheckDetail::Consumer(detail) = &check.detail else { panic!("consumer detail") };
    detail
        .trace
        .iter()
        .filter_map(|event| match event {
            TraceEvent::Statement { sql, status, error, .. } => Some((sql.clone(), *status, error.clone())),
            _ => None,
        })
        .collect()
}

/// Runs each statement and returns its error (None when it succeeded).
fn errors_of(statements_sql: &[&str]) -> Vec<Option<String>> {
    let report = grade_bounded(running(statements_sql));
    assert_ne!(report.verdict, Verdict::Rejected, "{:?}", report.rejection);
    let ran = statements(&report);
    statements_sql
        .iter()
        .map(|sql| {
            let (_, status, error) = ran
                .iter()
                .find(|(s, _, _)| s == sql || s.starts_with(&sql[..sql.len().min(200)]))
                .unwrap_or_else(|| panic!("statement in the trace: {sql}"));
            assert_eq!(error.is_some(), *status != 0, "{sql}");
            error.clone()
        })
        .collect()
}

fn assert_denied(sql: &str, error: &Option<String>, reason: &str) {
    let error = error.as_deref().unwrap_or_else(|| panic!("{sql} must be denied, but it ran"));
    assert!(error.contains(reason), "{sql}: {error}");
}

#[test]
fn fts3_tokenizer_and_load_extension_are_not_callable() {
    let sql = [
        "SELECT fts3_tokenizer('simple')",
        "SELECT hex(fts3_tokenizer('porter'))",
        "SELECT load_extension('libc.so.6')",
        "SELECT sqlite_version()",
    ];
    let errors = errors_of(&sql);
    assert_denied(sql[0], &errors[0], "the function fts3_tokenizer() is not available");
    assert_denied(sql[1], &errors[1], "the function fts3_tokenizer() is not available");
    assert_denied(sql[2], &errors[2], "the function load_extension() is not available");
    assert_denied(sql[3], &errors[3], "the function sqlite_version() is not available");
}

#[test]
fn table_valued_and_virtual_tables_are_not_readable() {
    let sql = [
        "SELECT count(*) FROM json_each('[1,2,3]')",
        "SELECT value FROM json_each('[1,2,3]')",
        "SELECT key FROM json_tree('{\"a\":1}')",
        "SELECT name FROM pragma_table_info('punkte')",
        "SELECT count(*) FROM pragma_database_list",
        "SELECT count(*) FROM dbstat",
        "SELECT name FROM sqlite_schema",
    ];
    let errors = errors_of(&sql);
    for (sql, error) in sql.iter().zip(&errors) {
        assert_denied(sql, error, "not allowed: ");
    }
    assert_denied(sql[0], &errors[0], "virtual and table-valued tables are not available");
    assert_denied(sql[3], &errors[3], "virtual and table-valued tables are not available");
}

#[test]
fn time_and_randomness_are_denied_with_the_reason() {
    let sql = [
        "SELECT date('now')",
        "SELECT current_timestamp",
        "SELECT julianday('2024-01-01')",
        "SELECT random()",
        "SELECT randomblob(300000000)",
        "SELECT sqlite_compileoption_get(0)",
    ];
    let errors = errors_of(&sql);
    assert_denied(sql[0], &errors[0], "the time differs from run to run");
    assert_denied(sql[1], &errors[1], "the time differs from run to run");
    assert_denied(sql[2], &errors[2], "the time differs from run to run");
    assert_denied(sql[3], &errors[3], "results must be reproducible");
    assert_denied(sql[4], &errors[4], "results must be reproducible");
    assert_denied(sql[5], &errors[5], "not available to consumers");
}

#[test]
fn ordinary_sql_functions_stay_available() {
    let sql = [
        "SELECT abs(-1) + length('abc') + instr('abc', 'c') + coalesce(NULL, 1) + ifnull(NULL, 2)",
        "SELECT upper(kunde) || lower('X') || substr('abc', 2) || replace('a', 'a', 'b') FROM punkte",
        "SELECT count(*), sum(stand), max(stand), min(stand), total(stand), avg(stand) FROM punkte",
        "SELECT group_concat(kunde, ',') FROM punkte",
        "SELECT row_number() OVER (ORDER BY kunde), rank() OVER (ORDER BY stand) FROM punkte",
        "SELECT json_extract('{\"a\":1}', '$.a'), '{\"a\":1}' ->> '$.a', json_object('k', 1)",
        "SELECT printf('%d-%s', 1, 'x'), quote('a'), typeof(1), iif(1, 2, 3), nullif(1, 2)",
        "SELECT changes(), last_insert_rowid(), total_changes()",
        "SELECT 'anna' LIKE 'an%', 'anna' GLOB 'a*', round(1.5), hex(zeroblob(4))",
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 10) SELECT count(*) FROM r",
    ];
    for (sql, error) in sql.iter().zip(errors_of(&sql)) {
        assert!(error.is_none(), "{sql}: {error:?}");
    }
}

#[test]
fn instr_and_like_over_the_longest_values_end_within_one_step() {
    let sql = [
        // Strings of the former limit (1 MB): one instr over them took 11 s, and in a loop hours.
        "SELECT instr(replace(hex(zeroblob(400000)), '0', 'a'), replace(hex(zeroblob(200000)), '0', 'a') || 'b')",
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000) \
         SELECT count(*) FROM r WHERE instr(replace(hex(zeroblob(400000)), '0', 'a') || i, \
         replace(hex(zeroblob(200000)), '0', 'a') || 'b') > 0",
        // At the limit itself it runs, in about a millisecond.
        "SELECT instr(replace(hex(zeroblob(8000)), '0', 'a'), replace(hex(zeroblob(4000)), '0', 'a') || 'b')",
        // A LIKE pattern of the former limit (1,000 bytes) is over the new one.
        &format!("SELECT replace(hex(zeroblob(8000)), '0', 'a') LIKE '%{}b'", "a".repeat(997)),
        &format!("SELECT replace(hex(zeroblob(8000)), '0', 'a') LIKE '%{}b'", "a".repeat(90)),
    ];
    let errors = errors_of(&sql);
    assert_denied(sql[0], &errors[0], "limit \"SQL value length\"");
    assert_denied(sql[1], &errors[1], "limit \"SQL value length\"");
    assert!(errors[2].is_none(), "{:?}", errors[2]);
    assert_denied(sql[3], &errors[3], "limit \"LIKE pattern length\"");
    assert!(errors[4].is_none(), "{:?}", errors[4]);
}

#[test]
fn a_300_mb_insert_fills_the_scratch_database_not_the_machine() {
    let sql = [
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) \
         INSERT INTO punkte (kunde, stand) SELECT hex(zeroblob(7000)) || i, 0 FROM r",
        "INSERT INTO punkte (kunde, stand) VALUES (hex(zeroblob(150000000)), 0)",
        "INSERT INTO punkte (kunde, stand) VALUES (zeroblob(300000000), 0)",
    ];
    let errors = errors_of(&sql);
    assert_denied(sql[0], &errors[0], "database full: limit \"scratch database size\"");
    assert_denied(sql[1], &errors[1], "limit \"SQL value length\"");
    assert_denied(sql[2], &errors[2], "limit \"SQL value length\"");
}

#[test]
fn deep_and_long_sql_meets_its_named_limits() {
    let deep = format!("SELECT {}1{}", "(1 + ".repeat(300), ")".repeat(300));
    let long = format!("SELECT 1 /* {} */", "x".repeat(20_000));
    let compound = vec!["SELECT 1"; 80].join(" UNION ALL ");
    let sql = [deep.as_str(), long.as_str(), compound.as_str()];
    let errors = errors_of(&sql);
    assert_denied(sql[0], &errors[0], "Expression tree is too large");
    assert_denied(sql[1], &errors[1], "limit \"SQL text length\"");
    assert_denied(sql[2], &errors[2], "too many terms in compound SELECT");
}

// ---- Bounded while recording ----

#[test]
fn a_huge_message_path_is_clipped_where_it_is_copied() {
    // msg.int with a 1 MB path of 'x': the path was echoed into every fault and failure text.
    let module = r#"(module
      (import "msg" "int" (func $msg_int (param i32 i32) (result i64)))
      (memory (export "memory") 32)
      (func (export "verarbeite") (result i32)
        (memory.fill (i32.const 1024) (i32.const 120) (i32.const 1000000))
        (drop (call $msg_int (i32.const 1024) (i32.const 1000000)))
        (i32.const 1)))"#;
    let report = grade_bounded(module.as_bytes().to_vec());
    assert_eq!(report.verdict, Verdict::Failed);
    for check in report.failed_checks() {
        let failure = check.failure.as_ref().expect("failure text");
        assert!(failure.en.len() < 4 * GUEST_TEXT_BYTES_MAX, "{}: {} bytes", check.name, failure.en.len());
        assert!(failure.en.contains("bytes omitted"), "{}: the cut is visible: {}", check.name, failure.en);
        assert!(failure.de.contains("Bytes ausgelassen") || failure.de.contains("bytes omitted"));
    }
}

#[test]
fn hundreds_of_15_kb_statements_keep_the_trace_bounded() {
    let sql = format!("SELECT 1 /* {} */", "x".repeat(15_000));
    let module = format!(
        r#"(module
      (import "db" "exec" (func $exec (param i32 i32) (result i32)))
      (memory (export "memory") 1)
      (data (i32.const 1024) "{sql}")
      (func (export "verarbeite") (result i32)
        (local $i i32)
        (loop $again
          (drop (call $exec (i32.const 1024) (i32.const {len})))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $again (i32.lt_u (local.get $i) (i32.const 500))))
        (i32.const 1)))"#,
        len = sql.len()
    );
    let report = grade_bounded(module.into_bytes());
    let check = report.checks.first().expect("fresh-message");
    let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
    assert!(detail.trace_omitted > 0, "the trace says events were left out");
    let trace_bytes = serde_json::to_string(&detail.trace).expect("json").len();
    assert!(trace_bytes <= TRACE_BYTES_RECORDED_MAX, "{trace_bytes}");
    let statement = statements(&report).into_iter().next().expect("a statement");
    assert!(statement.0.len() < 2 * GUEST_TEXT_BYTES_MAX, "{} bytes of SQL in the trace", statement.0.len());
    assert!(statement.0.ends_with(&format!("({} bytes omitted)", sql.len() - GUEST_TEXT_BYTES_MAX)));
}

#[test]
fn log_spam_is_cut_and_counted() {
    let module = r#"(module
      (import "env" "log" (func $log (param i32 i32)))
      (memory (export "memory") 1)
      (func (export "verarbeite") (result i32)
        (local $i i32)
        (memory.fill (i32.const 1024) (i32.const 122) (i32.const 4000))
        ;; 8,000 empty lines (each counts as a byte of the log), then long lines past the log limit.
        (loop $again
          (call $log (i32.const 1024) (i32.const 0))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $again (i32.lt_u (local.get $i) (i32.const 8000))))
        (call $log (i32.const 1024) (i32.const 4000))
        (call $log (i32.const 1024) (i32.const 4000))
        (call $log (i32.const 1024) (i32.const 4000))
        (i32.const 1)))"#;
    let report = grade_bounded(module.as_bytes().to_vec());
    let check = report.checks.first().expect("fresh-message");
    let CheckDetail::Consumer(detail) = &check.detail else { panic!() };
    assert!(detail.trace_omitted > 0, "empty log lines count too: the trace is cut");
    for event in &detail.trace {
        if let TraceEvent::Log { text, .. } = event {
            assert!(text.len() < 2 * GUEST_TEXT_BYTES_MAX, "a log line is clipped: {} bytes", text.len());
        }
    }
    assert!(report.to_json().contains("limit \\\"log per run\\\""), "the log cut is named");
}
