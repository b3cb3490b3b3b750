//! The fuzz targets over Prüfstein's untrusted input paths, written once and used two ways:
//!
//! - the bounded, deterministic run inside the normal test command (`tests/integration/hostile/fuzz.rs`
//!   includes this file: it replays the kept corpus in `fuzz/corpus/<target>/` and a fixed number of
//!   inputs derived from a fixed ChaCha seed), and
//! - coverage-guided fuzzing with `cargo +nightly fuzz run <target>` (the crate in `fuzz/` wraps
//!   each function below in a libFuzzer binary under `fuzz/fuzz_targets/`).
//!
//! Every target takes raw bytes and panics only when an invariant is broken: a panic inside
//! Prüfstein, an internal error, a report without its reason, a problem without a message, or two
//! gradings of the same bytes that differ. Hangs and memory blow-ups are what libFuzzer's
//! `-timeout=` and `-rss_limit_mb=` catch in the long runs; in the bounded run every input must
//! simply end.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use arbitrary::Unstructured;
use pruefstein::exercise::{Exercise, GraderKind};
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::limits::ANSWER_BYTES_MAX;
use pruefstein::prediction::answer;
use pruefstein::report::{Report, Verdict};
use pruefstein::submission::Submission;

/// A fuzz target: raw bytes in, a panic only if an invariant breaks.
pub type Target = fn(&[u8]);

/// Every target by name (the name is also its corpus folder and its `cargo fuzz` binary).
pub const TARGETS: &[(&str, Target)] =
    &[("answer", answer), ("intake", intake), ("exercise", exercise), ("module", module), ("guest", guest)];

/// The checkout's root (the folder with `exercises/`), from this crate or from `fuzz/`.
pub fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("exercises").is_dir() {
        here.to_path_buf()
    } else {
        here.parent().map_or_else(|| here.to_path_buf(), Path::to_path_buf)
    }
}

/// The checkout's exercises, loaded once per process.
fn exercises() -> &'static [Exercise] {
    static LOADED: OnceLock<Vec<Exercise>> = OnceLock::new();
    LOADED.get_or_init(|| {
        let root = repo_root().join("exercises");
        let loaded =
            pruefstein::graders::load_all(&root).unwrap_or_else(|e| panic!("cannot list exercises: {e}"));
        loaded
            .into_iter()
            .map(|(dir, result)| result.unwrap_or_else(|e| panic!("{} does not load: {e}", dir.display())))
            .collect()
    })
}

fn exercises_of(kind: GraderKind) -> impl Iterator<Item = &'static Exercise> {
    exercises().iter().filter(move |e| e.grader_kind() == kind)
}

/// What every report must keep, whatever was submitted.
fn check_report(report: &Report, what: &str) {
    assert!(report.score.points <= report.score.max, "{what}: score above the maximum: {:?}", report.score);
    match report.verdict {
        Verdict::Rejected => {
            let rejection = report
                .rejection
                .as_ref()
                .unwrap_or_else(|| panic!("{what}: a rejected report must say why: {}", report.to_json()));
            assert!(!rejection.code.is_empty(), "{what}: rejection without a code");
            assert!(
                !rejection.message.de.trim().is_empty() && !rejection.message.en.trim().is_empty(),
                "{what}: rejection {} without a message in both languages",
                rejection.code
            );
        }
        Verdict::Passed => {
            assert!(report.failed_checks().next().is_none(), "{what}: passed with a failed check")
        }
        Verdict::Failed => {
            assert!(report.failed_checks().next().is_some(), "{what}: failed without a failed check")
        }
    }
    // The report is plain data: it serializes, and reads back as the same report.
    let json = report.to_json();
    let back: Report = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{what}: report JSON: {e}"));
    assert_eq!(&back, report, "{what}: report JSON does not read back");
}

/// Grades and demands a report: a student's submission never causes an error on our side.
fn must_grade(exercise: &Exercise, submission: &Submission, options: &GradeOptions) -> Report {
    match grade(exercise, submission, options) {
        Ok(report) => {
            check_report(&report, &exercise.slug);
            report
        }
        Err(error) => panic!("{}: grading ended in an error instead of a report: {error}", exercise.slug),
    }
}

/// A report whose outcome a wall-clock limit decided may differ between two runs; every other
/// report must be the same byte for byte.
fn decided_by_the_clock(json: &str) -> bool {
    json.contains("wall-clock-limit")
        || json.contains("time per delivery")
        || json.contains("time per submission")
}

/// Grades twice and demands the same report (determinism), unless a wall-clock limit decided it.
fn grade_twice(exercise: &Exercise, submission: &Submission) -> Report {
    let options = GradeOptions::default();
    let first = must_grade(exercise, submission, &options);
    let second = must_grade(exercise, submission, &options);
    let (a, b) = (first.to_json(), second.to_json());
    if a != b && !decided_by_the_clock(&a) && !decided_by_the_clock(&b) {
        panic!("{}: the same submission graded twice gave two reports:\n{a}\n---\n{b}", exercise.slug);
    }
    first
}

// ---------------------------------------------------------------------------------------------
// answer: the prediction parser, and grading the text against every prediction exercise.

/// The answer parser and the prediction grader. Invariants: the parser ends with a value or an
/// error at a position inside the text with a message in both languages; a parsed value reads back
/// from its own rendering; grading gives a report for every prediction exercise, for the lesson's
/// variant and a learner's, and an answer over [`ANSWER_BYTES_MAX`] is rejected.
pub fn answer(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match answer::parse(&text) {
        Ok(value) => {
            let rendered = value.render();
            match answer::parse(&rendered) {
                Ok(again) => {
                    assert_eq!(again, value, "{text:?} renders as {rendered:?}, which reads back otherwise")
                }
                Err(e) => panic!("{text:?} renders as {rendered:?}, which does not parse: {}", e.message.en),
            }
            assert!(value.total_cmp(&value).is_eq());
            let mutated = value.mutated();
            assert_ne!(mutated, value, "a mutated value must differ");
            assert!(value.total_cmp(&mutated).is_ne());
            assert!(value.sorted().same_kind(&value));
            let _ = value.to_json();
            let kind = value.kind();
            assert!(!kind.de.is_empty() && !kind.en.is_empty());
        }
        Err(e) => {
            let chars = text.chars().count();
            assert!(e.column >= 1 && e.column <= chars + 1, "column {} outside 1..={}", e.column, chars + 1);
            assert!(!e.message.de.trim().is_empty() && !e.message.en.trim().is_empty());
        }
    }
    let submission = Submission::Answer(text.into_owned());
    for exercise in exercises_of(GraderKind::Prediction) {
        for learner in [None, Some("fuzz-learner")] {
            let options = GradeOptions {
                learner: learner.map(str::to_string),
                course_secret: "fuzz-secret".into(),
                ..GradeOptions::default()
            };
            let report = must_grade(exercise, &submission, &options);
            if submission.bytes().len() > ANSWER_BYTES_MAX {
                assert_eq!(
                    report.verdict,
                    Verdict::Rejected,
                    "an answer over the size limit must be rejected"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// intake: the HTTP service's body parsers, called as functions.

/// The boundary of the multipart mode (the seeds in the corpus use it).
pub const MULTIPART_BOUNDARY: &str = "pruefstein-fuzz";

/// The intake parsers of the HTTP service. The first byte picks the mode: JSON body, multipart body
/// (fixed boundary), multipart with the `Content-Type` header taken from the input up to the first
/// newline, or the small parsers (`?wait=`, callback URL). Invariants: every body ends as a parsed
/// request or a problem (status 400 or 413) with a message in both languages; what a parsed
/// request holds goes through its own parser without a panic.
pub fn intake(data: &[u8]) {
    use pruefstein::service::http::intake as api;
    let Some((&mode, rest)) = data.split_first() else { return };
    let parsed = match mode % 4 {
        0 => api::parse_json(rest),
        1 => multipart(&format!("multipart/form-data; boundary={MULTIPART_BOUNDARY}"), rest),
        2 => {
            let (header, body) = match rest.iter().position(|b| *b == b'\n') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &[][..]),
            };
            // Header values are visible ASCII and tabs; anything else the HTTP layer refuses first.
            let header: String =
                header.iter().map(|&b| b as char).filter(|c| *c == '\t' || (' '..='~').contains(c)).collect();
            multipart(&header, body)
        }
        _ => {
            let text = String::from_utf8_lossy(rest);
            match api::parse_wait(Some(&text)) {
                Ok(ms) => assert!(ms <= pruefstein::limits::WAIT_MS_MAX, "wait {ms} above the limit"),
                Err(problem) => check_problem(&problem),
            }
            for allow_private in [false, true] {
                if let Err(e) = pruefstein::service::outbound::parse_target(&text, allow_private) {
                    assert!(!e.is_empty());
                }
            }
            return;
        }
    };
    match parsed {
        Ok(parsed) => {
            if let Some(text) = &parsed.answer {
                let _ = answer::parse(text);
            }
            if let Some(url) = &parsed.callback_url {
                let _ = pruefstein::service::outbound::parse_target(url, false);
            }
        }
        Err(problem) => check_problem(&problem),
    }
}

fn check_problem(problem: &pruefstein::service::problem::Problem) {
    assert!(
        matches!(problem.status, 400 | 413),
        "intake problem with status {}: {problem:?}",
        problem.status
    );
    assert!(!problem.detail.trim().is_empty() && !problem.detail_de.trim().is_empty(), "{problem:?}");
    serde_json::to_string(problem).unwrap_or_else(|e| panic!("problem does not serialize: {e}"));
}

fn multipart(
    content_type: &str,
    body: &[u8],
) -> Result<pruefstein::service::http::intake::Parsed, pruefstein::service::problem::Problem> {
    use actix_web::FromRequest;
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap_or_else(|e| panic!("cannot start a runtime: {e}"));
    }
    let (request, mut payload) = actix_web::test::TestRequest::post()
        .insert_header((actix_web::http::header::CONTENT_TYPE, content_type))
        .set_payload(body.to_vec())
        .to_http_parts();
    RUNTIME.with(|runtime| {
        runtime.block_on(async {
            let payload = actix_web::web::Payload::from_request(&request, &mut payload)
                .await
                .unwrap_or_else(|e| panic!("a test payload is always readable: {e}"));
            pruefstein::service::http::intake::parse_multipart(&request, payload).await
        })
    })
}

// ---------------------------------------------------------------------------------------------
// exercise: a teacher's folder with one file replaced.

/// The files of an exercise folder a teacher writes and the loader reads.
const TEACHER_FILES: &[&str] =
    &["exercise.toml", "statement.de.md", "statement.en.md", "schema.sql", "scenario.rhai"];

/// The exercise loader on a teacher's folder. The first byte picks one of the checkout's exercises,
/// the second which of its files (`exercise.toml`, statements, `schema.sql`, `scenario.rhai`) the
/// rest of the input replaces. Invariant: loading ends with an exercise or an error that names the
/// file (never a panic, never a hang).
pub fn exercise(data: &[u8]) {
    let [pick, file, content @ ..] = data else { return };
    let bases = exercise_dirs();
    let base = &bases[*pick as usize % bases.len()];
    let files: Vec<&str> = TEACHER_FILES.iter().copied().filter(|f| base.join(f).is_file()).collect();
    let file = files[*file as usize % files.len()];
    let Ok(temp) = tempfile::tempdir() else { return };
    let Some(name) = base.file_name() else { return };
    let dir = temp.path().join(name);
    copy_dir(base, &dir).unwrap_or_else(|e| panic!("cannot copy {}: {e}", base.display()));
    std::fs::write(dir.join(file), content).unwrap_or_else(|e| panic!("cannot write {file}: {e}"));
    if let Err(error) = pruefstein::graders::load(&dir) {
        let message = error.to_string();
        assert!(message.contains(&*dir.to_string_lossy()), "the error must name the file: {message}");
    }
}

fn exercise_dirs() -> &'static [PathBuf] {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let root = repo_root().join("exercises");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", root.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("exercise.toml").is_file())
            .collect();
        dirs.sort();
        dirs
    })
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// module: arbitrary bytes as a consumer submission.

/// Arbitrary bytes (binary wasm, WAT text, anything) submitted to every consumer exercise.
/// Invariant: a report (almost always `rejected`, with its reason), never an error.
pub fn module(data: &[u8]) {
    let submission = Submission::Module(data.to_vec());
    for exercise in exercises_of(GraderKind::Consumer) {
        must_grade(exercise, &submission, &GradeOptions::default());
    }
}

// ---------------------------------------------------------------------------------------------
// guest: valid modules that import ABI v1 and call it with arbitrary arguments.

/// Texts a generated guest keeps in its memory and passes to the host: the exercise's SQL, hostile
/// SQL (schema changes, attachments, several statements, runaway recursion, huge values), message
/// paths that exist and that do not, and text that is not what the call expects.
const GUEST_TEXTS: &[&str] = &[
    "BEGIN IMMEDIATE",
    "COMMIT",
    "ROLLBACK",
    "INSERT INTO gesehen (msg_id) VALUES (?1)",
    "INSERT OR IGNORE INTO gesehen (msg_id) VALUES (?1)",
    "UPDATE punkte SET stand = stand + ?2 WHERE kunde = ?1",
    "INSERT INTO punkte (kunde, stand) VALUES (?1, ?2)",
    "SELECT count(*) FROM gesehen WHERE msg_id = ?1",
    "SELECT stand FROM punkte WHERE kunde = ?1",
    "DELETE FROM gesehen",
    "DROP TABLE punkte",
    "ATTACH DATABASE 'x.db' AS x",
    "PRAGMA writable_schema = 1",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    "SELECT length(zeroblob(2000000))",
    "SELECT 1; SELECT 2",
    "CREATE TABLE t (x)",
    "SAVEPOINT a",
    "VACUUM",
    "id",
    "body",
    "body.kunde",
    "body.punkte",
    "body.0",
    "nope.nope",
    "",
    "ü\u{0}",
];

/// The guest's scratch buffer (for `msg.text`, `db.last_error`, `db.query_int`'s result).
const GUEST_SCRATCH: i32 = 8_192;

/// A valid module built from the input: it imports every ABI v1 function
/// (`consumer::abi::IMPORTS`), exports the exercise's entry and `memory`, keeps [`GUEST_TEXTS`] in
/// its memory, and its entry makes up to 32 calls, each with arguments drawn from the input: a
/// text's pointer and length, the scratch buffer, small numbers, arbitrary numbers, pointers at and
/// past the end of memory; now and then an endless loop around calls, or a trap. Graded end to end
/// twice against the first consumer exercise. Invariant: grading ends with a report (passed, failed
/// or rejected), and the two reports are the same byte for byte unless a wall-clock limit decided.
pub fn guest(data: &[u8]) {
    let Some(exercise) = exercises_of(GraderKind::Consumer).next() else { return };
    let Some(consumer) = exercise.grader_as::<pruefstein::consumer::ConsumerExercise>() else { return };
    let mut u = Unstructured::new(data);
    let Ok(wat) = guest_module(&mut u, &consumer.entry) else { return };
    grade_twice(exercise, &Submission::Module(wat.into_bytes()));
}

/// The WAT text of a generated guest.
pub fn guest_module(u: &mut Unstructured<'_>, entry: &str) -> arbitrary::Result<String> {
    use pruefstein::consumer::abi::IMPORTS;
    use pruefstein::sandbox::ValKind;
    let mut texts = Vec::new();
    let mut offset = 0i32;
    let mut data = String::new();
    for text in GUEST_TEXTS {
        texts.push((offset, text.len() as i32));
        for b in text.bytes() {
            data.push_str(&format!("\\{b:02x}"));
        }
        offset += text.len() as i32;
    }
    let mut wat = String::from("(module\n");
    for (i, spec) in IMPORTS.iter().enumerate() {
        let kinds = |keyword: &str, kinds: &[ValKind]| {
            if kinds.is_empty() {
                return String::new();
            }
            let names: String =
                kinds.iter().map(|k| if matches!(k, ValKind::I32) { " i32" } else { " i64" }).collect();
            format!(" ({keyword}{names})")
        };
        wat.push_str(&format!(
            "  (import \"{}\" \"{}\" (func $f{i}{}{}))\n",
            spec.module,
            spec.name,
            kinds("param", spec.params),
            kinds("result", spec.results)
        ));
    }
    wat.push_str(&format!("  (memory (export \"memory\") 1)\n  (data (i32.const 0) \"{data}\")\n"));
    wat.push_str(&format!("  (func (export {entry:?}) (result i32)\n"));
    let calls = u.int_in_range(0..=32)?;
    let mut open_loop = false;
    for _ in 0..calls {
        match u.int_in_range(0..=40)? {
            0 if !open_loop => {
                wat.push_str("    (loop $again\n");
                open_loop = true;
            }
            1 => wat.push_str("    unreachable\n"),
            _ => {}
        }
        let index = u.choose_index(IMPORTS.len())?;
        let spec = &IMPORTS[index];
        let mut args = Vec::new();
        while args.len() < spec.params.len() {
            let remaining = &spec.params[args.len()..];
            if remaining.len() >= 2
                && remaining[0] == ValKind::I32
                && remaining[1] == ValKind::I32
                && u.ratio(3, 4)?
            {
                let (ptr, len) = match u.int_in_range(0..=5)? {
                    0 => (GUEST_SCRATCH, 256),
                    1 => (65_536 - 4, 8),
                    2 => (u.arbitrary()?, u.arbitrary()?),
                    _ => texts[u.choose_index(texts.len())?],
                };
                args.push(format!("(i32.const {ptr})"));
                args.push(format!("(i32.const {len})"));
                continue;
            }
            args.push(match remaining[0] {
                ValKind::I32 => {
                    let value: i32 = match u.int_in_range(0..=3)? {
                        0 => u.int_in_range(-2..=10)?,
                        1 => GUEST_SCRATCH,
                        _ => u.arbitrary()?,
                    };
                    format!("(i32.const {value})")
                }
                ValKind::I64 => {
                    let value: i64 =
                        if u.ratio(1, 2)? { u.int_in_range(-2..=1_000)? } else { u.arbitrary()? };
                    format!("(i64.const {value})")
                }
            });
        }
        wat.push_str(&format!("    (call $f{index} {})\n", args.join(" ")));
        if !spec.results.is_empty() {
            wat.push_str("    drop\n");
        }
    }
    if open_loop {
        wat.push_str("    (br $again))\n");
    }
    let result: i32 = *u.choose(&[0, 1, 1, 2, -1])?;
    wat.push_str(&format!("    (i32.const {result})))\n"));
    Ok(wat)
}
