//! The starter kits under `graders/consumer/kits/`, built from source with each kit's own build
//! command and graded with the library's grading code: each kit's correct solution of exercise 3
//! passes, each of its mutants fails the check it declares, and its skeleton compiles and gets a
//! clear failing report (graded, not rejected, not a crash).
//!
//! Every toolchain these tests need is installed by `scripts/test`; a missing one fails the test with
//! the command that installs it. Build outputs go to temporary directories.

use std::path::{Path, PathBuf};
use std::process::Command;

use pruefstein::grade::{GradeOptions, grade};
use pruefstein::report::{Report, Verdict};
use pruefstein::submission::{Language, Submission};
use pruefstein::text::Lang;

use crate::support::{consumer_exercise, failed, grade_consumer as grade_bytes, repo as root};

fn kit(name: &str) -> PathBuf {
    root().join("graders/consumer/kits").join(name)
}

/// Fails (never skips) when a tool is missing, naming what installs it.
fn require_tool(program: &str, args: &[&str], installed_by: &str) {
    let found = Command::new(program).args(args).output().is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`{program}` is missing: the kit tests need it. scripts/test installs it ({installed_by}); \
         run scripts/test or install it by hand"
    );
}

/// Runs a build command; panics with its output if it fails.
fn run(mut command: Command, what: &str) {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: cannot start {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The check a mutant declares in its source (`expect-fail: NAME` in a comment).
fn declared_check(source: &Path) -> String {
    let text = std::fs::read_to_string(source).expect("mutant source readable");
    text.lines()
        .find_map(pruefstein::consumer::expect_fail_on_line)
        .unwrap_or_else(|| panic!("{} declares no `expect-fail:` check", source.display()))
        .to_string()
}

/// One kit's sources: the skeleton, the correct solution and the mutants with the checks they fail.
struct KitCase {
    kit: &'static str,
    skeleton: &'static str,
    correct: &'static str,
    mutants: &'static [(&'static str, &'static str)],
}

/// Builds every source of `case` with `build` (source, output) in parallel, then grades and asserts.
fn check_kit(case: &KitCase, build: impl Fn(&Path, &Path) + Sync) {
    let dir = kit(case.kit);
    let out = tempfile::tempdir().expect("temporary directory");
    let mut sources = vec![case.skeleton, case.correct];
    sources.extend(case.mutants.iter().map(|(file, _)| *file));
    let modules: Vec<PathBuf> = sources
        .iter()
        .map(|s| out.path().join(Path::new(s).file_name().expect("file name")).with_extension("wasm"))
        .collect();
    // The skeleton first (it fills a compiler's cache, e.g. Zig's compiler_rt), then the rest in parallel.
    build(&dir.join(sources[0]), &modules[0]);
    std::thread::scope(|scope| {
        for (source, module) in sources.iter().zip(&modules).skip(1) {
            let (source, build) = (dir.join(source), &build);
            scope.spawn(move || build(&source, module));
        }
    });
    let read = |m: &PathBuf| std::fs::read(m).unwrap_or_else(|e| panic!("{}: {e}", m.display()));
    check_reports(case, |index| grade_bytes(read(&modules[index])));
}

/// Grades the skeleton (0), the correct solution (1) and the mutants (2, …) of `case` with `grade`
/// and asserts: the solution passes, each mutant fails its declared check, the skeleton fails
/// `fresh-message` with an explanation and its log line.
fn check_reports(case: &KitCase, grade: impl Fn(usize) -> Report) {
    let dir = kit(case.kit);
    let report = grade(1);
    assert_eq!(
        report.verdict,
        Verdict::Passed,
        "{} {}: failed {:?}",
        case.kit,
        case.correct,
        failed(&report)
    );
    assert_eq!(report.score.points, report.score.max);

    for (index, (file, check)) in case.mutants.iter().enumerate() {
        assert_eq!(&declared_check(&dir.join(file)), check, "{} {file}: declared check", case.kit);
        let report = grade(index + 2);
        assert_eq!(report.verdict, Verdict::Failed, "{} {file}", case.kit);
        assert!(
            failed(&report).iter().any(|c| c == check),
            "{} {file}: must fail {check}, failed {:?}",
            case.kit,
            failed(&report)
        );
    }

    // The skeleton compiles and is graded: a failing report that says what went wrong.
    let report = grade(0);
    assert_eq!(report.verdict, Verdict::Failed, "{} skeleton: {:?}", case.kit, report.rejection);
    assert!(report.rejection.is_none());
    let fresh = report.checks.iter().find(|c| c.name == "fresh-message").expect("fresh-message ran");
    assert!(!fresh.passed);
    let failure = fresh.failure.as_ref().expect("the failure is explained");
    assert!(failure.en.contains("expected"), "{}", failure.en);
    assert!(failure.de.contains("erwartet"), "{}", failure.de);
    let text = pruefstein::report::render_text(&report, Lang::En);
    assert!(text.contains("verarbeite is not written yet"), "the skeleton's log line is shown:\n{text}");
}

#[test]
fn c_kit_builds_and_grades() {
    require_tool("clang", &["--version"], "apt-get install clang lld");
    require_tool("wasm-ld", &["--version"], "apt-get install lld");
    let case = KitCase {
        kit: "c",
        skeleton: "consumer.c",
        correct: "examples/correct.c",
        mutants: &[
            ("examples/no-transaction.c", "crash-points"),
            ("examples/dedup-in-memory.c", "duplicate-after-restart"),
        ],
    };
    let build_script = kit("c").join("build.sh");
    check_kit(&case, |source, module| {
        let mut command = Command::new("sh");
        command.arg(&build_script).arg(source).arg(module);
        run(command, &format!("building {}", source.display()));
    });
}

#[test]
fn wat_kit_grades_directly() {
    let case = KitCase {
        kit: "wat",
        skeleton: "consumer.wat",
        correct: "examples/correct.wat",
        mutants: &[
            ("examples/swallows-error.wat", "constraint-violation"),
            ("examples/ignores-duplicate.wat", "duplicate-same-instance"),
            ("examples/commits-id-first.wat", "crash-points"),
        ],
    };
    // WAT has no build step: the text is the submission. "Building" copies it.
    check_kit(&case, |source, module| {
        std::fs::copy(source, module).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    });
}

/// Grades a kit whose files are source in `language`: no build step, the source is the submission.
fn check_source_kit(case: &KitCase, language: Language) {
    let dir = kit(case.kit);
    let mut sources = vec![case.skeleton, case.correct];
    sources.extend(case.mutants.iter().map(|(file, _)| *file));
    check_reports(case, |index| {
        let text = std::fs::read_to_string(dir.join(sources[index])).expect("kit source");
        grade(consumer_exercise(), &Submission::Source { language, text }, &GradeOptions::default())
            .expect("grades")
    });
}

#[test]
fn python_kit_grades_the_source() {
    let case = KitCase {
        kit: "python",
        skeleton: "consumer.py",
        correct: "examples/correct.py",
        mutants: &[
            ("examples/ignores-duplicate.py", "duplicate-same-instance"),
            ("examples/credits-before-remembering.py", "crash-points"),
        ],
    };
    check_source_kit(&case, Language::Python);
}

#[test]
fn javascript_kit_grades_the_source() {
    let case = KitCase {
        kit: "javascript",
        skeleton: "consumer.js",
        correct: "examples/correct.js",
        mutants: &[
            ("examples/ignores-duplicate.js", "duplicate-same-instance"),
            ("examples/credits-before-remembering.js", "crash-points"),
        ],
    };
    check_source_kit(&case, Language::JavaScript);
}

/// The Zig version `scripts/test` installs (`pip install ziglang==...`) and the kit documents.
const ZIG_VERSION: &str = "0.17.1";

#[test]
fn zig_kit_builds_and_grades() {
    let version = Command::new("python3").args(["-m", "ziglang", "version"]).output();
    let version = version.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    assert!(
        !version.is_empty(),
        "the Zig compiler is missing: scripts/test installs it (pip install ziglang=={ZIG_VERSION})"
    );
    println!("zig {version} (tested with {ZIG_VERSION})");
    let case = KitCase {
        kit: "zig",
        skeleton: "consumer.zig",
        correct: "examples/correct.zig",
        mutants: &[
            ("examples/errors-as-duplicates.zig", "constraint-violation"),
            ("examples/update-then-insert.zig", "crash-points"),
        ],
    };
    let build_script = kit("zig").join("build.sh");
    let cache = tempfile::tempdir().expect("temporary directory");
    check_kit(&case, |source, module| {
        let mut command = Command::new("sh");
        command.arg(&build_script).arg(source).arg(module).env("ZIG_GLOBAL_CACHE_DIR", cache.path());
        run(command, &format!("building {}", source.display()));
    });
}

fn assemblyscript_compiler() -> PathBuf {
    require_tool("node", &["--version"], "apt-get install nodejs npm");
    require_tool("npm", &["--version"], "apt-get install nodejs npm");
    let asc = kit("assemblyscript").join("node_modules/assemblyscript/bin/asc.js");
    assert!(
        asc.is_file(),
        "AssemblyScript is not installed in graders/consumer/kits/assemblyscript: scripts/test runs \
         `npm ci` there (from package-lock.json)"
    );
    asc
}

#[test]
fn assemblyscript_kit_builds_and_grades() {
    let asc = assemblyscript_compiler();
    let dir = kit("assemblyscript");
    let case = KitCase {
        kit: "assemblyscript",
        skeleton: "assembly/index.ts",
        correct: "examples/correct.ts",
        mutants: &[
            ("examples/check-then-act.ts", "concurrent-duplicate"),
            ("examples/acks-failed-credit.ts", "constraint-violation"),
        ],
    };
    check_kit(&case, |source, module| {
        // The flags live in asconfig.json, shared with the kit's `npm run build`.
        let mut command = Command::new("node");
        command.current_dir(&dir).arg(&asc).arg(source).args([
            "--config",
            "asconfig.json",
            "--target",
            "release",
        ]);
        command.arg("--outFile").arg(module);
        run(command, &format!("building {}", source.display()));
    });
}

/// The README's path for a learner: `npm ci`, fill in `assembly/index.ts`, `npm run build`,
/// `pruefstein grade exercises/03-… build/consumer.wasm` exits 0. The kit is copied to a temporary
/// folder (with the installed node_modules linked in), the skeleton replaced by the correct solution.
#[test]
fn assemblyscript_readme_path_reaches_a_passing_grade() {
    assemblyscript_compiler();
    let dir = kit("assemblyscript");
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("README.md");
    let grade_line = "pruefstein grade exercises/03-idempotenter-konsument graders/consumer/kits/assemblyscript/build/consumer.wasm";
    for command in ["npm ci", "npm run build", grade_line] {
        assert!(readme.lines().any(|l| l.trim() == command), "the README lists `{command}`");
    }
    let readme_de = std::fs::read_to_string(dir.join("README.de.md")).expect("README.de.md");
    for command in ["npm ci", "npm run build", grade_line] {
        assert!(readme_de.lines().any(|l| l.trim() == command), "README.de.md lists `{command}`");
    }

    let work = tempfile::tempdir().expect("temporary directory");
    let copy = work.path();
    for file in ["package.json", "package-lock.json", "asconfig.json", "assembly/pruefstein.ts"] {
        std::fs::create_dir_all(copy.join(file).parent().expect("parent")).expect("mkdir");
        std::fs::copy(dir.join(file), copy.join(file)).expect("copy kit file");
    }
    std::os::unix::fs::symlink(dir.join("node_modules"), copy.join("node_modules"))
        .expect("link node_modules");
    let solution = std::fs::read_to_string(dir.join("examples/correct.ts")).expect("correct.ts");
    let solution = solution.replace("\"../assembly/pruefstein\"", "\"./pruefstein\"");
    std::fs::write(copy.join("assembly/index.ts"), solution).expect("write index.ts");

    let mut build = Command::new("npm");
    build.current_dir(copy).args(["run", "build"]);
    run(build, "npm run build");
    let module = copy.join("build/consumer.wasm");
    assert!(module.is_file(), "npm run build writes build/consumer.wasm");

    let output = Command::new(env!("CARGO_BIN_EXE_pruefstein"))
        .env(pruefstein::cli::MODULE_CACHE_ENV, "off")
        .arg("grade")
        .arg(root().join("exercises/03-idempotenter-konsument"))
        .arg(&module)
        .output()
        .expect("pruefstein runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "the grade passes:\n{stdout}");
    assert!(stdout.contains("BESTANDEN"), "{stdout}");
}

/// The Rust kit: its SDK's unit tests and a check of every crate and example run on the host, always.
/// The wasm modules are built and graded where the `wasm32-unknown-unknown` target is installed; where
/// it is not (this project's CI toolchain has none and cannot fetch one), the test says so plainly.
#[test]
fn rust_kit_checks_on_the_host_and_builds_wasm_where_the_target_exists() {
    let dir = kit("rust");
    let target = tempfile::tempdir().expect("temporary directory");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut test = Command::new(&cargo);
    test.current_dir(&dir)
        .args(["test", "--locked", "--offline", "--workspace", "--all-targets"])
        .env("CARGO_TARGET_DIR", target.path());
    run(test, "cargo test of the Rust kit on the host");

    let installed = Command::new("rustup").args(["target", "list", "--installed"]).output();
    let installed = installed.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        println!(
            "NOTE: the Rust kit was checked and unit-tested on the host only; building wasm was not \
             possible: the target wasm32-unknown-unknown is not installed (installed: {})",
            installed.split_whitespace().collect::<Vec<_>>().join(", ")
        );
        return;
    }
    let case = KitCase {
        kit: "rust",
        skeleton: "consumer/src/lib.rs",
        correct: "sdk/examples/correct.rs",
        mutants: &[
            ("sdk/examples/no-transaction.rs", "crash-points"),
            ("sdk/examples/swallows-error.rs", "constraint-violation"),
        ],
    };
    let build_script = dir.join("build.sh");
    let build = |source: &Path, module: &Path| {
        let mut command = Command::new("sh");
        command.arg(&build_script).env("CARGO_TARGET_DIR", target.path());
        if source.ends_with("consumer/src/lib.rs") {
            command.arg(module);
        } else {
            let example = source.file_stem().and_then(|n| n.to_str()).expect("example name");
            command.args(["--example", example]).arg(module);
        }
        run(command, &format!("building {}", source.display()));
    };
    check_kit(&case, build);
}
