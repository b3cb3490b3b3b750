//! Hostile JavaScript: endless loops, memory growth, deep recursion, huge strings and import tricks.
//! Each ends with a named limit or a clear refusal, within the submission's deadline; what the
//! guest leaves of a clock and randomness is the same in every run.

use pruefstein::report::{Report, Verdict};

use crate::javascript::{grade_javascript, grade_typescript};

fn grade_guarded(text: &str) -> Report {
    super::grade_guarded(grade_javascript, text)
}

fn json(report: &Report) -> String {
    super::json(report)
}

fn rejected(text: &str) -> (String, String) {
    super::rejected(grade_javascript, text)
}

#[test]
fn an_endless_loop_ends_with_the_fuel_limit() {
    let report = grade_guarded("export function verarbeite(db, msg) {\n    while (true) {}\n}\n");
    assert_eq!(report.verdict, Verdict::Failed);
    assert!(json(&report).contains("fuel-exhausted"), "the limit is named");
    // At load, too: the file never finishes loading.
    let (code, message) = rejected("for (;;) {}\nexport function verarbeite(db, msg) { return true; }\n");
    assert_eq!(code, "load-fuel-exhausted", "{message}");
}

#[test]
fn memory_growth_and_huge_strings_end_with_a_named_limit() {
    let report = grade_guarded(
        "export function verarbeite(db, msg) {\n    const s = \"x\".repeat(1e9);\n    return s.length > 0;\n}\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    let text = json(&report);
    assert!(text.contains("InternalError: out of memory"), "the error is the interpreter's: {text}");
    assert!(text.contains("limit \\\"interpreter heap\\\""), "the limit is named: {text}");
    // Growth a little at a time: the heap or the fuel ends it, whichever comes first; either is named.
    let report = grade_guarded(
        "export function verarbeite(db, msg) {\n    const a = [];\n    for (;;) a.push(\"a\".repeat(1000) + a.length);\n}\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    let text = json(&report);
    assert!(
        text.contains("fuel-exhausted") || text.contains("limit \\\"interpreter heap\\\""),
        "a limit is named: {text}"
    );
}

#[test]
fn deep_recursion_ends_with_a_named_limit() {
    let report = grade_guarded(
        "function tief(n) {\n    return tief(n + 1) + 1;\n}\nexport function verarbeite(db, msg) {\n    return tief(0);\n}\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    let json = json(&report);
    assert!(json.contains("RangeError: Maximum call stack size exceeded"), "{json}");
    assert!(json.contains("limit \\\"recursion depth\\\""), "the recursion limit is named: {json}");
    assert!(!json.contains("out of bounds"), "the guest's stack never runs into its data: {json}");
}

#[test]
fn import_tricks_are_refused_and_the_host_functions_are_out_of_reach() {
    let (code, message) =
        rejected("import fs from \"fs\";\nexport function verarbeite(db, msg) { return true; }\n");
    assert_eq!(code, "import-not-allowed", "{message}");
    // A dynamic import is refused the same way; a rejected promise is not a boolean.
    let report = grade_guarded(
        "export function verarbeite(db, msg) {\n    import(\"fs\").catch((e) => console.log(\"refused:\", e.message));\n    return true;\n}\n",
    );
    assert!(json(&report).contains("refused: import not allowed: 'fs'"), "{}", json(&report));
    // eval and Function run in the same sandbox; the glue's host object is gone before the
    // student's code runs.
    let report = grade_guarded(
        "console.log(\"host:\", typeof globalThis.__pf, eval(\"typeof __pf\"), new Function(\"return typeof __pf\")());\nexport function verarbeite(db, msg) { return true; }\n",
    );
    assert!(json(&report).contains("host: undefined undefined undefined"), "{}", json(&report));
}

#[test]
fn the_clock_and_randomness_are_the_same_in_every_run() {
    let probe = "export function verarbeite(db, msg) {\n    console.log(\"now\", Date.now(), new Date().toISOString(), Math.random());\n    return true;\n}\n";
    let first = json(&grade_guarded(probe));
    let second = json(&grade_guarded(probe));
    assert_eq!(first, second, "the same submission gives the same report");
    assert!(first.contains("now 0 1970-01-01T00:00:00.000Z"), "no clock: {first}");
}

#[test]
fn typescript_that_overwhelms_the_type_stripper_is_refused_naming_the_limit() {
    let deep = format!(
        "type A = {}number{};\nexport function verarbeite(db, msg) {{ return true; }}\n",
        "Array<".repeat(9_000),
        ">".repeat(9_000)
    );
    let report = grade_typescript(&deep);
    let rejection = report.rejection.expect("refused");
    assert_eq!(rejection.code, "typescript-too-deep", "{}", rejection.message.en);
    assert!(rejection.message.en.contains("limit \"type stripping stack\""), "{}", rejection.message.en);
    // What is stripped in time runs under the guest's limits as JavaScript does.
    let report = grade_typescript(
        "export function verarbeite(db: unknown, msg: unknown): boolean {\n    for (;;) {}\n}\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    assert!(json(&report).contains("fuel-exhausted"), "the limit is named");
}
