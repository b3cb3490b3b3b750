//! Hostile Python: endless loops, memory growth, deep recursion, huge strings and import tricks.
//! Each ends with a named limit or a clear refusal, within the submission's deadline.

use pruefstein::report::{Report, Verdict};

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
    use std::sync::Arc;

    use pruefstein::consumer::ConsumerExercise;
    use pruefstein::consumer::process::{CompiledConsumer, ConsumerProcess, Launch};
    use pruefstein::consumer::rundb::TemplateSource;
    use pruefstein::submission::Language;

    let exercise = crate::support::consumer_exercise();
    let consumer = exercise.grader_as::<ConsumerExercise>().expect("a consumer exercise");
    let engine = pruefstein::sandbox::engine_with_stack(
        pruefstein::exercise::Compiler::Winch,
        pruefstein::limits::INTERPRETER_WASM_STACK_BYTES,
    )
    .expect("engine");
    pruefstein::sandbox::with_stack(pruefstein::limits::INTERPRETER_WASM_STACK_BYTES, || {
        let compiled = CompiledConsumer::compile_source(
            engine,
            Language::Python,
            text,
            &exercise.limits,
            &consumer.entry,
        )
        .map_err(|r| r.message.en)
        .expect("the file loads");
        let db = TemplateSource::open(&consumer.template).and_then(|t| t.restore()).expect("a run database");
        let deadline = pruefstein::deadline::Deadline::for_submission(&exercise.limits);
        let launch = Launch {
            compiled: &compiled,
            tables: Arc::clone(&consumer.tables),
            limits: &exercise.limits,
            deadline: &deadline,
        };
        let mut process =
            ConsumerProcess::start(&launch, &db, 1, None).map_err(|_| "start").expect("it starts");
        let at_start = process.linear_memory();
        if deliver {
            let message = serde_json::json!({"id": "m-1", "body": {"kunde": "k-1", "punkte": 5}});
            let outcome = process.deliver(&Arc::new(message), None);
            assert_eq!(outcome.returned(), Some(1), "{outcome:?}");
        }
        (at_start, process.linear_memory())
    })
    .expect("a thread with room for the interpreter's stack")
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
