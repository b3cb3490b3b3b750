//! The LTI 1.3 endpoints: `/lti/jwks` (the tool's public key), `/lti/login` (OIDC third-party
//! login initiation, GET and POST), `/lti/launch` (the platform posts the `id_token`; a resource
//! link opens the student's page, a deep-linking request the exercise picker) and
//! `/lti/deep-link` (the teacher's choice, answered with a signed `LtiDeepLinkingResponse` posted
//! back to the platform). Every failure is a page in the launch's language (German unless it asks
//! for English) and a log line, never a 500: the learner sees what went wrong and what to do.

use std::time::Instant;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine as _;
use futures_util::StreamExt;
use maud::html;
use serde_json::json;
use serde_json::value::RawValue;

use super::handler::Data;
use super::learn::{page_response, page_url};
use crate::limits::{
    LTI_DEEP_LINK_DATA_BYTES_MAX, LTI_FORM_BYTES_MAX, LTI_JWT_TTL_S, LTI_PARAM_BYTES_MAX, LTI_STATE_TTL_MS,
};
use crate::service::address::{AddressKey, client_address};
use crate::service::lti::logins::{Bound, REFUSALS_LOG_MS, Refused};
use crate::service::lti::rollover::{tool_key, tool_keys};
use crate::service::lti::verify::{
    DEEP_LINKING, LTI_VERSION, LaunchClaims, LaunchError, RESOURCE_LINK, verify,
};
use crate::service::lti::{SCORE_SCOPE, learner_id};
use crate::service::metrics::LtiLogin;
use crate::service::shared::Shared;
use crate::service::store::{LtiState, PlatformRecord};
use crate::service::{auth, clock, html as pages};
use crate::text::{Lang, Text};

/// `GET /lti/jwks`: the tool's public key, for platforms to verify its JWTs.
#[utoipa::path(
    get,
    path = "/lti/jwks",
    tag = "lti",
    responses(
        (status = 200, description = "The tool's public keys (RFC 7517 JWK set; RS256)", body = Object, content_type = "application/json"),
        (status = 503, description = "The tool's key is not available", content_type = "text/plain"),
    )
)]
pub(crate) async fn jwks(shared: Data) -> HttpResponse {
    let key = web::block(move || tool_keys(&shared.lti_context())).await;
    match key {
        Ok(Ok(key)) => {
            HttpResponse::Ok().insert_header((header::CACHE_CONTROL, "public, max-age=3600")).json(key.jwks())
        }
        Ok(Err(e)) => {
            tracing::error!(event = "lti_key_failed", error = %e);
            HttpResponse::ServiceUnavailable()
                .content_type("text/plain; charset=utf-8")
                .body("the tool's key is not available\n")
        }
        Err(e) => {
            tracing::error!(event = "lti_key_failed", error = %e);
            HttpResponse::ServiceUnavailable()
                .content_type("text/plain; charset=utf-8")
                .body("the tool's key is not available\n")
        }
    }
}

/// A failure as a page and a log line.
fn refuse(shared: &Shared, lang: Lang, status: StatusCode, error: &LaunchError) -> HttpResponse {
    let text = error.text();
    tracing::warn!(event = "lti_refused", reason = error.code(), detail = %text.en);
    page_response(
        shared,
        status,
        pages::message_page(lang, &Text::new("LTI-Start abgelehnt", "LTI launch refused"), &text),
    )
}

/// The form fields and query parameters of a request, each name once; a repeated or oversized
/// field is an error.
async fn read_params(
    req: &HttpRequest,
    mut payload: web::Payload,
) -> Result<Vec<(String, String)>, LaunchError> {
    let mut raw = req.query_string().as_bytes().to_vec();
    if req.method() == actix_web::http::Method::POST {
        let content_type =
            req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !content_type.to_ascii_lowercase().starts_with("application/x-www-form-urlencoded") {
            return Err(LaunchError::Malformed("the form is not application/x-www-form-urlencoded".into()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = payload.next().await {
            let chunk =
                chunk.map_err(|e| LaunchError::Malformed(format!("the form could not be read: {e}")))?;
            if body.len() + chunk.len() > LTI_FORM_BYTES_MAX {
                return Err(LaunchError::Malformed(format!(
                    "the form is larger than {LTI_FORM_BYTES_MAX} bytes"
                )));
            }
            body.extend_from_slice(&chunk);
        }
        if !raw.is_empty() && !body.is_empty() {
            raw.push(b'&');
        }
        raw.extend_from_slice(&body);
    }
    let mut params: Vec<(String, String)> = Vec::new();
    for (name, value) in url::form_urlencoded::parse(&raw) {
        if params.iter().any(|(n, _)| *n == name) {
            return Err(LaunchError::Malformed(format!("the parameter {name} is given twice")));
        }
        let limit =
            if name == "id_token" || name == "JWT" { LTI_FORM_BYTES_MAX } else { LTI_PARAM_BYTES_MAX };
        if value.len() > limit {
            return Err(LaunchError::Malformed(format!("the parameter {name} is longer than {limit} bytes")));
        }
        params.push((name.into_owned(), value.into_owned()));
    }
    Ok(params)
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
}

fn required<'a>(params: &'a [(String, String)], name: &str) -> Result<&'a str, LaunchError> {
    param(params, name).ok_or_else(|| LaunchError::Malformed(format!("the parameter {name} is missing")))
}

async fn platforms(shared: &Data) -> Result<Vec<PlatformRecord>, LaunchError> {
    super::handler::db(shared, |store| store.list_platforms())
        .await
        .map_err(|p| LaunchError::Malformed(format!("the registrations cannot be read now: {}", p.detail)))
}

/// A random value for `state` and `nonce`.
fn random_value() -> Result<String, LaunchError> {
    use base64::Engine;
    auth::random_bytes(32)
        .map(|b| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b))
        .map_err(LaunchError::Malformed)
}

/// `GET|POST /lti/login`: OIDC third-party login initiation. Keeps a `state` and a `nonce` (one
/// use, [`LTI_STATE_TTL_MS`]) and redirects to the platform's authorisation endpoint.
#[utoipa::path(
    get,
    path = "/lti/login",
    tag = "lti",
    description = "OIDC third-party login initiation (LTI 1.3), as a registered platform starts it: the \
                   parameters `iss`, `login_hint`, `target_link_uri`, and optionally `client_id`, \
                   `lti_deployment_id` and `lti_message_hint`, in the query (here) or as a form (`POST /lti/login`). \
                   The tool keeps a one-use `state` and `nonce` and redirects to the platform.",
    params(
        ("iss" = String, Query, description = "The platform's issuer, as registered (`pruefstein platform add`)"),
        ("login_hint" = String, Query, description = "The platform's opaque hint for the user"),
        ("target_link_uri" = String, Query, description = "Where the launch leads"),
        ("client_id" = Option<String>, Query, description = "The tool's client id at the platform"),
        ("lti_deployment_id" = Option<String>, Query, description = "The deployment"),
        ("lti_message_hint" = Option<String>, Query, description = "Passed back to the platform unchanged"),
    ),
    responses(
        (status = 302, description = "To the platform's authorisation endpoint (`Location`)"),
        (status = 400, description = "A malformed request: a page that says why", content_type = "text/html"),
        (status = 422, description = "No registered platform has this issuer (and client id): a page that says so", content_type = "text/html"),
        (status = 429, description = "The client address holds as many logins waiting for their launch as allowed, or the platform does and the address its share (`Retry-After`): a page that says so", content_type = "text/html"),
        (status = 503, description = "The store cannot be read now", content_type = "text/html"),
    )
)]
pub(crate) async fn login(req: HttpRequest, payload: web::Payload, shared: Data) -> HttpResponse {
    match start_login(&req, payload, &shared).await {
        Ok(location) => HttpResponse::Found()
            .insert_header((header::LOCATION, location))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish(),
        Err((_, error @ LaunchError::TooManyLogins { .. })) => too_many_logins(&shared, &error),
        Err((status, error)) => refuse(&shared, Lang::De, status, &error),
    }
}

/// A login refused at its address's bound: 429 with `Retry-After`, counted, and logged at most
/// once per [`REFUSALS_LOG_MS`] (a flood must not flood the log).
fn too_many_logins(shared: &Shared, error: &LaunchError) -> HttpResponse {
    shared.metrics.lti_login(match error {
        LaunchError::TooManyLogins { per_platform: true, .. } => LtiLogin::RefusedPlatform,
        _ => LtiLogin::RefusedAddress,
    });
    if let Some(refused) = shared.lti.logins.refusals_to_log(clock::now_ms(), REFUSALS_LOG_MS) {
        tracing::warn!(event = "lti_refused", reason = error.code(), refused_since_last_line = refused,
            detail = %error.text().en);
    }
    let retry_after = match error {
        LaunchError::TooManyLogins { retry_after_s, .. } => *retry_after_s,
        _ => 0,
    };
    let mut response = page_response(
        shared,
        StatusCode::TOO_MANY_REQUESTS,
        pages::message_page(Lang::De, &Text::new("LTI-Start abgelehnt", "LTI launch refused"), &error.text()),
    );
    response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from(retry_after.max(1)));
    response
}

/// The client's address, as the login bounds count it.
fn client(req: &HttpRequest, shared: &Shared) -> AddressKey {
    let forwarded: Vec<&str> =
        req.headers().get_all("x-forwarded-for").filter_map(|v| v.to_str().ok()).collect();
    client_address(req.peer_addr().map(|a| a.ip()), &forwarded, &shared.lti.trusted_proxies)
}

fn too_many(refused: Refused) -> (StatusCode, LaunchError) {
    (
        StatusCode::TOO_MANY_REQUESTS,
        LaunchError::TooManyLogins {
            per_platform: refused.bound == Bound::Platform,
            address: refused.address.to_string(),
            pending: refused.pending,
            retry_after_s: refused.retry_after.as_secs_f64().ceil() as u64,
        },
    )
}

/// `POST /lti/login`: the same as [`login`], with the parameters as a form.
#[utoipa::path(
    post,
    path = "/lti/login",
    tag = "lti",
    description = "OIDC third-party login initiation (LTI 1.3), as a registered platform starts it: the \
                   parameters `iss`, `login_hint`, `target_link_uri`, and optionally `client_id`, \
                   `lti_deployment_id` and `lti_message_hint`, as a form (here) or in the query (`GET /lti/login`). \
                   The tool keeps a one-use `state` and `nonce` and redirects to the platform.",
    request_body(
        content = Object, content_type = "application/x-www-form-urlencoded",
        description = "`iss`, `login_hint`, `target_link_uri`; optionally `client_id`, `lti_deployment_id`, \
                       `lti_message_hint`"
    ),
    responses(
        (status = 302, description = "To the platform's authorisation endpoint (`Location`)"),
        (status = 400, description = "A malformed request: a page that says why", content_type = "text/html"),
        (status = 422, description = "No registered platform has this issuer (and client id): a page that says so", content_type = "text/html"),
        (status = 429, description = "The client address holds as many logins waiting for their launch as allowed, or the platform does and the address its share (`Retry-After`): a page that says so", content_type = "text/html"),
        (status = 503, description = "The store cannot be read now", content_type = "text/html"),
    )
)]
pub(crate) async fn login_form(req: HttpRequest, payload: web::Payload, shared: Data) -> HttpResponse {
    login(req, payload, shared).await
}

async fn start_login(
    req: &HttpRequest,
    payload: web::Payload,
    shared: &Data,
) -> Result<String, (StatusCode, LaunchError)> {
    let bad = |e| (StatusCode::BAD_REQUEST, e);
    let params = read_params(req, payload).await.map_err(bad)?;
    // The cheap refusal first: no store, no random numbers for an address at its bound.
    let address = client(req, shared);
    shared.lti.logins.check(None, address, Instant::now()).map_err(too_many)?;
    let issuer = required(&params, "iss").map_err(bad)?;
    let login_hint = required(&params, "login_hint").map_err(bad)?;
    required(&params, "target_link_uri").map_err(bad)?;
    let client_id = param(&params, "client_id");
    let candidates: Vec<PlatformRecord> = platforms(shared)
        .await
        .map_err(|e| (StatusCode::SERVICE_UNAVAILABLE, e))?
        .into_iter()
        .filter(|p| p.platform.issuer == issuer && client_id.is_none_or(|c| c == p.platform.client_id))
        .collect();
    let platform = match candidates.as_slice() {
        [one] => one.clone(),
        [] => return Err((StatusCode::UNPROCESSABLE_ENTITY, LaunchError::UnknownPlatform)),
        _ => {
            return Err(bad(LaunchError::Malformed(
                "several registrations share this issuer: the login must name its client_id".into(),
            )));
        }
    };
    shared.lti.logins.check(Some(platform.id), address, Instant::now()).map_err(too_many)?;
    let (state, nonce) = (random_value().map_err(bad)?, random_value().map_err(bad)?);
    let admitted = shared.lti.logins.admit(platform.id, address, &state, Instant::now()).map_err(too_many)?;
    let entry = LtiState { nonce: nonce.clone(), platform_id: platform.id };
    let now = clock::now_ms();
    let (key, evict) = (state.clone(), admitted.evicted.clone());
    let kept = super::handler::db(shared, move |store| {
        store.put_lti_state(&key, &entry, now + LTI_STATE_TTL_MS as i64, evict.as_deref(), now)
    })
    .await;
    if let Err(p) = kept {
        shared.lti.logins.release(&state);
        return Err((StatusCode::SERVICE_UNAVAILABLE, LaunchError::Malformed(p.detail)));
    }
    shared.metrics.lti_login(LtiLogin::Started);
    if admitted.evicted.is_some() {
        shared.metrics.lti_login(LtiLogin::Evicted);
    }
    let mut location = url::Url::parse(&platform.platform.auth_url)
        .map_err(|e| bad(LaunchError::Malformed(format!("the platform's auth URL is not valid: {e}"))))?;
    {
        let mut query = location.query_pairs_mut();
        query
            .append_pair("scope", "openid")
            .append_pair("response_type", "id_token")
            .append_pair("response_mode", "form_post")
            .append_pair("prompt", "none")
            .append_pair("client_id", &platform.platform.client_id)
            .append_pair("redirect_uri", &format!("{}/lti/launch", shared.config.public_url))
            .append_pair("login_hint", login_hint)
            .append_pair("state", &state)
            .append_pair("nonce", &nonce);
        if let Some(hint) = param(&params, "lti_message_hint") {
            query.append_pair("lti_message_hint", hint);
        }
    }
    tracing::info!(event = "lti_login", platform = %platform.platform.name);
    Ok(location.to_string())
}

/// The language a launch asks for: English for an `en` locale, German otherwise.
fn launch_lang(claims: &LaunchClaims) -> Lang {
    let locale = claims.launch_presentation.as_ref().and_then(|p| p.locale.as_deref()).unwrap_or("de");
    if locale.to_ascii_lowercase().starts_with("en") { Lang::En } else { Lang::De }
}

/// `POST /lti/launch`: the platform posts `id_token` and `state` here.
#[utoipa::path(
    post,
    path = "/lti/launch",
    tag = "lti",
    description = "The LTI 1.3 launch: the platform posts the `id_token` (a JWT it signed) and the `state` of the \
                   login. The token is verified against the platform's JWKS (issuer, audience, `azp`, expiry, \
                   not before and issued at, nonce, deployment, message type, version). A resource link opens the learner's page of the \
                   exercise; a deep-linking request, the catalogue to pick from.",
    request_body(
        content = Object, content_type = "application/x-www-form-urlencoded",
        description = "`id_token` and `state` (or `error` and `error_description` from the platform)"
    ),
    responses(
        (status = 200, description = "The learner's page, or the deep-linking picker", content_type = "text/html"),
        (status = 400, description = "A malformed form, or a verified launch of an unknown message type or without what it needs: a page that says why", content_type = "text/html"),
        (status = 401, description = "The id_token does not verify: a page that names the claim", content_type = "text/html"),
        (status = 422, description = "An unknown, used or expired state, a platform no longer registered, or an error the platform sent: a page that says why", content_type = "text/html"),
        (status = 503, description = "The store or the platform's keys cannot be read now", content_type = "text/html"),
    )
)]
pub(crate) async fn launch(req: HttpRequest, payload: web::Payload, shared: Data) -> HttpResponse {
    let params = match read_params(&req, payload).await {
        Ok(params) => params,
        Err(error) => return refuse(&shared, Lang::De, StatusCode::BAD_REQUEST, &error),
    };
    if let Some(error) = param(&params, "error") {
        let description = param(&params, "error_description").unwrap_or("");
        let error = LaunchError::PlatformError(format!("{error} {description}").trim().to_string());
        return refuse(&shared, Lang::De, StatusCode::UNPROCESSABLE_ENTITY, &error);
    }
    let (id_token, state) = match (required(&params, "id_token"), required(&params, "state")) {
        (Ok(id_token), Ok(state)) => (id_token.to_string(), state.to_string()),
        (Err(e), _) | (_, Err(e)) => return refuse(&shared, Lang::De, StatusCode::BAD_REQUEST, &e),
    };
    // The state is taken first: whatever follows, it cannot be used again.
    let now = clock::now_ms();
    shared.lti.logins.release(&state);
    let taken = match super::handler::db(&shared, move |store| store.take_lti_state(&state, now)).await {
        Ok(taken) => taken,
        Err(p) => {
            return refuse(
                &shared,
                Lang::De,
                StatusCode::SERVICE_UNAVAILABLE,
                &LaunchError::Malformed(p.detail),
            );
        }
    };
    let Some(login) = taken else {
        return refuse(&shared, Lang::De, StatusCode::UNPROCESSABLE_ENTITY, &LaunchError::State);
    };
    let platform = match platforms(&shared).await {
        Ok(all) => all.into_iter().find(|p| p.id == login.platform_id),
        Err(e) => return refuse(&shared, Lang::De, StatusCode::SERVICE_UNAVAILABLE, &e),
    };
    let Some(platform) = platform else {
        return refuse(&shared, Lang::De, StatusCode::UNPROCESSABLE_ENTITY, &LaunchError::UnknownPlatform);
    };
    let verified = {
        let (shared, platform) = (shared.clone(), platform.clone());
        web::block(move || verify(&shared.lti_context(), &platform, &id_token, &login.nonce)).await
    };
    let claims = match verified {
        Ok(Ok(claims)) => claims,
        Ok(Err(error)) => return refuse(&shared, Lang::De, StatusCode::UNAUTHORIZED, &error),
        Err(e) => {
            return refuse(
                &shared,
                Lang::De,
                StatusCode::SERVICE_UNAVAILABLE,
                &LaunchError::Malformed(e.to_string()),
            );
        }
    };
    let lang = launch_lang(&claims);
    let outcome = match claims.message_type.as_deref() {
        Some(RESOURCE_LINK) if super::teach::is_instructor(&claims) => {
            super::teach::instructor_launch(&shared, &platform, &claims, lang)
        }
        Some(RESOURCE_LINK) => resource_link(&shared, &platform, &claims, lang).await,
        Some(DEEP_LINKING) => deep_linking_picker(&shared, &platform, &claims, lang),
        other => Err(LaunchError::MessageType(other.unwrap_or("").to_string())),
    };
    match outcome {
        Ok(response) => response,
        Err(error) => refuse(&shared, lang, StatusCode::BAD_REQUEST, &error),
    }
}

/// A resource-link launch: the learner's page of the exercise the link names (custom parameter
/// `exercise`, or `exercise` in the target link's query), with the line item for its scores.
async fn resource_link(
    shared: &Data,
    platform: &PlatformRecord,
    claims: &LaunchClaims,
    lang: Lang,
) -> Result<HttpResponse, LaunchError> {
    let from_target = claims
        .target_link_uri
        .as_deref()
        .and_then(|t| url::Url::parse(t).ok())
        .and_then(|u| u.query_pairs().find(|(k, _)| k == "exercise").map(|(_, v)| v.into_owned()));
    let slug = claims
        .custom
        .get("exercise")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .or(from_target)
        .ok_or_else(|| LaunchError::Claim("the custom parameter exercise (which exercise to open)".into()))?;
    if shared.catalogue.get(&slug).is_none() {
        return Err(LaunchError::Claim(format!("the exercise {slug:?} is not served here")));
    }
    let subject =
        claims.sub.clone().filter(|s| !s.is_empty()).ok_or_else(|| LaunchError::Claim("sub".into()))?;
    let lineitem = claims
        .ags
        .as_ref()
        .filter(|ags| ags.scope.iter().any(|s| s == SCORE_SCOPE))
        .and_then(|ags| ags.lineitem.clone())
        .unwrap_or_default();
    if lineitem.len() > LTI_PARAM_BYTES_MAX || (!lineitem.is_empty() && url::Url::parse(&lineitem).is_err()) {
        return Err(LaunchError::Claim("a usable AGS line item URL".into()));
    }
    let (platform_id, exercise, subject_key) = (platform.id, slug.clone(), subject.clone());
    let now = clock::now_ms();
    // The course the launch comes from: the dashboard of that course shows what is made here.
    let course = claims.context.as_ref().map(|c| c.id.clone()).unwrap_or_default();
    let context = super::handler::db(shared, move |store| {
        let context = store.lti_context(platform_id, &subject_key, &exercise, &lineitem, now)?;
        if !course.is_empty() {
            store.set_lti_course(context.id, &course)?;
        }
        Ok(context)
    })
    .await
    .map_err(|p| LaunchError::Malformed(p.detail))?;
    let learner = learner_id(platform, &subject);
    let url = page_url(shared, platform.api_client_id, &slug, &learner, Some(context.id), lang);
    tracing::info!(event = "lti_launch", platform = %platform.platform.name, exercise = %slug, context = context.id);
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, url))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .finish())
}

/// The fields of a deep-linking choice, bound by a token so that only what the launch allowed
/// can be posted back.
fn deep_link_token(key: &[u8], fields: &[&str]) -> String {
    let mut message = String::from("deep-link");
    for field in fields {
        message.push_str(&format!(":{}:{field}", field.len()));
    }
    hex::encode(&auth::hmac_sha256(key, message.as_bytes())[..16])
}

/// A deep-linking launch: the catalogue, each exercise a form that picks it.
fn deep_linking_picker(
    shared: &Data,
    platform: &PlatformRecord,
    claims: &LaunchClaims,
    lang: Lang,
) -> Result<HttpResponse, LaunchError> {
    let settings =
        claims.deep_linking.as_ref().ok_or_else(|| LaunchError::Claim("deep_linking_settings".into()))?;
    if !settings.accept_types.is_empty() && !settings.accept_types.iter().any(|t| t == "ltiResourceLink") {
        return Err(LaunchError::Claim("accept_types with ltiResourceLink".into()));
    }
    let return_url = settings.deep_link_return_url.as_str();
    if crate::service::lti::origin(return_url).is_none() || return_url.len() > LTI_PARAM_BYTES_MAX {
        return Err(LaunchError::Claim("a usable deep_link_return_url".into()));
    }
    let deployment = claims.deployment_id.clone().unwrap_or_default();
    // The platform's `data`, any JSON value, travels as the text it was signed as, in base64url
    // (a browser would turn the line breaks of a form value into CRLF); empty: none.
    let data = settings.data.as_ref().map(|d| d.get()).unwrap_or_default();
    if data.len() > LTI_DEEP_LINK_DATA_BYTES_MAX {
        return Err(LaunchError::Claim(format!(
            "deep-linking data of at most {LTI_DEEP_LINK_DATA_BYTES_MAX} bytes (it has {})",
            data.len()
        )));
    }
    let data = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(data);
    let expires = (clock::now_ms() + LTI_STATE_TTL_MS as i64).to_string();
    let platform_id = platform.id.to_string();
    let t = |de, en| if lang == Lang::De { de } else { en };
    let exercises = shared.catalogue.all();
    let body = html! {
        h1 { (t("Aufgabe auswählen", "Choose an exercise")) }
        p { (t("Diese Aufgabe wird als Aktivität in den Kurs eingefügt; ihre Punkte gehen in die Bewertung ein.",
               "The exercise is added to the course as an activity; its points go to the gradebook.")) }
        ul class="picker" {
            @for exercise in exercises.values() {
                @let token = deep_link_token(shared.report_key.current(), &[&platform_id, &deployment, return_url, &data, &exercise.slug, &expires]);
                li {
                    form method="post" action="/lti/deep-link" {
                        input type="hidden" name="p" value=(platform_id);
                        input type="hidden" name="d" value=(deployment);
                        input type="hidden" name="r" value=(return_url);
                        input type="hidden" name="data" value=(data);
                        input type="hidden" name="exercise" value=(exercise.slug);
                        input type="hidden" name="e" value=(expires);
                        input type="hidden" name="lang" value=(lang.code());
                        input type="hidden" name="t" value=(token);
                        button type="submit" { (exercise.title.get(lang)) }
                        " " span class="meta" { (exercise.slug) " · " (exercise.points) " " (t("Punkte", "points")) }
                    }
                }
            }
        }
    };
    let page = pages::plain_page(lang, t("Aufgabe auswählen", "Choose an exercise"), body);
    Ok(page_response(shared, StatusCode::OK, page))
}

/// The claims of a deep-linking response for `exercise`: a resource link with a line item.
fn deep_linking_claims(
    shared: &Shared,
    platform: &PlatformRecord,
    deployment: &str,
    exercise: &crate::exercise::Exercise,
    lang: Lang,
    nonce: String,
) -> serde_json::Value {
    let now = clock::now_ms() / 1000;
    json!({
        "iss": platform.platform.client_id,
        "aud": platform.platform.issuer,
        "iat": now,
        "exp": now + LTI_JWT_TTL_S as i64,
        "nonce": nonce,
        "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiDeepLinkingResponse",
        "https://purl.imsglobal.org/spec/lti/claim/version": LTI_VERSION,
        "https://purl.imsglobal.org/spec/lti/claim/deployment_id": deployment,
        "https://purl.imsglobal.org/spec/lti-dl/claim/content_items": [{
            "type": "ltiResourceLink",
            "title": exercise.title.get(lang),
            "url": format!("{}/lti/launch", shared.config.public_url),
            "custom": {"exercise": exercise.slug},
            "lineItem": {
                "scoreMaximum": exercise.points,
                "label": exercise.title.get(lang),
                "resourceId": exercise.slug,
            },
        }],
    })
}

/// The claims of a deep-linking response, with the platform's `data` as it was signed.
#[derive(serde::Serialize)]
struct DeepLinkingResponse {
    #[serde(flatten)]
    claims: serde_json::Value,
    #[serde(
        rename = "https://purl.imsglobal.org/spec/lti-dl/claim/data",
        skip_serializing_if = "Option::is_none"
    )]
    data: Option<Box<RawValue>>,
}

/// The platform's `data` from the picker's field (base64url of its JSON text; empty: none).
fn returned_data(encoded: &str) -> Result<Option<Box<RawValue>>, ()> {
    if encoded.is_empty() {
        return Ok(None);
    }
    let text = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded).map_err(|_| ())?;
    let text = String::from_utf8(text).map_err(|_| ())?;
    serde_json::from_str::<Box<RawValue>>(&text).map(Some).map_err(|_| ())
}

/// `POST /lti/deep-link`: the teacher's choice, answered with a page whose form posts the signed
/// `LtiDeepLinkingResponse` back to the platform (a button: the page needs no JavaScript).
#[utoipa::path(
    post,
    path = "/lti/deep-link",
    tag = "lti",
    description = "The teacher's choice on the deep-linking picker (its form, signed by the tool and valid for a \
                   short time): answered with a page whose button posts the signed `LtiDeepLinkingResponse` \
                   (the exercise as a resource link with a line item) back to the platform.",
    request_body(
        content = Object, content_type = "application/x-www-form-urlencoded",
        description = "The picker's hidden fields `p`, `d`, `r`, `data`, `exercise`, `e`, `lang`, `t`"
    ),
    responses(
        (status = 200, description = "The page that returns the choice to the platform", content_type = "text/html"),
        (status = 400, description = "A malformed form", content_type = "text/html"),
        (status = 422, description = "A form the tool did not sign, an expired one, or an unknown exercise", content_type = "text/html"),
        (status = 503, description = "The store or the tool's key cannot be read now", content_type = "text/html"),
    )
)]
pub(crate) async fn deep_link(req: HttpRequest, payload: web::Payload, shared: Data) -> HttpResponse {
    let params = match read_params(&req, payload).await {
        Ok(params) => params,
        Err(error) => return refuse(&shared, Lang::De, StatusCode::BAD_REQUEST, &error),
    };
    let lang = param(&params, "lang").and_then(|l| l.parse::<Lang>().ok()).unwrap_or(Lang::De);
    let field = |name: &str| param(&params, name).unwrap_or("").to_string();
    let (platform_id, deployment, return_url, data, slug, expires, token) =
        (field("p"), field("d"), field("r"), field("data"), field("exercise"), field("e"), field("t"));
    let fields = [platform_id.as_str(), &deployment, &return_url, &data, &slug, &expires];
    let signed = shared
        .report_key
        .any_valid(clock::now_ms(), |key| auth::tokens_equal(&deep_link_token(key, &fields), &token));
    let expired = expires.parse::<i64>().map_or(true, |e| e <= clock::now_ms());
    // The platform's `data` goes back as it came, byte for byte (the token binds it).
    let returned = returned_data(&data);
    if !signed || expired || returned.is_err() {
        return refuse(&shared, lang, StatusCode::UNPROCESSABLE_ENTITY, &LaunchError::State);
    }
    let platform = match platforms(&shared).await {
        Ok(all) => all.into_iter().find(|p| p.id.to_string() == platform_id),
        Err(e) => return refuse(&shared, lang, StatusCode::SERVICE_UNAVAILABLE, &e),
    };
    let Some(platform) = platform else {
        return refuse(&shared, lang, StatusCode::UNPROCESSABLE_ENTITY, &LaunchError::UnknownPlatform);
    };
    let Some(exercise) = shared.catalogue.get(&slug) else {
        return refuse(
            &shared,
            lang,
            StatusCode::UNPROCESSABLE_ENTITY,
            &LaunchError::Claim(format!("the exercise {slug:?}")),
        );
    };
    let nonce = match random_value() {
        Ok(nonce) => nonce,
        Err(e) => return refuse(&shared, lang, StatusCode::SERVICE_UNAVAILABLE, &e),
    };
    let claims = deep_linking_claims(&shared, &platform, &deployment, &exercise, lang, nonce);
    let response = DeepLinkingResponse { claims, data: returned.unwrap_or_default() };
    let signed = {
        let shared = shared.clone();
        web::block(move || tool_key(&shared.lti_context()).and_then(|key| key.sign(&response))).await
    };
    let jwt = match signed {
        Ok(Ok(jwt)) => jwt,
        Ok(Err(e)) => {
            return refuse(&shared, lang, StatusCode::SERVICE_UNAVAILABLE, &LaunchError::Malformed(e));
        }
        Err(e) => {
            return refuse(
                &shared,
                lang,
                StatusCode::SERVICE_UNAVAILABLE,
                &LaunchError::Malformed(e.to_string()),
            );
        }
    };
    tracing::info!(event = "lti_deep_link", platform = %platform.platform.name, exercise = %slug);
    let t = |de, en| if lang == Lang::De { de } else { en };
    let body = html! {
        h1 { (exercise.title.get(lang)) }
        p { (t("Die Aufgabe ist ausgewählt. Zurück zur Lernplattform:", "The exercise is chosen. Back to the learning platform:")) }
        form method="post" action=(return_url) {
            input type="hidden" name="JWT" value=(jwt);
            button type="submit" { (t("In den Kurs einfügen", "Add to the course")) }
        }
    };
    let origin = crate::service::lti::origin(&return_url).unwrap_or_else(|| "'none'".into());
    let mut response =
        page_response(&shared, StatusCode::OK, pages::plain_page(lang, exercise.title.get(lang), body));
    let policy = format!(
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action {origin}; frame-ancestors {}",
        super::learn::frame_ancestors(&shared)
    );
    if let Ok(value) = header::HeaderValue::from_str(&policy) {
        response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, value);
    }
    response
}
