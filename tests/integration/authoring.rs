//! Writing exercises: `pruefstein new` scaffolds folders that pass `pruefstein check` as generated;
//! `check` explains each problem of a broken folder with its file and line; exercise 04-lager, written
//! only through this path, is sound.

use std::path::{Path, PathBuf};
use std::process::Command;

use pruefstein::authoring::scaffold;
use pruefstein::check::check_dir;
use pruefstein::exercise::GraderKind;
use pruefstein::exercise::Soundness;

use crate::support::{BIN, repo as root};

/// A fresh consumer scaffold in a temporary folder, to be broken by a test.
fn consumer_scaffold(name: &str) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join(name);
    scaffold(GraderKind::Consumer, &dir).expect("scaffold");
    (temp, dir)
}

/// The 1-based number of the first line of `file` (in `dir`) that contains `needle`.
fn line_of(dir: &Path, file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(dir.join(file)).expect("file readable");
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{file} has no {needle:?}")) + 1
}

fn edit(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).expect("file readable");
    assert!(text.contains(from), "{file} contains {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
}

/// Asserts that the folder is not sound and one problem contains every one of `parts`.
fn assert_problem(soundness: &Soundness, parts: &[&str]) {
    assert!(!soundness.sound(), "must not be sound:\n{}", soundness.render());
    assert!(
        soundness.problems.iter().any(|p| parts.iter().all(|part| p.contains(part))),
        "no problem contains {parts:?}:\n{}",
        soundness.render()
    );
}

#[test]
fn scaffolds_of_both_kinds_pass_check_as_generated() {
    let temp = tempfile::tempdir().expect("temporary directory");
    for (kind, name) in [(GraderKind::Consumer, "05-outbox"), (GraderKind::Prediction, "06-sichtbar")] {
        let dir = temp.path().join(name);
        let files = scaffold(kind, &dir).expect("scaffold");
        assert!(files.iter().any(|f| f == "statement.de.md") && files.iter().any(|f| f == "statement.en.md"));
        let toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
        assert!(toml.contains(&format!("slug = \"{name}\"")), "{toml}");
        let soundness = check_dir(&dir);
        assert!(soundness.sound(), "{name}:\n{}", soundness.render());
        let (caught, total) = soundness.mutants_caught();
        assert!(total >= 1 && caught == total, "{name}: {caught}/{total}");
    }
    // A consumer scaffold has its schema, reference and one mutant; every key of exercise.toml is
    // commented.
    let dir = temp.path().join("05-outbox");
    for file in ["schema.sql", "solutions/reference.wat", "mutants/no-transaction.wat"] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
    for key in
        ["slug =", "grader =", "points =", "entry =", "schema =", "reference =", "solutions =", "mutants ="]
    {
        let line = toml.lines().find(|l| l.trim_start().starts_with(key)).unwrap_or_else(|| panic!("{key}"));
        assert!(line.contains('#'), "{key} has a comment: {line}");
    }
    assert!(toml.contains("# fuel_per_delivery"), "the limits are listed, commented out");
}

#[test]
fn the_command_line_scaffolds_checks_and_refuses_to_overwrite() {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("07-neu");
    let binary = BIN;
    let new = Command::new(binary).arg("new").arg("consumer").arg(&dir).output().expect("runs");
    assert!(new.status.success(), "{}", String::from_utf8_lossy(&new.stderr));
    let check = Command::new(binary).arg("check").arg(&dir).output().expect("runs");
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("exercise is sound"), "{stdout}");
    // A second `new` into the same folder writes nothing and says why.
    let again = Command::new(binary).arg("new").arg("prediction").arg(&dir).output().expect("runs");
    assert_eq!(again.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&again.stderr).contains("is not empty"));
    assert!(!dir.join("scenario.rhai").exists());
}

#[test]
fn toml_syntax_errors_and_unknown_keys_are_named_with_line_and_column() {
    let (_temp, dir) = consumer_scaffold("10-syntax");
    edit(&dir, "exercise.toml", "points = 10", "points = = 10");
    let line = line_of(&dir, "exercise.toml", "points = = 10");
    assert_problem(&check_dir(&dir), &[&format!("exercise.toml:{line}:"), "expected"]);

    // Several syntax errors are all named at once.
    let (_temp, dir) = consumer_scaffold("10-two-syntax-errors");
    edit(&dir, "exercise.toml", "points = 10", "points = = 10");
    edit(&dir, "exercise.toml", "[consumer]", "[consumer");
    let first = line_of(&dir, "exercise.toml", "points = = 10");
    let second = line_of(&dir, "exercise.toml", "[consumer");
    let soundness = check_dir(&dir);
    assert_problem(&soundness, &[&format!("exercise.toml:{first}:")]);
    assert_problem(&soundness, &[&format!("exercise.toml:{second}:")]);

    let (_temp, dir) = consumer_scaffold("11-unknown-key");
    edit(&dir, "exercise.toml", "points = 10", "pointz = 10");
    let line = line_of(&dir, "exercise.toml", "pointz");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:1:"), "unknown key `pointz`; did you mean `points`?"],
    );

    let (_temp, dir) = consumer_scaffold("12-unknown-section-key");
    edit(&dir, "exercise.toml", "entry = \"verarbeite\"", "entri = \"verarbeite\"");
    let line = line_of(&dir, "exercise.toml", "entri =");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:1:"), "[consumer]", "unknown key `entri`; did you mean `entry`?"],
    );
}

#[test]
fn a_value_of_the_wrong_kind_is_named_in_tomls_words() {
    for (from, to, words) in [
        ("points = 10", "points = \"zehn\"", "found the text \"zehn\", but a whole number"),
        ("[title] ", "title = \"Konten\"\n[unused] ", "a text with `de` and `en`"),
        ("batch = [", "batch = 5\nunused = [", "found the number 5, but a list"),
    ] {
        let (_temp, dir) = consumer_scaffold("13-wrong-kind");
        edit(&dir, "exercise.toml", from, to);
        let needle = to.split(['\n', '=']).next().expect("a key").trim();
        let line = line_of(&dir, "exercise.toml", &format!("{needle} ="));
        let soundness = check_dir(&dir);
        assert_problem(&soundness, &[&format!("exercise.toml:{line}:"), words]);
        for rust in ["u32", "struct", "sequence", "expected a string"] {
            assert!(!soundness.render().contains(rust), "{rust:?} in {}", soundness.render());
        }
    }
}

#[test]
fn missing_files_are_named() {
    let (_temp, dir) = consumer_scaffold("13-no-schema");
    std::fs::remove_file(dir.join("schema.sql")).expect("remove");
    let line = line_of(&dir, "exercise.toml", "schema = \"schema.sql\"");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:"), "schema \"schema.sql\" cannot be read"],
    );

    // A file the exercise names must be a regular file inside the folder: a symbolic link (here to a
    // schema outside it) and a path that leaves the folder are not part of the exercise's version.
    let (temp, dir) = consumer_scaffold("13-schema-link");
    let outside = temp.path().join("outside.sql");
    std::fs::rename(dir.join("schema.sql"), &outside).expect("move");
    std::os::unix::fs::symlink(&outside, dir.join("schema.sql")).expect("link");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:"), "schema \"schema.sql\" cannot be read", "symbolic links"],
    );
    let (temp, dir) = consumer_scaffold("13-schema-outside");
    std::fs::copy(dir.join("schema.sql"), temp.path().join("outside.sql")).expect("copy");
    edit(&dir, "exercise.toml", "schema = \"schema.sql\"", "schema = \"../outside.sql\"");
    let line = line_of(&dir, "exercise.toml", "schema = \"../outside.sql\"");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:"), "cannot be read", "leaves the exercise folder"],
    );

    let (_temp, dir) = consumer_scaffold("14-no-statements");
    std::fs::remove_file(dir.join("statement.de.md")).expect("remove");
    std::fs::remove_file(dir.join("statement.en.md")).expect("remove");
    let soundness = check_dir(&dir);
    assert_problem(&soundness, &["statement.de.md: missing"]);
    assert_problem(&soundness, &["statement.en.md: missing"]);
}

#[test]
fn schema_errors_point_at_the_statement() {
    let (_temp, dir) = consumer_scaffold("15-schema");
    edit(&dir, "schema.sql", "CHECK (saldo <= 10000)", "CHEK (saldo <= 10000)");
    let line = line_of(&dir, "schema.sql", "CHEK");
    assert_problem(&check_dir(&dir), &[&format!("schema.sql:{line}:"), "near \"CHEK\""]);
}

#[test]
fn a_mutant_that_passes_or_fails_another_check_is_explained_at_its_declaration() {
    let (_temp, dir) = consumer_scaffold("16-mutants");
    // A "mutant" that is in fact the reference: it proves nothing.
    let reference = std::fs::read_to_string(dir.join("solutions/reference.wat")).expect("reference");
    std::fs::write(dir.join("mutants/not-wrong.wat"), format!(";; expect-fail: lost-ack\n{reference}"))
        .expect("write");
    // The scaffold's mutant, declared for a check it does not fail.
    edit(&dir, "mutants/no-transaction.wat", "expect-fail: crash-points", "expect-fail: same-body-new-id");
    let line = line_of(&dir, "mutants/no-transaction.wat", "expect-fail:");
    let soundness = check_dir(&dir);
    assert_problem(&soundness, &["mutants/not-wrong.wat:1:", "passes every check"]);
    assert_problem(
        &soundness,
        &[&format!("mutants/no-transaction.wat:{line}:"), "same-body-new-id", "fails only", "crash-points"],
    );
    assert_eq!(soundness.mutants_caught(), (0, 2));
}

#[test]
fn an_unknown_declared_check_is_named_with_the_known_ones() {
    let (_temp, dir) = consumer_scaffold("17-typo");
    edit(&dir, "mutants/no-transaction.wat", "expect-fail: crash-points", "expect-fail: crash-after-wirte");
    let line = line_of(&dir, "mutants/no-transaction.wat", "expect-fail:");
    let soundness = check_dir(&dir);
    assert_problem(
        &soundness,
        &[&format!("no-transaction.wat:{line}:"), "unknown check \"crash-after-wirte\"", "crash-points"],
    );
    // The mutant stays in the table, not caught: the share never reads 100% without it.
    assert_eq!(soundness.mutants_caught(), (0, 1), "{}", soundness.render());
    assert!(soundness.render().contains("mutants caught: 0/1 (0%)"), "{}", soundness.render());
}

/// A copy of exercise 05 with only the named mutants, in a temporary folder.
fn exercise_05_with_mutants(keep: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("05-buchung-und-mail");
    crate::support::copy_tree(&root().join("exercises/05-buchung-und-mail"), &dir);
    for entry in std::fs::read_dir(dir.join("mutants")).expect("mutants") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if !keep.contains(&name.as_str()) {
            std::fs::remove_file(&path).expect("remove");
        }
    }
    (temp, dir)
}

/// A mutant may declare an invariant it breaks instead of a check (`expect-fail: invariant NAME`):
/// it is caught when a state some check read violates that invariant, and not when it fails
/// checks without breaking it; an invariant the exercise does not declare is named with the ones
/// it does, at the line of the declaration.
#[test]
fn a_mutant_may_declare_the_invariant_it_breaks_and_is_held_to_it() {
    let keyed = "mutants/schluessel-neu-je-aufruf.js";
    let (after_commit, typo) = ("mutants/mail-nach-commit.py", "mutants/mail-nach-commit.wat");
    let (_temp, dir) = exercise_05_with_mutants(&[
        "schluessel-neu-je-aufruf.js",
        "mail-nach-commit.py",
        "mail-nach-commit.wat",
    ]);
    // Declared as the bundled exercise does: a new key per call breaks "at most one mail per booking".
    assert!(
        std::fs::read_to_string(dir.join(keyed))
            .expect("read")
            .contains("expect-fail: invariant hoechstens-eine-mail-pro-buchung")
    );
    // A mail sent after the COMMIT fails crash-points (the mail is lost) but never sends two.
    edit(
        &dir,
        after_commit,
        "expect-fail: crash-points",
        "expect-fail: invariant hoechstens-eine-mail-pro-buchung",
    );
    edit(&dir, typo, "expect-fail: crash-points", "expect-fail: invariant hoechstens-eine-mail");
    let typo_line = line_of(&dir, typo, "expect-fail:");
    let soundness = check_dir(&dir);
    let row = |file: &str| soundness.rows.iter().find(|r| r.file == file).expect("row");
    let keyed_row = row(keyed);
    assert!(keyed_row.ok, "{}", soundness.render());
    assert_eq!(keyed_row.expected_invariant(), Some("hoechstens-eine-mail-pro-buchung"));
    assert_eq!(keyed_row.violated_invariants, ["hoechstens-eine-mail-pro-buchung"]);
    let after_commit_row = row(after_commit);
    assert!(
        !after_commit_row.ok && after_commit_row.violated_invariants.is_empty(),
        "{}",
        soundness.render()
    );
    assert_problem(
        &soundness,
        &[
            "mail-nach-commit.py:1:",
            "declares \"expect-fail: invariant hoechstens-eine-mail-pro-buchung\"",
            "fails only crash-points",
        ],
    );
    assert_problem(
        &soundness,
        &[
            &format!("mail-nach-commit.wat:{typo_line}:"),
            "no invariant \"hoechstens-eine-mail\" in [[consumer.invariants]]",
            "hoechstens-eine-mail-pro-buchung",
        ],
    );
    assert_eq!(soundness.mutants_caught(), (1, 3));
    let table = soundness.render();
    assert!(
        table.lines().any(|l| l.starts_with(keyed)
            && l.contains("invariant hoechstens-eine-mail-pro-buchung  yes")
            && l.ends_with("at-least-once-schedule; invariant hoechstens-eine-mail-pro-buchung")),
        "{table}"
    );
}

/// An exercise without invariants refuses a mutant that declares one.
#[test]
fn a_declared_invariant_in_an_exercise_without_invariants_is_named() {
    let (_temp, dir) = consumer_scaffold("19-no-invariants");
    edit(
        &dir,
        "mutants/no-transaction.wat",
        "expect-fail: crash-points",
        "expect-fail: invariant money-kept",
    );
    let line = line_of(&dir, "mutants/no-transaction.wat", "expect-fail:");
    assert_problem(
        &check_dir(&dir),
        &[&format!("no-transaction.wat:{line}:"), "the exercise declares no invariant", "\"money-kept\""],
    );
}

#[test]
fn a_reference_that_fails_a_check_is_explained_at_its_key() {
    let (_temp, dir) = consumer_scaffold("18-reference");
    // REPLACE never reports the duplicate key (and has the same length, so the WAT stays valid): the
    // reference credits a redelivered message twice.
    edit(
        &dir,
        "solutions/reference.wat",
        "\"INSERT INTO verarbeitet (msg_id) VALUES (?)\"",
        "\"REPLACE INTO verarbeitet (msg_id) VALUES(?)\"",
    );
    let line = line_of(&dir, "exercise.toml", "reference = ");
    assert_problem(
        &check_dir(&dir),
        &[
            &format!("exercise.toml:{line}:"),
            "reference solution",
            "must pass every check",
            "duplicate-same-instance",
        ],
    );
}

#[test]
fn message_rules_point_at_the_message() {
    let (_temp, dir) = consumer_scaffold("19-messages");
    edit(&dir, "exercise.toml", "same_body = { id = 2,", "same_body = { id = 1,");
    let line = line_of(&dir, "exercise.toml", "same_body = { id = 1,");
    assert_problem(&check_dir(&dir), &[&format!("exercise.toml:{line}:"), "same_body must have another id"]);
}

#[test]
fn a_violation_message_that_violates_nothing_is_named_at_its_line() {
    let (_temp, dir) = consumer_scaffold("21-violation");
    edit(
        &dir,
        "exercise.toml",
        "body = { konto = \"ben\", betrag = 50 }",
        "body = { konto = \"ben\", betrag = 5 }",
    );
    let line = line_of(&dir, "exercise.toml", "violation = { id = 3");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:"), "must report an error for the violation message"],
    );
}

#[test]
fn a_prediction_scaffold_with_an_unknown_key_is_named_with_its_line() {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("20-prediction");
    scaffold(GraderKind::Prediction, &dir).expect("scaffold");
    edit(&dir, "exercise.toml", "example = \"(1, 1)\"", "exampel = \"(1, 1)\"");
    let line = line_of(&dir, "exercise.toml", "exampel");
    assert_problem(&check_dir(&dir), &[&format!("exercise.toml:{line}:"), "[prediction]", "exampel"]);
}

#[test]
fn exercise_04_lager_is_sound_and_each_mutant_fails_its_check() {
    let dir = root().join("exercises/04-lager");
    let soundness = check_dir(&dir);
    assert!(soundness.sound(), "{}", soundness.render());
    let mut declared: Vec<(String, String)> = soundness
        .rows
        .iter()
        .filter(|r| r.expect != "pass")
        .map(|r| (r.file.clone(), r.expect.clone()))
        .collect();
    declared.sort();
    assert_eq!(
        declared,
        [
            ("mutants/check-then-act.wat", "concurrent-duplicate"),
            ("mutants/clamps-at-zero.js", "constraint-violation"),
            ("mutants/clamps-at-zero.py", "constraint-violation"),
            ("mutants/clamps-at-zero.wat", "constraint-violation"),
            ("mutants/effect-before-dedup.wat", "at-least-once-schedule"),
            ("mutants/failed-reservation-committed-then-deleted.wat", "crash-points"),
            ("mutants/insert-or-ignore.py", "duplicate-same-instance"),
            ("mutants/insert-or-ignore.wat", "duplicate-same-instance"),
            ("mutants/reservation-committed-first.py", "crash-points"),
            ("mutants/reservation-committed-first.wat", "crash-points"),
            ("mutants/separate-writes.js", "crash-points"),
            ("mutants/separate-writes.py", "crash-points"),
            ("mutants/separate-writes.wat", "crash-points"),
            ("mutants/stock-taken-in-second-transaction.wat", "crash-points"),
        ]
        .map(|(f, c)| (f.to_string(), c.to_string()))
    );
    for row in &soundness.rows {
        if row.expect != "pass" {
            assert!(row.failed_checks.contains(&row.expect), "{}: {:?}", row.file, row.failed_checks);
        }
    }
}

#[test]
fn a_python_scaffold_passes_check_with_its_python_solution_and_mutant() {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("08-python");
    let files = pruefstein::authoring::scaffold_with(
        GraderKind::Consumer,
        &dir,
        Some(pruefstein::submission::Language::Python),
    )
    .expect("scaffold");
    for file in ["solutions/reference.py", "mutants/no-transaction.py"] {
        assert!(files.iter().any(|f| f == file) && dir.join(file).is_file(), "{file}: {files:?}");
    }
    // Python only: no WebAssembly text anywhere, and the Python reference is the oracle.
    assert!(!files.iter().any(|f| f.ends_with(".wat")), "{files:?}");
    let toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
    assert!(toml.contains("reference = \"solutions/reference.py\""), "{toml}");
    assert!(!toml.contains("WebAssembly") && !toml.contains("returns i32"), "{toml}");
    let languages = toml.lines().find(|l| l.starts_with("languages =")).expect("a languages line");
    assert!(languages.starts_with("languages = [\"python\"]") && languages.contains('#'), "{languages}");
    for (file, text) in [
        ("statement.de.md", "In Python: `def verarbeite(con, msg)`"),
        ("statement.en.md", "gets a `sqlite3` connection"),
    ] {
        let statement = std::fs::read_to_string(dir.join(file)).expect("statement");
        assert!(statement.contains(text), "{file}: {statement}");
    }
    // The Python reference passes, and the Python mutant fails its declared check.
    let soundness = check_dir(&dir);
    assert!(soundness.sound(), "{}", soundness.render());
    assert_eq!(soundness.mutants_caught(), (1, 1), "{}", soundness.render());
    let exercise = pruefstein::graders::load(&dir).expect("loads");
    let report = pruefstein::grade::grade(
        &exercise,
        &pruefstein::submission::Submission::Source {
            language: pruefstein::submission::Language::Python,
            text: std::fs::read_to_string(dir.join("mutants/no-transaction.py")).expect("mutant"),
        },
        &pruefstein::grade::GradeOptions::default(),
    )
    .expect("grades");
    let failed: Vec<&str> = report.checks.iter().filter(|c| !c.passed).map(|c| c.name.as_str()).collect();
    assert!(failed.contains(&"crash-points"), "{failed:?}");

    // On the command line; a prediction exercise takes no language, and nothing is written.
    let cli_dir = temp.path().join("09-python");
    let new = Command::new(BIN)
        .args(["new", "consumer", "--language", "python"])
        .arg(&cli_dir)
        .output()
        .expect("runs");
    assert!(new.status.success(), "{}", String::from_utf8_lossy(&new.stderr));
    assert!(String::from_utf8_lossy(&new.stdout).contains("mutants/no-transaction.py"));
    let prediction = temp.path().join("10-python");
    let refused = Command::new(BIN)
        .args(["new", "prediction", "--language", "python"])
        .arg(&prediction)
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--language is for consumer exercises"));
    assert!(!prediction.exists());
}

#[test]
fn source_scaffolds_are_sound_with_their_own_reference_as_the_oracle() {
    let temp = tempfile::tempdir().expect("temporary directory");
    for language in
        [pruefstein::submission::Language::JavaScript, pruefstein::submission::Language::TypeScript]
    {
        let dir = temp.path().join(format!("11-{}", language.name()));
        let files = pruefstein::authoring::scaffold_with(GraderKind::Consumer, &dir, Some(language))
            .expect("scaffold");
        assert!(!files.iter().any(|f| f.ends_with(".wat")), "{files:?}");
        let reference = format!("reference = \"solutions/reference.{}\"", language.extension());
        let toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
        assert!(toml.contains(&reference), "{toml}");
        let soundness = check_dir(&dir);
        assert!(soundness.sound(), "{}", soundness.render());
        assert_eq!(soundness.mutants_caught(), (1, 1), "{}", soundness.render());
    }
}

/// A Python-only scaffold whose reference books the fresh deposit to the wrong account ("cem"):
/// every mutant is then right where the reference is wrong.
fn wrong_reference(name: &str) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join(name);
    pruefstein::authoring::scaffold_with(
        GraderKind::Consumer,
        &dir,
        Some(pruefstein::submission::Language::Python),
    )
    .expect("scaffold");
    edit(&dir, "schema.sql", "('ben', 9990);", "('ben', 9990), ('cem', 0);");
    edit(
        &dir,
        "solutions/reference.py",
        "msg[\"body\"][\"konto\"]))",
        "\"cem\" if msg[\"body\"][\"konto\"] == \"anna\" else msg[\"body\"][\"konto\"]))",
    );
    (temp, dir)
}

#[test]
fn a_mutant_that_fails_the_fresh_message_for_another_reason_is_a_warning_and_fails_strict() {
    let (_temp, dir) = wrong_reference("18-wrong-account");
    let soundness = check_dir(&dir);
    assert!(soundness.sound() && !soundness.sound_strictly(), "{}", soundness.render());
    let warning = soundness.warnings.first().expect("a warning");
    for part in [
        "mutants/no-transaction.py:1:",
        "declares \"expect-fail: crash-points\"",
        "also fails fresh-message",
        "effect of the fresh message differs",
        "[consumer.expect] after_fresh",
    ] {
        assert!(warning.contains(part), "{part:?} in {warning}");
    }
    // The command line: sound without --strict, not sound with it.
    let plain = Command::new(BIN).arg("check").arg(&dir).output().expect("runs");
    assert_eq!(plain.status.code(), Some(0), "{}", String::from_utf8_lossy(&plain.stdout));
    let strict = Command::new(BIN).args(["check", "--strict"]).arg(&dir).output().expect("runs");
    assert_eq!(strict.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&strict.stdout).contains("warning: mutants/no-transaction.py:1:"));

    // A second mutant: every mutant fails every check, said once at the reference.
    std::fs::copy(dir.join("mutants/no-transaction.py"), dir.join("mutants/no-transaction-again.py"))
        .expect("copy");
    let soundness = check_dir(&dir);
    let line = line_of(&dir, "exercise.toml", "reference = ");
    assert!(
        soundness
            .warnings
            .iter()
            .any(|w| w.contains(&format!("exercise.toml:{line}:"))
                && w.contains("every mutant fails every check")),
        "{}",
        soundness.render()
    );
}

#[test]
fn a_pinned_state_after_the_fresh_message_is_checked_against_the_reference() {
    let (_temp, dir) = wrong_reference("19-pinned");
    let mut toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
    toml.push_str(
        "\n[consumer.expect]\nafter_fresh = { konten = [[\"anna\", 150], [\"ben\", 9990], [\"cem\", 0]] }\n",
    );
    std::fs::write(dir.join("exercise.toml"), &toml).expect("write");
    let line = line_of(&dir, "exercise.toml", "after_fresh = ");
    assert_problem(
        &check_dir(&dir),
        &[
            &format!("exercise.toml:{line}:"),
            "the reference solution solutions/reference.py leaves in konten ('anna', 100), ('cem', 50)",
            "pins ('anna', 150), ('cem', 0)",
        ],
    );
    // The right reference agrees with the pin; a query the state does not declare is named.
    edit(&dir, "solutions/reference.py", "\"cem\" if msg[\"body\"][\"konto\"] == \"anna\" else ", "");
    let soundness = check_dir(&dir);
    assert!(soundness.sound_strictly(), "{}", soundness.render());
    edit(&dir, "exercise.toml", "{ konten = ", "{ kontn = ");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:"), "the state query \"kontn\"", "declared: konten, verarbeitet"],
    );
}

#[test]
fn every_bundled_exercise_passes_check_strict() {
    let exercises = root().join("exercises");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&exercises)
        .expect("exercises")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("exercise.toml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5, "{dirs:?}");
    for dir in dirs {
        let soundness = check_dir(&dir);
        assert!(soundness.sound_strictly(), "{}:\n{}", dir.display(), soundness.render());
    }
}

#[test]
fn a_folder_whose_name_is_not_its_slug_is_named_at_the_slug() {
    let (_temp, dir) = consumer_scaffold("20-konto");
    edit(&dir, "exercise.toml", "slug = \"20-konto\"", "slug = \"20-konten\"");
    let line = line_of(&dir, "exercise.toml", "slug = ");
    assert_problem(
        &check_dir(&dir),
        &[
            &format!("exercise.toml:{line}:"),
            "slug \"20-konten\" differs from the folder's name \"20-konto\"",
        ],
    );
}

#[test]
fn two_folders_of_one_slug_make_the_second_an_error_at_its_slug() {
    let temp = tempfile::tempdir().expect("temporary directory");
    let (first, second) = (temp.path().join("21-a"), temp.path().join("21-b"));
    scaffold(GraderKind::Prediction, &first).expect("scaffold");
    scaffold(GraderKind::Prediction, &second).expect("scaffold");
    edit(&second, "exercise.toml", "slug = \"21-b\"", "slug = \"21-a\"");
    let line = line_of(&second, "exercise.toml", "slug = ");
    let loaded = pruefstein::graders::load_all(temp.path()).expect("loads");
    assert_eq!(loaded.len(), 2);
    assert!(loaded[0].1.is_ok(), "the first folder is the exercise");
    let error = loaded[1].1.as_ref().expect_err("the second is refused").to_string();
    for part in
        [&format!("21-b/exercise.toml:{line}:"), "slug \"21-a\" is already the slug of the folder", "21-a"]
    {
        assert!(error.contains(part), "{part:?} in {error}");
    }
}

#[test]
fn an_empty_or_copied_english_statement_is_named() {
    let (_temp, dir) = consumer_scaffold("22-statement");
    let german = std::fs::read_to_string(dir.join("statement.de.md")).expect("statement");
    std::fs::write(dir.join("statement.en.md"), "\n  \n").expect("write");
    assert_problem(&check_dir(&dir), &["statement.en.md:1:1:", "the statement is empty"]);
    // A copy of the German statement: a warning, a problem under --strict.
    std::fs::write(dir.join("statement.en.md"), &german).expect("write");
    let soundness = check_dir(&dir);
    assert!(soundness.sound() && !soundness.sound_strictly(), "{}", soundness.render());
    assert!(
        soundness
            .warnings
            .iter()
            .any(|w| w.contains("statement.en.md:1:1:") && w.contains("a copy of statement.de.md"))
    );
    // German written into the English file, under an English title.
    let body: String = german.lines().skip(1).collect::<Vec<_>>().join("\n");
    std::fs::write(dir.join("statement.en.md"), format!("# Book deposits\n{body}\n")).expect("write");
    let soundness = check_dir(&dir);
    assert!(
        soundness.warnings.iter().any(|w| w.contains("statement.en.md:") && w.contains("reads as German")),
        "{}",
        soundness.render()
    );
}

#[test]
fn a_placeholder_in_a_consumer_statement_is_named_with_line_and_column() {
    let (_temp, dir) = consumer_scaffold("23-placeholder");
    edit(&dir, "statement.en.md", "exactly\nonce", "exactly\n{{anzahl}} times");
    let line = line_of(&dir, "statement.en.md", "{{anzahl}}");
    assert_problem(&check_dir(&dir), &[&format!("statement.en.md:{line}:1:"), "{{anzahl}} is not filled in"]);
}

#[test]
fn a_syntax_error_in_a_source_mutant_is_named_at_its_own_file_and_line() {
    let temp = tempfile::tempdir().expect("temporary directory");
    for (language, file, broken, words, next) in [
        (
            pruefstein::submission::Language::Python,
            "mutants/no-transaction.py",
            "    with con:\n",
            "SyntaxError: invalid syntax",
            1,
        ),
        (
            pruefstein::submission::Language::JavaScript,
            "mutants/no-transaction.js",
            "export function ",
            "SyntaxError",
            0,
        ),
    ] {
        let dir = temp.path().join(format!("26-{}", language.name()));
        pruefstein::authoring::scaffold_with(GraderKind::Consumer, &dir, Some(language)).expect("scaffold");
        edit(&dir, file, broken, &format!("{broken}(\n"));
        let line = line_of(&dir, file, broken.trim_end()) + next;
        let soundness = check_dir(&dir);
        assert_problem(&soundness, &[&format!("{file}:{line}: the mutant is rejected"), words]);
        let render = soundness.render();
        assert!(!render.contains("consumer.py") && !render.contains("consumer.js"), "{render}");
    }
}

#[test]
fn a_broken_reference_is_explained_with_its_run_in_words() {
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("27-broken-oracle");
    pruefstein::authoring::scaffold_with(
        GraderKind::Consumer,
        &dir,
        Some(pruefstein::submission::Language::Python),
    )
    .expect("scaffold");
    // The fresh deposit goes to ben, whose balance then breaks the CHECK: the reference reports an
    // error for the fresh message.
    edit(&dir, "solutions/reference.py", "msg[\"body\"][\"konto\"]))", "\"ben\"))");
    let key = line_of(&dir, "exercise.toml", "fresh = ");
    let update = line_of(&dir, "solutions/reference.py", "UPDATE konten");
    let soundness = check_dir(&dir);
    assert_problem(
        &soundness,
        &[
            &format!("exercise.toml:{key}:"),
            "the reference solution must return 1 for the fresh message, but it returned 2 (an error)",
            "the reference solution's run:",
            &format!("line {update}: con.execute(\"UPDATE konten"),
            "IntegrityError: CHECK constraint failed",
        ],
    );
    let render = soundness.render();
    for rust in ["Returned(", "Faulted", "Text {"] {
        assert!(!render.contains(rust), "{rust:?} in {render}");
    }
}

#[test]
fn a_folders_own_check_texts_speak_in_its_reports() {
    let dir = root().join("exercises/09-ueberweisung");
    let exercise = pruefstein::graders::load(&dir).expect("loads");
    let mutant = std::fs::read_to_string(dir.join("mutants/fehler-verschluckt.py")).expect("mutant");
    let submission = pruefstein::submission::Submission::Source {
        language: pruefstein::submission::Language::Python,
        text: mutant,
    };
    let report =
        pruefstein::grade::grade(&exercise, &submission, &pruefstein::grade::GradeOptions::default())
            .expect("grades");
    let check = report.checks.iter().find(|c| c.name == "constraint-violation").expect("the check");
    assert!(!check.passed);
    assert!(
        check.explanation.en.starts_with("A transfer that would take an account below zero"),
        "{:?}",
        check.explanation
    );
    let hint = check.hint.as_ref().expect("the folder's hint");
    assert!(hint.de.contains("IntegrityError") && hint.en.contains("rolls the id back"), "{hint:?}");
    // A passed check keeps its explanation and shows no hint.
    let passed = report.checks.iter().find(|c| c.name == "crash-points").expect("the check");
    assert!(
        passed.passed && passed.hint.is_none() && passed.explanation.en.contains("money is neither created")
    );

    // A misspelt check name in [consumer.checks] is named with its line and the known checks.
    let (_temp, dir) = consumer_scaffold("28-texts");
    let mut toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
    toml.push_str("\n[consumer.checks.crash-pionts]\nhint = { de = \"…\", en = \"…\" }\n");
    std::fs::write(dir.join("exercise.toml"), toml).expect("write");
    let line = line_of(&dir, "exercise.toml", "[consumer.checks.crash-pionts]");
    assert_problem(&check_dir(&dir), &[&format!("exercise.toml:{line}:"), "crash-pionts", "crash-points"]);

    // A word in braces that is not one of the placeholders is refused at its line, since students
    // would read it as written; code in backticks may hold braces.
    let (_temp, dir) = consumer_scaffold("29-texts");
    let mut toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
    toml.push_str(
        "\n[consumer.checks.lost-ack]\nhint.de = \"Gib `{ ok: 1 }` nicht zurück.\"\nhint.en = \"Return {returned}.\"\n",
    );
    std::fs::write(dir.join("exercise.toml"), toml).expect("write");
    let line = line_of(&dir, "exercise.toml", "hint.en = \"Return {returned}.\"");
    assert_problem(
        &check_dir(&dir),
        &[&format!("exercise.toml:{line}:"), "{returned}", "{processed}", "{duplicate}"],
    );
}

/// A folder's check text names the return values as `{processed}` and `{duplicate}`, and each
/// student reads them in their own language's words (exercise 03 keeps the lesson's explanations
/// this way, in WAT, Python and JavaScript alike).
#[test]
fn a_folders_check_text_names_the_return_values_in_the_students_language() {
    let dir = root().join("exercises/03-idempotenter-konsument");
    let exercise = pruefstein::graders::load(&dir).expect("loads");
    for (file, language, duplicate) in [
        ("mutants/no-dedup.py", Some(pruefstein::submission::Language::Python), "`False`"),
        ("mutants/no-dedup.js", Some(pruefstein::submission::Language::JavaScript), "`false`"),
        ("mutants/no-dedup.wat", None, "0"),
    ] {
        let bytes = std::fs::read(dir.join(file)).expect("mutant");
        let submission = match language {
            Some(language) => pruefstein::submission::Submission::Source {
                language,
                text: String::from_utf8(bytes).expect("UTF-8"),
            },
            None => pruefstein::submission::Submission::Module(bytes),
        };
        let report =
            pruefstein::grade::grade(&exercise, &submission, &pruefstein::grade::GradeOptions::default())
                .expect("grades");
        let check = report.checks.iter().find(|c| c.name == "constraint-violation").expect("the check");
        assert!(
            check.explanation.de.contains("Obergrenze"),
            "{file}: the lesson's words: {:?}",
            check.explanation
        );
        assert!(
            check.explanation.de.contains(&format!("weder {duplicate} noch"))
                && !check.explanation.en.contains('{'),
            "{file}: {:?}",
            check.explanation
        );
    }
}

/// The code blocks of the walk-through in `exercises/README.md`, in order, with their language.
/// The fenced blocks of the walk-through headed `title` in `exercises/README.md`, up to the next
/// walk-through or section.
fn walk_through_blocks(title: &str) -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(root().join("exercises/README.md")).expect("README");
    let start = readme.find(&format!("### Walk-through: {title}")).expect("the walk-through");
    let section = &readme[start..];
    let end = [section[4..].find("\n## "), section[4..].find("\n### Walk-through")]
        .into_iter()
        .flatten()
        .min()
        .map_or(section.len(), |end| end + 4);
    let section = &section[..end];
    let mut blocks = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(language) = line.trim().strip_prefix("```").filter(|l| !l.is_empty()) else { continue };
        let indent = line.len() - line.trim_start().len();
        let mut body = String::new();
        for line in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            body.push_str(line.get(indent..).unwrap_or("").trim_end());
            body.push('\n');
        }
        blocks.push((language.to_string(), body));
    }
    blocks
}

#[test]
fn the_readme_walk_through_ends_sound() {
    let blocks = walk_through_blocks("a Python-only exercise");
    let block = |language: &str| {
        blocks
            .iter()
            .find(|(l, _)| l == language)
            .map(|(_, b)| b.clone())
            .unwrap_or_else(|| panic!("{language}"))
    };
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("11-umbuchung");
    // Step 1.
    let new =
        Command::new(BIN).args(["new", "consumer", "--language", "python"]).arg(&dir).output().expect("runs");
    assert!(new.status.success(), "{}", String::from_utf8_lossy(&new.stderr));
    // Steps 2 to 4.
    std::fs::write(dir.join("schema.sql"), block("sql")).expect("schema");
    std::fs::write(dir.join("solutions/reference.py"), block("python")).expect("reference");
    let toml = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
    let messages = toml.find("[consumer.messages]").expect("the messages");
    let mut toml = format!("{}{}", &toml[..messages], block("toml"));
    // Step 5.
    std::fs::write(
        dir.join("mutants/no-transaction.py"),
        "# expect-fail: crash-points\n# The debit in a transaction of its own: a crash after it destroys money.\nimport sqlite3\n\n\n\
         def verarbeite(con, msg):\n    body = msg[\"body\"]\n    with con:\n        try:\n            con.execute(\"INSERT INTO verarbeitet (msg_id) VALUES (?)\", (msg[\"id\"],))\n        except sqlite3.IntegrityError:\n            return False\n        con.execute(\"UPDATE konten SET saldo = saldo - ? WHERE konto = ?\", (body[\"betrag\"], body[\"von\"]))\n    with con:\n        con.execute(\"UPDATE konten SET saldo = saldo + ? WHERE konto = ?\", (body[\"betrag\"], body[\"an\"]))\n    return True\n",
    )
    .expect("mutant");
    toml.push_str(
        "\n[consumer.checks.crash-points]\nhint.de = \"Eine Transaktion.\"\nhint.en = \"One transaction.\"\n",
    );
    std::fs::write(dir.join("exercise.toml"), toml).expect("exercise.toml");
    let check = Command::new(BIN).args(["check", "--strict"]).arg(&dir).output().expect("runs");
    let out = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(0), "{out}");
    assert!(out.contains("exercise is sound") && out.contains("mutants caught: 1/1 (100%)"), "{out}");
    let files: Vec<_> = walk(&dir);
    assert!(!files.iter().any(|f| f.ends_with(".wat") || f.ends_with(".wasm")), "{files:?}");
}

/// The second walk-through of `exercises/README.md`: a pattern exercise with a mail provider, an
/// invariant as data and its classic mutant, written without Rust, ends sound; and the mails are
/// part of what is compared: a consumer that sends a second mail under a fresh key fails at once.
#[test]
fn the_pattern_walk_through_ends_sound() {
    let blocks = walk_through_blocks("a pattern exercise with an outside service");
    let of = |language: &str| -> Vec<String> {
        blocks.iter().filter(|(l, _)| l == language).map(|(_, b)| b.clone()).collect()
    };
    let (sql, python, toml) = (of("sql"), of("python"), of("toml"));
    assert_eq!((sql.len(), python.len(), toml.len()), (1, 2, 1), "{blocks:?}");
    let temp = tempfile::tempdir().expect("temporary directory");
    let dir = temp.path().join("13-willkommen");
    // Step 1.
    let new =
        Command::new(BIN).args(["new", "consumer", "--language", "python"]).arg(&dir).output().expect("runs");
    assert!(new.status.success(), "{}", String::from_utf8_lossy(&new.stderr));
    std::fs::remove_file(dir.join("mutants/no-transaction.py")).expect("the scaffold's mutant");
    // Steps 2 to 5.
    std::fs::write(dir.join("schema.sql"), &sql[0]).expect("schema");
    std::fs::write(dir.join("solutions/reference.py"), &python[0]).expect("reference");
    let scaffold = std::fs::read_to_string(dir.join("exercise.toml")).expect("exercise.toml");
    let state = scaffold.find("[[consumer.state]]").expect("the state");
    std::fs::write(dir.join("exercise.toml"), format!("{}{}", &scaffold[..state], toml[0]))
        .expect("exercise.toml");
    std::fs::write(dir.join("mutants/mail-nach-commit.py"), &python[1]).expect("mutant");
    let check = Command::new(BIN).args(["check", "--strict"]).arg(&dir).output().expect("runs");
    let out = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(0), "{out}");
    assert!(out.contains("exercise is sound") && out.contains("mutants caught: 1/1 (100%)"), "{out}");
    // A second mail under a fresh key for the same message: the provider sends it, the comparison sees it.
    let twice = python[0].replace(
        "        return True",
        "        mail.send_mail(key=str(msg[\"id\"]) + \"-2\", to=body[\"email\"], body=\"noch einmal\")\n        return True",
    );
    assert_ne!(twice, python[0]);
    let file = temp.path().join("zweimal.py");
    std::fs::write(&file, twice).expect("submission");
    let graded =
        Command::new(BIN).arg("grade").arg(&dir).arg(&file).args(["--lang", "en"]).output().expect("runs");
    let text = String::from_utf8_lossy(&graded.stdout);
    assert_eq!(graded.status.code(), Some(1), "{text}");
    assert!(text.contains("✗ Fresh message: The effect happened more than once"), "{text}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path.display().to_string());
        }
    }
    out
}
