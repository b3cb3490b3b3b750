//! LTI 1.3 (LTI Advantage): Prüfstein as a tool that Moodle, Canvas, ILIAS or OpenOlat launch.
//!
//! - Platforms are registered by the operator (`pruefstein platform add`, kept in the store), each
//!   with an API client of its own: its learners' submissions and its score events belong to it.
//! - [`keys`]: the tool's RSA key pair (generated on first use, kept in the store), published at
//!   `/lti/jwks`, signing the tool's JWTs.
//! - [`jwks`]: the platforms' key sets, cached as their `Cache-Control` says and fetched at most
//!   once per interval per platform, however many launches name an unknown key.
//! - [`logins`]: the bounds on login initiations waiting for their launch, per client address
//!   and per platform, so that a flood of logins locks no one else out.
//! - [`verify`]: the checks of a launch's `id_token` (signature against the platform's JWKS,
//!   issuer, audience, `azp`, expiry, nonce, deployment, message type, LTI version), each failure a
//!   [`verify::LaunchError`] with a bilingual text.
//! - [`ags`]: Assignment and Grade Services: a graded submission made from a launched page becomes
//!   an outbox event whose delivery posts the score to the line item (client-credentials grant
//!   with a signed JWT assertion, the token cached until it expires).
//!
//! The HTTP side (`/lti/login`, `/lti/launch`, `/lti/deep-link`, `/lti/jwks`) is in
//! [`crate::service::http::lti`]. What is kept in memory (the key, the platforms' JWKS, access
//! tokens) is a cache: a restarted server fetches it again.

pub(crate) mod ags;
pub(crate) mod jwks;
pub mod keys;
pub(crate) mod logins;
pub(crate) mod rollover;
pub(crate) mod verify;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::store::PlatformRecord;
use crate::service::learner::Learner;
use crate::submission::sha256_hex;

/// What the LTI side keeps in memory.
#[derive(Default)]
pub(crate) struct Lti {
    /// The tool's keys as last loaded, and until when (ms since the epoch) they are used as they are.
    pub(crate) key: Mutex<Option<(Arc<rollover::ToolKeys>, crate::service::store::Millis)>>,
    /// The JWKS of each platform, as last fetched, and when to fetch it again.
    pub(crate) jwks: jwks::KeySets,
    /// Access tokens for score passback, by platform id, with the instant they stop being used.
    pub(crate) tokens: Mutex<HashMap<i64, (String, Instant)>>,
    /// The logins this node started that wait for their launch, bounded.
    pub(crate) logins: logins::Logins,
    /// The reverse proxies whose `X-Forwarded-For` names the client.
    pub(crate) trusted_proxies: Vec<crate::service::address::Network>,
}

impl Lti {
    /// With the bounds and proxies `config` names (checked when it was resolved).
    pub(crate) fn new(config: &super::config::Config) -> Lti {
        Lti {
            logins: logins::Logins::new(config.lti_logins_per_platform, config.lti_logins_per_address),
            trusted_proxies: config.trusted_networks().unwrap_or_default(),
            ..Lti::default()
        }
    }
}

/// The OAuth scope of score passback.
pub(crate) const SCORE_SCOPE: &str = "https://purl.imsglobal.org/spec/lti-ags/scope/score";

/// What LTI's functions read of the running service: its store, its LTI state (tool keys, the
/// platforms' key sets, pending logins, access tokens) and its settings. The service's shared state
/// lends it out (`Shared::lti_context`), so LTI does not know the rest of that state.
pub(crate) struct Context<'a> {
    pub store: &'a dyn crate::service::store::Store,
    pub lti: &'a Lti,
    pub config: &'a crate::service::config::Config,
}

/// The origins of the registered platforms (their issuer and authorisation endpoint), which may
/// frame the student's page. A store that cannot be read gives none (the page is then framed by
/// this service only).
pub(crate) fn platform_origins(service: &Context<'_>) -> Vec<String> {
    let platforms = match service.store.list_platforms() {
        Ok(platforms) => platforms,
        Err(e) => {
            tracing::error!(event = "lti_platforms_unreadable", error = %e);
            return Vec::new();
        }
    };
    let mut origins: Vec<String> = platforms
        .iter()
        .flat_map(|p| [p.platform.issuer.as_str(), p.platform.auth_url.as_str()])
        .filter_map(origin)
        .collect();
    origins.sort();
    origins.dedup();
    origins
}

/// The origin (`scheme://host[:port]`) of an http(s) URL.
pub(crate) fn origin(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.origin().ascii_serialization())
}

/// The learner id of a platform's user: the platform's `sub`, scoped by the platform, so that two
/// platforms' users never share a variant or a history. A `sub` too long for a learner id is
/// replaced by its SHA-256.
pub(crate) fn learner_id(platform: &PlatformRecord, subject: &str) -> String {
    let plain = format!("lti:{}:{subject}", platform.id);
    if Learner::parse(&plain).is_ok_and(|learner| learner.as_str() == plain) {
        plain
    } else {
        format!("lti:{}:sha256:{}", platform.id, sha256_hex(subject.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::NewPlatform;

    fn platform(id: i64) -> PlatformRecord {
        PlatformRecord {
            id,
            platform: NewPlatform {
                name: "moodle".into(),
                issuer: "https://lms.example".into(),
                client_id: "c".into(),
                auth_url: "https://auth.lms.example:8443/auth?x=1".into(),
                token_url: "https://lms.example/token".into(),
                jwks_url: "https://lms.example/jwks".into(),
                deployment_id: None,
            },
            api_client_id: 1,
            created_at: 0,
        }
    }

    #[test]
    fn learners_are_scoped_by_platform_and_bounded() {
        assert_eq!(learner_id(&platform(1), "u7"), "lti:1:u7");
        assert_ne!(learner_id(&platform(1), "u7"), learner_id(&platform(2), "u7"));
        let long = "x".repeat(300);
        let id = learner_id(&platform(1), &long);
        assert!(Learner::parse(&id).is_ok() && id.starts_with("lti:1:sha256:"), "{id}");
        assert!(learner_id(&platform(1), "a\u{1}b").starts_with("lti:1:sha256:"));
    }

    #[test]
    fn origins_are_scheme_host_and_port() {
        assert_eq!(
            origin("https://auth.lms.example:8443/auth?x=1").as_deref(),
            Some("https://auth.lms.example:8443")
        );
        assert_eq!(origin("https://lms.example").as_deref(), Some("https://lms.example"));
        assert_eq!(origin("javascript:alert(1)"), None);
        assert_eq!(origin("not a url"), None);
    }
}
