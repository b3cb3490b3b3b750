//! Hostile Python: endless loops, memory growth, deep recursion, huge strings and import tricks.
//! Each ends with a named limit or a clear refusal, within the submission's deadline.

use pruefstein::report::{Report, Verdict};
use pruefstein::submission::Language;

use super::{message, with_instance};
use crate::python::grade_python;

fn grade_guarded(text: &str) -> Report {
    super::grade_guarded(grade_python, text)
}

fn json(report: &Report) -> String {
    super::json(report)
}

fn rejected(text: &str) -> (String, String) {
    super::rejected(grade_python, text)
}

#[test]
fn an_endless_loop_ends_with_the_fuel_limit() {
    let report = grade_guarded("def verarbeite(con, msg):\n    while True:\n        pass\n");
    assert_eq!(report.verdict, Verdict::Failed);
    assert!(json(&report).contains("fuel-exhausted"), "the limit is named");
    // At load, too: the file never finishes loading.
    let (code, message) = rejected("while True:\n    pass\n");
    assert_eq!(code, "load-fuel-exhausted", "{message}");
}

#[test]
fn memory_growth_and_huge_strings_end_with_a_named_limit() {
    // A huge string at once: the interpreter's heap refuses it.
    let report = grade_guarded("def verarbeite(con, msg):\n    s = 'x' * (10 ** 9)\n    return True\n");
    assert_eq!(report.verdict, Verdict::Failed);
    let text = json(&report);
    assert!(text.contains("MemoryError"), "the error is the interpreter's");
    assert!(text.contains("limit \\\"interpreter heap\\\""), "the limit is named: {text}");
    // Growth a little at a time: the collector runs more and more often as the heap fills, and the
    // fuel or the heap ends it, whichever comes first; either is named.
    let report = grade_guarded(
        "def verarbeite(con, msg):\n    x = []\n    while True:\n        x.append('a' * 1000)\n",
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
        "def tief(n):\n    return tief(n + 1) + 1\n\ndef verarbeite(con, msg):\n    return tief(0)\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    let json = json(&report);
    assert!(
        json.contains("maximum recursion depth exceeded") || json.contains("stack-limit"),
        "the recursion limit is named: {json}"
    );
    // A stack overflow names the interpreter's stack, not a compiled module's.
    let python_kib = pruefstein::limits::INTERPRETER_WASM_STACK_BYTES / 1024;
    let module_kib = pruefstein::limits::WASM_STACK_BYTES_MAX / 1024;
    assert_ne!(python_kib, module_kib);
    if json.contains("The stack overflowed") {
        assert!(json.contains(&format!("The stack overflowed ({python_kib} KiB")), "{json}");
    }
    assert!(!json.contains(&format!("({module_kib} KiB, limit")), "{json}");
}

#[test]
fn import_tricks_are_refused() {
    let (code, message) = rejected("os = __import__('os')\n");
    assert_eq!(code, "import-not-allowed", "{message}");
    for builtin in ["exec('x = 1')", "eval('1 + 1')", "compile('1', 'f', 'eval')"] {
        let (code, message) = rejected(&format!("{builtin}\n"));
        assert_eq!(code, "python-load-error", "{builtin}: {message}");
        assert!(message.contains("isn't defined"), "{builtin}: {message}");
    }
    let (code, message) = rejected("open('/etc/passwd')\n");
    assert_eq!(code, "python-load-error");
    assert!(message.contains("open() is not available"), "{message}");
    // Rebinding names in its own globals changes only the student's own file.
    let report = grade_guarded(
        "import sqlite3\nglobals()['json'] = None\n__builtins__ = None\n\ndef verarbeite(con, msg):\n    with con:\n        try:\n            con.execute('INSERT INTO gesehen (msg_id) VALUES (?)', (msg['id'],))\n        except sqlite3.IntegrityError:\n            return False\n        con.execute('UPDATE punkte SET stand = stand + ? WHERE kunde = ?', (msg['body']['punkte'], msg['body']['kunde']))\n        return True\n",
    );
    assert_eq!(report.verdict, Verdict::Passed, "{}", json(&report));
}

#[test]
fn statements_the_connection_does_not_allow_are_refused_as_sqlite_errors() {
    let report = grade_guarded(
        "import sqlite3\n\ndef verarbeite(con, msg):\n    try:\n        con.execute('DROP TABLE punkte')\n    except sqlite3.OperationalError as e:\n        print('refused:', e)\n        raise\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    assert!(json(&report).contains("refused: not allowed"), "{}", json(&report));
}

/// What one instance of `text` holds in its linear memory: right after it started, and after a
/// delivery (the host reads the instance's memory; nothing inside the guest is asked).
fn memory_of(text: &str, deliver: bool) -> (Vec<u8>, Vec<u8>) {
    with_instance(Language::Python, text, |process| {
        let at_start = process.linear_memory();
        if deliver {
            let outcome = process.deliver(&message("m-1".into()), None);
            assert_eq!(outcome.returned(), Some(1), "{outcome:?}");
        }
        (at_start, process.linear_memory())
    })
}

/// What `text`'s `verarbeite` returned for each of `ids` (messages with those ids, delivered one
/// after the other to one instance), without the grade's checks around them.
fn deliveries(text: &str, ids: &[i64]) -> Vec<Option<i32>> {
    with_instance(Language::Python, text, |process| {
        ids.iter().map(|id| process.deliver(&message((*id).into()), None).returned()).collect()
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_submission_s_heap_never_reaches_the_next_instance() {
    // The secret is made at run time (its digits are in no source file and no memory image):
    // 4711 * 1000003 = 4711014133, repeated, kept in a global of the interpreter's heap.
    let secret = "4711014133".repeat(40);
    let writer = "SECRET = None\n\ndef verarbeite(con, msg):\n    global SECRET\n    SECRET = ('%d' % (4711 * 1000003)) * 40\n    return True\n";
    let reader = "KEPT = []\n\ndef verarbeite(con, msg):\n    return True\n";
    // The other submission's clean start, before the writer ever ran in this process.
    let (reader_clean, _) = memory_of(reader, false);
    assert!(!contains(&reader_clean, secret.as_bytes()));
    // The writer's instance holds the secret (so the checks below could fail)...
    let (writer_start, writer_after) = memory_of(writer, true);
    assert!(!contains(&writer_start, secret.as_bytes()), "not in the writer's image");
    assert!(contains(&writer_after, secret.as_bytes()), "the writer's heap holds the secret");
    // ...and neither the next instance of another submission nor a new one of the writer sees it:
    // each starts byte for byte as its clean image.
    let (reader_next, _) = memory_of(reader, false);
    assert!(!contains(&reader_next, secret.as_bytes()), "the secret leaked into another submission");
    assert_eq!(reader_next.len(), reader_clean.len());
    assert!(reader_next == reader_clean, "the next instance differs from its clean image");
    let (writer_again, _) = memory_of(writer, false);
    assert!(!contains(&writer_again, secret.as_bytes()), "the secret survived into a new instance");
    assert!(writer_again == writer_start, "a new instance differs from its clean image");
}

/// The statement path in C (`glue/sqlite3_native.c`) and the Python it replaced (`Cursor._run`,
/// still the module's slow path) answer every odd call alike: parameters of odd types and sizes,
/// SQL that is no str, counts that do not match, odd isolation levels, a closed connection. Each
/// case runs through `execute`, through `Cursor._run` and (the first few) through `execute` with a
/// keyword; a delivery returns True only when every outcome (exception type and text, or rows,
/// rowcount and the transaction state) agreed, every case of its half ran and the closed
/// connection refused the statement.
#[test]
fn odd_statements_get_the_same_answer_from_the_native_path_as_from_the_python_one() {
    let consumer = r#"import sqlite3

class Text(str):
    pass

class Number(int):
    pass

CASES = [
    ("SELECT ?", lambda: (1.5,)), ("SELECT ?", lambda: (b"x",)), ("SELECT ?", lambda: ({"a": 1},)),
    ("SELECT ?", lambda: ([1],)), ("SELECT ?", lambda: (2 ** 40,)), ("SELECT ?", lambda: (2 ** 70,)),
    ("SELECT ?", lambda: (-2 ** 63,)), ("SELECT ?", lambda: (None,)), ("SELECT ?", lambda: (True,)),
    ("SELECT ?", lambda: (False,)), ("SELECT ?", lambda: (-5,)), ("SELECT ?", lambda: (2 ** 30,)),
    ("SELECT ?", lambda: ("ä",)), ("SELECT ?", lambda: (Text("7"),)), ("SELECT ?", lambda: (Number(7),)),
    ("SELECT ?", lambda: "a"), ("SELECT ?", lambda: "ab"), ("SELECT ?", lambda: {"a": 1}),
    ("SELECT ?", lambda: 5), ("SELECT ?", lambda: None), ("SELECT ?", lambda: [7]),
    ("SELECT ?", lambda: (x for x in [3])), ("SELECT ?", lambda: range(1)), (b"SELECT 1", lambda: ()),
    (5, lambda: ()), (None, lambda: ()), (Text("SELECT 1"), lambda: ()), ("SELECT ?, ?", lambda: (1,)),
    ("SELECT 1", lambda: tuple(range(100))), ("SELECT ?", lambda: list(range(100))),
    ("SELECT " + ", ".join("?" * 40), lambda: tuple(range(40))), ("SELECT ?", lambda: ("x" * 2000,)),
    ("SELECT " + "1 + " * 500 + "1", lambda: ()), ("", lambda: ()), ("   ", lambda: ()),
    ("SELECT", lambda: ()), ("SELECT ?1, ?1", lambda: (4,)), ("SELECT ?2", lambda: (4,)),
    ("SELECT ?99999999999", lambda: ()), ("-- ?\nSELECT 1", lambda: ()), ("SELECT '?'", lambda: ()),
    ("DROP TABLE punkte", lambda: ()), ("SAVEPOINT a", lambda: ()), ("ROLLBACK TO a", lambda: ()), ("RELEASE a", lambda: ()),
    ("BEGIN", lambda: ()), ("COMMIT", lambda: ()), ("END", lambda: ()), ("ROLLBACK", lambda: ()),
    ("WITH x AS (SELECT 2) SELECT * FROM x", lambda: ()), ("VALUES (3)", lambda: ()),
    ("SELECT 1 WHERE 0", lambda: ()),
]

WRITES = [
    ("UPDATE punkte SET stand = stand WHERE kunde = ?", lambda: ("k1",)),
    ("update punkte set stand = stand where kunde = ?", lambda: (None,)),
    ("UPDATE punkte SET stand = stand WHERE kunde = ? RETURNING stand", lambda: ("k1",)),
    ("DELETE FROM punkte WHERE 0", lambda: ()), ("INSERT INTO nirgends VALUES (?)", lambda: (1,)),
    ("UPDATE punkte SET stand = stand WHERE kunde = ?", lambda: (2.5,)),
]

LEVELS = ["", None, 5]

def outcome(run, con, sql, parameters):
    cursor = CURSOR[0]
    try:
        run(cursor, sql, parameters())
        result = ("ok", cursor.fetchall(), cursor.rowcount)
    except Exception as e:
        result = (type(e).__name__, str(e))
    state = con.in_transaction
    if con.in_transaction:
        con.rollback()
    return result + (state,)

CURSOR = []

RUNS = [(level, sql, parameters) for level in LEVELS
        for sql, parameters in (CASES if level == "" else []) + WRITES]

def verarbeite(con, msg):
    # Half of the runs per delivery (message 7 and message 9 each take one), within its fuel; the
    # call with a keyword for the first few.
    part = msg["id"] % 2
    CURSOR[:] = [con.cursor()]
    compared = 0
    same = True
    for level, sql, parameters in RUNS[part::2]:
        con.isolation_level = level
        fast = outcome(sqlite3.Cursor.execute, con, sql, parameters)
        slow = outcome(sqlite3.Cursor._run, con, sql, parameters)
        named = outcome(lambda c, s, p: c.execute(s, parameters=p), con, sql, parameters) if compared < 6 else slow
        if fast != slow or named != slow:
            print("DIFFERENT:", repr(sql)[:60], repr(level), fast, slow, named)
            same = False
        compared += 1
    con.close()
    closed = outcome(sqlite3.Cursor.execute, con, "SELECT 1", lambda: ())
    print("part", part, "compared:", compared, "closed:", closed)
    return same and compared == len(RUNS[part::2]) and closed[1] == "Cannot operate on a closed database."
"#;
    // Messages 0 and 1 take one half each: the whole grade would run them once per check.
    let returned = deliveries(consumer, &[0, 1]);
    assert_eq!(returned, [Some(1), Some(1)], "each half ran every case alike and said so");
}

/// A million statements in one delivery end with the delivery's fuel (each still costs the
/// interpreter more than a hundredth of it), before the statement limit.
#[test]
fn a_million_statements_end_with_the_fuel_limit() {
    let report = grade_guarded(
        "def verarbeite(con, msg):\n    for i in range(1000000):\n        con.execute('SELECT ?', (i,))\n    return True\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    assert!(json(&report).contains("limit \\\"fuel\\\""), "{}", json(&report));
}

/// SQL text of 10 MB never reaches the database: the interpreter's heap refuses the string. Text
/// that fits the heap but not the database's statement length ends with that limit; a value that
/// long with SQLite's "string or blob too big", more parameters than a statement may have with
/// their range, a million values with the fuel.
#[test]
fn huge_sql_texts_values_and_parameter_lists_end_with_a_named_limit() {
    let report = grade_guarded(
        "def verarbeite(con, msg):\n    con.execute('SELECT 1' + ' ' * (10 * 1024 * 1024))\n    return True\n",
    );
    assert_eq!(report.verdict, Verdict::Failed);
    assert!(json(&report).contains("limit \\\"interpreter heap\\\""), "{}", json(&report));
    for (call, limit) in [
        ("con.execute('SELECT 1' + ' ' * 20000)", "limit \\\"SQL text length\\\""),
        // SQLite's own words: the value is longer than its length limit (SQL_VALUE_BYTES_MAX).
        ("con.execute('SELECT ?', ('x' * 20000,))", "string or blob too big"),
        (
            "con.execute('SELECT ' + ', '.join('?' * 40), tuple(range(40)))",
            "parameters are numbered from 1 to 32",
        ),
        // A million values: making the tuple takes the delivery's fuel before the heap is full.
        ("con.execute('SELECT ?', tuple(range(1000000)))", "limit \\\"fuel\\\""),
    ] {
        let report = grade_guarded(&format!(
            "import sqlite3\n\ndef verarbeite(con, msg):\n    try:\n        {call}\n    except sqlite3.Error as e:\n        print('refused:', e)\n        raise\n    return True\n"
        ));
        assert_eq!(report.verdict, Verdict::Failed, "{call}");
        assert!(json(&report).contains(limit), "{call}: {}", json(&report));
    }
}

/// The message a Python consumer gets is what `json.loads` makes of the host's text, key order
/// included, whether the guest's one-pass reader takes it (objects, arrays, plain strings,
/// integers) or hands it to `json.loads` (escapes, fractions, integers of 19 digits, deep
/// nesting): exercise 03 with odd fields beside the ones its reference reads, and a consumer that
/// compares `msg` with `json.loads` of the raw text before it does the lesson's work.
#[test]
fn the_message_a_consumer_gets_is_what_json_loads_makes_of_it() {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("03-idempotenter-konsument");
    crate::support::copy_tree(&crate::support::exercise_dir("03-idempotenter-konsument"), &dir);
    let toml = dir.join("exercise.toml");
    let text = std::fs::read_to_string(&toml).expect("read");
    let odd = r#"extra = { text = "a\"b\\c\n\u00e9\t", zahl = 1.5, gross = 9223372036854775807, klein = -42, liste = [[], [1, [2, [3, [4, [5]]]]], "x", true], leer = {}, nichts = "" }"#;
    let plain = r#"extra = { z = 1, a = [1, 2, {}], m = { y = "ü", b = false }, c = -9 }"#;
    let text = text
        .replacen(
            "fresh = { id = 7, body = { kunde = \"anna\", punkte = 50 } }",
            &format!("fresh = {{ id = 7, body = {{ kunde = \"anna\", punkte = 50, {odd} }} }}"),
            1,
        )
        .replacen(
            "same_body = { id = 8, body = { kunde = \"anna\", punkte = 50 } }",
            &format!("same_body = {{ id = 8, body = {{ kunde = \"anna\", punkte = 50, {odd} }} }}"),
            1,
        )
        .replacen(
            "{ id = 10, body = { kunde = \"ben\", punkte = 100 } }",
            &format!("{{ id = 10, body = {{ kunde = \"ben\", punkte = 100, {plain} }} }}"),
            1,
        );
    assert!(text.contains("gross = 9223372036854775807") && text.contains("m = { y"), "{text}");
    std::fs::write(&toml, text).expect("write");
    let exercise = pruefstein::graders::load(&dir).expect("loads");
    let consumer = "\
import json
import sqlite3


def same(a, b):
    return a == b and repr(a) == repr(b) and type(a) == type(b)


def verarbeite(con, msg):
    parsed = json.loads(sqlite3._message())
    if not same(msg, parsed):
        raise ValueError('the message differs from json.loads: %r / %r' % (msg, parsed))
    with con:
        try:
            con.execute(\"INSERT INTO gesehen (msg_id) VALUES (?)\", (msg[\"id\"],))
        except sqlite3.IntegrityError:
            return False
        con.execute(\"UPDATE punkte SET stand = stand + ? WHERE kunde = ?\",
                    (msg[\"body\"][\"punkte\"], msg[\"body\"][\"kunde\"]))
        return True
";
    let report = crate::python::grade_python_in(&exercise, consumer);
    assert_eq!(report.verdict, Verdict::Passed, "{}", json(&report));
}
