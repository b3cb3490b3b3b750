//! Assignment and Grade Services: score passback through the outbox. When a submission made from
//! a launched page is graded, the worker writes an event `lti_sub_<n>` in the same transaction as
//! the result ([`score_event`]): its URL is the line item's `scores` endpoint, its payload the
//! score (`application/vnd.ims.lis.v1.score+json`) with the timestamp of the stored result, so a
//! retry or a redelivery sends the very same score. The outbox senders deliver it like a webhook
//! (retried with backoff, dead-lettered, redeliverable) through [`deliver`]: an access token from
//! the platform's token endpoint (client-credentials grant with a JWT assertion signed by the
//! tool's key, cached until shortly before it expires), then the score with that bearer token.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;

use super::Context;
use super::SCORE_SCOPE;
use super::rollover::tool_key;
use crate::limits::{LTI_FETCH_BYTES_MAX, LTI_FETCH_MS_MAX, LTI_JWT_TTL_S, LTI_TOKEN_MARGIN_S};
use crate::service::outbound::{AttemptError, Exchange, exchange, status_outcome};
use crate::service::store::{JobOutcome, LeasedJob, NewEvent, OutboxEvent, PlatformRecord};
use crate::service::{auth, clock};

/// The media type of a score.
pub(crate) const SCORE_MEDIA_TYPE: &str = "application/vnd.ims.lis.v1.score+json";
/// Event ids of score passback start with this; webhooks' with `evt_`.
pub(crate) const EVENT_PREFIX: &str = "lti_";

/// The metadata key that ties a submission to its launch context.
pub(crate) const CONTEXT_KEY: &str = "lti_context";

/// The score event of a graded submission made from a launched page with a line item, or none.
pub(crate) fn score_event(
    service: &Context<'_>,
    job: &LeasedJob,
    outcome: &JobOutcome,
    now: i64,
) -> Option<NewEvent> {
    let JobOutcome::Graded { points, max_points, .. } = outcome else { return None };
    let metadata: serde_json::Value = serde_json::from_str(job.metadata.as_deref()?).ok()?;
    let context_id = metadata.get(CONTEXT_KEY)?.as_i64()?;
    let context = match service.store.lti_context_by_id(context_id) {
        Ok(context) => context?,
        Err(e) => {
            // The result is stored without its score event; the log says so.
            tracing::error!(event = "lti_context_unreadable", error = %e);
            return None;
        }
    };
    let platform = platform_of_client(service, job.client_id)?;
    if context.platform_id != platform.id || context.lineitem.is_empty() || context.exercise != job.exercise {
        return None;
    }
    let url = scores_url(&context.lineitem)?;
    let payload = json!({
        "userId": context.subject,
        "scoreGiven": points,
        "scoreMaximum": max_points,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        "timestamp": clock::rfc3339(now),
    });
    Some(NewEvent {
        event_id: score_event_id(job.submission_id, job.version),
        url,
        payload: payload.to_string(),
    })
}

/// The score event of a result version: `lti_sub_12` for the first result; a regrade's score is an
/// event of its own version (`lti_sub_12_v2`), posted with the later timestamp, so that the platform
/// takes it over the first.
pub(crate) fn score_event_id(submission_id: i64, version: u32) -> String {
    let public = crate::service::public_id::of(submission_id);
    if version <= 1 {
        format!("{EVENT_PREFIX}{public}")
    } else {
        format!("{EVENT_PREFIX}{public}_v{version}")
    }
}

/// The `scores` endpoint of a line item: its path with `/scores` added, the query kept.
pub(crate) fn scores_url(lineitem: &str) -> Option<String> {
    let mut url = url::Url::parse(lineitem).ok()?;
    let path = format!("{}/scores", url.path().trim_end_matches('/'));
    url.set_path(&path);
    Some(url.to_string())
}

/// The platform whose API client is `client_id`.
fn platform_of_client(service: &Context<'_>, client_id: i64) -> Option<PlatformRecord> {
    match service.store.list_platforms() {
        Ok(platforms) => platforms.into_iter().find(|p| p.api_client_id == client_id),
        Err(e) => {
            tracing::error!(event = "lti_platforms_unreadable", error = %e);
            None
        }
    }
}

#[derive(Debug, Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// An access token for score passback: cached, or fetched with the client-credentials grant.
fn access_token(service: &Context<'_>, platform: &PlatformRecord) -> Result<String, AttemptError> {
    let permanent = |message: String| AttemptError { message, retry: false };
    if let Some((token, until)) =
        service.lti.tokens.lock().unwrap_or_else(|p| p.into_inner()).get(&platform.id)
        && Instant::now() < *until
    {
        return Ok(token.clone());
    }
    let key = tool_key(service).map_err(|e| AttemptError { message: e, retry: true })?;
    let now = clock::now_ms() / 1000;
    let jti = hex::encode(auth::random_bytes(16).map_err(|e| AttemptError { message: e, retry: true })?);
    let client_id = &platform.platform.client_id;
    let assertion = key
        .sign(&json!({
            "iss": client_id, "sub": client_id, "aud": platform.platform.token_url,
            "iat": now, "exp": now + LTI_JWT_TTL_S as i64, "jti": jti,
        }))
        .map_err(permanent)?;
    let form = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "client_credentials")
        .append_pair("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        .append_pair("client_assertion", &assertion)
        .append_pair("scope", SCORE_SCOPE)
        .finish();
    let (status, body) = exchange(
        Exchange {
            method: "POST",
            url: &platform.platform.token_url,
            content_type: Some("application/x-www-form-urlencoded"),
            headers: &[("accept", "application/json".to_string())],
            body: form.as_bytes(),
            read_max: LTI_FETCH_BYTES_MAX,
        },
        service.config.allow_private_callbacks,
        LTI_FETCH_MS_MAX,
    )?;
    status_outcome(status)
        .map_err(|e| AttemptError { message: format!("token endpoint: {}", e.message), ..e })?;
    let answer: TokenAnswer = serde_json::from_slice(&body)
        .map_err(|e| permanent(format!("token endpoint: the answer is not a token: {e}")))?;
    let lifetime = answer.expires_in.unwrap_or(3600).saturating_sub(LTI_TOKEN_MARGIN_S);
    service
        .lti
        .tokens
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(platform.id, (answer.access_token.clone(), Instant::now() + Duration::from_secs(lifetime)));
    Ok(answer.access_token)
}

/// One attempt to deliver a score event. Blocking.
pub(crate) fn deliver(service: &Context<'_>, event: &OutboxEvent) -> Result<(), AttemptError> {
    let Some(platform) = platform_of_client(service, event.client_id) else {
        return Err(AttemptError { message: "the platform is no longer registered".into(), retry: false });
    };
    let token = access_token(service, &platform)?;
    let (status, _) = exchange(
        Exchange {
            method: "POST",
            url: &event.url,
            content_type: Some(SCORE_MEDIA_TYPE),
            headers: &[("authorization", format!("Bearer {token}"))],
            body: event.payload.as_bytes(),
            read_max: 0,
        },
        service.config.allow_private_callbacks,
        service.config.webhook_timeout_ms,
    )?;
    if status == 401 {
        // The token was revoked or expired early: the next attempt fetches a new one.
        service.lti.tokens.lock().unwrap_or_else(|p| p.into_inner()).remove(&platform.id);
        return Err(AttemptError {
            message: "the line item answered 401; a new token is fetched".into(),
            retry: true,
        });
    }
    status_outcome(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_result_version_has_its_own_score_event_beside_the_webhook_ids() {
        assert_eq!(score_event_id(12, 1), "lti_sub_12");
        assert_eq!(score_event_id(12, 2), "lti_sub_12_v2");
        // Never the id of a webhook event of the same version: the outbox keys events by id.
        for version in 1..4 {
            assert_ne!(score_event_id(12, version), crate::service::worker::version_event_id(12, version));
        }
        // The ids the API may name (dead events, redelivery) match the document's pattern.
        let pattern = crate::service::http::openapi::EVENT_ID_PATTERN;
        assert_eq!(pattern, "^(evt|lti)_sub_[1-9][0-9]*(_v[1-9][0-9]*)?$", "the pattern this test reads");
        for id in [score_event_id(7, 1), score_event_id(7, 3), crate::service::worker::version_event_id(7, 2)]
        {
            let rest = id.strip_prefix("lti_sub_").or_else(|| id.strip_prefix("evt_sub_")).expect("a prefix");
            let (number, version) = rest.split_once("_v").map_or((rest, None), |(n, v)| (n, Some(v)));
            assert!(number.parse::<u64>().is_ok_and(|n| n > 0), "{id}");
            assert!(version.is_none_or(|v| v.parse::<u32>().is_ok_and(|v| v > 1)), "{id}");
        }
    }

    #[test]
    fn the_scores_endpoint_sits_below_the_line_item_with_its_query() {
        assert_eq!(
            scores_url("https://lms.example/api/lti/courses/1/line_items/7").as_deref(),
            Some("https://lms.example/api/lti/courses/1/line_items/7/scores")
        );
        assert_eq!(
            scores_url("https://lms.example/mod/lti/services.php/2/lineitems/5/lineitem?type_id=1")
                .as_deref(),
            Some("https://lms.example/mod/lti/services.php/2/lineitems/5/lineitem/scores?type_id=1")
        );
        assert_eq!(scores_url("not a url"), None);
    }
}
