//! Prediction exercises end to end: the lesson's answers, per-part verdicts with timelines,
//! malformed answers, learner variants, broken teacher scripts, the seeded network, and the CLI.

use std::process::Command;

use pruefstein::exercise::Exercise;
use pruefstein::grade::{GradeOptions, grade};
use pruefstein::prediction::answer::parse;
use pruefstein::prediction::{PredictionDetail, PredictionExercise};
use pruefstein::report::{CheckDetail, Report, Verdict};
use pruefstein::sim::{Network, NetworkConfig};
use pruefstein::submission::Submission;
use pruefstein::text::Lang;

use crate::support::{BIN, exercise_dir, grade_answer, load};

fn prediction(exercise: &Exercise) -> &PredictionExercise {
    exercise.grader_as::<PredictionExercise>().expect("a prediction exercise")
}

fn detail(report: &Report, part: &str) -> PredictionDetail {
    let check = report.checks.iter().find(|c| c.name == part).expect("part in report");
    match &check.detail {
        CheckDetail::Prediction(d) => d.clone(),
        CheckDetail::Consumer(_) => panic!("wrong detail kind"),
    }
}

fn verdicts(report: &Report) -> Vec<(&str, bool)> {
    report.checks.iter().map(|c| (c.name.as_str(), c.passed)).collect()
}

#[test]
fn scripts_yield_the_lessons_answers() {
    let ex1 = load("01-visibility-timeout");
    assert_eq!(prediction(&ex1).lesson().outcome.answer, parse("(2, 2, 0)").unwrap());
    let ex2 = load("02-wann-acken");
    assert_eq!(prediction(&ex2).lesson().outcome.answer, parse("((0, 0), (2, 0), (1, 0))").unwrap());
    let ex0 = load("00-fake-netz");
    assert_eq!(prediction(&ex0).lesson().outcome.answer, parse("([1, 4, 3, 3, 5], [2], [3])").unwrap());

    for (exercise, answer) in
        [(&ex1, "(2, 2, 0)"), (&ex2, "((0, 0), (2, 0), (1, 0))"), (&ex0, "([1,4,3,3,5],[2],[3])")]
    {
        let report = grade_answer(exercise, answer, None);
        assert_eq!(report.verdict, Verdict::Passed, "{}", report.to_json());
        assert_eq!(report.score.points, report.score.max);
        assert!(report.checks.iter().all(|c| c.failure.is_none() && c.hint.is_none()));
    }
}

#[test]
fn json_and_python_answers_grade_alike() {
    let ex2 = load("02-wann-acken");
    for answer in ["[[0,0],[2,0],[1,0]]", "antwort = ((0, 0), (2, 0), (1, 0))", "(0, 0), (2, 0), (1, 0)"] {
        assert_eq!(grade_answer(&ex2, answer, None).verdict, Verdict::Passed, "{answer}");
    }
    let ex0 = load("00-fake-netz");
    // Lost and duplicated orders are sets; the arrival order is not.
    assert_eq!(grade_answer(&ex0, "((1, 4, 3, 3, 5), (2,), (3,))", None).verdict, Verdict::Passed);
    let swapped = grade_answer(&ex0, "([1, 3, 4, 3, 5], [2], [3])", None);
    assert_eq!(verdicts(&swapped), vec![("ankunft", false), ("verloren", true), ("doppelt", true)]);
}

#[test]
fn wrong_part_gets_its_verdict_points_and_the_timeline() {
    let ex1 = load("01-visibility-timeout");
    let report = grade_answer(&ex1, "(2, 1, 0)", None);
    assert_eq!(report.verdict, Verdict::Failed);
    assert_eq!(report.verdict.exit_code(), 1);
    assert_eq!(verdicts(&report), vec![("verarbeitet", true), ("versuche", false), ("offen", true)]);
    assert_eq!((report.score.points, report.score.max), (2, 3), "per-part scoring");
    let points: Vec<_> = report.checks.iter().map(|c| c.points.map(|p| (p.points, p.max))).collect();
    assert_eq!(points, vec![Some((1, 1)), Some((0, 1)), Some((1, 1))]);

    let wrong = &report.checks[1];
    let failure = wrong.failure.as_ref().expect("failure text");
    assert_eq!(failure.de, "Deine Antwort: 1. Richtig ist: 2.");
    assert_eq!(failure.en, "Your answer: 1. Correct is: 2.");
    assert!(wrong.hint.as_ref().expect("hint").de.contains("älteste sichtbare"));
    let d = detail(&report, "versuche");
    assert_eq!((d.expected.clone(), d.given.clone()), (serde_json::json!(2), serde_json::json!(1)));
    let lines: Vec<String> = d.timeline.iter().map(|l| l.render(Lang::De)).collect();
    for expected in [
        "t=0: A erhält zahlung-1 (Versuch 1), unsichtbar bis t=3",
        "t=2: B erhält zahlung-2 (Versuch 1), unsichtbar bis t=5",
        "t=3: kein Ack für zahlung-1 innerhalb des Visibility Timeouts: wieder sichtbar (nach 1 Versuch)",
        "t=4: C erhält zahlung-1 (Versuch 2), unsichtbar bis t=7",
        "t=4: Ack für zahlung-1 ist wirkungslos: die Nachricht ist schon gelöscht",
        "t=4: offen() liefert 0: jede Nachricht ist bestätigt (oder in der Dead Letter Queue)",
    ] {
        assert!(lines.iter().any(|l| l == expected), "missing {expected:?} in {lines:#?}");
    }
    let names: Vec<_> = d.parameters.iter().map(|p| (p.name.as_str(), p.value)).collect();
    assert_eq!(names, vec![("visibility_timeout", 3), ("tick_1", 2), ("tick_2", 2)]);
    assert!(detail(&report, "offen").timeline.is_empty(), "no timeline for a correct part");

    let text = pruefstein::report::render_text(&report, Lang::En);
    assert!(text.contains("✗ What is c[\"versuche\"]?  0/1"), "{text}");
    assert!(text.contains("t=4: C receives zahlung-1 (attempt 2), invisible until t=7"), "{text}");
    assert_eq!(
        report.replay.as_deref(),
        Some("pruefstein grade exercises/01-visibility-timeout --answer '(2, 1, 0)'")
    );
}

#[test]
fn all_or_nothing_and_timelines_per_scenario() {
    let ex2 = load("02-wann-acken");
    let report = grade_answer(&ex2, "((0, 0), (1, 0), (0, 1))", None);
    assert_eq!(
        verdicts(&report),
        vec![("ack_zuerst", true), ("wirkung_dann_tod", false), ("sofort_tod", false)]
    );
    assert_eq!(report.score.points, 0, "all or nothing");
    assert!(report.checks.iter().all(|c| c.points.is_none()));
    let d = detail(&report, "wirkung_dann_tod");
    let lines: Vec<String> = d.timeline.iter().map(|l| l.render(Lang::De)).collect();
    assert!(lines.contains(&"t=0: K1 bucht zahlung-1 (Wirkung)".to_string()), "{lines:#?}");
    assert!(lines.contains(&"t=3: K2 bucht zahlung-1 (Wirkung)".to_string()), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("stürzt sofort ab")), "only this scenario's timeline");
    let s = detail(&report, "sofort_tod");
    assert!(s.timeline.iter().any(|l| l.text.de.contains("stürzt sofort ab")));
    assert_eq!(s.timeline_see, None);
    // A pair where a number is expected is wrong, and the message says what kind was expected.
    let report = grade_answer(&ex2, "((0, 0), (2, 0), 1)", None);
    let failure = report.checks[2].failure.clone().expect("failure");
    assert!(failure.en.contains("Expected a sequence of 2 values, your answer is a number"), "{failure:?}");
}

#[test]
fn malformed_answers_are_rejected_with_an_example() {
    let ex1 = load("01-visibility-timeout");
    let cases = [
        ("(2, 2", "answer-syntax", "missing ')'"),
        ("(2; 2; 0)", "answer-syntax", "expected ',' or ')'"),
        ("zwei, zwei, null", "answer-syntax", "unknown word 'zwei'"),
        ("", "answer-syntax", "empty"),
        ("(2, 2)", "answer-shape", "Expected 3 values in this order: verarbeitet, versuche, offen"),
        ("2", "answer-shape", "Your answer is a number"),
        ("((2, 2, 0))", "answer-syntax", ""),
    ];
    for (answer, code, needle) in cases {
        let report = grade_answer(&ex1, answer, None);
        if answer == "((2, 2, 0))" {
            // Python: extra parentheses around a tuple are just grouping.
            assert_eq!(report.verdict, Verdict::Passed);
            continue;
        }
        assert_eq!(report.verdict, Verdict::Rejected, "{answer}");
        assert_eq!(report.verdict.exit_code(), 2);
        let rejection = report.rejection.as_ref().expect("rejection");
        assert_eq!(rejection.code, code, "{answer}");
        assert!(rejection.message.en.contains(needle), "{answer}: {}", rejection.message.en);
        assert!(rejection.message.de.contains("(1, 1, 1)"), "German message quotes the example");
        assert!(rejection.message.en.contains("(1, 1, 1)"), "English message quotes the example");
        assert!(report.checks.is_empty());
        assert_eq!(report.score.points, 0);
    }
    // Exercise 2 nests pairs in a tuple: a flat or short answer is the wrong shape, and the message
    // shows the nested example in both languages.
    let ex2 = load("02-wann-acken");
    for answer in ["(0, 0, 2, 0, 1, 0)", "((0, 0), (2, 0))", "[]"] {
        let report = grade_answer(&ex2, answer, None);
        assert_eq!(report.verdict, Verdict::Rejected, "{answer}");
        let rejection = report.rejection.expect("rejection");
        assert_eq!(rejection.code, "answer-shape", "{answer}");
        assert!(
            rejection.message.de.contains("Erwartet werden 3 Werte in dieser Reihenfolge: ack_zuerst, wirkung_dann_tod, sofort_tod, z. B. ((1, 1), (1, 1), (1, 1))"),
            "{}",
            rejection.message.de
        );
        assert!(rejection.message.en.contains("e.g. ((1, 1), (1, 1), (1, 1))"), "{}", rejection.message.en);
    }
    let huge = format!("({})", vec!["1"; 3000].join(", "));
    let report = grade_answer(&ex1, &huge, None);
    assert_eq!(report.rejection.map(|r| r.code).as_deref(), Some("answer-too-large"));
    let module = grade(&ex1, &Submission::Module(b"\0asm".to_vec()), &GradeOptions::default()).unwrap();
    assert_eq!(module.rejection.map(|r| r.code).as_deref(), Some("not-an-answer"));
}

#[test]
fn learners_get_their_own_variant_and_are_graded_against_it() {
    let ex1 = load("01-visibility-timeout");
    let p = prediction(&ex1);
    let variant = |learner: &str| p.variant(&ex1.slug, Some(learner), "").expect("variant");
    // Find, deterministically, a learner whose answer differs from the lesson's.
    let lesson_answer = p.lesson().outcome.answer.clone();
    let (anna, other) = (
        "anna",
        (0..200).map(|i| format!("learner-{i}")).find(|l| {
            variant(l).outcome.answer != lesson_answer && variant(l).params != variant("anna").params
        }),
    );
    let other = other.expect("some learner has another answer");
    let (va, vo) = (variant(anna), variant(&other));
    assert_ne!(va.params, vo.params);
    assert_eq!(variant(anna).params, va.params, "the same learner always gets the same variant");

    for (learner, v) in [(anna, &va), (other.as_str(), &vo)] {
        let own = v.outcome.answer.render();
        let report = grade_answer(&ex1, &own, Some(learner));
        assert_eq!(report.verdict, Verdict::Passed, "{learner} passes with their own answer");
        assert_eq!(report.learner.as_deref(), Some(learner));
        let statement = p.render_statement(v, Lang::De).unwrap();
        let timeout = v.params.iter().find(|(n, _)| n == "visibility_timeout").unwrap().1;
        assert!(statement.contains(&format!("Visibility Timeout von **{timeout} Ticks**")), "{statement}");
        assert!(statement.contains(&format!("q.tick({})", v.params[1].1)));
    }
    if va.outcome.answer != vo.outcome.answer {
        let cross = grade_answer(&ex1, &vo.outcome.answer.render(), Some(anna));
        assert_eq!(cross.verdict, Verdict::Failed, "another learner's answer is not this learner's");
    }
    let wrong_for_other = grade_answer(&ex1, &lesson_answer.render(), Some(&other));
    assert_eq!(wrong_for_other.verdict, Verdict::Failed, "the lesson's answer is wrong for {other}");
    let replay = wrong_for_other.replay.expect("replay");
    assert!(replay.ends_with(&format!("--learner '{other}'")), "{replay}");

    // The course secret changes the variants.
    let with_secret: Vec<_> = (0..20)
        .map(|i| p.variant(&ex1.slug, Some(&format!("l{i}")), "geheim").unwrap().params.clone())
        .collect();
    let without: Vec<_> = (0..20).map(|i| variant(&format!("l{i}")).params.clone()).collect();
    assert_ne!(with_secret, without);
}

#[test]
fn reports_are_deterministic() {
    let ex2 = load("02-wann-acken");
    let a = grade_answer(&ex2, "((1, 0), (2, 0), (1, 1))", Some("bert")).to_json();
    let ex2_again = load("02-wann-acken");
    let b = grade_answer(&ex2_again, "((1, 0), (2, 0), (1, 1))", Some("bert")).to_json();
    assert_eq!(a, b);
    let parsed: Report = serde_json::from_str(&a).expect("report JSON round-trips");
    assert_eq!(parsed.to_json(), a);
}

fn scratch_exercise(script: &str, statement: &str) -> tempfile::TempDir {
    scratch_exercise_with("lesson = 3", script, statement)
}

/// A one-part exercise with one parameter `n` (`parameter` is the rest of its declaration).
fn scratch_exercise_with(parameter: &str, script: &str, statement: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = r#"
slug = "kaputt"
grader = "prediction"
title.de = "Kaputt"
title.en = "Broken"
[prediction]
script = "scenario.rhai"
example = "1"
[[prediction.parameters]]
name = "n"
PARAMETER
[[prediction.parts]]
name = "wert"
title.de = "Wert"
title.en = "Value"
question.de = "Welcher Wert?"
question.en = "Which value?"
"#;
    std::fs::write(dir.path().join("exercise.toml"), toml.replace("PARAMETER", parameter))
        .expect("write the exercise file");
    std::fs::write(dir.path().join("scenario.rhai"), script).expect("write the exercise file");
    std::fs::write(dir.path().join("statement.de.md"), statement).expect("write the exercise file");
    std::fs::write(dir.path().join("statement.en.md"), "n = {{n}}").expect("write the exercise file");
    dir
}

#[test]
fn broken_teacher_scripts_fail_at_load_with_a_clear_error() {
    let ok = scratch_exercise("n * 2", "n = {{n}}");
    let exercise = pruefstein::graders::load(ok.path()).expect("a working script loads");
    assert_eq!(prediction(&exercise).lesson().outcome.answer, parse("6").unwrap());

    let cases = [
        ("let i = 0;\nwhile true { i += 1; }", "{{n}}", "scenario.rhai:2:", "more than 500000 operations"),
        // Not endless, only too long.
        (
            "let s = 0;\nfor i in 0..1000000 { s += i; }\ns",
            "{{n}}",
            "scenario.rhai:2:",
            "more than 500000 operations",
        ),
        ("fn f(x) { f(x) }\nf(n)", "{{n}}", "scenario.rhai", "deeper than 32 levels"),
        ("let x = ;", "{{n}}", "scenario.rhai:1:", ""),
        ("m * 2", "{{n}}", "scenario.rhai:1:1", "m"),
        ("n / 2.0", "{{n}}", "scenario.rhai", "not a valid answer"),
        ("throw \"kaputt\"", "{{n}}", "scenario.rhai:1:", "kaputt"),
        ("n", "{{unbekannt}}", "statement.de.md", "unknown placeholder {{unbekannt}}"),
        ("n", "{{n", "statement.de.md", "not closed"),
    ];
    for (script, statement, place, reason) in cases {
        let dir = scratch_exercise(script, statement);
        let started = std::time::Instant::now();
        let error = pruefstein::graders::load(dir.path()).expect_err(script).to_string();
        assert!(error.contains(place), "{script:?}: {error}");
        assert!(error.contains(reason), "{script:?}: {error}");
        assert!(started.elapsed().as_secs() < 10, "stopped promptly");
    }
}

#[test]
fn network_seeds_are_golden() {
    let run = |seed| {
        let mut net = Network::new(seed, NetworkConfig::default()).unwrap();
        for i in 1..=5 {
            net.send(format!("bestellung-{i}"));
        }
        net.deliver().into_iter().map(|a| a.body).collect::<Vec<_>>().join(" ")
    };
    assert_eq!(run(806), "bestellung-1 bestellung-4 bestellung-3 bestellung-3 bestellung-5");
    assert_eq!(run(0), "bestellung-2 bestellung-2 bestellung-3 bestellung-3 bestellung-5 bestellung-4");
    assert_eq!(run(42), "bestellung-2 bestellung-4");
    assert_eq!(run(806), run(806));
}

#[test]
fn bundled_exercises_are_sound() {
    for name in ["00-fake-netz", "01-visibility-timeout", "02-wann-acken"] {
        let exercise = load(name);
        let soundness = pruefstein::check::check_exercise(&exercise);
        assert!(soundness.sound(), "{name}:\n{}", soundness.render());
        assert_eq!(soundness.mutants_caught(), (3, 3), "{name}");
    }
}

#[test]
fn cli_statement_grade_and_exit_codes() {
    let bin = BIN;
    let dir = exercise_dir("01-visibility-timeout");
    let run = |args: &[&str]| {
        let out = Command::new(bin).args(args).env_remove("PRUEFSTEIN_COURSE_SECRET").output().expect("runs");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let dir = dir.to_str().unwrap();
    let (code, statement) = run(&["statement", dir, "--lang", "en"]);
    assert_eq!(code, Some(0));
    assert!(statement.contains("visibility timeout of **3 ticks**"), "{statement}");
    assert_eq!(run(&["grade", dir, "--answer", "(2, 2, 0)"]).0, Some(0));
    let (code, json) = run(&["grade", dir, "--answer", "(2, 2, 1)", "--json"]);
    assert_eq!(code, Some(1));
    let report: Report = serde_json::from_str(&json).expect("JSON report");
    assert_eq!(verdicts(&report), vec![("verarbeitet", true), ("versuche", true), ("offen", false)]);
    assert_eq!(run(&["grade", dir, "--answer", "(2, 2"]).0, Some(2));
    assert_eq!(run(&["grade", "/nonexistent-exercise", "--answer", "1"]).0, Some(3));
    let (code, out) = run(&["check", dir]);
    assert_eq!(code, Some(0));
    assert!(out.contains("exercise is sound"), "{out}");
}

fn run_cli(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("PRUEFSTEIN_COURSE_SECRET")
        .env(pruefstein::cli::MODULE_CACHE_ENV, "off")
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_explains_a_broken_script_with_file_and_line() {
    let cases = [
        ("let x = 1;\nlet y = ;\ny", "scenario.rhai:2:"),
        ("let i = 0;\nloop { i += 1; }", "more than 500000 operations"),
        ("let s = 0;\nfor i in 0..1000000 { s += i; }\ns", "more than 500000 operations"),
        ("let q = Queue(1);\nfor i in 0..20000 { q.send(\"m\"); }\n1", "more than 10000 events"),
    ];
    for (script, needle) in cases {
        let dir = scratch_exercise(script, "{{n}}");
        let path = dir.path().to_str().expect("utf-8 path");
        let (code, out, _) = run_cli(&["check", path]);
        assert_eq!(code, Some(1), "{script:?}: {out}");
        assert!(out.contains("scenario.rhai:"), "names the file and line: {out}");
        assert!(out.contains(needle), "{script:?}: {out}");
        assert!(out.contains("exercise is NOT sound"), "{out}");
        // Grading the same exercise is a teacher's error (exit 3), not the student's.
        let (code, _, err) = run_cli(&["grade", path, "--answer", "1"]);
        assert_eq!(code, Some(3), "{err}");
        assert!(err.contains("scenario.rhai:"), "{err}");
    }
}

#[test]
fn a_script_that_breaks_for_some_learners_is_caught_by_check_and_never_hangs_grading() {
    // The lesson's n = 3 is fine; n = 7 loops forever.
    let dir =
        scratch_exercise_with("lesson = 3\nmin = 1\nmax = 9", "if n == 7 {\n    loop { }\n}\nn", "n = {{n}}");
    let exercise = pruefstein::graders::load(dir.path()).expect("the lesson's variant is fine");
    let p = prediction(&exercise);
    let soundness = pruefstein::check::check_exercise(&exercise);
    assert!(!soundness.sound(), "{}", soundness.render());
    let problems = soundness.problems.join("\n");
    assert!(problems.contains("learner check-learner-"), "{problems}");
    assert!(problems.contains("scenario.rhai:2:"), "{problems}");
    assert!(problems.contains("more than 500000 operations"), "{problems}");

    let broken = (0..500)
        .map(|i| format!("learner-{i}"))
        .find(|l| p.variant(&exercise.slug, Some(l), "").is_err())
        .expect("some learner draws n = 7");
    let options = GradeOptions { learner: Some(broken.clone()), ..GradeOptions::default() };
    let error = grade(&exercise, &Submission::Answer("7".into()), &options).expect_err("teacher's error");
    assert!(error.to_string().contains("more than 500000 operations"), "{error}");
    let path = dir.path().to_str().expect("utf-8 path");
    let (code, _, err) = run_cli(&["grade", path, "--answer", "7", "--learner", &broken]);
    assert_eq!(code, Some(3), "{err}");
    // Another learner of the same exercise is graded as usual.
    let fine = (0..500)
        .map(|i| format!("learner-{i}"))
        .find(|l| p.variant(&exercise.slug, Some(l), "").is_ok())
        .expect("most learners are fine");
    let own = p.variant(&exercise.slug, Some(&fine), "").unwrap().outcome.answer.render();
    assert_eq!(grade_answer(&exercise, &own, Some(&fine)).verdict, Verdict::Passed);
}

#[test]
fn cli_renders_and_grades_a_learners_variant() {
    let exercise = load("01-visibility-timeout");
    let p = prediction(&exercise);
    let secret = "kurs-geheim";
    // A learner whose variant differs from the lesson's numbers (found deterministically).
    let learner = (0..200)
        .map(|i| format!("learner-{i}"))
        .find(|l| {
            let v = p.variant(&exercise.slug, Some(l), secret).expect("variant");
            v.outcome.answer != p.lesson().outcome.answer
        })
        .expect("some learner has another answer");
    let variant = p.variant(&exercise.slug, Some(&learner), secret).expect("variant");
    let timeout = variant.params[0].1;
    let dir = exercise_dir("01-visibility-timeout");
    let dir = dir.to_str().expect("utf-8 path");
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(args)
            .env("PRUEFSTEIN_COURSE_SECRET", secret)
            .env(pruefstein::cli::MODULE_CACHE_ENV, "off")
            .output()
            .expect("runs");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, statement) = run(&["statement", dir, "--learner", &learner, "--lang", "de"]);
    assert_eq!(code, Some(0));
    assert!(statement.contains(&format!("Visibility Timeout von **{timeout} Ticks**")), "{statement}");
    assert!(statement.contains(&format!("q.tick({})", variant.params[1].1)), "{statement}");
    let own = variant.outcome.answer.render();
    assert_eq!(run(&["grade", dir, "--answer", &own, "--learner", &learner]).0, Some(0));
    let (code, json) = run(&["grade", dir, "--answer", "(2, 2, 0)", "--learner", &learner, "--json"]);
    assert_eq!(code, Some(1), "the lesson's answer is not this learner's");
    let report: Report = serde_json::from_str(&json).expect("JSON report");
    assert_eq!(report.learner.as_deref(), Some(learner.as_str()));
    assert!(report.checks.iter().any(|c| !c.passed));
}

#[test]
fn check_finds_a_statement_that_hides_a_parameter_the_answer_depends_on() {
    // statement.de.md forgets {{n}}: learners read the same German text but must answer n.
    let dir = scratch_exercise_with("lesson = 3\nmin = 1\nmax = 9", "n", "Welcher Wert?");
    let exercise = pruefstein::graders::load(dir.path()).expect("loads");
    let soundness = pruefstein::check::check_exercise(&exercise);
    assert!(!soundness.sound(), "{}", soundness.render());
    let problems = soundness.problems.join("\n");
    assert!(problems.contains("read the same statement.de.md but have different answers"), "{problems}");
    assert!(problems.contains("{{name}} placeholder"), "{problems}");
    assert!(!problems.contains("statement.en.md"), "the English statement shows n: {problems}");
    // With the placeholder, the same exercise is sound.
    let fixed = scratch_exercise_with("lesson = 3\nmin = 1\nmax = 9", "n", "Welcher Wert hat n = {{n}}?");
    let soundness =
        pruefstein::check::check_exercise(&pruefstein::graders::load(fixed.path()).expect("loads"));
    assert!(soundness.sound(), "{}", soundness.render());
}

/// Exercise 11, the redrive prediction: the lesson's answer passes; a wrong count of dead letters
/// is explained by the simulated queue's timeline, where the poison message moves to the dead
/// letter queue after its last allowed receive and the crash after the COMMIT pushes nothing
/// there; its diagram draws the dead letter queue as a lane of its own.
#[test]
fn the_redrive_prediction_explains_the_dead_letter_queue_with_its_timeline() {
    let ex11 = load("11-redrive-vorhersagen");
    assert_eq!(prediction(&ex11).lesson().outcome.answer, parse("(2, 1, 0)").unwrap());
    assert_eq!(grade_answer(&ex11, "(2, 1, 0)", None).verdict, Verdict::Passed);
    let wrong = grade_answer(&ex11, "(2, 2, 0)", None);
    assert_eq!(verdicts(&wrong), vec![("wirkungen", true), ("dlq", false), ("offen", true)]);
    let dlq = detail(&wrong, "dlq");
    let lines: Vec<String> = dlq.timeline.iter().map(|l| l.render(Lang::En)).collect();
    assert!(
        lines.iter().any(|l| l == "t=6: abo-3 moves to the dead letter queue after 3 attempts"),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.contains("K crashes after the COMMIT, before the ack")), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("abo-1 moves to the dead letter queue")), "{lines:#?}");
    let layout = pruefstein::report::diagram::timeline_layout(&dlq, Lang::De);
    assert_eq!(layout.lanes.last().map(|l| l.header.as_str()), Some("DLQ"));
    // Learners get other receive limits, transient failures and rounds: four answers among them.
    let answers: std::collections::BTreeSet<String> = (0..40)
        .map(|n| {
            let learner = format!("learner-{n}");
            let p = prediction(&ex11);
            let variant = p.variant("11-redrive-vorhersagen", Some(&learner), "").expect("variant");
            format!("{:?}", variant.outcome.answer)
        })
        .collect();
    assert!(answers.len() >= 3, "{answers:?}");
}

#[test]
fn offsets_are_predicted_on_the_event_log_and_a_wrong_offset_is_explained_by_the_crash() {
    let exercise = load("12-offset-vorhersagen");
    let lesson = grade_answer(&exercise, "(4, 1, 6, 0)", None);
    assert_eq!(lesson.verdict, Verdict::Passed, "{:?}", verdicts(&lesson));
    // Committing `offset` instead of `offset + 1` in one's head: 4 was the last processed, not the next.
    let report = grade_answer(&exercise, "(3, 2, 6, 1)", None);
    assert_eq!(
        verdicts(&report),
        vec![("offset_beim_absturz", false), ("doppelt", false), ("rechnung", true), ("r2", false)]
    );
    let lines: Vec<String> =
        detail(&report, "offset_beim_absturz").timeline.iter().map(|l| l.render(Lang::De)).collect();
    assert!(
        lines
            .iter()
            .any(|l| l
                .contains("stürzt ab; es geht beim festgeschriebenen Offset weiter (Partition:Offset 0:4)")),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.contains("zum 2. Mal in dieser Gruppe")), "{lines:#?}");
}
