//! The records of a learner's export and erasure, of the audit log and of the retention sweep,
//! independent of the database behind the store.

use std::collections::BTreeMap;

use super::records::{LtiContext, Millis, ResultRecord, SubmissionRecord};
use crate::submission::Submission;

/// Whose data an export or an erasure reaches: a learner id as stored, through one client (its
/// token's) or, for the operator, through every client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnerScope {
    /// The learner id, as [`Learner::parse`](crate::service::learner::Learner::parse) keeps it.
    pub learner: String,
    /// The client whose learner it is; none: every client's learner of that id.
    pub client_id: Option<i64>,
    /// The learner's keyed hash (see `service::privacy`): what the audit log records instead of the
    /// id, and how an earlier erasure of the same learner is recognised.
    pub learner_key: String,
    /// The LTI launch records that name this learner, if the id is one an LTI launch made
    /// (`lti:{platform}:{subject}`): the platform and the subject as stored (its SHA-256 when the
    /// learner id holds the hash instead of the subject).
    pub lti: Option<(i64, LtiSubject)>,
}

/// How an LTI learner id names the platform's subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LtiSubject {
    /// The subject itself.
    Plain(String),
    /// The SHA-256 (hex) of a subject that could not be part of a learner id.
    Sha256(String),
}

/// What a lookup of a learner found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LearnerFound<T> {
    /// The learner's data, or what was done with it.
    Found(T),
    /// Nothing of the learner is stored, and it was erased at this time.
    Erased { at: Millis },
    /// Nothing of the learner is stored, and no erasure of it is recorded.
    Unknown,
}

impl<T> LearnerFound<T> {
    /// The found value changed by `f`; the other cases as they are.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> LearnerFound<U> {
        match self {
            LearnerFound::Found(value) => LearnerFound::Found(f(value)),
            LearnerFound::Erased { at } => LearnerFound::Erased { at },
            LearnerFound::Unknown => LearnerFound::Unknown,
        }
    }
}

/// One submission of a learner, whole: what was submitted, and every result version with its
/// report.
#[derive(Debug, Clone)]
pub struct LearnerSubmission {
    /// The submission with its latest result (the report included).
    pub record: SubmissionRecord,
    pub submission: Submission,
    /// Every result version, oldest first, each with its report.
    pub versions: Vec<ResultRecord>,
}

/// Everything the store keeps of a learner.
#[derive(Debug, Clone)]
pub struct LearnerData {
    pub submissions: Vec<LearnerSubmission>,
    /// The LTI launch contexts that name the learner.
    pub lti_contexts: Vec<LtiContext>,
}

/// Rows per table, in table-name order: what an erasure or a sweep deleted.
pub type RowCounts = BTreeMap<String, u64>;

/// What an audit log entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditAction {
    /// A learner's data was exported.
    Export,
    /// A learner's data was erased.
    Erase,
    /// Regrades were queued (or a dry run computed).
    Regrade,
    /// A course's analytics (or similarity hints) were read.
    Analytics,
    /// The retention sweep deleted what had become too old.
    Retention,
}

impl AuditAction {
    pub(crate) const ALL: [AuditAction; 5] = [
        AuditAction::Export,
        AuditAction::Erase,
        AuditAction::Regrade,
        AuditAction::Analytics,
        AuditAction::Retention,
    ];

    /// The action's name in the store and on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AuditAction::Export => "export",
            AuditAction::Erase => "erase",
            AuditAction::Regrade => "regrade",
            AuditAction::Analytics => "analytics",
            AuditAction::Retention => "retention",
        }
    }

    /// The action of a stored name.
    pub(crate) fn of(name: &str) -> Option<AuditAction> {
        AuditAction::ALL.into_iter().find(|action| action.name() == name)
    }
}

/// One entry of the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its number, in the order written (0 for an entry not yet written).
    pub id: i64,
    pub at: Millis,
    /// A client's name, or `operator` for the command line, or `retention` for the sweep.
    pub actor: String,
    /// The client whose data it concerned; none: every client's.
    pub client_id: Option<i64>,
    pub action: AuditAction,
    /// An exercise's slug, or a learner's keyed hash: never a learner id in clear.
    pub subject: String,
    pub counts: RowCounts,
}

impl AuditEntry {
    /// The counts as the store keeps them (a JSON object).
    pub(crate) fn counts_json(&self) -> String {
        serde_json::to_string(&self.counts).unwrap_or_else(|_| "{}".to_string())
    }

    /// Counts read back from the store; unreadable ones are reported as corrupt.
    pub(crate) fn parse_counts(text: &str) -> Result<RowCounts, super::StoreError> {
        serde_json::from_str(text)
            .map_err(|e| super::StoreError::Corrupt(format!("an audit log entry's counts: {e}")))
    }
}

/// The names of the tables an erasure and a sweep count, in the order they are deleted from.
pub(crate) const LEARNER_TABLES: [&str; 6] =
    ["outbox", "jobs", "result_versions", "results", "submissions", "lti_contexts"];

/// The tables the retention sweep counts.
pub(crate) const SWEPT_TABLES: [&str; 7] =
    ["outbox", "jobs", "result_versions", "results", "submissions", "jobe_files", "lti_contexts"];
