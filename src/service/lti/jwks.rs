//! The platforms' key sets (JWKS), cached per platform so that launches cannot make the tool
//! hammer a platform: a set is kept as long as the platform's `Cache-Control` says, within
//! [`crate::limits::LTI_JWKS_INTERVAL_MS`] (`lti_jwks_interval_ms`) and [`LTI_JWKS_MAX_AGE_MS`]; a token
//! naming a key the set lacks (a rotation) fetches the set again, but at most once per interval
//! per platform, whatever the number of launches: within the interval an unknown `kid` is
//! refused without a fetch. One fetch per platform runs at a time; launches of that platform wait
//! for it and use its answer. A set that cannot be fetched again stays in use for the keys it
//! holds (the platform's outage does not stop its launches), logged.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::JwkSet;

use super::Context;
use crate::limits::{
    LTI_FETCH_BYTES_MAX, LTI_FETCH_MS_MAX, LTI_JWKS_MAX_AGE_DEFAULT_MS, LTI_JWKS_MAX_AGE_MS,
};
use crate::service::outbound::{Exchange, exchange_answer};
use crate::service::store::PlatformRecord;

/// Why no key could be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyError {
    /// The platform's set does not hold the `kid`.
    Unknown(String),
    /// The `kid`'s key cannot be used: the message.
    Unusable(String),
    /// The set could not be fetched: the message.
    Fetch(String),
}

/// What the tool knows of one platform's keys.
#[derive(Default)]
pub(crate) struct PlatformKeys {
    /// The URL the set was fetched from: a registration given another (`platform update`) starts
    /// afresh.
    url: String,
    /// The set last fetched, if any.
    set: Option<Arc<JwkSet>>,
    /// Until when the set is used without asking the platform.
    fresh_until: Option<Instant>,
    /// The last fetch (answered or not): the next is at least an interval later.
    fetched_at: Option<Instant>,
}

/// The key sets of all platforms, by platform id; each platform's behind its own lock, which a
/// fetch holds.
#[derive(Default)]
pub(crate) struct KeySets {
    platforms: Mutex<HashMap<i64, Arc<Mutex<PlatformKeys>>>>,
}

impl KeySets {
    fn of(&self, platform: i64) -> Arc<Mutex<PlatformKeys>> {
        let mut platforms = self.platforms.lock().unwrap_or_else(|p| p.into_inner());
        platforms.entry(platform).or_default().clone()
    }
}

/// How long a fetched set is used, from the answer's `Cache-Control`: `max-age` within
/// `[interval, LTI_JWKS_MAX_AGE_MS]`; `no-store` or `no-cache` the interval (asking more often is
/// what the interval forbids); none, [`LTI_JWKS_MAX_AGE_DEFAULT_MS`].
pub(crate) fn lifetime(cache_control: Option<&str>, interval: Duration) -> Duration {
    let ceiling = Duration::from_millis(LTI_JWKS_MAX_AGE_MS).max(interval);
    let mut max_age = None;
    for directive in cache_control.unwrap_or("").split(',') {
        let directive = directive.trim().to_ascii_lowercase();
        if directive == "no-store" || directive == "no-cache" {
            return interval;
        }
        if let Some(value) = directive.strip_prefix("max-age=") {
            // Unparsable, it is as if there were none; too large, the ceiling.
            max_age = value.trim_matches('"').parse::<u64>().ok().or(max_age);
        }
    }
    let wanted = match max_age {
        Some(seconds) => Duration::from_secs(seconds.min(LTI_JWKS_MAX_AGE_MS / 1000 + 1)),
        None => Duration::from_millis(LTI_JWKS_MAX_AGE_DEFAULT_MS),
    };
    wanted.clamp(interval, ceiling)
}

/// Fetches a platform's JWKS (bounded in time and size) and the `Cache-Control` it came with.
/// Blocking.
fn fetch(service: &Context<'_>, platform: &PlatformRecord) -> Result<(JwkSet, Option<String>), KeyError> {
    let answer = exchange_answer(
        Exchange {
            method: "GET",
            url: &platform.platform.jwks_url,
            content_type: None,
            headers: &[("accept", "application/json".to_string())],
            body: b"",
            read_max: LTI_FETCH_BYTES_MAX,
        },
        service.config.allow_private_callbacks,
        LTI_FETCH_MS_MAX,
    )
    .map_err(|e| KeyError::Fetch(e.message))?;
    if answer.status != 200 {
        return Err(KeyError::Fetch(format!("the JWKS endpoint answered {}", answer.status)));
    }
    let set = serde_json::from_slice::<JwkSet>(&answer.body)
        .map_err(|e| KeyError::Fetch(format!("not a JWKS: {e}")))?;
    Ok((set, answer.cache_control))
}

/// The platform's key with `kid`: from its cached set while that is fresh, otherwise from a fetch
/// (at most one per interval). Blocking: it may wait for a fetch.
pub(crate) fn key_for(
    service: &Context<'_>,
    platform: &PlatformRecord,
    kid: &str,
) -> Result<DecodingKey, KeyError> {
    let interval = Duration::from_millis(service.config.lti_jwks_interval_ms);
    let entry = service.lti.jwks.of(platform.id);
    // Held through a fetch: the platform's other launches wait for it and use its answer.
    let mut keys = entry.lock().unwrap_or_else(|p| p.into_inner());
    if keys.url != platform.platform.jwks_url {
        *keys = PlatformKeys { url: platform.platform.jwks_url.clone(), ..PlatformKeys::default() };
    }
    let now = Instant::now();
    let fresh = keys.fresh_until.is_some_and(|until| now < until);
    if fresh && let Some(found) = find(keys.set.as_deref(), kid) {
        return found;
    }
    let may_fetch = keys.fetched_at.is_none_or(|at| now.duration_since(at) >= interval);
    if !may_fetch {
        // Fetched within the interval: what that fetch gave, nothing more.
        return find(keys.set.as_deref(), kid).unwrap_or_else(|| Err(KeyError::Unknown(kid.into())));
    }
    keys.fetched_at = Some(now);
    match fetch(service, platform) {
        Ok((set, cache_control)) => {
            keys.fresh_until = Some(now + lifetime(cache_control.as_deref(), interval));
            keys.set = Some(Arc::new(set));
            tracing::info!(event = "lti_jwks_fetched", platform = %platform.platform.name,
                cache_control = cache_control.as_deref().unwrap_or(""));
            find(keys.set.as_deref(), kid).unwrap_or_else(|| Err(KeyError::Unknown(kid.into())))
        }
        Err(error) => match find(keys.set.as_deref(), kid) {
            Some(found) => {
                tracing::warn!(event = "lti_jwks_stale", platform = %platform.platform.name,
                    error = ?error, "the platform's keys could not be fetched again; the last set is used");
                found
            }
            None => Err(error),
        },
    }
}

/// The key `kid` of `set`: none if the set does not hold it.
fn find(set: Option<&JwkSet>, kid: &str) -> Option<Result<DecodingKey, KeyError>> {
    let jwk = set?.find(kid)?;
    Some(
        DecodingKey::from_jwk(jwk)
            .map_err(|e| KeyError::Unusable(format!("the platform's key {kid:?} is unusable: {e}"))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lifetime_follows_cache_control_within_the_floor_and_the_ceiling() {
        let interval = Duration::from_secs(60);
        let ceiling = Duration::from_millis(LTI_JWKS_MAX_AGE_MS);
        for (header, expected) in [
            (None, Duration::from_millis(LTI_JWKS_MAX_AGE_DEFAULT_MS)),
            (Some("public, max-age=600"), Duration::from_secs(600)),
            (Some("Max-Age=\"600\""), Duration::from_secs(600)),
            (Some("max-age=5"), interval),
            (Some("max-age=0"), interval),
            (Some("no-store"), interval),
            (Some("max-age=600, no-cache"), interval),
            (Some("max-age=99999999999999999"), ceiling),
            (Some("max-age=18446744073709551615"), ceiling),
            (Some("max-age=forever"), Duration::from_millis(LTI_JWKS_MAX_AGE_DEFAULT_MS)),
            (Some(""), Duration::from_millis(LTI_JWKS_MAX_AGE_DEFAULT_MS)),
        ] {
            assert_eq!(lifetime(header, interval), expected, "{header:?}");
        }
        // An interval beyond the ceiling (a configuration) wins: never more often than it says.
        let long = ceiling + Duration::from_secs(1);
        assert_eq!(lifetime(Some("max-age=60"), long), long);
    }
}
