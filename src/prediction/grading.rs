//! Grades one prediction: reads the answer, splits it into parts, compares each part with the
//! learner's variant, and builds the report — per part a verdict, the expected value and, for a
//! wrong part, the simulated timeline and the teacher's hint.

use std::fmt::Write;

use super::answer::{self, Value};
use super::{Parameter, PredictionDetail, PredictionExercise, Scoring, Variant};
use crate::exercise::{Exercise, GraderKind};
use crate::exercise::{GradeError, GradeOptions};
use crate::limits::{ANSWER_BYTES_MAX, TIMELINE_LINES_MAX};
use crate::report::{CheckDetail, CheckReport, REPORT_FORMAT, Rejection, Report, Score, Verdict};
use crate::submission::Submission;
use crate::text;
use crate::text::Text;

/// Grades `submission` (an answer text) against the learner's variant of `prediction`.
pub fn grade(
    exercise: &Exercise,
    prediction: &PredictionExercise,
    submission: &Submission,
    options: &GradeOptions,
) -> Result<Report, GradeError> {
    let mut report = rejected_report(exercise, submission, options);
    let text = match submission {
        Submission::Answer(text) => text,
        Submission::Module(_) | Submission::Source { .. } => {
            report.rejection = Some(Rejection {
                code: "not-an-answer".into(),
                message: text!(
                    "Diese Übung erwartet eine Vorhersage als Text (--answer \"{e}\"), kein Modul.",
                    "This exercise expects a prediction as text (--answer \"{e}\"), not a module.",
                    e = prediction.example_text
                ),
            });
            return Ok(report);
        }
    };
    report.replay = Some(replay_command(exercise, text, options.learner.as_deref()));
    let variant = prediction
        .variant(&exercise.slug, options.learner.as_deref(), &options.course_secret)
        .map_err(|e| GradeError::Exercise { slug: exercise.slug.clone(), message: e.to_string() })?;
    let given = match read_answer(prediction, text) {
        Ok(given) => given,
        Err(rejection) => {
            report.rejection = Some(rejection);
            return Ok(report);
        }
    };
    let given_parts = match split_answer(prediction, &given) {
        Ok(parts) => parts,
        Err(rejection) => {
            report.rejection = Some(rejection);
            return Ok(report);
        }
    };
    let expected = &variant.outcome.answer;
    let expected_parts = prediction.split_parts(expected).ok_or_else(|| GradeError::Exercise {
        slug: exercise.slug.clone(),
        message: format!("the script's answer {} has the wrong number of parts", expected.render()),
    })?;
    let parts = part_reports(prediction, &variant, &expected_parts, &given_parts);
    let total = prediction.parts.len();
    let correct = parts.iter().filter(|c| c.passed).count();
    let all = correct == total;
    let points: u32 = parts.iter().filter(|c| c.passed).map(|c| c.points.map_or(0, |p| p.points)).sum();
    report.checks = parts;
    report.verdict = if all { Verdict::Passed } else { Verdict::Failed };
    report.score.points = match prediction.scoring {
        Scoring::AllOrNothing if all => exercise.points,
        Scoring::AllOrNothing => 0,
        Scoring::PerPart => points,
    };
    report.summary = if all {
        text!("Alle {total} Teile sind richtig.", "All {total} parts are correct.")
    } else {
        text!(
            "{correct} von {total} Teilen sind richtig; die Zeitachse der Simulation zeigt, was passiert.",
            "{correct} of {total} parts are correct; the simulation's timeline shows what happens."
        )
    };
    Ok(report)
}

/// The report of a submission that could not be graded, until grading says otherwise.
fn rejected_report(exercise: &Exercise, submission: &Submission, options: &GradeOptions) -> Report {
    Report {
        format: REPORT_FORMAT,
        exercise: exercise.slug.clone(),
        grader: GraderKind::Prediction,
        submission_sha256: submission.sha256(),
        learner: options.learner.clone(),
        verdict: Verdict::Rejected,
        score: Score { points: 0, max: exercise.points },
        summary: Text::new("Die Antwort konnte nicht bewertet werden.", "The answer could not be graded."),
        rejection: None,
        checks: Vec::new(),
        coverage: Vec::new(),
        replay: None,
        source: None,
        diagnosis: None,
    }
}

/// The answer as a value, or why it is not one: too long, or neither a Python tuple nor JSON.
fn read_answer(prediction: &PredictionExercise, text: &str) -> Result<Value, Rejection> {
    if text.len() > ANSWER_BYTES_MAX {
        return Err(Rejection {
            code: "answer-too-large".into(),
            message: text!(
                "Die Antwort ist {n} Bytes lang, erlaubt sind höchstens {ANSWER_BYTES_MAX}. Erwartete Form, z. B.: {e}",
                "The answer is {n} bytes long; at most {ANSWER_BYTES_MAX} are allowed. Expected shape, e.g.: {e}",
                n = text.len(),
                e = prediction.example_text
            ),
        });
    }
    answer::parse(text).map_err(|error| Rejection {
        code: "answer-syntax".into(),
        message: Text {
            de: format!(
                "Die Antwort ist weder ein Python-Tupel noch JSON: Zeichen {c}: {m}. Erwartete Form, z. B.: {e} oder {j}",
                c = error.column,
                m = error.message.de,
                e = prediction.example_text,
                j = prediction.example().to_json()
            ),
            en: format!(
                "The answer is neither a Python tuple nor JSON: character {c}: {m}. Expected shape, e.g.: {e} or {j}",
                c = error.column,
                m = error.message.en,
                e = prediction.example_text,
                j = prediction.example().to_json()
            ),
        },
    })
}

/// The answer's parts, or why it has not the exercise's shape.
fn split_answer<'a>(prediction: &PredictionExercise, given: &'a Value) -> Result<Vec<&'a Value>, Rejection> {
    prediction.split_parts(given).ok_or_else(|| {
        let names: Vec<&str> = prediction.parts.iter().map(|p| p.name.as_str()).collect();
        let kind = given.kind();
        Rejection {
            code: "answer-shape".into(),
            message: Text {
                de: format!(
                    "Erwartet werden {n} Werte in dieser Reihenfolge: {names}, z. B. {e}. Deine Antwort ist {k}.",
                    n = prediction.parts.len(),
                    names = names.join(", "),
                    e = prediction.example_text,
                    k = kind.de
                ),
                en: format!(
                    "Expected {n} values in this order: {names}, e.g. {e}. Your answer is {k}.",
                    n = prediction.parts.len(),
                    names = names.join(", "),
                    e = prediction.example_text,
                    k = kind.en
                ),
            },
        }
    })
}

/// One check per part: passed or not, the expected and the given value, and for the first wrong
/// part the variant's parameters; for a wrong part the timeline (one already shown is referenced).
fn part_reports(
    prediction: &PredictionExercise,
    variant: &Variant,
    expected_parts: &[&Value],
    given_parts: &[&Value],
) -> Vec<CheckReport> {
    let example_parts = prediction.split_parts(prediction.example()).unwrap_or_default();
    // Timelines already shown, by the part that showed them (identical ones are referenced).
    let mut shown_timelines: Vec<(&str, &[crate::sim::TimelineLine])> = Vec::new();
    let mut parameters_shown = false;
    let mut checks = Vec::with_capacity(prediction.parts.len());
    for (i, part) in prediction.parts.iter().enumerate() {
        let (exp, giv) = (expected_parts[i], given_parts[i]);
        let (exp, giv) =
            if part.any_order { (exp.sorted(), giv.sorted()) } else { (exp.clone(), giv.clone()) };
        let passed = exp == giv;
        let notation = example_parts.get(i).copied().unwrap_or(&exp);
        let expected_text = exp.with_brackets_of(notation).render();
        let given_text = giv.render();
        let part_points = part.points.unwrap_or(0);
        let mut timeline_see = None;
        let (timeline, omitted) = if passed {
            (Vec::new(), 0)
        } else {
            let lines = variant.outcome.timeline_for(&part.name);
            if let Some((earlier, _)) = shown_timelines.iter().find(|(_, t)| *t == lines) {
                timeline_see = Some(earlier.to_string());
                (Vec::new(), 0)
            } else {
                shown_timelines.push((part.name.as_str(), lines));
                let shown = lines.len().min(TIMELINE_LINES_MAX);
                (lines[..shown].to_vec(), lines.len() - shown)
            }
        };
        let show_parameters = !passed && !parameters_shown;
        parameters_shown |= show_parameters;
        let failure = (!passed).then(|| failure_text(&exp, &giv, &expected_text, &given_text));
        checks.push(CheckReport {
            name: part.name.clone(),
            title: part.title.clone(),
            passed,
            not_run: false,
            explanation: part.question.clone(),
            failure,
            hint: if passed { None } else { part.hint.clone() },
            points: (prediction.scoring == Scoring::PerPart)
                .then_some(Score { points: if passed { part_points } else { 0 }, max: part_points }),
            replay: None,
            detail: CheckDetail::Prediction(PredictionDetail {
                expected: exp.to_json(),
                expected_text,
                given: giv.to_json(),
                given_text,
                parameters: if show_parameters { parameters(variant) } else { Vec::new() },
                timeline,
                timeline_omitted: omitted,
                timeline_see,
            }),
        });
    }
    checks
}

fn parameters(variant: &Variant) -> Vec<Parameter> {
    variant.params.iter().map(|(name, value)| Parameter { name: name.clone(), value: *value }).collect()
}

fn failure_text(expected: &Value, given: &Value, expected_text: &str, given_text: &str) -> Text {
    let mut failure = text!(
        "Deine Antwort: {given_text}. Richtig ist: {expected_text}.",
        "Your answer: {given_text}. Correct is: {expected_text}."
    );
    if !expected.same_kind(given) {
        let (e, g) = (expected.kind(), given.kind());
        let _ = write!(failure.de, " Erwartet wird {}, deine Antwort ist {}.", e.de, g.de);
        let _ = write!(failure.en, " Expected {}, your answer is {}.", e.en, g.en);
    }
    failure
}

/// The command that reproduces this grade (the course secret comes from the environment).
fn replay_command(exercise: &Exercise, answer: &str, learner: Option<&str>) -> String {
    let mut command = format!("pruefstein grade {} --answer {}", exercise.replay_dir(), shell_quote(answer));
    if let Some(learner) = learner {
        let _ = write!(command, " --learner {}", shell_quote(learner));
    }
    command
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("(2, 2, 0)"), "'(2, 2, 0)'");
        assert_eq!(shell_quote("('a', 1)"), r"'('\''a'\'', 1)'");
    }
}
