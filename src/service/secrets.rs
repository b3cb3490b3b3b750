//! The service's two secrets, checked at start against what the store remembers of them, so that
//! neither changes silently:
//! - the **report secret** signs report links, the student's page links and deep-linking forms;
//!   changing it turns every link handed out into a 404;
//! - the **course secret** derives each learner's variant of the prediction exercises; changing it
//!   changes every learner's numbers.
//!
//! Each is configured (flag, variable, file) or, without one, generated once and kept in the store.
//! The store keeps a fingerprint of each secret in use (an HMAC under the secret of a fixed text: it
//! tells a changed secret from the same one and reveals nothing of it). At start a secret whose
//! fingerprint differs from the stored one is refused with what to do, unless the operator asks to
//! rotate it: a rotated report secret keeps the previous one valid for the links already handed out
//! for [`REPORT_SECRET_GRACE_MS`] (the previous secret is kept in the store for that time); a rotated
//! course secret takes effect at once, and the log says that variants changed. An empty secret is
//! refused.

use std::sync::Mutex;

use super::auth;
use super::config::Config;
use super::store::Millis;
use super::store::{Store, StoreError};
use crate::limits::REPORT_SECRET_GRACE_MS;

/// The setting that keeps a generated report secret (the key earlier versions used).
pub(crate) const GENERATED_REPORT_SECRET: &str = "report_secret";
/// The setting that keeps a generated course secret.
pub(crate) const GENERATED_COURSE_SECRET: &str = "course_secret";
const REPORT_FINGERPRINT: &str = "report_secret_fingerprint";
const COURSE_FINGERPRINT: &str = "course_secret_fingerprint";
/// The report secret before the last rotation, and until when (ms) links signed with it are valid.
const REPORT_PREVIOUS: &str = "report_secret_previous";
const REPORT_PREVIOUS_UNTIL: &str = "report_secret_previous_until";

/// What the operator asked for at start besides the secrets themselves.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rotation {
    /// Take a report secret that differs from the one in use; keep the old one valid for a while.
    pub report: bool,
    /// The report secret in use before, when it was configured rather than generated (the store
    /// keeps only its fingerprint): needed to keep the links signed with it valid.
    pub previous_report_secret: Option<String>,
    /// Take a course secret that differs from the one in use: every learner's variant changes.
    pub course: bool,
}

impl Rotation {
    /// The secrets the operator asked to rotate at this start.
    pub(crate) fn from_args(args: &super::config::ServeArgs) -> Rotation {
        Rotation {
            report: args.rotate_report_secret.unwrap_or(false),
            previous_report_secret: args.previous_report_secret.clone(),
            course: args.rotate_course_secret.unwrap_or(false),
        }
    }
}

/// Why the service does not start with the secrets it was given.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SecretsError {
    #[error(
        "the {0} secret is empty: give a long random text, or none at all to have one generated and kept"
    )]
    Empty(&'static str),
    #[error(
        "the report secret differs from the one this data was used with (fingerprint {given}, in use \
         {stored}): every report link and student page link handed out would stop working. If the \
         configured secret was removed or mistyped, give the one in use again. To change it on \
         purpose, start once with --rotate-report-secret: links signed with the old secret stay \
         valid for {grace_days} days"
    )]
    ReportChanged { given: String, stored: String, grace_days: u64 },
    #[error(
        "--rotate-report-secret needs the report secret in use before (fingerprint {stored}), so \
         that the links signed with it stay valid: give it as --previous-report-secret (or \
         PRUEFSTEIN_PREVIOUS_REPORT_SECRET)"
    )]
    PreviousReportSecretUnknown { stored: String },
    #[error(
        "the course secret differs from the one this data was used with (fingerprint {given}, in use \
         {stored}): every learner's variant of the prediction exercises would change, and their \
         earlier answers would be graded against other numbers. Give the one in use again, or start \
         once with --rotate-course-secret to change it on purpose"
    )]
    CourseChanged { given: String, stored: String },
    #[error("no randomness for a new secret: {0}")]
    NoRandomness(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The keys that sign and check links: the current one, and for a while after a rotation the one
/// before it.
#[derive(Debug)]
pub(crate) struct ReportKeys {
    current: Vec<u8>,
    previous: Mutex<Option<(Vec<u8>, Millis)>>,
}

impl ReportKeys {
    /// One key, nothing earlier (tests, and the commands that only sign).
    #[cfg(test)]
    pub(crate) fn only(current: Vec<u8>) -> ReportKeys {
        ReportKeys { current, previous: Mutex::new(None) }
    }

    /// The key every new link is signed with.
    pub(crate) fn current(&self) -> &[u8] {
        &self.current
    }

    /// Whether `valid` holds for the current key or, before its grace period ends at `now`, the
    /// previous one.
    pub(crate) fn any_valid(&self, now: Millis, valid: impl Fn(&[u8]) -> bool) -> bool {
        if valid(&self.current) {
            return true;
        }
        let mut previous = self.previous.lock().unwrap_or_else(|p| p.into_inner());
        match previous.as_ref() {
            Some((_, until)) if *until <= now => {
                *previous = None;
                false
            }
            Some((key, _)) => valid(key),
            None => false,
        }
    }
}

/// The secrets in force, as resolved at start.
#[derive(Debug)]
pub(crate) struct Secrets {
    pub report: ReportKeys,
    pub course: String,
}

/// The fingerprint of a secret: 16 hex digits of an HMAC under it.
pub(crate) fn fingerprint(secret: &str) -> String {
    hex::encode(&auth::hmac_sha256(secret.as_bytes(), b"pruefstein secret fingerprint v1")[..8])
}

/// A secret the service generates: 32 random bytes as hex.
fn generate() -> Result<String, SecretsError> {
    Ok(hex::encode(auth::random_bytes(32).map_err(SecretsError::NoRandomness)?))
}

/// The configured secret, or the generated one the store keeps (generated now if there is none).
fn in_force(
    store: &dyn Store,
    configured: Option<&str>,
    generated_key: &str,
    name: &'static str,
) -> Result<String, SecretsError> {
    match configured {
        Some("") => Err(SecretsError::Empty(name)),
        Some(secret) => Ok(secret.to_string()),
        None => match store.setting(generated_key)? {
            Some(secret) => Ok(secret),
            None => Ok(store.setting_or_insert(generated_key, &generate()?)?),
        },
    }
}

/// Resolves both secrets at start, checking each against the stored fingerprint and rotating the
/// ones `rotation` names (see the module documentation).
pub(crate) fn resolve(
    store: &dyn Store,
    config: &Config,
    rotation: &Rotation,
    now: Millis,
) -> Result<Secrets, SecretsError> {
    let course = resolve_course(store, config, rotation.course)?;
    let report = resolve_report(store, config, rotation, now)?;
    Ok(Secrets { report, course })
}

/// The course secret in force, checked against the stored fingerprint (`pruefstein regrade` and
/// `serve` alike); `rotate` accepts a changed one.
pub(crate) fn resolve_course(
    store: &dyn Store,
    config: &Config,
    rotate: bool,
) -> Result<String, SecretsError> {
    let course = in_force(store, config.course_secret.as_deref(), GENERATED_COURSE_SECRET, "course")?;
    let given = fingerprint(&course);
    match store.setting(COURSE_FINGERPRINT)? {
        None => store.put_setting(COURSE_FINGERPRINT, Some(&given))?,
        Some(stored) if stored == given => {}
        Some(stored) if !rotate => return Err(SecretsError::CourseChanged { given, stored }),
        Some(stored) => {
            store.put_setting(COURSE_FINGERPRINT, Some(&given))?;
            tracing::warn!(
                event = "course_secret_rotated",
                from = %stored,
                to = %given,
                "the course secret changed: every learner's variant of the prediction exercises changed"
            );
        }
    }
    Ok(course)
}

/// The report key links are signed with now, as `serve` resolves it, without rotating anything
/// (`pruefstein teacher link`): an error if the configured secret is not the service's.
pub(crate) fn current_report_key(store: &dyn Store, config: &Config) -> Result<Vec<u8>, SecretsError> {
    let current = in_force(store, config.report_secret.as_deref(), GENERATED_REPORT_SECRET, "report")?;
    let given = fingerprint(&current);
    match store.setting(REPORT_FINGERPRINT)? {
        Some(stored) if stored != given => Err(SecretsError::ReportChanged {
            given,
            stored,
            grace_days: REPORT_SECRET_GRACE_MS / (24 * 3600 * 1000),
        }),
        _ => Ok(current.into_bytes()),
    }
}

fn resolve_report(
    store: &dyn Store,
    config: &Config,
    rotation: &Rotation,
    now: Millis,
) -> Result<ReportKeys, SecretsError> {
    let generated = store.setting(GENERATED_REPORT_SECRET)?;
    let current = in_force(store, config.report_secret.as_deref(), GENERATED_REPORT_SECRET, "report")?;
    let given = fingerprint(&current);
    match store.setting(REPORT_FINGERPRINT)? {
        None => store.put_setting(REPORT_FINGERPRINT, Some(&given))?,
        Some(stored) if stored == given => {}
        Some(stored) if !rotation.report => {
            return Err(SecretsError::ReportChanged {
                given,
                stored,
                grace_days: REPORT_SECRET_GRACE_MS / (24 * 3600 * 1000),
            });
        }
        Some(stored) => {
            let previous = [generated.as_deref(), rotation.previous_report_secret.as_deref()]
                .into_iter()
                .flatten()
                .find(|secret| fingerprint(secret) == stored)
                .ok_or(SecretsError::PreviousReportSecretUnknown { stored: stored.clone() })?;
            let until = now + REPORT_SECRET_GRACE_MS as Millis;
            store.put_setting(REPORT_PREVIOUS, Some(previous))?;
            store.put_setting(REPORT_PREVIOUS_UNTIL, Some(&until.to_string()))?;
            store.put_setting(REPORT_FINGERPRINT, Some(&given))?;
            tracing::warn!(
                event = "report_secret_rotated",
                from = %stored,
                to = %given,
                previous_valid_until_ms = until,
                "the report secret changed: links signed with the previous one stay valid until then"
            );
        }
    }
    let previous = match (store.setting(REPORT_PREVIOUS)?, store.setting(REPORT_PREVIOUS_UNTIL)?) {
        (Some(key), Some(until)) => match until.parse::<Millis>() {
            Ok(until) if until > now => Some((key.into_bytes(), until)),
            _ => {
                store.put_setting(REPORT_PREVIOUS, None)?;
                store.put_setting(REPORT_PREVIOUS_UNTIL, None)?;
                None
            }
        },
        _ => None,
    };
    Ok(ReportKeys { current: current.into_bytes(), previous: Mutex::new(previous) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::sqlite::{Durability, SqliteStore};

    fn config(report: Option<&str>, course: Option<&str>) -> Config {
        Config {
            report_secret: report.map(str::to_string),
            course_secret: course.map(str::to_string),
            ..Config::default()
        }
    }

    fn rotate_report(previous: Option<&str>) -> Rotation {
        Rotation { report: true, previous_report_secret: previous.map(str::to_string), course: false }
    }

    fn signs(keys: &ReportKeys, key: &[u8], now: Millis) -> bool {
        keys.any_valid(now, |k| k == key)
    }

    #[test]
    fn generated_secrets_are_kept_and_the_same_at_every_start() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        let first = resolve(&store, &config(None, None), &Rotation::default(), 0).unwrap();
        let again = resolve(&store, &config(None, None), &Rotation::default(), 1).unwrap();
        assert_eq!(first.report.current(), again.report.current());
        assert_eq!(first.course, again.course);
        assert_eq!(first.course.len(), 64, "32 random bytes as hex");
        assert_ne!(first.report.current(), first.course.as_bytes());
    }

    /// The case: started once with a configured report secret, then without it (or with
    /// another): refused, naming both fingerprints and what to do; the same one again starts.
    #[test]
    fn a_changed_report_secret_is_refused_unless_rotated() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        resolve(&store, &config(Some("configured-a"), None), &Rotation::default(), 0).unwrap();
        for other in [None, Some("configured-b")] {
            let refused = resolve(&store, &config(other, None), &Rotation::default(), 0).unwrap_err();
            let text = refused.to_string();
            assert!(matches!(refused, SecretsError::ReportChanged { .. }), "{text}");
            assert!(
                text.contains(&fingerprint("configured-a")) && text.contains("--rotate-report-secret"),
                "{text}"
            );
        }
        resolve(&store, &config(Some("configured-a"), None), &Rotation::default(), 0).unwrap();
    }

    /// A rotation needs the secret before it (its fingerprint must match), keeps it valid for the
    /// grace period only, and takes the new one for every link from then on.
    #[test]
    fn a_rotated_report_secret_keeps_the_previous_one_valid_for_its_grace_period() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        resolve(&store, &config(Some("old"), None), &Rotation::default(), 0).unwrap();
        let unknown = resolve(&store, &config(Some("new"), None), &rotate_report(None), 0).unwrap_err();
        assert!(matches!(unknown, SecretsError::PreviousReportSecretUnknown { .. }), "{unknown}");
        let wrong =
            resolve(&store, &config(Some("new"), None), &rotate_report(Some("not-old")), 0).unwrap_err();
        assert!(matches!(wrong, SecretsError::PreviousReportSecretUnknown { .. }), "{wrong}");
        let now = 1_000;
        let rotated = resolve(&store, &config(Some("new"), None), &rotate_report(Some("old")), now).unwrap();
        assert_eq!(rotated.report.current(), b"new");
        assert!(signs(&rotated.report, b"old", now + 1));
        // A later start (another node, a restart) keeps the previous key for the rest of the period.
        let later = resolve(&store, &config(Some("new"), None), &Rotation::default(), now + 5).unwrap();
        let end = now + REPORT_SECRET_GRACE_MS as Millis;
        assert!(signs(&later.report, b"old", end - 1));
        assert!(!signs(&later.report, b"old", end));
        assert!(!signs(&later.report, b"old", end - 1), "once expired, forgotten");
        assert!(signs(&later.report, b"new", end + 1));
        let after = resolve(&store, &config(Some("new"), None), &Rotation::default(), end).unwrap();
        assert!(!signs(&after.report, b"old", end - 1), "expired keys are removed from the store");
        assert_eq!(store.setting(REPORT_PREVIOUS).unwrap(), None);
        // The old secret is now refused like any other change.
        assert!(resolve(&store, &config(Some("old"), None), &Rotation::default(), end).is_err());
    }

    /// A generated report secret is rotated away without being given again: the store has it.
    #[test]
    fn a_generated_report_secret_is_rotated_from_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        let generated = resolve(&store, &config(None, None), &Rotation::default(), 0).unwrap();
        let old = generated.report.current().to_vec();
        let rotated = resolve(&store, &config(Some("configured"), None), &rotate_report(None), 0).unwrap();
        assert!(signs(&rotated.report, &old, 1));
    }

    #[test]
    fn an_empty_secret_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        for (report, course, which) in [(Some(""), None, "report"), (None, Some(""), "course")] {
            let refused = resolve(&store, &config(report, course), &Rotation::default(), 0).unwrap_err();
            assert!(matches!(refused, SecretsError::Empty(name) if name == which), "{refused}");
        }
    }

    /// A changed course secret would change every learner's variant: refused, unless rotated.
    #[test]
    fn a_changed_course_secret_is_refused_unless_rotated() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        assert_eq!(resolve_course(&store, &config(None, Some("course-a")), false).unwrap(), "course-a");
        let refused = resolve_course(&store, &config(None, Some("course-b")), false).unwrap_err();
        assert!(matches!(refused, SecretsError::CourseChanged { .. }), "{refused}");
        assert!(refused.to_string().contains("--rotate-course-secret"), "{refused}");
        let refused_unset = resolve_course(&store, &config(None, None), false).unwrap_err();
        assert!(matches!(refused_unset, SecretsError::CourseChanged { .. }), "{refused_unset}");
        assert_eq!(resolve_course(&store, &config(None, Some("course-b")), true).unwrap(), "course-b");
        assert_eq!(resolve_course(&store, &config(None, Some("course-b")), false).unwrap(), "course-b");
    }
}
