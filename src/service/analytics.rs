//! Course analytics for teachers, per exercise: how many submissions and learners, the pass rate,
//! which checks failing submissions fail (the most common mistake), for consumer exercises the
//! mutant each failing submission behaves like, for prediction exercises the share of wrong
//! answers per part and per value of a learner-variant parameter, and the time from a learner's
//! first submission to their first pass. Computed from the latest result version of each
//! submission; every list is in a fixed order, so the same store gives the same analytics.
//!
//! The mutants' sets of failed checks come from grading them (the soundness check of the loaded
//! exercise), once per exercise version: [`MutantProfiles`] caches them by content hash.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use utoipa::ToSchema;

use crate::exercise::Exercise;
use crate::report::{GraderKind, Report, Verdict};
use crate::service::store::SubmissionRecord;

/// The verdict a record's result names (none while it is not graded).
fn verdict_of(record: &SubmissionRecord) -> Option<Verdict> {
    record.result.as_ref()?.verdict.as_deref().and_then(Verdict::from_name)
}

/// One check (or part) that failing submissions fail.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct CheckShare {
    pub check: String,
    /// The check's title as the reports name it, in German and English.
    #[schema(value_type = Object)]
    pub title: crate::text::Text,
    /// Failing submissions that fail this check.
    pub failing_submissions: usize,
    /// Their share of all failing submissions (0 to 1).
    pub share: f64,
}

/// A mutant of the exercise and the failing submissions that fail exactly its checks.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct MutantShare {
    /// The mutant's file in the exercise folder.
    pub mutant: String,
    /// The checks it fails when graded.
    pub failed_checks: Vec<String>,
    pub submissions: usize,
}

/// A kind of mistake: the mutants of one name in every language (`never-commits.js`, `.py`,
/// `.wat`), with the exercise's one line about it, and the failing submissions that behave like
/// any of them.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct MistakeShare {
    /// The mutants' file name without its extension.
    pub mistake: String,
    /// The exercise's line about it (`[consumer.mutant_descriptions]`), if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub description: Option<crate::text::Text>,
    /// The mutants' files.
    pub files: Vec<String>,
    /// Failing submissions that behave like one of them, in id order.
    pub submissions: Vec<String>,
}

/// A failing submission and the mutants it behaves like (the same set of failed checks).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct FailingSubmission {
    pub submission_id: String,
    pub learner: String,
    pub failed_checks: Vec<String>,
    /// Empty if no mutant fails exactly these checks.
    pub behaves_like: Vec<String>,
}

/// Wrong answers to one part of a prediction exercise.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct PartShare {
    pub part: String,
    /// Graded answers (rejected ones are not answers to a part).
    pub answered: usize,
    pub wrong: usize,
    /// wrong / answered (0 to 1).
    pub share: f64,
}

/// Wrong answers among learners whose variant has one value of a parameter.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct ParameterShare {
    pub parameter: String,
    pub value: i64,
    pub answered: usize,
    /// Answers with at least one wrong part.
    pub wrong: usize,
    pub share: f64,
}

/// A learner's time from the first submission to the first that passed.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct LearnerTime {
    pub learner: String,
    pub ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct TimeToPass {
    /// Learners who passed.
    pub learners: usize,
    /// The median over them, in milliseconds (the mean of the middle two for an even count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_ms: Option<i64>,
    /// Per learner, in learner order.
    pub per_learner: Vec<LearnerTime>,
}

/// The analytics of one exercise.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct Analytics {
    pub exercise: String,
    /// `consumer` or `prediction`.
    pub grader: String,
    /// The exercise version loaded now (the mutants' profiles are of this version).
    pub exercise_hash: String,
    /// Submissions counted (at most `analytics_submissions_max`, the oldest first).
    pub submissions: usize,
    /// True if there were more submissions than were counted.
    pub truncated: bool,
    /// Distinct learners.
    pub learners: usize,
    /// Submissions with a verdict (latest result version).
    pub graded: usize,
    pub passed: usize,
    pub failed: usize,
    pub rejected: usize,
    /// passed / graded (0 to 1).
    pub pass_rate: f64,
    /// Learners with at least one passing submission.
    pub learners_passed: usize,
    /// Per check (consumer) or part (prediction): the share of failing submissions that fail it,
    /// most common first.
    pub checks: Vec<CheckShare>,
    /// Consumer exercises: per mutant, the failing submissions that behave like it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mutants: Vec<MutantShare>,
    /// Consumer exercises: the mutants grouped by the mistake they make, most submissions first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mistakes: Vec<MistakeShare>,
    /// Consumer exercises: every failing submission and the mutants it behaves like.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<FailingSubmission>,
    /// Prediction exercises: wrong answers per part.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartShare>,
    /// Prediction exercises: wrong answers per value of each parameter that varies by learner.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<ParameterShare>,
    pub time_to_first_pass: TimeToPass,
    /// Consumer exercises: similarity hints (never verdicts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<crate::service::similarity::Similarity>,
}

/// The mutants of an exercise version: file and the checks it fails.
pub(crate) type Profiles = Vec<(String, BTreeSet<String>)>;

/// The mutants' profiles by exercise version, computed once per loaded version.
#[derive(Default)]
pub(crate) struct MutantProfiles(Mutex<HashMap<String, Arc<Profiles>>>);

/// The service's one cache of mutant profiles.
pub(crate) static PROFILES: std::sync::LazyLock<MutantProfiles> =
    std::sync::LazyLock::new(MutantProfiles::default);

/// Exercise versions whose mutant profiles are kept; older ones are computed again if asked for.
const PROFILES_KEPT: usize = 64;

impl MutantProfiles {
    /// The profiles of `exercise` (graded now if this version has none yet).
    pub(crate) fn of(&self, exercise: &Exercise) -> Arc<Profiles> {
        let key = exercise.content_hash().to_string();
        if let Some(found) = self.0.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return found.clone();
        }
        let soundness = exercise.grader.check(exercise);
        let profiles: Profiles = soundness
            .rows
            .iter()
            .filter(|row| row.expect != "pass")
            .map(|row| (row.file.clone(), row.failed_checks.iter().cloned().collect()))
            .collect();
        let profiles = Arc::new(profiles);
        let mut kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= PROFILES_KEPT {
            kept.clear();
        }
        kept.insert(key, profiles.clone());
        profiles
    }
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

/// Computes the analytics of `exercise` from its submissions (`records`, in id order, at most
/// `limit` counted), the mutants' `profiles` and each learner's variant parameters.
pub(crate) fn compute(
    exercise: &Exercise,
    records: &[SubmissionRecord],
    limit: usize,
    profiles: &Profiles,
    descriptions: &BTreeMap<String, crate::text::Text>,
    parameters_of: &dyn Fn(&str) -> Vec<(String, i64)>,
) -> Analytics {
    let truncated = records.len() > limit;
    let records = &records[..records.len().min(limit)];
    let learner_key = |r: &SubmissionRecord| (r.learner.clone(), r.client_id);
    let learners: BTreeSet<_> = records.iter().map(learner_key).collect();
    let count = |v: Verdict| records.iter().filter(|r| verdict_of(r) == Some(v)).count();
    let (passed, failed, rejected) =
        (count(Verdict::Passed), count(Verdict::Failed), count(Verdict::Rejected));
    let graded = passed + failed + rejected;
    let learners_passed: BTreeSet<_> =
        records.iter().filter(|r| verdict_of(r) == Some(Verdict::Passed)).map(learner_key).collect();

    // Reports of graded, not rejected submissions.
    let reports: Vec<(&SubmissionRecord, Report)> = records
        .iter()
        .filter(|r| matches!(verdict_of(r), Some(Verdict::Passed | Verdict::Failed)))
        .filter_map(|r| {
            let json = r.result.as_ref()?.report.as_deref()?;
            Some((r, serde_json::from_str::<Report>(json).ok()?))
        })
        .collect();
    let failing_reports: Vec<&(&SubmissionRecord, Report)> =
        reports.iter().filter(|(r, _)| verdict_of(r) == Some(Verdict::Failed)).collect();
    let checks = check_shares(&failing_reports, failed);
    let (mut mutants, mut mistakes, mut failing, mut parts, mut parameters) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    match exercise.grader_kind() {
        GraderKind::Consumer => {
            (failing, mutants) = behaves_like(&failing_reports, profiles);
            mistakes = group_by_mistake(profiles, &failing, descriptions);
        }
        GraderKind::Prediction => (parts, parameters) = part_and_parameter_shares(&reports, parameters_of),
    }
    let time_to_first_pass = time_to_first_pass(records);
    Analytics {
        exercise: exercise.slug.clone(),
        grader: exercise.grader_kind().name().to_string(),
        exercise_hash: exercise.content_hash().to_string(),
        submissions: records.len(),
        truncated,
        learners: learners.len(),
        graded,
        passed,
        failed,
        rejected,
        pass_rate: share(passed, graded),
        learners_passed: learners_passed.len(),
        checks,
        mutants,
        mistakes,
        failing,
        parts,
        parameters,
        time_to_first_pass,
        similarity: None,
    }
}

/// The checks failing submissions fail, with the share of them that fail each, most common first.
fn check_shares(failing_reports: &[&(&SubmissionRecord, Report)], failed: usize) -> Vec<CheckShare> {
    let mut per_check: BTreeMap<String, (usize, crate::text::Text)> = BTreeMap::new();
    for (_, report) in failing_reports {
        for check in report.checks.iter().filter(|c| !c.passed && !c.not_run) {
            per_check.entry(check.name.clone()).or_insert_with(|| (0, check.title.clone())).0 += 1;
        }
    }
    let mut checks: Vec<CheckShare> = per_check
        .into_iter()
        .map(|(check, (n, title))| CheckShare {
            check,
            title,
            failing_submissions: n,
            share: share(n, failed),
        })
        .collect();
    checks.sort_by(|a, b| b.failing_submissions.cmp(&a.failing_submissions).then(a.check.cmp(&b.check)));
    checks
}

/// The checks a report fails (those it ran).
fn failed_checks(report: &Report) -> BTreeSet<String> {
    report.checks.iter().filter(|c| !c.passed && !c.not_run).map(|c| c.name.clone()).collect()
}

/// Consumer exercises: every failing submission with the mutants whose failed checks are the same,
/// and per mutant how many submissions behave like it (most first).
fn behaves_like(
    failing_reports: &[&(&SubmissionRecord, Report)],
    profiles: &Profiles,
) -> (Vec<FailingSubmission>, Vec<MutantShare>) {
    let mut like: BTreeMap<String, usize> = profiles.iter().map(|(m, _)| (m.clone(), 0)).collect();
    let mut failing = Vec::with_capacity(failing_reports.len());
    for (record, report) in failing_reports {
        let set = failed_checks(report);
        let behaves_like: Vec<String> =
            profiles.iter().filter(|(_, p)| *p == set).map(|(m, _)| m.clone()).collect();
        for mutant in &behaves_like {
            *like.entry(mutant.clone()).or_default() += 1;
        }
        failing.push(FailingSubmission {
            submission_id: crate::service::public_id::of(record.id),
            learner: record.learner.clone(),
            failed_checks: set.into_iter().collect(),
            behaves_like,
        });
    }
    let mut mutants: Vec<MutantShare> = profiles
        .iter()
        .map(|(mutant, set)| MutantShare {
            mutant: mutant.clone(),
            failed_checks: set.iter().cloned().collect(),
            submissions: like.get(mutant).copied().unwrap_or(0),
        })
        .collect();
    mutants.sort_by(|a, b| b.submissions.cmp(&a.submissions).then(a.mutant.cmp(&b.mutant)));
    (failing, mutants)
}

/// Prediction exercises: wrong answers per part (in the exercise's order), and per value of each
/// parameter that varies by learner.
fn part_and_parameter_shares(
    reports: &[(&SubmissionRecord, Report)],
    parameters_of: &dyn Fn(&str) -> Vec<(String, i64)>,
) -> (Vec<PartShare>, Vec<ParameterShare>) {
    let mut per_part: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut per_value: BTreeMap<(String, i64), (usize, usize)> = BTreeMap::new();
    let mut variants: HashMap<String, Vec<(String, i64)>> = HashMap::new();
    for (record, report) in reports {
        for check in report.checks.iter().filter(|c| !c.not_run) {
            let entry = per_part.entry(check.name.clone()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(!check.passed);
        }
        let wrong = verdict_of(record) == Some(Verdict::Failed);
        let params = variants.entry(record.learner.clone()).or_insert_with(|| parameters_of(&record.learner));
        for (name, value) in params.iter() {
            let entry = per_value.entry((name.clone(), *value)).or_default();
            entry.0 += 1;
            entry.1 += usize::from(wrong);
        }
    }
    // Parts in the order the reports list them (the exercise's order).
    let order: Vec<String> = reports
        .first()
        .map(|(_, report)| report.checks.iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default();
    let mut names: Vec<String> = per_part.keys().cloned().collect();
    names.sort_by_key(|n| (order.iter().position(|o| o == n).unwrap_or(usize::MAX), n.clone()));
    let parts = names
        .into_iter()
        .map(|part| {
            let (answered, wrong) = per_part[&part];
            PartShare { part, answered, wrong, share: share(wrong, answered) }
        })
        .collect();
    let parameters = per_value
        .into_iter()
        .map(|((parameter, value), (answered, wrong))| ParameterShare {
            parameter,
            value,
            answered,
            wrong,
            share: share(wrong, answered),
        })
        .collect();
    (parts, parameters)
}

/// Time from each learner's first submission to their first pass, and its median.
fn time_to_first_pass(records: &[SubmissionRecord]) -> TimeToPass {
    let mut first: BTreeMap<(String, i64), (i64, Option<i64>)> = BTreeMap::new();
    for record in records {
        let entry =
            first.entry((record.learner.clone(), record.client_id)).or_insert((record.created_at, None));
        entry.0 = entry.0.min(record.created_at);
        if verdict_of(record) == Some(Verdict::Passed) {
            entry.1 = Some(entry.1.map_or(record.created_at, |t: i64| t.min(record.created_at)));
        }
    }
    let per_learner: Vec<LearnerTime> = first
        .into_iter()
        .filter_map(|((learner, _), (start, pass))| Some(LearnerTime { learner, ms: pass? - start }))
        .collect();
    let mut times: Vec<i64> = per_learner.iter().map(|t| t.ms).collect();
    times.sort_unstable();
    let median_ms = match times.len() {
        0 => None,
        n if n % 2 == 1 => Some(times[n / 2]),
        n => Some((times[n / 2 - 1] + times[n / 2]) / 2),
    };
    TimeToPass { learners: per_learner.len(), median_ms, per_learner }
}

/// A mutant file's mistake: its file name without the folder and the extension.
pub(crate) fn mistake_of(file: &str) -> &str {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.split_once('.').map_or(name, |(stem, _)| stem)
}

/// The mutants grouped by their mistake, each with the failing submissions that behave like any
/// of its files; most submissions first, then by name.
fn group_by_mistake(
    profiles: &Profiles,
    failing: &[FailingSubmission],
    descriptions: &BTreeMap<String, crate::text::Text>,
) -> Vec<MistakeShare> {
    let mut groups: BTreeMap<&str, (Vec<String>, BTreeSet<&str>)> = BTreeMap::new();
    for (file, _) in profiles.iter() {
        groups.entry(mistake_of(file)).or_default().0.push(file.clone());
    }
    for submission in failing {
        for file in &submission.behaves_like {
            if let Some(group) = groups.get_mut(mistake_of(file)) {
                group.1.insert(submission.submission_id.as_str());
            }
        }
    }
    let mut mistakes: Vec<MistakeShare> = groups
        .into_iter()
        .map(|(mistake, (files, submissions))| {
            let mut submissions: Vec<String> = submissions.into_iter().map(str::to_string).collect();
            submissions
                .sort_by_key(|id| (crate::service::public_id::parse(id).unwrap_or(i64::MAX), id.clone()));
            MistakeShare {
                mistake: mistake.to_string(),
                description: descriptions.get(mistake).cloned(),
                files,
                submissions,
            }
        })
        .collect();
    mistakes.sort_by(|a, b| b.submissions.len().cmp(&a.submissions.len()).then(a.mistake.cmp(&b.mistake)));
    mistakes
}

/// A CSV field: quoted where it must be, and a text a spreadsheet would read as a formula (a
/// learner's or a mutant's name starting with `=`, `+`, `-`, `@`) starts with a quote.
fn field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) { format!("'{text}") } else { text.to_string() };
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text }
}

/// The analytics as CSV: one row per figure (`section,name,value,count,total,share`), so that a
/// spreadsheet can sort and chart them.
pub(crate) fn to_csv(a: &Analytics) -> String {
    use std::fmt::Write;
    let mut out = String::from("section,name,value,count,total,share\n");
    let mut row = |section: &str, name: &str, value: &str, count: usize, total: usize, share: f64| {
        // Numbers stay numbers (a negative parameter value is not a formula).
        let value = if value.parse::<i64>().is_ok() { value.to_string() } else { field(value) };
        let _ = writeln!(out, "{section},{},{value},{count},{total},{share:.4}", field(name));
    };
    row("overall", "submissions", "", a.submissions, a.submissions, 1.0);
    row("overall", "learners", "", a.learners, a.learners, 1.0);
    row("overall", "passed", "", a.passed, a.graded, a.pass_rate);
    row("overall", "failed", "", a.failed, a.graded, share(a.failed, a.graded));
    row("overall", "rejected", "", a.rejected, a.graded, share(a.rejected, a.graded));
    row(
        "overall",
        "learners_passed",
        "",
        a.learners_passed,
        a.learners,
        share(a.learners_passed, a.learners),
    );
    for c in &a.checks {
        row("check", &c.check, &c.title.en, c.failing_submissions, a.failed, c.share);
    }
    for m in &a.mutants {
        row(
            "mutant",
            &m.mutant,
            &m.failed_checks.join(" "),
            m.submissions,
            a.failed,
            share(m.submissions, a.failed),
        );
    }
    for m in &a.mistakes {
        let description = m.description.as_ref().map(|d| d.en.as_str()).unwrap_or("");
        row(
            "mistake",
            &m.mistake,
            description,
            m.submissions.len(),
            a.failed,
            share(m.submissions.len(), a.failed),
        );
    }
    for p in &a.parts {
        row("part", &p.part, "", p.wrong, p.answered, p.share);
    }
    for p in &a.parameters {
        row("parameter", &p.parameter, &p.value.to_string(), p.wrong, p.answered, p.share);
    }
    for t in &a.time_to_first_pass.per_learner {
        row("time_to_first_pass_ms", &t.learner, &t.ms.to_string(), 1, 1, 1.0);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_mutant_file_names_its_mistake() {
        assert_eq!(super::mistake_of("mutants/never-commits.js"), "never-commits");
        assert_eq!(super::mistake_of("never-commits.wat"), "never-commits");
        assert_eq!(super::mistake_of("mutants/check-then-act"), "check-then-act");
    }

    #[test]
    fn csv_fields_are_quoted_and_never_formulas() {
        assert_eq!(super::field("anna"), "anna");
        assert_eq!(super::field("a,b"), "\"a,b\"");
        assert_eq!(super::field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(super::field("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(super::field("-1+2,3"), "\"'-1+2,3\"");
        assert_eq!(super::field("line\nbreak"), "\"line\nbreak\"");
    }
}
