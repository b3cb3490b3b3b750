//! The prediction grader: students predict what the queue simulation does (exercises 1 and 2 of the
//! lesson, and the fake network of its step 1), and Prüfstein grades the prediction by *running*
//! the exercise's scenario script on [`crate::sim`] for the learner's variant. Each part of the
//! answer gets its own verdict; a wrong part is explained with the simulated timeline.
//!
//! Files: [`answer`] parses answers, [`script`] runs scenarios, [`variant`] derives learner
//! parameters, [`statement`] fills statement templates, [`grading`] builds the report.

pub mod answer;
pub(crate) mod grader;
mod grading;
pub(crate) mod script;
pub(crate) mod statement;
pub(crate) mod variant;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use serde::Deserialize;

pub use crate::report::prediction::{Parameter, PredictionDetail};
pub use grading::grade;

use self::answer::Value;
use self::script::{Outcome, Params, Scenario};
use self::statement::Template;
use self::variant::{ParameterSpec, VariantError};
use crate::exercise::GradeOptions;
use crate::exercise::{Exercise, ExerciseError, FolderFiles, parse_section};
use crate::exercise::{Soundness, SoundnessRow};
use crate::limits::{Limits, VARIANT_CACHE_MAX};
use crate::submission::Submission;
use crate::text::{Lang, Text};

/// How many learner variants `pruefstein check` renders and solves.
pub(crate) const CHECK_LEARNERS: usize = 100;

/// The `[prediction]` section of `exercise.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Section {
    /// The scenario script, a file in the exercise folder.
    script: String,
    /// An answer of the right shape (not the solution), quoted in messages about malformed answers.
    example: String,
    #[serde(default)]
    scoring: Scoring,
    /// A Rhai expression over the parameters that every variant must satisfy.
    #[serde(default)]
    constraint: Option<String>,
    #[serde(default)]
    parameters: Vec<ParameterSpec>,
    parts: Vec<PartSpec>,
}

/// How parts turn into points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// The exercise's points for a fully correct answer, else 0.
    #[default]
    AllOrNothing,
    /// Each part has its own points; they add up to the exercise's points.
    PerPart,
}

/// One part of the answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartSpec {
    /// Stable name (the check's name in reports).
    pub name: String,
    pub title: Text,
    /// What the part asks (shown when it is wrong).
    pub question: Text,
    #[serde(default)]
    pub hint: Option<Text>,
    /// Points of this part (per-part scoring only).
    #[serde(default)]
    pub points: Option<u32>,
    /// The part is a collection whose order does not matter.
    #[serde(default)]
    pub any_order: bool,
}

/// One learner's variant: parameters and the scenario's outcome for them.
#[derive(Debug)]
pub struct Variant {
    pub params: Params,
    pub outcome: Outcome,
}

/// A loaded prediction exercise: the compiled scenario, the templates and the lesson's variant.
pub struct PredictionExercise {
    scenario: Scenario,
    pub scoring: Scoring,
    pub parameters: Vec<ParameterSpec>,
    pub parts: Vec<PartSpec>,
    /// The example answer as written, and parsed.
    pub example_text: String,
    example: Value,
    statement: [Template; 2],
    lesson: Arc<Variant>,
    /// Learner variants by seed (see [`VariantCache`]).
    cache: Mutex<VariantCache>,
}

impl std::fmt::Debug for PredictionExercise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PredictionExercise")
            .field("scenario", &self.scenario)
            .field("parts", &self.parts.iter().map(|p| &p.name).collect::<Vec<_>>())
            .field("parameters", &self.parameters)
            .finish_non_exhaustive()
    }
}

impl PredictionExercise {
    /// Loads the `[prediction]` section: compiles the script, parses the templates, and runs the
    /// lesson's variant once, so a broken script or template fails here and not while grading.
    pub(crate) fn load(
        files: FolderFiles<'_>,
        section: toml::Table,
        _limits: &Limits,
        points: u32,
    ) -> Result<Self, ExerciseError> {
        let section: Section = parse_section(&files, section, "prediction")?;
        let dir = files.dir;
        let toml_path = files.path(crate::exercise::EXERCISE_FILE);
        let invalid = |message: String| ExerciseError::Invalid { path: toml_path.clone(), message };

        check_parts_parameters_and_scoring(&section, points).map_err(invalid)?;

        let script_name = section.script.as_str();
        if script_name.is_empty() || script_name.contains(['/', '\\']) || script_name.starts_with('.') {
            return Err(invalid(format!(
                "script {script_name:?} must be a file name in the exercise folder"
            )));
        }
        let source = files.read_text(script_name)?;
        let script_error = |e: script::ScriptError| ExerciseError::Script {
            path: dir.join(&e.file),
            location: e.location,
            message: e.message,
        };
        let parameter_names: Vec<&str> = section.parameters.iter().map(|p| p.name.as_str()).collect();
        let scenario =
            Scenario::compile(script_name, source, &parameter_names, section.constraint.as_deref())
                .map_err(script_error)?;

        let example = answer::parse(&section.example).map_err(|e| {
            invalid(format!("[prediction] example {:?} does not parse: {}", section.example, e.message.en))
        })?;

        let template = |lang: &str| -> Result<Template, ExerciseError> {
            let name = format!("statement.{lang}.md");
            let path = files.path(&name);
            let source = files.read_text(&name)?;
            Template::parse(source).map_err(|message| ExerciseError::Invalid { path, message })
        };
        let statement = [template("de")?, template("en")?];

        let lesson_params = variant::lesson(&section.parameters);
        if !scenario.satisfies(&lesson_params).map_err(script_error)? {
            return Err(invalid("the lesson's parameter values break the [prediction] constraint".into()));
        }
        let outcome = scenario.run(&lesson_params).map_err(script_error)?;
        let exercise = PredictionExercise {
            scenario,
            scoring: section.scoring,
            parameters: section.parameters,
            parts: section.parts,
            example_text: section.example,
            example,
            statement,
            lesson: Arc::new(Variant { params: lesson_params, outcome }),
            cache: Mutex::new(VariantCache::default()),
        };
        if exercise.split_parts(&exercise.example).is_none() {
            return Err(invalid(format!(
                "[prediction] example {:?} does not have {} parts",
                exercise.example_text,
                exercise.parts.len()
            )));
        }
        exercise.validate_variant(&exercise.lesson).map_err(|m| ExerciseError::Invalid {
            path: dir.join(script_name),
            message: format!("lesson variant: {m}"),
        })?;
        exercise.check_lesson_placeholders(dir)?;
        Ok(exercise)
    }

    /// Every placeholder of the statements is known for the lesson's variant (learner variants
    /// are checked by `pruefstein check`).
    fn check_lesson_placeholders(&self, dir: &std::path::Path) -> Result<(), ExerciseError> {
        for (lang, template) in ["de", "en"].iter().zip(&self.statement) {
            if let Some(name) =
                template.placeholders().find(|n| self.lookup(&self.lesson, n, Lang::De).is_none())
            {
                return Err(ExerciseError::Invalid {
                    path: dir.join(format!("statement.{lang}.md")),
                    message: format!(
                        "unknown placeholder {{{{{name}}}}}: neither a parameter nor published by the script"
                    ),
                });
            }
        }
        Ok(())
    }

    /// The answer's parts, if it has the right number of them.
    pub(crate) fn split_parts<'a>(&self, value: &'a Value) -> Option<Vec<&'a Value>> {
        if self.parts.len() == 1 {
            return Some(vec![value]);
        }
        match value {
            Value::Seq(items, _) if items.len() == self.parts.len() => Some(items.iter().collect()),
            _ => None,
        }
    }

    /// A variant's expected answer must have the right number of parts and survive a round trip
    /// through the answer parser (so a student can type it).
    fn validate_variant(&self, variant: &Variant) -> Result<(), String> {
        let answer = &variant.outcome.answer;
        if self.split_parts(answer).is_none() {
            return Err(format!(
                "the script's answer {} does not have {} parts",
                answer.render(),
                self.parts.len()
            ));
        }
        match answer::parse(&answer.render()) {
            Ok(parsed) if parsed == *answer => Ok(()),
            _ => Err(format!("the script's answer {} cannot be typed back as an answer", answer.render())),
        }
    }

    /// The value of a statement placeholder for a variant.
    fn lookup(&self, variant: &Variant, name: &str, lang: Lang) -> Option<String> {
        if let Some((_, v)) = variant.params.iter().find(|(n, _)| n == name) {
            return Some(v.to_string());
        }
        variant.outcome.published.get(name).map(|t| t.get(lang).to_string())
    }

    /// Whether learners get different parameters.
    pub(crate) fn has_variants(&self) -> bool {
        self.parameters.iter().any(ParameterSpec::varies)
    }

    /// The lesson's variant (no learner id).
    pub fn lesson(&self) -> &Arc<Variant> {
        &self.lesson
    }

    /// The variant of `learner` (the lesson's without one). Computed once and cached.
    pub fn variant(
        &self,
        slug: &str,
        learner: Option<&str>,
        course_secret: &str,
    ) -> Result<Arc<Variant>, VariantError> {
        let Some(learner) = learner else { return Ok(self.lesson.clone()) };
        let seed = variant::learner_seed(slug, learner, course_secret);
        if let Some(v) = self.cache.lock().unwrap_or_else(|p| p.into_inner()).get(&seed) {
            return Ok(v);
        }
        let params = variant::derive(&self.parameters, seed, |p| self.scenario.satisfies(p))?;
        let outcome = self.scenario.run(&params)?;
        let v = Arc::new(Variant { params, outcome });
        let retired = self.cache.lock().unwrap_or_else(|p| p.into_inner()).insert(seed, v.clone());
        // Dropping a retired generation frees thousands of variants: not while others wait.
        drop(retired);
        Ok(v)
    }

    /// The statement of a variant.
    pub fn render_statement(&self, variant: &Variant, lang: Lang) -> Result<String, String> {
        let template = match lang {
            Lang::De => &self.statement[0],
            Lang::En => &self.statement[1],
        };
        template.render(|name| self.lookup(variant, name, lang))
    }

    pub(crate) fn example(&self) -> &Value {
        &self.example
    }
}

/// The parts are named uniquely, the parameters declared once and valid, and the points fit the
/// scoring: per part, they add up to the exercise's; all or nothing, no part has its own.
fn check_parts_parameters_and_scoring(section: &Section, points: u32) -> Result<(), String> {
    if section.parts.is_empty() {
        return Err("[prediction] needs at least one [[prediction.parts]]".into());
    }
    let mut names = BTreeSet::new();
    for part in &section.parts {
        if !variant::is_identifier(&part.name.replace('-', "_")) || !names.insert(part.name.as_str()) {
            return Err(format!("part name {:?} must be unique, a-z, 0-9, '-' or '_'", part.name));
        }
    }
    let mut param_names = BTreeSet::new();
    for p in &section.parameters {
        p.validate().map_err(|m| format!("[prediction] {m}"))?;
        if !param_names.insert(p.name.as_str()) {
            return Err(format!("parameter {:?} is declared twice", p.name));
        }
    }
    match section.scoring {
        Scoring::AllOrNothing => {
            if let Some(part) = section.parts.iter().find(|p| p.points.is_some()) {
                return Err(format!(
                    "part {:?} has points, but scoring is all-or-nothing (set scoring = \"per-part\")",
                    part.name
                ));
            }
        }
        Scoring::PerPart => {
            let mut sum = 0u32;
            for part in &section.parts {
                let p = part
                    .points
                    .ok_or_else(|| format!("scoring = \"per-part\": part {:?} needs points", part.name))?;
                sum = sum.saturating_add(p);
            }
            if sum != points {
                return Err(format!(
                    "the parts' points add up to {sum}, but the exercise has points = {points}"
                ));
            }
        }
    }

    Ok(())
}

/// Learner variants kept in memory, at most [`VARIANT_CACHE_MAX`]: two generations of half that
/// size each. New variants go into the current one; when it is full, it becomes the previous one and
/// the previous one is retired. A variant found in the previous generation moves back into the
/// current one, so learners who keep answering keep their variant, and no moment drops them all.
#[derive(Debug, Default)]
struct VariantCache {
    current: HashMap<[u8; 32], Arc<Variant>>,
    previous: HashMap<[u8; 32], Arc<Variant>>,
}

impl VariantCache {
    const GENERATION: usize = VARIANT_CACHE_MAX / 2;

    /// A cached variant; one found in the previous generation moves into the current one while
    /// that has room (moving never retires a generation, so a lookup never drops variants).
    fn get(&mut self, seed: &[u8; 32]) -> Option<Arc<Variant>> {
        if let Some(v) = self.current.get(seed) {
            return Some(v.clone());
        }
        let v = self.previous.get(seed)?.clone();
        if self.current.len() < Self::GENERATION {
            self.previous.remove(seed);
            self.current.insert(*seed, v.clone());
        }
        Some(v)
    }

    /// Inserts a variant and returns the generation it retired, if any, for the caller to drop
    /// outside the lock.
    fn insert(&mut self, seed: [u8; 32], variant: Arc<Variant>) -> Option<HashMap<[u8; 32], Arc<Variant>>> {
        let retired = (self.current.len() >= Self::GENERATION)
            .then(|| std::mem::replace(&mut self.previous, std::mem::take(&mut self.current)));
        self.current.insert(seed, variant);
        retired
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.current.len() + self.previous.len()
    }
}

/// `pruefstein check` for a prediction exercise: the script runs within its limits for the lesson
/// and for [`CHECK_LEARNERS`] learners, every statement renders, every variant has a well-formed
/// answer that grades as correct, and a wrong value in any one part fails exactly that part.
pub(crate) fn check(exercise: &Exercise, prediction: &PredictionExercise) -> Soundness {
    let mut soundness = Soundness::default();
    let script = prediction.scenario.file().to_string();
    let lesson = prediction.lesson();
    soundness.rows.push(SoundnessRow {
        file: script.clone(),
        expect: "pass".into(),
        failed_checks: vec![],
        violated_invariants: vec![],
        ok: true,
        note: format!(
            "lesson answer {}",
            lesson.outcome.answer.with_brackets_of(prediction.example()).render()
        ),
    });

    check_answers(exercise, prediction, &mut soundness);
    check_learner_variants(exercise, prediction, &mut soundness);
    soundness
}

/// The lesson's answer passes, and a wrong value in one part fails exactly that part.
fn check_answers(exercise: &Exercise, prediction: &PredictionExercise, soundness: &mut Soundness) {
    let lesson = prediction.lesson();
    let options = GradeOptions::default();
    let grade_text = |text: String, options: &GradeOptions| {
        grade(exercise, prediction, &Submission::Answer(text), options).map_err(|e| e.to_string())
    };
    let expected_parts: Vec<Value> = prediction
        .split_parts(&lesson.outcome.answer)
        .map(|parts| parts.into_iter().cloned().collect())
        .unwrap_or_default();
    let mut answers = vec![("lesson answer".to_string(), "pass".to_string(), lesson.outcome.answer.clone())];
    for (i, part) in prediction.parts.iter().enumerate() {
        let mut parts = expected_parts.clone();
        if let Some(p) = parts.get_mut(i) {
            *p = p.mutated();
        }
        let mutant = if parts.len() == 1 {
            parts.pop().unwrap_or(Value::None)
        } else {
            Value::Seq(parts, answer::Brackets::Round)
        };
        answers.push((format!("mutant of part {}", part.name), part.name.clone(), mutant));
    }
    for (file, expect, value) in answers {
        let value = value.with_brackets_of(prediction.example());
        let row = match grade_text(value.render(), &options) {
            Ok(report) => {
                let failed: Vec<String> = report.failed_checks().map(|c| c.name.clone()).collect();
                let ok = if expect == "pass" {
                    report.verdict == crate::report::Verdict::Passed
                } else {
                    failed == [expect.clone()]
                };
                SoundnessRow {
                    file,
                    expect,
                    failed_checks: failed,
                    violated_invariants: vec![],
                    ok,
                    note: value.render(),
                }
            }
            Err(e) => SoundnessRow {
                file,
                expect,
                failed_checks: vec![],
                violated_invariants: vec![],
                ok: false,
                note: e,
            },
        };
        soundness.rows.push(row);
    }
}

/// [`CHECK_LEARNERS`] learners' variants: each valid, its statements rendered, its own answer
/// passing; two learners who read the same statement have the same answer; parameters that have
/// ranges vary.
fn check_learner_variants(exercise: &Exercise, prediction: &PredictionExercise, soundness: &mut Soundness) {
    let lesson = prediction.lesson();
    let grade_text = |text: String, options: &GradeOptions| {
        grade(exercise, prediction, &Submission::Answer(text), options).map_err(|e| e.to_string())
    };
    let mut params_seen = BTreeSet::new();
    let mut answers_seen = BTreeSet::new();
    let mut failures = 0;
    // Who read which statement, and the answer it leads to: two learners who read the same text
    // must have the same answer, or the statement lacks a parameter that changes it.
    let mut readers: [BTreeMap<String, (String, String)>; 2] = [BTreeMap::new(), BTreeMap::new()];
    let mut unreadable = [false, false];
    let mut read = |learner: &str, statements: [String; 2], answer: String| {
        for (i, statement) in statements.into_iter().enumerate() {
            let entry = readers[i].entry(statement).or_insert_with(|| (learner.to_string(), answer.clone()));
            if entry.1 != answer && !unreadable[i] {
                unreadable[i] = true;
                let lang = if i == 0 { "de" } else { "en" };
                return Some(format!(
                    "{} and {learner} read the same statement.{lang}.md but have different answers ({} and \
                     {answer}): the statement lacks a parameter (a {{{{name}}}} placeholder) that changes the answer",
                    entry.0, entry.1
                ));
            }
        }
        None
    };
    let lesson_statements = [Lang::De, Lang::En].map(|lang| prediction.render_statement(lesson, lang));
    if let [Ok(de), Ok(en)] = lesson_statements
        && let Some(problem) = read("the lesson", [de, en], lesson.outcome.answer.render())
    {
        soundness.problems.push(problem);
    }
    for i in 0..CHECK_LEARNERS {
        let learner = format!("check-learner-{i}");
        let options = GradeOptions { learner: Some(learner.clone()), ..GradeOptions::default() };
        let result =
            prediction.variant(&exercise.slug, Some(&learner), "").map_err(|e| e.to_string()).and_then(|v| {
                prediction.validate_variant(&v)?;
                let mut statements = [String::new(), String::new()];
                for (statement, lang) in statements.iter_mut().zip([Lang::De, Lang::En]) {
                    *statement = prediction
                        .render_statement(&v, lang)
                        .map_err(|e| format!("statement.{}.md: {e}", lang.code()))?;
                }
                let report = grade_text(v.outcome.answer.render(), &options)?;
                if report.verdict != crate::report::Verdict::Passed {
                    return Err(format!("its own answer {} does not pass", v.outcome.answer.render()));
                }
                Ok((v, statements))
            });
        match result {
            Ok((v, statements)) => {
                params_seen.insert(v.params.iter().map(|(_, x)| *x).collect::<Vec<_>>());
                answers_seen.insert(v.outcome.answer.render());
                if let Some(problem) = read(&learner, statements, v.outcome.answer.render()) {
                    soundness.problems.push(problem);
                }
            }
            Err(e) => {
                failures += 1;
                if failures <= 5 {
                    soundness.problems.push(format!("learner {learner}: {e}"));
                }
            }
        }
    }
    if failures > 5 {
        soundness.problems.push(format!("... {} more learners fail", failures - 5));
    }
    soundness.rows.push(SoundnessRow {
        file: format!("{CHECK_LEARNERS} learner variants"),
        expect: "pass".into(),
        failed_checks: vec![],
        violated_invariants: vec![],
        ok: failures == 0,
        note: format!(
            "{} parameter sets, {} distinct answers, statements de+en render",
            params_seen.len(),
            answers_seen.len()
        ),
    });
    if prediction.has_variants() && params_seen.len() < 2 && failures == 0 {
        soundness.problems.push("parameters have ranges, but every learner got the same values".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_cache_keeps_active_learners_and_stays_bounded() {
        let scenario = Scenario::compile("s.rhai", "1", &[], None).expect("compiles");
        let variant = Arc::new(Variant { params: vec![], outcome: scenario.run(&vec![]).expect("runs") });
        let seed = |n: usize| {
            let mut s = [0u8; 32];
            s[..8].copy_from_slice(&(n as u64).to_le_bytes());
            s
        };
        let mut cache = VariantCache::default();
        let mut retired = 0;
        for n in 1..=3 * VARIANT_CACHE_MAX {
            retired += cache.insert(seed(n), variant.clone()).map_or(0, |r| r.len());
            if n == 1 {
                cache.insert(seed(0), variant.clone());
            }
            // Learner 0 keeps answering.
            assert!(cache.get(&seed(0)).is_some(), "active learner kept after {n} others");
            assert!(cache.len() <= VARIANT_CACHE_MAX);
        }
        assert!(cache.get(&seed(1)).is_none(), "a learner who stopped answering is retired");
        assert!(cache.get(&seed(3 * VARIANT_CACHE_MAX)).is_some());
        assert!(retired >= VARIANT_CACHE_MAX, "whole generations were retired: {retired}");
    }
}
