//! The report: one model for every grader, serialized as stable JSON (field order is declaration
//! order, maps are ordered, nothing depends on time or on the machine), and rendered for the terminal
//! by [`render_text`]. The same submission, exercise and seed give the same report byte for byte.

pub mod consumer;
pub mod diagnosis;
pub mod diagram;
pub mod html;
pub mod prediction;
mod render_text;
pub(crate) mod roles;
mod size;
pub mod state;
pub mod trace_text;
pub mod voice;

pub use render_text::{render_text, render_text_full};
pub use size::limit_size;

use serde::{Deserialize, Serialize};

use crate::text::Text;

/// The kind of grader that made a report (and that an exercise names in `exercise.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GraderKind {
    /// A WebAssembly consumer run under the crash-injection harness.
    Consumer,
    /// A prediction about the queue simulation.
    Prediction,
}

impl GraderKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            GraderKind::Consumer => "consumer",
            GraderKind::Prediction => "prediction",
        }
    }
}

/// Version of the report's JSON shape; bumped on any incompatible change.
pub const REPORT_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub format: u32,
    /// The exercise's slug.
    pub exercise: String,
    pub grader: GraderKind,
    /// SHA-256 of the submitted bytes (the module as uploaded, or the answer text), hex.
    pub submission_sha256: String,
    /// The learner whose variant was graded, if the exercise has variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learner: Option<String>,
    pub verdict: Verdict,
    pub score: Score,
    /// One sentence on the outcome, for the top of the report.
    pub summary: Text,
    /// Why the submission could not be graded at all (`verdict = rejected`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejection: Option<Rejection>,
    pub checks: Vec<CheckReport>,
    /// What the checks exercised ("crash points 2/2"), so nothing passes vacuously.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coverage: Vec<Coverage>,
    /// A command that reproduces this grading locally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
    /// The submitted source with the lines the checks speak of (consumers in an interpreted
    /// language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceView>,
    /// What the failed checks show, the main problem first (consumer reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<diagnosis::Diagnosis>,
}

/// A consumer's source as the report shows it, with its lines marked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceView {
    /// The file's name in the report (`consumer.py`, `consumer.js`).
    pub file: String,
    /// Why the text is not the file as submitted (TypeScript: the JavaScript it became).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Text>,
    pub text: String,
    /// The lines the checks speak of, in order.
    pub marks: Vec<SourceMark>,
}

/// One line of a [`SourceView`] and what happened there in any check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceMark {
    pub line: u32,
    /// A statement was issued from it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub statement: bool,
    /// A process was killed right after a statement from it (a crash point).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crash: bool,
    /// An exception or error was raised there and not caught, in a check that failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
    /// The decisive line of the report's main problem.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub decisive: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every check passed.
    Passed,
    /// The submission was graded and at least one check failed.
    Failed,
    /// The submission could not be graded (not wasm, a forbidden import, a malformed answer...).
    Rejected,
}

impl Verdict {
    /// Every verdict, in the order the API lists them.
    pub(crate) const ALL: [Verdict; 3] = [Verdict::Passed, Verdict::Failed, Verdict::Rejected];

    /// The verdict's name in the API, in reports and in filters (what serde writes, too).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Rejected => "rejected",
        }
    }

    /// The verdict `name` names.
    pub(crate) fn from_name(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.name() == name)
    }

    /// A filter's verdict as a name, or the text that says it is none of them.
    pub(crate) fn check_name(name: &str) -> Result<Verdict, crate::text::Text> {
        Verdict::from_name(name).ok_or_else(|| {
            let names = Verdict::ALL.map(Verdict::name).join(", ");
            crate::text::Text::new(
                format!("Das Urteil {name:?} ist keines von {names}."),
                format!("verdict {name:?} is not one of {names}."),
            )
        })
    }

    /// The CLI's exit code for this verdict: 0 passed, 1 failed, 2 rejected.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Passed => 0,
            Verdict::Failed => 1,
            Verdict::Rejected => 2,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub points: u32,
    pub max: u32,
}

/// Why a submission was not gradable, with the limit or rule that was hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    /// A stable machine-readable code, e.g. `module-too-large`, `unknown-import`, `answer-shape`.
    pub code: String,
    pub message: Text,
}

/// How much of a check's space was exercised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// e.g. `crash-points`, `interleavings`, `schedules`.
    pub name: String,
    pub label: Text,
    pub exercised: u64,
    /// The size of the space, when it is finite and known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// The check's stable name from the grader's catalogue, e.g. `duplicate-after-restart`.
    pub name: String,
    pub title: Text,
    pub passed: bool,
    /// The check did not run: the submission's time limit was reached before its turn. Such a
    /// check is not passed, and not failed either (`failed_checks` leaves it out).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_run: bool,
    /// What the check asserts and why it matters (from the catalogue).
    pub explanation: Text,
    /// What went wrong, when the check failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Text>,
    /// The teacher's hint for this check or part, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<Text>,
    /// Points for this check when the exercise grades per part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Score>,
    /// A command that reruns exactly this check's reported run and prints its full trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
    pub detail: CheckDetail,
}

/// The grader-specific evidence of a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckDetail {
    Consumer(consumer::ConsumerDetail),
    Prediction(prediction::PredictionDetail),
}

impl Report {
    /// Serializes the report as pretty, stable JSON.
    pub fn to_json(&self) -> String {
        // A report is plain data (strings, numbers, vectors): serialization cannot fail.
        serde_json::to_string_pretty(self).expect("report serializes")
    }

    /// The checks that ran and failed (not those that did not run).
    pub fn failed_checks(&self) -> impl Iterator<Item = &CheckReport> {
        self.checks.iter().filter(|c| !c.passed && !c.not_run)
    }

    /// The checks that did not run because the submission's time limit was reached.
    pub fn not_run_checks(&self) -> impl Iterator<Item = &CheckReport> {
        self.checks.iter().filter(|c| c.not_run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one list of names is what serde writes and reads, and each name maps back.
    #[test]
    fn verdict_names_are_serdes_names() {
        for verdict in Verdict::ALL {
            assert_eq!(serde_json::to_value(verdict).ok(), Some(serde_json::json!(verdict.name())));
            assert_eq!(Verdict::from_name(verdict.name()), Some(verdict));
        }
        assert_eq!(Verdict::from_name("Passed"), None);
        assert!(Verdict::check_name("bestanden").is_err_and(|t| t.en.contains("passed, failed, rejected")));
    }
}
