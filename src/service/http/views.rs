//! The API's wire types: what a request carries and what a response shows, with their OpenAPI
//! schemas (utoipa). Handlers build these from store records; nothing here touches the store.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::service::clock;
use crate::service::shared::Shared;
use crate::service::store::SubmissionRecord;

/// A submission as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SubmissionView {
    /// `sub_<n>`.
    pub id: String,
    /// `queued`, `running`, `graded` or `failed`.
    pub status: String,
    pub exercise: String,
    pub learner: String,
    /// `answer` or `module`.
    pub kind: String,
    /// SHA-256 of the submitted bytes.
    pub sha256: String,
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Grading attempts so far (more than one after a crash).
    pub attempts: u32,
    /// `passed`, `failed` or `rejected` (not gradable), once graded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<ScoreView>,
    /// The result's version: 1 for the first grading, 2, 3, … after regrades (the latest is shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_version: Option<u32>,
    /// The exercise version that graded it: the SHA-256 of the exercise folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exercise_hash: Option<String>,
    /// The grader and program version that graded it, e.g. `consumer@0.1.0`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grader_version: Option<String>,
    /// Why the submission could not be graded (status `failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<String>,
    /// The client's metadata, unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub metadata: Option<serde_json::Value>,
    /// The full report (the same JSON as `pruefstein grade --json`), once graded: the stored JSON,
    /// written as it is (a report is serialised once, when it is graded).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub report: Option<Box<serde_json::value::RawValue>>,
    pub links: Links,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ScoreView {
    pub points: u32,
    pub max: u32,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Links {
    /// This resource.
    #[serde(rename = "self")]
    pub this: String,
    /// The student's report page (German; add `&lang=en` for English). Hand it to the student.
    pub report: String,
}

pub(crate) fn submission_view(shared: &Shared, record: &SubmissionRecord) -> SubmissionView {
    let result = record.result.as_ref();
    let public = crate::service::public_id::of(record.id);
    SubmissionView {
        status: record.status.name().to_string(),
        exercise: record.exercise.clone(),
        learner: record.learner.clone(),
        kind: record.kind.clone(),
        sha256: record.sha256.clone(),
        created_at: clock::rfc3339(record.created_at),
        finished_at: result.map(|r| clock::rfc3339(r.finished_at)),
        attempts: record.attempts,
        verdict: result.and_then(|r| r.verdict.clone()),
        score: result.and_then(|r| Some(ScoreView { points: r.points?, max: r.max_points? })),
        result_version: result.map(|r| r.version),
        exercise_hash: result.and_then(|r| r.exercise_hash.clone()),
        grader_version: result.and_then(|r| r.grader_version.clone()),
        failure: result.and_then(|r| r.failure.clone()),
        idempotency_key: record.idempotency_key.clone(),
        callback_url: record.callback_url.clone(),
        metadata: record.metadata.as_deref().and_then(|m| serde_json::from_str(m).ok()),
        report: result
            .and_then(|r| r.report.clone())
            .and_then(|r| serde_json::value::RawValue::from_string(r).ok()),
        links: Links {
            this: format!("{}/api/v1/submissions/{public}", shared.config.public_url),
            report: shared.report_url(record.id),
        },
        id: public,
    }
}

/// The JSON body of `POST /api/v1/submissions`: exactly one of `answer`, `wasm_base64`, `wat`, or
/// `language` with `source` (the document describes each as a schema of its own).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SubmissionRequest {
    /// The exercise's slug, e.g. `03-idempotenter-konsument`.
    pub exercise: String,
    /// The learner's id in the platform (selects the learner's variant).
    pub learner: String,
    /// A prediction, e.g. `(2, 2, 0)` or `[2, 2, 0]` (prediction exercises).
    #[serde(default)]
    pub answer: Option<String>,
    /// A consumer module, binary wasm in base64 (consumer exercises).
    #[serde(default)]
    pub wasm_base64: Option<String>,
    /// A consumer module in WebAssembly text (consumer exercises).
    #[serde(default)]
    pub wat: Option<String>,
    /// The language of `source` (`python`, `javascript`), for consumer exercises that accept source.
    #[serde(default)]
    pub language: Option<String>,
    /// A consumer's source text in `language` (consumer exercises that accept it).
    #[serde(default)]
    pub source: Option<String>,
    /// Where to POST the result (http or https).
    #[serde(default)]
    pub callback_url: Option<String>,
    /// Any JSON object; stored and handed back unchanged.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct WaitQuery {
    /// Wait up to this long for the result: seconds (`5`, `2.5`, `5s`) or milliseconds (`500ms`);
    /// longer waits are cut to at most 30 s. Without it (or empty) the answer comes at once.
    #[param(value_type = String, required = false, example = "5s")]
    pub wait: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ExerciseSummary {
    pub slug: String,
    #[schema(value_type = Object)]
    pub title: crate::text::Text,
    /// `consumer` (a WebAssembly module) or `prediction` (an answer).
    pub grader: String,
    pub points: u32,
    pub href: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ExerciseList {
    pub exercises: Vec<ExerciseSummary>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ExerciseQuery {
    /// The learner whose variant the statement shows (the learner's id in the platform); without
    /// it (or blank) the statement is the exercise's general one.
    #[param(value_type = String, required = false, example = "anna")]
    pub learner: Option<String>,
    /// The statement's language: `de` (default) or `en`.
    #[param(value_type = String, required = false, example = "en")]
    pub lang: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ExerciseDetail {
    pub slug: String,
    #[schema(value_type = Object)]
    pub title: crate::text::Text,
    pub grader: String,
    pub points: u32,
    pub lang: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learner: Option<String>,
    /// The statement (Markdown) for this learner's variant and language.
    pub statement: String,
    /// What to submit: `answer` or `module`.
    pub submit: String,
    /// An answer of the right shape (not the solution), for prediction exercises.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_example: Option<String>,
    /// The limits a module meets, by name.
    #[schema(value_type = Object)]
    pub limits: crate::limits::Limits,
    /// The contract between a consumer module and Prüfstein (consumer exercises).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abi: Option<AbiLink>,
    /// Starter kits for consumer exercises, as present on the server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kits: Vec<KitView>,
    /// The languages whose source a consumer exercise accepts instead of a module (`python`,
    /// `javascript`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct AbiLink {
    pub version: u32,
    pub href: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct KitView {
    pub name: String,
    /// The kit's README, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readme: Option<String>,
    pub files: Vec<KitFileView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct KitFileView {
    pub path: String,
    pub href: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct DeadEvent {
    pub event_id: String,
    pub submission_id: String,
    pub url: String,
    pub attempts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub created_at: String,
    /// POST here to deliver it again.
    pub redeliver: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct DeadEventList {
    pub events: Vec<DeadEvent>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ReportQuery {
    /// The report token from the submission's `links.report`; without the right one the page is 404.
    #[param(value_type = String, required = false)]
    pub t: Option<String>,
    /// The page's language: `de` (default) or `en`; any other value shows German.
    #[param(value_type = String, required = false, example = "en")]
    pub lang: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListQuery {
    /// Only submissions for this exercise (a slug).
    #[param(value_type = String, required = false, example = "03-idempotenter-konsument")]
    pub exercise: Option<String>,
    /// Only submissions of this learner.
    #[param(value_type = String, required = false, example = "anna")]
    pub learner: Option<String>,
    /// Only submissions whose latest result has this verdict: `passed`, `failed` or `rejected`.
    #[param(value_type = String, required = false, example = "failed")]
    pub verdict: Option<String>,
    /// Only submissions created at or after this time (RFC 3339).
    #[param(value_type = String, required = false, example = "2026-12-01T00:00:00Z")]
    pub since: Option<String>,
    /// Submissions per page.
    #[param(value_type = String, required = false, example = "50")]
    pub limit: Option<String>,
    /// The `next` value of the previous page.
    #[param(value_type = String, required = false)]
    pub cursor: Option<String>,
}

/// One page of a client's submissions, oldest first (without their reports).
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SubmissionList {
    pub submissions: Vec<SubmissionView>,
    /// The page size used.
    pub limit: usize,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}
