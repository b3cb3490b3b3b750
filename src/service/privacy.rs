//! A learner's data on request: exported as one JSON document, or erased, by the operator
//! (`pruefstein learner export|erase`) or by a client for its own learners
//! (`GET /api/v1/learners/{id}/export`, `DELETE /api/v1/learners/{id}`), each recorded in the audit
//! log.
//!
//! The audit log never names a learner in clear: it records the learner's keyed hash
//! ([`learner_key`]), an HMAC of the learner id under a key derived from the report secret with a
//! label of its own. Whoever holds the secret can tell whether a given learner was erased; the log
//! alone tells nobody who was.

use base64::Engine;
use serde::Serialize;
use utoipa::ToSchema;

use crate::service::auth::hmac_sha256;
use crate::service::clock;
use crate::service::learner::Learner;
use crate::service::store::{
    AuditAction, AuditEntry, LearnerData, LearnerFound, LearnerScope, LtiSubject, Millis, RowCounts, Store,
    StoreError,
};
use crate::submission::Submission;

/// The label that separates the audit log's key from every other use of the report secret.
const LEARNER_KEY_LABEL: &[u8] = b"pruefstein/audit-log/learner-key/v1";

/// The learner's keyed hash the audit log records instead of the id (hex, 256 bits).
pub(crate) fn learner_key(report_key: &[u8], learner: &Learner) -> String {
    let key = hmac_sha256(report_key, LEARNER_KEY_LABEL);
    hex::encode(hmac_sha256(&key, learner.as_str().as_bytes()))
}

/// What an export or erasure of `learner` reaches: through the client `client_id`, or every client.
/// A learner id an LTI launch made (`lti:{platform}:{subject}`, or `lti:{platform}:sha256:{hash}`)
/// also reaches the launch records of that subject.
pub(crate) fn scope(report_key: &[u8], learner: &Learner, client_id: Option<i64>) -> LearnerScope {
    let lti = learner.as_str().strip_prefix("lti:").and_then(|rest| {
        let (platform, subject) = rest.split_once(':')?;
        let platform: i64 = platform.parse().ok()?;
        let subject = match subject.strip_prefix("sha256:") {
            Some(hash) if hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
                LtiSubject::Sha256(hash.to_ascii_lowercase())
            }
            _ => LtiSubject::Plain(subject.to_string()),
        };
        Some((platform, subject))
    });
    LearnerScope {
        learner: learner.as_str().to_string(),
        client_id,
        learner_key: learner_key(report_key, learner),
        lti,
    }
}

/// Who asked: a client (by its name and id) or the operator on the command line.
#[derive(Debug, Clone)]
pub struct Actor {
    pub name: String,
    pub client_id: Option<i64>,
}

impl Actor {
    pub fn operator(client_id: Option<i64>) -> Actor {
        Actor { name: "operator".to_string(), client_id }
    }

    fn entry(&self, action: AuditAction, subject: &str, counts: RowCounts, now: Millis) -> AuditEntry {
        AuditEntry {
            id: 0,
            at: now,
            actor: self.name.clone(),
            client_id: self.client_id,
            action,
            subject: subject.to_string(),
            counts,
        }
    }
}

/// A learner's data as exported.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct LearnerExport {
    pub learner: String,
    pub exported_at: String,
    /// Every submission of the learner (through the client asking), oldest first.
    pub submissions: Vec<ExportedSubmission>,
    /// The LTI launches that name the learner: the platform's opaque subject (`sub`), never a name.
    pub lti_launches: Vec<ExportedLaunch>,
}

/// One submission, whole.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ExportedSubmission {
    /// `sub_<n>`.
    pub id: String,
    pub exercise: String,
    /// `answer` or `module`.
    pub kind: String,
    /// The source's language, for a source submission.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// What was submitted, as text (an answer, a source, a module in WebAssembly text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// What was submitted, as base64 (a binary module).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_base64: Option<String>,
    pub sha256: String,
    pub created_at: String,
    /// `queued`, `running`, `graded` or `failed`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub metadata: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Every result version, oldest first, each with the exercise version that graded it.
    pub results: Vec<ExportedResult>,
}

/// One result version of a submission.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ExportedResult {
    pub version: u32,
    /// The exercise version graded (the SHA-256 of its folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exercise_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grader_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_points: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    pub finished_at: String,
    /// The report, as stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub report: Option<serde_json::Value>,
}

/// An LTI launch context that names the learner.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ExportedLaunch {
    pub platform_id: i64,
    /// The platform's opaque subject id of the learner.
    pub subject: String,
    pub exercise: String,
    /// The line item that receives the scores (empty: none).
    pub lineitem: String,
}

/// What an erasure deleted.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErasureSummary {
    pub erased_at: String,
    /// Rows deleted per table.
    #[schema(value_type = Object)]
    pub rows: RowCounts,
}

fn exported(data: LearnerData, learner: &Learner, now: Millis) -> LearnerExport {
    let submissions = data
        .submissions
        .into_iter()
        .map(|s| {
            let (language, text, bytes_base64) = match &s.submission {
                Submission::Answer(text) => (None, Some(text.clone()), None),
                Submission::Source { language, text } => {
                    (Some(language.name().to_string()), Some(text.clone()), None)
                }
                Submission::Module(bytes) => match std::str::from_utf8(bytes) {
                    Ok(text) => (None, Some(text.to_string()), None),
                    Err(_) => (None, None, Some(base64::engine::general_purpose::STANDARD.encode(bytes))),
                },
            };
            let record = s.record;
            ExportedSubmission {
                id: format!("sub_{}", record.id),
                exercise: record.exercise,
                kind: record.kind,
                language,
                text,
                bytes_base64,
                sha256: record.sha256,
                created_at: clock::rfc3339(record.created_at),
                status: record.status.name().to_string(),
                metadata: record.metadata.and_then(|m| serde_json::from_str(&m).ok()),
                callback_url: record.callback_url,
                idempotency_key: record.idempotency_key,
                results: s
                    .versions
                    .into_iter()
                    .map(|v| ExportedResult {
                        version: v.version,
                        exercise_hash: v.exercise_hash,
                        grader_version: v.grader_version,
                        verdict: v.verdict,
                        points: v.points,
                        max_points: v.max_points,
                        failure: v.failure,
                        finished_at: clock::rfc3339(v.finished_at),
                        report: v.report.and_then(|r| serde_json::from_str(&r).ok()),
                    })
                    .collect(),
            }
        })
        .collect();
    let lti_launches = data
        .lti_contexts
        .into_iter()
        .map(|c| ExportedLaunch {
            platform_id: c.platform_id,
            subject: c.subject,
            exercise: c.exercise,
            lineitem: c.lineitem,
        })
        .collect();
    LearnerExport {
        learner: learner.to_string(),
        exported_at: clock::rfc3339(now),
        submissions,
        lti_launches,
    }
}

/// Exports the learner's data and records the export (with the submissions exported) in the audit
/// log; an unknown or erased learner is recorded nowhere.
pub(crate) fn export(
    store: &dyn Store,
    report_key: &[u8],
    learner: &Learner,
    actor: &Actor,
    now: Millis,
) -> Result<LearnerFound<LearnerExport>, StoreError> {
    let scope = scope(report_key, learner, actor.client_id);
    Ok(match store.learner_data(&scope)? {
        LearnerFound::Found(data) => {
            let counts = RowCounts::from([
                ("submissions".to_string(), data.submissions.len() as u64),
                ("lti_contexts".to_string(), data.lti_contexts.len() as u64),
            ]);
            store.record_audit(&actor.entry(AuditAction::Export, &scope.learner_key, counts, now))?;
            LearnerFound::Found(exported(data, learner, now))
        }
        LearnerFound::Erased { at } => LearnerFound::Erased { at },
        LearnerFound::Unknown => LearnerFound::Unknown,
    })
}

/// Erases the learner's data; the store records the erasure with the rows deleted per table.
pub fn erase(
    store: &dyn Store,
    report_key: &[u8],
    learner: &Learner,
    actor: &Actor,
    now: Millis,
) -> Result<LearnerFound<ErasureSummary>, StoreError> {
    let scope = scope(report_key, learner, actor.client_id);
    let audit = actor.entry(AuditAction::Erase, &scope.learner_key, RowCounts::new(), now);
    Ok(store
        .erase_learner(&scope, &audit, now)?
        .map(|rows| ErasureSummary { erased_at: clock::rfc3339(now), rows }))
}

/// Records a teacher's action on an exercise (a regrade, an analytics read) in the audit log.
pub(crate) fn record(store: &dyn Store, actor: &Actor, action: AuditAction, slug: &str, counts: RowCounts) {
    let entry = actor.entry(action, slug, counts, clock::now_ms());
    if let Err(e) = store.record_audit(&entry) {
        tracing::error!(event = "audit_log_failed", action = action.name(), error = %e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learner(id: &str) -> Learner {
        Learner::parse(id).unwrap()
    }

    #[test]
    fn the_learner_key_depends_on_the_secret_and_the_learner_and_hides_both() {
        let key = learner_key(b"secret", &learner("anna"));
        assert_eq!(key.len(), 64);
        assert_eq!(key, learner_key(b"secret", &learner(" anna ")), "the id as Learner::parse keeps it");
        assert_ne!(key, learner_key(b"other secret", &learner("anna")));
        assert_ne!(key, learner_key(b"secret", &learner("anne")));
        assert!(!key.contains("anna"));
    }

    #[test]
    fn an_lti_learner_reaches_its_launch_records_and_another_does_not() {
        let plain = scope(b"k", &learner("lti:3:user-7"), Some(9));
        assert_eq!(plain.lti, Some((3, LtiSubject::Plain("user-7".into()))));
        assert_eq!(plain.client_id, Some(9));
        let hash = "ab".repeat(32);
        let hashed = scope(b"k", &learner(&format!("lti:3:sha256:{hash}")), None);
        assert_eq!(hashed.lti, Some((3, LtiSubject::Sha256(hash))));
        for other in ["anna", "lti:x:user", "lti:3", "ltix:3:u"] {
            assert_eq!(scope(b"k", &learner(other), None).lti, None, "{other}");
        }
        let short = scope(b"k", &learner("lti:3:sha256:abc"), None);
        assert_eq!(short.lti, Some((3, LtiSubject::Plain("sha256:abc".into()))));
    }
}
