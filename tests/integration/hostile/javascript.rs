//! Hostile JavaScript: endless loops, memory growth, deep recursion, huge strings and import tricks.
//! Each ends with a named limit or a clear refusal, within the submission's deadline; what the
//! guest leaves of a clock and randomness is the same in every run.

use pruefstein::report::{Report, Verdict};
use pruefstein::submission::Language;

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

/// The statement path in C (`host.statement` in `glue/pruefstein.c`) and the JavaScript it stands
/// in for (`slowStep` in `glue/sqlite.js`, still the module's path for every statement the C does
/// not take) answer every odd call alike: parameters of odd types and sizes, counts that do not
/// match, SQL of every first keyword, transactions opened and closed, failed statements. Each
/// case runs through `run()`, `get()` and `all()` (and `exec()` when it has no parameters) once on
/// the C and once with `db._slow` set; a delivery returns true only when every outcome (the result,
/// or the error's name, message, `code`, `errcode` and `errstr`, and `isTransaction` after it)
/// agreed and every case of its sixtieth ran.
#[test]
fn odd_statements_get_the_same_answer_from_the_c_path_as_from_the_javascript_one() {
    let consumer = r#"const CASES = [
    ["SELECT ?", [1.5]], ["SELECT ?", [NaN]], ["SELECT ?", [Infinity]], ["SELECT ?", [-0]],
    ["SELECT ?", [2 ** 53]], ["SELECT ?", [2 ** 63]], ["SELECT ?", [-(2 ** 70)]], ["SELECT ?", [1n]],
    ["SELECT ?", [2n ** 70n]], ["SELECT ?", [-(2n ** 63n)]], ["SELECT ?", [null]], ["SELECT ?", [undefined]],
    ["SELECT ?", [true]], ["SELECT ?", [false]], ["SELECT ?", [-5]], ["SELECT ?", [2 ** 31]],
    ["SELECT ?", ["ä"]], ["SELECT ?", [""]], ["SELECT ?", ["7"]], ["SELECT ?", [{ a: 1 }]], ["SELECT ?", [[1]]],
    ["SELECT ?", [Symbol("s")]], ["SELECT ?", [function f() {}]], ["SELECT ?", [new String("x")]],
    ["SELECT ?", [new Number(3)]], ["SELECT ?", ["x".repeat(2000)]], ["SELECT ?", ["\ud800"]],
    ["SELECT ?, ?", [1]], ["SELECT 1", [1, 2]], ["SELECT ?", []],
    ["SELECT " + Array(40).fill("?").join(", "), Array.from({ length: 40 }, (_, i) => i)],
    ["SELECT " + Array(32).fill("?").join(", "), Array.from({ length: 32 }, (_, i) => i)],
    ["SELECT ?1, ?1", [4]], ["SELECT ?2", [4]], ["SELECT ?99999999999", []], ["-- ?\nSELECT 1", []],
    ["SELECT '?'", []], ["", []], ["   ", []], ["SELECT", []], ["SELEKT 1", []], ["SELECT 2 AS zwei", []],
    ["select 3", []], ["WITH x AS (SELECT 2) SELECT * FROM x", []], ["VALUES (3)", []], ["SELECT 1 WHERE 0", []],
    ["BEGIN", []], ["BEGIN IMMEDIATE", []], ["COMMIT", []], ["END", []], ["ROLLBACK", []],
    ["SAVEPOINT a", []], ["RELEASE a", []], ["ROLLBACK TO a", []], ["DROP TABLE IF EXISTS nirgends", []],
    ["UPDATE punkte SET stand = stand WHERE kunde = ?", ["k-1"]],
    ["update punkte set stand = stand where kunde = ?", [null]],
    ["UPDATE punkte SET stand = stand WHERE kunde = ? RETURNING stand", ["k-1"]],
    ["INSERT INTO gesehen (msg_id) VALUES (?)", [424242]],
    ["INSERT INTO gesehen (msg_id) VALUES (?) RETURNING msg_id", [434343]],
    ["REPLACE INTO gesehen (msg_id) VALUES (?)", [444444]],
    ["DELETE FROM punkte WHERE 0", []], ["INSERT INTO nirgends VALUES (?)", [1]],
    ["UPDATE punkte SET stand = stand WHERE kunde = ?", [2.5]],
];

function outcome(db, method, sql, params, inside) {
    let result;
    try {
        if (inside) db.exec("BEGIN");
        if (method === "exec") {
            result = ["ok", String(db.exec(sql))];
        } else {
            const answer = db.prepare(sql)[method](...params);
            result = ["ok", JSON.stringify(method === "run" ? answer.changes : answer)];
        }
    } catch (e) {
        result = [e.name, String(e.message), e.code, e.errcode, e.errstr];
    }
    result.push(db.isTransaction);
    if (db.isTransaction) db.exec("ROLLBACK");
    // What a statement outside a transaction committed goes, so that the other path meets the
    // same state.
    db.exec("DELETE FROM gesehen WHERE msg_id >= 424242");
    return JSON.stringify(result);
}

const PARTS = 60;
const RUNS = [];
for (const [sql, params] of CASES) {
    for (const method of params.length === 0 ? ["run", "get", "all", "exec"] : ["run", "get", "all"]) {
        for (const inside of [false, true]) RUNS.push([method, sql, params, inside]);
    }
}

export function verarbeite(db, msg) {
    // A sixtieth of the runs per delivery (messages 0 to 59 each take one), within its fuel: an
    // outcome costs up to 330,000 units (a failed statement builds its error's stack).
    const part = msg.id % PARTS;
    let compared = 0;
    let same = true;
    RUNS.forEach(([method, sql, params, inside], i) => {
        if (i % PARTS !== part) return;
        db._slow = false;
        const fast = outcome(db, method, sql, params, inside);
        db._slow = true;
        const slow = outcome(db, method, sql, params, inside);
        if (fast !== slow) {
            console.log("DIFFERENT:", method, JSON.stringify(sql).slice(0, 60), inside, fast, slow);
            same = false;
        }
        compared += 1;
    });
    console.log("part", part, "compared:", compared);
    return same && compared === RUNS.filter((_, i) => i % PARTS === part).length;
}
"#;
    super::with_instance(Language::JavaScript, consumer, |process| {
        for id in 0..60 {
            let outcome = process.deliver(&super::message(id.into()), None);
            assert_eq!(outcome.returned(), Some(1), "message {id}: {outcome:?}");
        }
    });
}

/// The message a consumer gets is what `JSON.parse` makes of the host's text, whether the glue's C
/// reads it in one pass (objects, arrays, strings without escapes, short integers) or hands the
/// whole text to `JSON.parse`'s own parser (escapes, fractions, exponents, long integers, -0, deep
/// nesting). The machine's node says what `JSON.stringify(JSON.parse(text))` is for each text the
/// host sends; the consumer returns true only when its message stringifies to exactly that.
#[test]
fn the_message_a_consumer_gets_is_what_json_parse_makes_of_it() {
    use serde_json::json;

    let mut deep = json!("end");
    for _ in 0..40 {
        deep = json!([deep]);
    }
    let odd = [
        json!({"kunde": "anna", "punkte": 50}),
        json!({"text": "Grüße 😀 \u{7f}", "leer": "", "null": null, "ja": true, "nein": false}),
        json!({"text": "a\"b\\c\nd\te\u{1}"}),
        json!({"numbers": [0, -42, 2147483647, 2147483648u64, -2147483649i64, 999999999999999u64]}),
        json!({"long": 9007199254740993u64, "longer": 18446744073709551615u64, "negative": i64::MIN}),
        json!({"fraction": 1.5, "tiny": 5e-324, "huge": 1e300, "negative zero": -0.0}),
        json!({"__proto__": {"x": 1}, "2": "a", "1": "b", "b": 1, "a": 2, "": "empty key"}),
        json!({"nested": {"list": [[], {}, [1, [2, [3]]], {"k": {"l": {"m": "n"}}}]}}),
        json!({"deep": deep}),
        json!({"many": (0..200).collect::<Vec<_>>()}),
        json!({"long text": "x".repeat(5000)}),
    ];
    let messages: Vec<serde_json::Value> =
        odd.iter().enumerate().map(|(i, m)| json!({"i": i, "m": m})).collect();
    let texts: Vec<String> = messages.iter().map(|m| m.to_string()).collect();
    // What node makes of each text, as a JavaScript string literal.
    let mut node = std::process::Command::new("node")
        .args([
            "-e",
            "for (const t of require('fs').readFileSync(0, 'utf8').split('\\n').filter(Boolean)) \
             console.log(JSON.stringify(JSON.stringify(JSON.parse(t))));",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    {
        use std::io::Write;
        let mut stdin = node.stdin.take().expect("node's input");
        stdin.write_all(texts.join("\n").as_bytes()).expect("written");
    }
    let out = node.wait_with_output().expect("node ends");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected: Vec<&str> = std::str::from_utf8(&out.stdout).expect("UTF-8").lines().collect();
    assert_eq!(expected.len(), messages.len());
    let consumer = format!(
        "const EXPECTED = [\n{}\n];\n\nexport function verarbeite(db, msg) {{\n    const got = JSON.stringify(msg);\n    \
         if (got !== EXPECTED[msg.i]) console.log(\"DIFFERENT:\", got.slice(0, 200));\n    \
         return got === EXPECTED[msg.i] && Object.getPrototypeOf(msg) === Object.prototype;\n}}\n",
        expected.join(",\n")
    );
    super::with_instance(Language::JavaScript, &consumer, |process| {
        for (message, text) in messages.iter().zip(&texts) {
            let outcome = process.deliver(&std::sync::Arc::new(message.clone()), None);
            assert_eq!(outcome.returned(), Some(1), "{text}: {outcome:?}");
        }
    });
}
