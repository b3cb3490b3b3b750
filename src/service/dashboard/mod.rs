//! The teachers' dashboard: pages a browser opens without an `Authorization` header, behind a
//! signed, expiring link bound to one course. An LTI launch with an instructor role gets the link
//! of its own course (the launch's `context`); `pruefstein teacher link` prints one for the whole
//! service (the course of operators without a learning platform). The link's token is an HMAC
//! under the report key of the course and the expiry; a wrong, changed or expired link is a 404
//! page, so that nothing can be probed. A form that changes something (a regrade) carries a CSRF
//! token derived from the link's token, which a page of another site cannot know.
//!
//! `pages.rs` and `analytics_page.rs` render the pages (maud); the routes are in
//! `http/teach.rs`.

pub(crate) mod analytics_page;
pub(crate) mod pages;

use crate::limits::{DASHBOARD_COURSE_BYTES_MAX, DASHBOARD_LINK_TTL_MAX_MS, DASHBOARD_LINK_TTL_MS};
use crate::service::shared::Shared;
use crate::service::store::SubmissionRecord;
use crate::service::{auth, clock};
use crate::text::Lang;

/// The course a dashboard link shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Course {
    /// Every submission of the service (`pruefstein teacher link`).
    Service,
    /// The submissions made from the launch contexts of one course of one platform.
    Lti { platform: i64, context: String },
}

/// A dashboard link whose token was right and which has not expired.
#[derive(Debug, Clone)]
pub struct DashboardLink {
    pub course: Course,
    /// Until when the link opens the dashboard (milliseconds since the epoch).
    pub expires: i64,
    pub token: String,
    pub lang: Lang,
}

/// The query of a dashboard link. Every field is text, so that a malformed one is a 404 page.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct LinkQuery {
    /// The platform (LTI courses only).
    pub p: Option<String>,
    /// The course's id at the platform (LTI courses only).
    pub k: Option<String>,
    /// The expiry, milliseconds since the epoch.
    pub e: Option<String>,
    /// The token.
    pub t: Option<String>,
    pub lang: Option<String>,
}

/// The token of a dashboard link: HMAC under the report key of the course and the expiry,
/// length-prefixed so that no two links share a message; 128 bits in hex.
pub(crate) fn dashboard_token(key: &[u8], course: &Course, expires: i64) -> String {
    let (platform, context) = match course {
        Course::Service => (String::new(), ""),
        Course::Lti { platform, context } => (platform.to_string(), context.as_str()),
    };
    let mut message = String::from("dashboard");
    for field in [platform.as_str(), context, &expires.to_string()] {
        message.push_str(&format!(":{}:{field}", field.len()));
    }
    hex::encode(&auth::hmac_sha256(key, message.as_bytes())[..16])
}

/// The CSRF token of the forms of the dashboard of a link: derived from the link's token.
pub fn csrf_token(key: &[u8], link_token: &str) -> String {
    hex::encode(&auth::hmac_sha256(key, format!("dashboard-csrf:{link_token}").as_bytes())[..16])
}

impl DashboardLink {
    /// A new link to the dashboard of `course` signed with `key`, valid until `expires`.
    pub fn signed(key: &[u8], course: Course, expires: i64, lang: Lang) -> DashboardLink {
        let token = dashboard_token(key, &course, expires);
        DashboardLink { course, expires, token, lang }
    }

    /// The link's query without `lang`.
    pub(crate) fn query(&self) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        if let Course::Lti { platform, context } = &self.course {
            query.append_pair("p", &platform.to_string()).append_pair("k", context);
        }
        query.append_pair("e", &self.expires.to_string()).append_pair("t", &self.token);
        query.finish()
    }

    /// The path and query of the dashboard page `path` (`/teach`, `/teach/exercises/{slug}`, …)
    /// in `lang`, with more of the query after it (`&…`) if given.
    pub fn href(&self, path: &str, lang: Lang, more: &str) -> String {
        format!("{path}?{}&lang={}{more}", self.query(), lang.code())
    }

    /// The token every form of this dashboard carries.
    pub(crate) fn csrf(&self, shared: &Shared) -> String {
        csrf_token(shared.report_key.current(), &self.token)
    }

    /// Whether `presented` is this link's CSRF token (under any report key still valid).
    pub(crate) fn csrf_valid(&self, shared: &Shared, presented: &str) -> bool {
        shared
            .report_key
            .any_valid(clock::now_ms(), |key| auth::tokens_equal(&csrf_token(key, &self.token), presented))
    }
}

/// Checks a link: its fields well-formed, not expired, its token the right one. None: 404.
pub(crate) fn check_link(shared: &Shared, query: &LinkQuery, now: i64) -> Option<DashboardLink> {
    let course = match (query.p.as_deref(), query.k.as_deref()) {
        (None, None) => Course::Service,
        (Some(p), Some(k)) if !k.is_empty() && k.len() <= DASHBOARD_COURSE_BYTES_MAX => {
            Course::Lti { platform: p.parse::<i64>().ok().filter(|p| *p > 0)?, context: k.to_string() }
        }
        _ => return None,
    };
    let expires = query.e.as_deref()?.parse::<i64>().ok().filter(|e| *e > now)?;
    let token = query.t.as_deref()?;
    let valid = shared
        .report_key
        .any_valid(now, |key| auth::tokens_equal(&dashboard_token(key, &course, expires), token));
    let lang = query.lang.as_deref().and_then(|l| l.parse::<Lang>().ok()).unwrap_or(Lang::De);
    valid.then(|| DashboardLink { course, expires, token: token.to_string(), lang })
}

/// A signed, expiring link to the dashboard of the whole service (`pruefstein teacher link`),
/// valid for `ttl_ms` (default [`DASHBOARD_LINK_TTL_MS`], at most [`DASHBOARD_LINK_TTL_MAX_MS`]).
pub(crate) fn service_link(
    config: &crate::service::config::Config,
    ttl_ms: Option<u64>,
    lang: Lang,
) -> anyhow::Result<String> {
    let ttl = ttl_ms.unwrap_or(DASHBOARD_LINK_TTL_MS);
    if ttl == 0 || ttl > DASHBOARD_LINK_TTL_MAX_MS {
        anyhow::bail!(
            "--expires must be more than 0 and at most {} days (dashboard_link_ttl_max_ms)",
            DASHBOARD_LINK_TTL_MAX_MS / (24 * 3600 * 1000)
        );
    }
    let store = crate::service::shared::open_store(config)?;
    let key = crate::service::secrets::current_report_key(store.as_ref(), config)?;
    store.flush()?;
    let expires = clock::now_ms().saturating_add(i64::try_from(ttl)?);
    let link = DashboardLink::signed(&key, Course::Service, expires, lang);
    Ok(format!("{}{}", config.public_url, link.href("/teach", lang, "")))
}

/// The launch context a submission was made from (its metadata `lti_context`), if any.
pub(crate) fn launch_context(record: &SubmissionRecord) -> Option<i64> {
    let metadata: serde_json::Value = serde_json::from_str(record.metadata.as_deref()?).ok()?;
    metadata.get(crate::service::lti::ags::CONTEXT_KEY)?.as_i64()
}

/// Which submissions belong to a course: every one for the service's course; for an LTI course,
/// those its platform's client made from one of the course's launch contexts (another client's
/// submission naming such a context in its metadata is not one).
pub(crate) struct Members {
    /// The platform's API client and the course's contexts; none: every submission.
    lti: Option<(Option<i64>, std::collections::BTreeSet<i64>)>,
}

impl Members {
    /// The members of `course`, with the launch contexts read from the store.
    pub(crate) fn of(
        store: &dyn crate::service::store::Store,
        course: &Course,
    ) -> Result<Members, crate::service::store::StoreError> {
        Ok(Members {
            lti: match course {
                Course::Service => None,
                Course::Lti { platform, context } => {
                    let client = store.list_platforms()?.into_iter().find(|p| p.id == *platform);
                    let contexts = store.lti_course_contexts(*platform, context)?.into_iter().collect();
                    Some((client.map(|p| p.api_client_id), contexts))
                }
            },
        })
    }

    pub(crate) fn contains(&self, record: &SubmissionRecord) -> bool {
        match &self.lti {
            None => true,
            Some((client, contexts)) => {
                *client == Some(record.client_id)
                    && launch_context(record).is_some_and(|c| contexts.contains(&c))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashboard_tokens_bind_course_and_expiry() {
        let lti = |p: i64, k: &str| Course::Lti { platform: p, context: k.to_string() };
        let token = dashboard_token(b"k", &lti(1, "course-a"), 100);
        assert!(auth::tokens_equal(&token, &dashboard_token(b"k", &lti(1, "course-a"), 100)));
        for other in [
            dashboard_token(b"k2", &lti(1, "course-a"), 100),
            dashboard_token(b"k", &lti(2, "course-a"), 100),
            dashboard_token(b"k", &lti(1, "course-b"), 100),
            dashboard_token(b"k", &lti(1, "course-a"), 101),
            dashboard_token(b"k", &Course::Service, 100),
            // The same characters split differently between the fields.
            dashboard_token(b"k", &lti(1, "course-a:3"), 10),
        ] {
            assert!(!auth::tokens_equal(&token, &other));
        }
        assert_ne!(csrf_token(b"k", &token), token);
        assert_ne!(csrf_token(b"k", &token), csrf_token(b"k2", &token));
    }
}
