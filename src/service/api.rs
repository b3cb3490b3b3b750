//! The HTTP surface: `/api/v1` for learning platforms (bearer token per client), the student report
//! pages under `/reports`, the ABI guide and starter kits, and the operator's `/healthz`, `/readyz`,
//! `/metrics`. The OpenAPI document at `/api/v1/openapi.json` is generated from the annotations of
//! the handlers below. Store calls and statement rendering run on the blocking pool.

use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use utoipa::{OpenApi, ToSchema};

use super::problem::Problem;
use super::store::{ClientRecord, Intake, NewSubmission, Store, SubmissionRecord};
use super::{Shared, auth, clock, html, log};
use crate::exercise::{ExerciseKind, GraderKind};
use crate::limits::{
    CALLBACK_URL_BYTES_MAX, DEAD_EVENTS_LISTED_MAX, IDEMPOTENCY_KEY_BYTES_MAX, LEARNER_BYTES_MAX,
    METADATA_BYTES_MAX, OVERSIZED_BODY_DRAINED_MAX, QUEUE_DEPTH_MAX, REQUEST_BODY_BYTES_MAX, WAIT_MS_MAX,
};
use crate::submission::Submission;
use crate::text::Lang;

type Data = web::Data<Shared>;

/// Runs the HTTP server until SIGTERM or SIGINT, then stops taking requests and lets running ones
/// finish.
pub async fn run_http(shared: Arc<Shared>) -> anyhow::Result<()> {
    let data = web::Data::from(shared.clone());
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::PathConfig::default().error_handler(|e, _| {
                Problem::bad_request("bad-path", e.to_string(), format!("Ungültiger Pfad: {e}")).into()
            }))
            .app_data(web::QueryConfig::default().error_handler(|e, _| {
                Problem::bad_request("bad-query", e.to_string(), format!("Ungültige Query-Parameter: {e}"))
                    .into()
            }))
            .wrap_fn(|req, srv| {
                use actix_web::dev::Service;
                let started = Instant::now();
                let method = req.method().to_string();
                let path = req.path().to_string();
                let call = srv.call(req);
                async move {
                    let response = call.await?;
                    let status = response.status().as_u16();
                    if status >= 500 || path.starts_with("/api/") && status >= 400 {
                        log::info(
                            "http",
                            &[
                                ("method", &method),
                                ("path", &path),
                                ("status", &status.to_string()),
                                ("ms", &started.elapsed().as_millis().to_string()),
                            ],
                        );
                    }
                    Ok(response)
                }
            })
            .route("/healthz", web::get().to(healthz))
            .route("/readyz", web::get().to(readyz))
            .route("/metrics", web::get().to(metrics))
            .route("/api/v1/openapi.json", web::get().to(openapi))
            .route("/api/v1/submissions", web::post().to(create_submission))
            .route("/api/v1/submissions/{id}", web::get().to(get_submission))
            .route("/api/v1/exercises", web::get().to(list_exercises))
            .route("/api/v1/exercises/{slug}", web::get().to(get_exercise))
            .route("/api/v1/webhooks/dead", web::get().to(dead_webhooks))
            .route("/api/v1/webhooks/dead/{event_id}/redeliver", web::post().to(redeliver_webhook))
            .route("/reports/{id}", web::get().to(report_page))
            .route("/docs/consumer-abi", web::get().to(abi_guide))
            .route("/kits/{kit}/{file:.*}", web::get().to(kit_file))
            .default_service(web::to(not_found))
    })
    .workers(threads)
    .disable_signals()
    .shutdown_timeout(crate::limits::SHUTDOWN_GRACE_MS / 1000)
    .bind(&shared.config.bind)
    .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", shared.config.bind))?
    .run();
    let handle = server.handle();
    let stopping = shared.clone();
    actix_web::rt::spawn(async move {
        let signal = wait_for_signal().await;
        log::info("shutting_down", &[("signal", signal)]);
        stopping.accepting.store(false, Ordering::SeqCst);
        stopping.work.notify();
        handle.stop(true).await;
    });
    log::info("listening", &[("bind", &shared.config.bind), ("public_url", &shared.config.public_url)]);
    server.await?;
    Ok(())
}

async fn wait_for_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
        (Ok(mut term), Ok(mut int)) => tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        },
        _ => {
            let _ = tokio::signal::ctrl_c().await;
            "SIGINT"
        }
    }
}

/// Runs a store call on the blocking pool.
async fn db<T: Send + 'static>(
    shared: &Shared,
    f: impl FnOnce(&dyn Store) -> Result<T, super::store::StoreError> + Send + 'static,
) -> Result<T, Problem> {
    let store = shared.store.clone();
    Ok(web::block(move || f(store.as_ref())).await??)
}

/// The client behind the request's bearer token: 401 without a valid one, 403 if revoked.
async fn authenticate(shared: &Shared, req: &HttpRequest) -> Result<ClientRecord, Problem> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Err(Problem::unauthorized(
            "This call needs a bearer token: 'Authorization: Bearer <token>' (create one with 'pruefstein client add NAME').",
            "Dieser Aufruf braucht ein Bearer-Token: 'Authorization: Bearer <token>' (erzeugt mit 'pruefstein client add NAME').",
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        return Err(Problem::unauthorized(
            "The Authorization header must have the form 'Bearer <token>'.",
            "Der Authorization-Header muss die Form 'Bearer <token>' haben.",
        ));
    };
    let hash = auth::token_hash(token);
    let client = db(shared, move |store| store.client_by_token_hash(&hash)).await?;
    match client {
        None => Err(Problem::unauthorized("This token is not known.", "Dieses Token ist unbekannt.")),
        Some(client) if client.revoked_at.is_some() => Err(Problem::new(
            StatusCode::FORBIDDEN,
            "client-revoked",
            "Forbidden",
            format!("The client {:?} has been revoked; its token is no longer accepted.", client.name),
            format!("Der Client {:?} wurde gesperrt; sein Token gilt nicht mehr.", client.name),
        )),
        Some(client) => Ok(client),
    }
}

/// A submission as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubmissionView {
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
    /// The full report (the same JSON as `pruefstein grade --json`), once graded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub report: Option<serde_json::Value>,
    pub links: Links,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ScoreView {
    pub points: u32,
    pub max: u32,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Links {
    /// This resource.
    #[serde(rename = "self")]
    pub this: String,
    /// The student's report page (German; add `&lang=en` for English). Hand it to the student.
    pub report: String,
}

pub fn submission_view(shared: &Shared, record: &SubmissionRecord) -> SubmissionView {
    let result = record.result.as_ref();
    let public = Shared::public_id(record.id);
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
        failure: result.and_then(|r| r.failure.clone()),
        idempotency_key: record.idempotency_key.clone(),
        callback_url: record.callback_url.clone(),
        metadata: record.metadata.as_deref().and_then(|m| serde_json::from_str(m).ok()),
        report: result.and_then(|r| r.report.as_deref()).and_then(|r| serde_json::from_str(r).ok()),
        links: Links {
            this: format!("{}/api/v1/submissions/{public}", shared.config.public_url),
            report: shared.report_url(record.id),
        },
        id: public,
    }
}

/// The JSON body of `POST /api/v1/submissions`. Exactly one of `answer`, `wasm_base64`, `wat`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmissionRequest {
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
    /// Where to POST the result (http or https).
    #[serde(default)]
    pub callback_url: Option<String>,
    /// Any JSON object; stored and handed back unchanged.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct WaitQuery {
    /// Wait up to this long for the result (`5s`, `500ms`, `5`; at most 30 s).
    pub wait: Option<String>,
}

/// The `?wait=` duration in milliseconds, capped at [`WAIT_MS_MAX`]. Public for the fuzz targets,
/// which call the intake parsers as functions.
pub fn parse_wait(raw: Option<&str>) -> Result<u64, Problem> {
    let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else { return Ok(0) };
    let (number, factor) = if let Some(n) = raw.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = raw.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (raw, 1000.0)
    };
    let value: f64 =
        number.trim().parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0).ok_or_else(|| {
            Problem::bad_request(
                "bad-wait",
                format!(
                    "wait={raw:?} is not a duration: write e.g. wait=5s or wait=500ms (at most {} s).",
                    WAIT_MS_MAX / 1000
                ),
                format!(
                    "wait={raw:?} ist keine Dauer: z. B. wait=5s oder wait=500ms (höchstens {} s).",
                    WAIT_MS_MAX / 1000
                ),
            )
        })?;
    Ok(((value * factor) as u64).min(WAIT_MS_MAX))
}

/// What a request asks to grade, before it is checked against the catalogue and stored.
#[derive(Debug)]
pub struct Parsed {
    pub exercise: String,
    pub learner: String,
    pub answer: Option<String>,
    pub module: Option<Vec<u8>>,
    pub callback_url: Option<String>,
    pub metadata: Option<serde_json::Value>,
}

#[utoipa::path(
    post,
    path = "/api/v1/submissions",
    tag = "submissions",
    request_body(
        content((SubmissionRequest = "application/json"), (Object = "multipart/form-data")),
        description = "JSON, or multipart/form-data with the fields exercise, learner, answer, callback_url, \
                       metadata (JSON text) and the module as a file field named `file`."
    ),
    params(
        WaitQuery,
        ("Idempotency-Key" = Option<String>, Header,
         description = "Same key and same request: the same submission (200). Same key, other request: 422."),
    ),
    responses(
        (status = 202, description = "Accepted and queued", body = SubmissionView),
        (status = 200, description = "Graded within `wait`, or an earlier submission with this idempotency key", body = SubmissionView),
        (status = 400, description = "Malformed request", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Client revoked", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "Unknown exercise", body = Problem, content_type = "application/problem+json"),
        (status = 408, description = "Body not received in time", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Neither JSON nor multipart", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Wrong kind of submission, bad callback URL, reused idempotency key", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Shutting down or queue full", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub async fn create_submission(
    req: HttpRequest,
    payload: web::Payload,
    query: web::Query<WaitQuery>,
    shared: Data,
) -> Result<HttpResponse, Problem> {
    let client = authenticate(&shared, &req).await?;
    if !shared.accepting.load(Ordering::SeqCst) {
        return Err(unavailable("The service is shutting down.", "Der Dienst fährt herunter."));
    }
    let wait_ms = parse_wait(query.wait.as_deref())?;
    let key = idempotency_key(&req)?;
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    // The body has one deadline as a whole (actix-web's client_request_timeout covers the head only):
    // a client that trickles it cannot hold its connection.
    let body_ms = shared.config.request_body_timeout_ms;
    let deadline = Duration::from_millis(body_ms);
    if let Some(length) = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        && length > REQUEST_BODY_BYTES_MAX
    {
        if length <= OVERSIZED_BODY_DRAINED_MAX {
            // Read (and dropped) until the deadline at most; the answer is 413 either way.
            let _ = tokio::time::timeout(deadline, drain(payload)).await;
        }
        return Err(Problem::too_large(REQUEST_BODY_BYTES_MAX));
    }
    let body = Rc::new(RefCell::new(payload));
    let read = async {
        if content_type.starts_with("application/json") || content_type.is_empty() {
            let bytes = read_body(UnreadBody(body.clone())).await?;
            parse_json(&bytes)
        } else if content_type.starts_with("multipart/form-data") {
            parse_multipart(&req, UnreadBody(body.clone())).await
        } else {
            Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported-media-type",
                "Unsupported media type",
                format!("Send application/json or multipart/form-data, not {content_type:?}."),
                format!("Bitte application/json oder multipart/form-data senden, nicht {content_type:?}."),
            ))
        }
    };
    let parsed = match tokio::time::timeout(deadline, read).await {
        Ok(parsed) => parsed?,
        Err(_) => {
            let problem = Problem::body_timeout(body_ms);
            let text = serde_json::to_vec(&problem).unwrap_or_default();
            // The answer holds the unread body until its last byte is sent: actix-web then closes
            // the connection, where a dropped chunked body would be drained for as long as the
            // client keeps sending.
            let answer = AnswerHoldingBody { text: Some(text.into()), _unread: body };
            return Ok(actix_web::ResponseError::error_response(&problem)
                .set_body(answer)
                .map_into_boxed_body());
        }
    };
    let new = validate(&shared, &client, parsed, key)?;
    let intake = db(&shared, move |store| store.submit(&new, QUEUE_DEPTH_MAX, clock::now_ms())).await?;
    let (record, created) = match intake {
        Intake::Created(record) => {
            shared.metrics.accepted.fetch_add(1, Ordering::Relaxed);
            shared.work.notify();
            (record, true)
        }
        Intake::Existing(record) => {
            shared.metrics.idempotent_repeats.fetch_add(1, Ordering::Relaxed);
            (record, false)
        }
        Intake::KeyReused(record) => {
            let mut problem = Problem::unprocessable(
                "idempotency-key-reused",
                "This Idempotency-Key was used before with a different request. Use a new key for a new submission.",
                "Dieser Idempotency-Key wurde schon für eine andere Anfrage benutzt. Für eine neue Abgabe einen neuen Schlüssel verwenden.",
            );
            problem.submission_id = Some(Shared::public_id(record.id));
            return Err(problem);
        }
        Intake::QueueFull { depth } => {
            let mut problem = unavailable(
                &format!("The grading queue is full ({depth} jobs); try again later."),
                &format!("Die Warteschlange ist voll ({depth} Aufträge); bitte später erneut versuchen."),
            );
            problem.retry_after = Some(10);
            return Err(problem);
        }
    };
    let record = wait_for(&shared, record, wait_ms).await?;
    let status = if record.status.is_final() || !created { StatusCode::OK } else { StatusCode::ACCEPTED };
    let view = submission_view(&shared, &record);
    let mut response = HttpResponse::build(status);
    response.insert_header((header::LOCATION, view.links.this.clone()));
    Ok(response.json(view))
}

fn unavailable(en: &str, de: &str) -> Problem {
    let mut problem =
        Problem::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "Service unavailable", en, de);
    problem.retry_after = Some(5);
    problem
}

fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, Problem> {
    let Some(value) = req.headers().get("idempotency-key") else { return Ok(None) };
    let key = value.to_str().ok().map(|k| k.trim().trim_matches('"').to_string()).unwrap_or_default();
    if key.is_empty()
        || key.len() > IDEMPOTENCY_KEY_BYTES_MAX
        || !key.bytes().all(|b| (0x21..0x7f).contains(&b))
    {
        return Err(Problem::bad_request(
            "bad-idempotency-key",
            format!("The Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_BYTES_MAX} visible ASCII characters."),
            format!(
                "Der Idempotency-Key muss aus 1 bis {IDEMPOTENCY_KEY_BYTES_MAX} sichtbaren ASCII-Zeichen bestehen."
            ),
        ));
    }
    Ok(Some(key))
}

/// An answer's text that keeps the unread request body alive until the answer is sent.
struct AnswerHoldingBody {
    text: Option<web::Bytes>,
    _unread: Rc<RefCell<web::Payload>>,
}

impl actix_web::body::MessageBody for AnswerHoldingBody {
    type Error = std::convert::Infallible;

    fn size(&self) -> actix_web::body::BodySize {
        actix_web::body::BodySize::Sized(self.text.as_ref().map_or(0, |t| t.len() as u64))
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<web::Bytes, Self::Error>>> {
        Poll::Ready(self.text.take().map(Ok))
    }
}

/// The request body, shared between the handler and a reader that the deadline may cut off.
struct UnreadBody(Rc<RefCell<web::Payload>>);

impl futures_util::Stream for UnreadBody {
    type Item = Result<web::Bytes, actix_web::error::PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.borrow_mut().poll_next_unpin(cx)
    }
}

async fn drain(
    mut payload: impl futures_util::Stream<Item = Result<web::Bytes, actix_web::error::PayloadError>> + Unpin,
) {
    let mut seen = 0usize;
    while let Some(Ok(chunk)) = payload.next().await {
        seen += chunk.len();
        if seen > OVERSIZED_BODY_DRAINED_MAX {
            break;
        }
    }
}

async fn read_body(
    mut payload: impl futures_util::Stream<Item = Result<web::Bytes, actix_web::error::PayloadError>> + Unpin,
) -> Result<web::BytesMut, Problem> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            Problem::bad_request(
                "bad-body",
                format!("The body could not be read: {e}"),
                format!("Der Rumpf war nicht lesbar: {e}"),
            )
        })?;
        if body.len() + chunk.len() > REQUEST_BODY_BYTES_MAX {
            drain(payload).await;
            return Err(Problem::too_large(REQUEST_BODY_BYTES_MAX));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Reads a JSON intake body. Public for the fuzz targets.
pub fn parse_json(body: &[u8]) -> Result<Parsed, Problem> {
    let request: SubmissionRequest = serde_json::from_slice(body).map_err(|e| {
        Problem::bad_request(
            "bad-json",
            format!(
                "The body is not a valid submission: {e}. Expected {{\"exercise\": \"...\", \"learner\": \"...\", \
                 and one of \"answer\", \"wasm_base64\", \"wat\"}}."
            ),
            format!(
                "Der Rumpf ist keine gültige Abgabe: {e}. Erwartet wird {{\"exercise\": \"...\", \"learner\": \"...\" \
                 und eines von \"answer\", \"wasm_base64\", \"wat\"}}."
            ),
        )
    })?;
    let module = match (&request.wasm_base64, &request.wat) {
        (Some(_), Some(_)) => {
            return Err(Problem::bad_request(
                "several-submissions",
                "Send either wasm_base64 or wat, not both.",
                "Bitte entweder wasm_base64 oder wat senden, nicht beides.",
            ));
        }
        (Some(b64), None) => {
            Some(base64::engine::general_purpose::STANDARD.decode(b64.trim()).map_err(|e| {
                Problem::bad_request(
                    "bad-base64",
                    format!("wasm_base64 is not valid base64: {e}"),
                    format!("wasm_base64 ist kein gültiges Base64: {e}"),
                )
            })?)
        }
        (None, Some(wat)) => Some(wat.clone().into_bytes()),
        (None, None) => None,
    };
    Ok(Parsed {
        exercise: request.exercise,
        learner: request.learner,
        answer: request.answer,
        module,
        callback_url: request.callback_url,
        metadata: request.metadata,
    })
}

/// Reads a multipart intake body (its size is checked field by field). Public for the fuzz targets,
/// which hand it a plain payload; the service hands it the body under its read deadline.
pub async fn parse_multipart<S>(req: &HttpRequest, payload: S) -> Result<Parsed, Problem>
where
    S: futures_util::Stream<Item = Result<web::Bytes, actix_web::error::PayloadError>> + 'static,
{
    let bad = |en: String, de: String| Problem::bad_request("bad-multipart", en, de);
    let mut multipart = actix_multipart::Multipart::new(req.headers(), payload);
    let mut parsed = Parsed {
        exercise: String::new(),
        learner: String::new(),
        answer: None,
        module: None,
        callback_url: None,
        metadata: None,
    };
    let (mut exercise, mut learner) = (None, None);
    let mut total = 0usize;
    while let Some(field) = multipart.next().await {
        let mut field = field.map_err(|e| {
            bad(
                format!("The multipart body is malformed: {e}"),
                format!("Der Multipart-Rumpf ist fehlerhaft: {e}"),
            )
        })?;
        let name = field.name().unwrap_or("").to_string();
        let mut bytes = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| {
                bad(
                    format!("The multipart body is malformed: {e}"),
                    format!("Der Multipart-Rumpf ist fehlerhaft: {e}"),
                )
            })?;
            total += chunk.len();
            if total > REQUEST_BODY_BYTES_MAX {
                return Err(Problem::too_large(REQUEST_BODY_BYTES_MAX));
            }
            bytes.extend_from_slice(&chunk);
        }
        let text = |bytes: Vec<u8>| {
            String::from_utf8(bytes).map_err(|_| {
                bad(
                    format!("The field {name:?} is not UTF-8 text."),
                    format!("Das Feld {name:?} ist kein UTF-8-Text."),
                )
            })
        };
        match name.as_str() {
            "exercise" => exercise = Some(text(bytes)?),
            "learner" => learner = Some(text(bytes)?),
            "answer" => parsed.answer = Some(text(bytes)?),
            "wat" | "file" | "module" | "wasm" => {
                if parsed.module.is_some() {
                    return Err(bad(
                        "Send one module file only.".into(),
                        "Bitte nur eine Moduldatei senden.".into(),
                    ));
                }
                parsed.module = Some(bytes);
            }
            "callback_url" => parsed.callback_url = Some(text(bytes)?).filter(|u| !u.trim().is_empty()),
            "metadata" => {
                let raw = text(bytes)?;
                parsed.metadata = Some(serde_json::from_str(&raw).map_err(|e| {
                    bad(
                        format!("The field metadata is not JSON: {e}"),
                        format!("Das Feld metadata ist kein JSON: {e}"),
                    )
                })?);
            }
            other => {
                return Err(bad(
                    format!(
                        "Unknown field {other:?}: use exercise, learner, answer, file, callback_url, metadata."
                    ),
                    format!(
                        "Unbekanntes Feld {other:?}: erlaubt sind exercise, learner, answer, file, callback_url, metadata."
                    ),
                ));
            }
        }
    }
    parsed.exercise = exercise
        .ok_or_else(|| bad("The field exercise is missing.".into(), "Das Feld exercise fehlt.".into()))?;
    parsed.learner = learner
        .ok_or_else(|| bad("The field learner is missing.".into(), "Das Feld learner fehlt.".into()))?;
    Ok(parsed)
}

/// Checks a parsed request against the catalogue and the limits, and builds what the store keeps.
fn validate(
    shared: &Shared,
    client: &ClientRecord,
    parsed: Parsed,
    key: Option<String>,
) -> Result<NewSubmission, Problem> {
    let learner = parsed.learner.trim().to_string();
    if learner.is_empty() || learner.len() > LEARNER_BYTES_MAX || learner.chars().any(char::is_control) {
        return Err(Problem::bad_request(
            "bad-learner",
            format!("learner must be 1 to {LEARNER_BYTES_MAX} bytes without control characters."),
            format!("learner muss 1 bis {LEARNER_BYTES_MAX} Bytes lang sein, ohne Steuerzeichen."),
        ));
    }
    let slug = parsed.exercise.trim();
    let Some(exercise) = shared.catalogue.get(slug) else {
        let known = shared.catalogue.slugs().join(", ");
        return Err(Problem::not_found(
            "unknown-exercise",
            format!("There is no exercise {slug:?}. Known exercises: {known}."),
            format!("Es gibt keine Aufgabe {slug:?}. Vorhandene Aufgaben: {known}."),
        ));
    };
    let submission = match (exercise.grader(), parsed.answer, parsed.module) {
        (_, Some(_), Some(_)) => {
            return Err(Problem::bad_request(
                "several-submissions",
                "Send either an answer or a module, not both.",
                "Bitte entweder eine Antwort oder ein Modul senden, nicht beides.",
            ));
        }
        (_, None, None) => {
            return Err(Problem::bad_request(
                "no-submission",
                "The request holds nothing to grade: send answer (prediction exercises) or wasm_base64, wat or a file (consumer exercises).",
                "Die Anfrage enthält nichts zu bewerten: answer (Vorhersage-Aufgaben) oder wasm_base64, wat bzw. eine Datei (Konsumenten-Aufgaben) senden.",
            ));
        }
        (GraderKind::Prediction, None, Some(_)) => {
            return Err(Problem::unprocessable(
                "wrong-submission-kind",
                format!(
                    "{slug} is a prediction exercise: send the prediction as answer, e.g. \"(2, 2, 0)\", not a module."
                ),
                format!(
                    "{slug} ist eine Vorhersage-Aufgabe: die Vorhersage als answer senden, z. B. \"(2, 2, 0)\", kein Modul."
                ),
            ));
        }
        (GraderKind::Consumer, Some(_), None) => {
            return Err(Problem::unprocessable(
                "wrong-submission-kind",
                format!(
                    "{slug} is a consumer exercise: send a WebAssembly module (wasm_base64, wat or a file), not an answer."
                ),
                format!(
                    "{slug} ist eine Konsumenten-Aufgabe: ein WebAssembly-Modul senden (wasm_base64, wat oder Datei), keine Antwort."
                ),
            ));
        }
        (_, Some(answer), None) => Submission::Answer(answer),
        (_, None, Some(module)) => Submission::Module(module),
    };
    let callback_url = match parsed.callback_url.map(|u| u.trim().to_string()) {
        None => None,
        Some(url) => {
            if url.len() > CALLBACK_URL_BYTES_MAX {
                return Err(Problem::unprocessable(
                    "bad-callback-url",
                    format!("callback_url is longer than {CALLBACK_URL_BYTES_MAX} bytes."),
                    format!("callback_url ist länger als {CALLBACK_URL_BYTES_MAX} Bytes."),
                ));
            }
            super::webhook::parse_target(&url, shared.config.allow_private_callbacks).map_err(|e| {
                Problem::unprocessable(
                    "bad-callback-url",
                    format!("callback_url is not usable: {e}."),
                    format!("callback_url ist nicht verwendbar: {e}."),
                )
            })?;
            Some(url)
        }
    };
    let metadata = match parsed.metadata {
        None | Some(serde_json::Value::Null) => None,
        Some(value @ serde_json::Value::Object(_)) => {
            let text = value.to_string();
            if text.len() > METADATA_BYTES_MAX {
                return Err(Problem::unprocessable(
                    "metadata-too-large",
                    format!("metadata is larger than {METADATA_BYTES_MAX} bytes."),
                    format!("metadata ist größer als {METADATA_BYTES_MAX} Bytes."),
                ));
            }
            Some(text)
        }
        Some(_) => {
            return Err(Problem::unprocessable(
                "bad-metadata",
                "metadata must be a JSON object.",
                "metadata muss ein JSON-Objekt sein.",
            ));
        }
    };
    let kind = match submission {
        Submission::Answer(_) => "answer",
        Submission::Module(_) => "module",
    };
    let meaning = serde_json::json!({
        "exercise": exercise.slug,
        "learner": learner,
        "kind": kind,
        "sha256": submission.sha256(),
        "callback_url": callback_url,
        "metadata": metadata,
    });
    Ok(NewSubmission {
        client_id: client.id,
        exercise: exercise.slug.clone(),
        learner,
        submission,
        callback_url,
        metadata,
        idempotency_key: key,
        request_hash: crate::submission::sha256_hex(meaning.to_string().as_bytes()),
    })
}

/// Waits up to `wait_ms` for the submission to be finished and returns its latest state.
async fn wait_for(
    shared: &Data,
    record: SubmissionRecord,
    wait_ms: u64,
) -> Result<SubmissionRecord, Problem> {
    if wait_ms == 0 || record.status.is_final() {
        return Ok(record);
    }
    let id = record.id;
    let finished = shared.waiters.register(id);
    let current = db(shared, move |store| store.submission(id)).await?.unwrap_or(record);
    if current.status.is_final() {
        return Ok(current);
    }
    let _ = tokio::time::timeout(Duration::from_millis(wait_ms), finished).await;
    Ok(db(shared, move |store| store.submission(id)).await?.unwrap_or(current))
}

fn submission_not_found(public: &str) -> Problem {
    Problem::not_found(
        "unknown-submission",
        format!("There is no submission {public:?} of this client."),
        format!("Es gibt keine Abgabe {public:?} dieses Clients."),
    )
}

#[utoipa::path(
    get,
    path = "/api/v1/submissions/{id}",
    tag = "submissions",
    params(("id" = String, Path, description = "The submission id, `sub_<n>`"), WaitQuery),
    responses(
        (status = 200, description = "The submission, its status and (once graded) its result and report", body = SubmissionView),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such submission of this client", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub async fn get_submission(
    req: HttpRequest,
    path: web::Path<String>,
    query: web::Query<WaitQuery>,
    shared: Data,
) -> Result<HttpResponse, Problem> {
    let client = authenticate(&shared, &req).await?;
    let wait_ms = parse_wait(query.wait.as_deref())?;
    let public = path.into_inner();
    let id = Shared::parse_id(&public).ok_or_else(|| submission_not_found(&public))?;
    let record = db(&shared, move |store| store.submission(id))
        .await?
        .filter(|r| r.client_id == client.id)
        .ok_or_else(|| submission_not_found(&public))?;
    let record = wait_for(&shared, record, wait_ms).await?;
    Ok(HttpResponse::Ok().json(submission_view(&shared, &record)))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExerciseSummary {
    pub slug: String,
    #[schema(value_type = Object)]
    pub title: crate::text::Text,
    /// `consumer` (a WebAssembly module) or `prediction` (an answer).
    pub grader: String,
    pub points: u32,
    pub href: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExerciseList {
    pub exercises: Vec<ExerciseSummary>,
}

#[utoipa::path(
    get,
    path = "/api/v1/exercises",
    tag = "exercises",
    responses(
        (status = 200, description = "Every exercise served", body = ExerciseList),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub async fn list_exercises(req: HttpRequest, shared: Data) -> Result<HttpResponse, Problem> {
    authenticate(&shared, &req).await?;
    let exercises = shared
        .catalogue
        .all()
        .values()
        .map(|e| ExerciseSummary {
            slug: e.slug.clone(),
            title: e.title.clone(),
            grader: e.grader().name().to_string(),
            points: e.points,
            href: format!("{}/api/v1/exercises/{}", shared.config.public_url, e.slug),
        })
        .collect();
    Ok(HttpResponse::Ok().json(ExerciseList { exercises }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ExerciseQuery {
    /// The learner whose variant the statement shows.
    pub learner: Option<String>,
    /// `de` (default) or `en`.
    pub lang: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExerciseDetail {
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
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AbiLink {
    pub version: u32,
    pub href: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KitView {
    pub name: String,
    /// The kit's README, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readme: Option<String>,
    pub files: Vec<KitFileView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KitFileView {
    pub path: String,
    pub href: String,
}

#[utoipa::path(
    get,
    path = "/api/v1/exercises/{slug}",
    tag = "exercises",
    params(("slug" = String, Path, description = "The exercise's slug"), ExerciseQuery),
    responses(
        (status = 200, description = "The statement for the learner and language, and what to submit", body = ExerciseDetail),
        (status = 400, description = "Bad language or learner", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "Unknown exercise", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub async fn get_exercise(
    req: HttpRequest,
    path: web::Path<String>,
    query: web::Query<ExerciseQuery>,
    shared: Data,
) -> Result<HttpResponse, Problem> {
    authenticate(&shared, &req).await?;
    let slug = path.into_inner();
    let exercise = shared.catalogue.get(&slug).ok_or_else(|| {
        Problem::not_found(
            "unknown-exercise",
            format!(
                "There is no exercise {slug:?}. Known exercises: {}.",
                shared.catalogue.slugs().join(", ")
            ),
            format!(
                "Es gibt keine Aufgabe {slug:?}. Vorhandene Aufgaben: {}.",
                shared.catalogue.slugs().join(", ")
            ),
        )
    })?;
    let lang = parse_lang(query.lang.as_deref())?;
    let learner = query.learner.clone().map(|l| l.trim().to_string()).filter(|l| !l.is_empty());
    if learner.as_ref().is_some_and(|l| l.len() > LEARNER_BYTES_MAX) {
        return Err(Problem::bad_request(
            "bad-learner",
            format!("learner is longer than {LEARNER_BYTES_MAX} bytes."),
            format!("learner ist länger als {LEARNER_BYTES_MAX} Bytes."),
        ));
    }
    let statement = {
        let exercise = exercise.clone();
        let learner = learner.clone();
        let secret = shared.config.course_secret.clone();
        web::block(move || crate::prediction::render_statement(&exercise, learner.as_deref(), &secret, lang))
            .await?
            .map_err(Problem::internal)?
    };
    let base = &shared.config.public_url;
    let (submit, answer_example, abi, kits) = match &exercise.kind {
        ExerciseKind::Prediction(prediction) => {
            ("answer", Some(prediction.example_text.clone()), None, Vec::new())
        }
        ExerciseKind::Consumer(_) => {
            let kits = shared
                .catalogue
                .kits()
                .into_iter()
                .map(|(name, files)| KitView {
                    readme: files
                        .iter()
                        .find(|f| f.eq_ignore_ascii_case("README.md"))
                        .map(|f| format!("{base}/kits/{name}/{f}")),
                    files: files
                        .iter()
                        .map(|f| KitFileView { path: f.clone(), href: format!("{base}/kits/{name}/{f}") })
                        .collect(),
                    name,
                })
                .collect();
            ("module", None, Some(AbiLink { version: 1, href: format!("{base}/docs/consumer-abi") }), kits)
        }
    };
    Ok(HttpResponse::Ok().json(ExerciseDetail {
        slug: exercise.slug.clone(),
        title: exercise.title.clone(),
        grader: exercise.grader().name().to_string(),
        points: exercise.points,
        lang: lang.code().to_string(),
        learner,
        statement,
        submit: submit.to_string(),
        answer_example,
        limits: exercise.limits.clone(),
        abi,
        kits,
    }))
}

fn parse_lang(raw: Option<&str>) -> Result<Lang, Problem> {
    match raw {
        None | Some("") => Ok(Lang::De),
        Some(raw) => raw.parse::<Lang>().map_err(|_| {
            Problem::bad_request(
                "bad-lang",
                format!("lang={raw:?} is not a language: use de or en."),
                format!("lang={raw:?} ist keine Sprache: de oder en verwenden."),
            )
        }),
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeadEvent {
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
pub struct DeadEventList {
    pub events: Vec<DeadEvent>,
}

#[utoipa::path(
    get,
    path = "/api/v1/webhooks/dead",
    tag = "webhooks",
    responses(
        (status = 200, description = "This client's webhook events that ran out of attempts", body = DeadEventList),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub async fn dead_webhooks(req: HttpRequest, shared: Data) -> Result<HttpResponse, Problem> {
    let client = authenticate(&shared, &req).await?;
    let client_id = client.id;
    let events = db(&shared, move |store| store.dead_events(client_id, DEAD_EVENTS_LISTED_MAX)).await?;
    let base = &shared.config.public_url;
    let events = events
        .into_iter()
        .map(|e| DeadEvent {
            redeliver: format!("{base}/api/v1/webhooks/dead/{}/redeliver", e.event_id),
            submission_id: Shared::public_id(e.submission_id),
            url: e.url,
            attempts: e.attempts,
            last_error: e.last_error,
            created_at: clock::rfc3339(e.created_at),
            event_id: e.event_id,
        })
        .collect();
    Ok(HttpResponse::Ok().json(DeadEventList { events }))
}

#[utoipa::path(
    post,
    path = "/api/v1/webhooks/dead/{event_id}/redeliver",
    tag = "webhooks",
    params(("event_id" = String, Path, description = "The event id (`webhook-id` header)")),
    responses(
        (status = 202, description = "The event is pending again, with fresh attempts"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such event of this client", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The event is not dead", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub async fn redeliver_webhook(
    req: HttpRequest,
    path: web::Path<String>,
    shared: Data,
) -> Result<HttpResponse, Problem> {
    let client = authenticate(&shared, &req).await?;
    let event_id = path.into_inner();
    let client_id = client.id;
    let id = event_id.clone();
    match db(&shared, move |store| store.redeliver(client_id, &id, clock::now_ms())).await? {
        None => Err(Problem::not_found(
            "unknown-event",
            format!("There is no webhook event {event_id:?} of this client."),
            format!("Es gibt kein Webhook-Ereignis {event_id:?} dieses Clients."),
        )),
        Some(false) => Err(Problem::new(
            StatusCode::CONFLICT,
            "event-not-dead",
            "Conflict",
            format!("The event {event_id:?} is not dead: it is delivered or still being tried."),
            format!("Das Ereignis {event_id:?} ist nicht tot: es ist zugestellt oder wird noch versucht."),
        )),
        Some(true) => {
            shared.outbox.notify();
            Ok(HttpResponse::Accepted().json(serde_json::json!({"event_id": event_id, "state": "pending"})))
        }
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ReportQuery {
    /// The report token from the submission's `links.report`.
    t: Option<String>,
    /// `de` (default) or `en`.
    lang: Option<String>,
}

/// The student's report page: `/reports/{id}?t=TOKEN[&lang=en]`. Without the right token: 404.
#[utoipa::path(
    get,
    path = "/reports/{id}",
    tag = "reports",
    params(("id" = String, Path, description = "The submission id"), ReportQuery),
    responses(
        (status = 200, description = "The report as an HTML page (no JavaScript)", content_type = "text/html"),
        (status = 404, description = "No such report, or a wrong token", content_type = "text/html"),
    )
)]
pub async fn report_page(
    path: web::Path<String>,
    query: web::Query<ReportQuery>,
    shared: Data,
) -> HttpResponse {
    let public = path.into_inner();
    let lang = query.lang.as_deref().and_then(|l| l.parse::<Lang>().ok()).unwrap_or(Lang::De);
    let token_ok =
        query.t.as_deref().is_some_and(|t| auth::report_token_valid(&shared.report_key, &public, t));
    let id = Shared::parse_id(&public).filter(|_| token_ok);
    let record = match id {
        None => None,
        Some(id) => match db(&shared, move |store| store.submission(id)).await {
            Ok(record) => record,
            Err(problem) => {
                return HttpResponse::InternalServerError()
                    .content_type("text/html; charset=utf-8")
                    .body(html::error_page(lang, &problem.detail_de, &problem.detail));
            }
        },
    };
    let Some(record) = record else {
        return HttpResponse::NotFound()
            .content_type("text/html; charset=utf-8")
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .body(html::not_found_page(lang));
    };
    let token = query.t.clone().unwrap_or_default();
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(html::report_page(&record, lang, &public, &token))
}

async fn abi_guide(shared: Data) -> HttpResponse {
    match shared.catalogue.abi_guide() {
        Some(text) => HttpResponse::Ok().content_type("text/markdown; charset=utf-8").body(text),
        None => HttpResponse::NotFound()
            .content_type("text/plain; charset=utf-8")
            .body("no ABI guide on this server\n"),
    }
}

async fn kit_file(path: web::Path<(String, String)>, shared: Data) -> HttpResponse {
    let (kit, file) = path.into_inner();
    match shared.catalogue.kit_file(&kit, &file) {
        Some(bytes) => {
            let text = std::str::from_utf8(&bytes).is_ok();
            HttpResponse::Ok()
                .content_type(if text { "text/plain; charset=utf-8" } else { "application/octet-stream" })
                .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
                .body(bytes)
        }
        None => HttpResponse::NotFound().content_type("text/plain; charset=utf-8").body("no such kit file\n"),
    }
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200, description = "alive")))]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok\n")
}

/// Readiness: exercises loaded, the store answers, not shutting down.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    responses((status = 200, description = "ready"), (status = 503, description = "not ready"))
)]
pub async fn readyz(shared: Data) -> HttpResponse {
    if !shared.accepting.load(Ordering::SeqCst) {
        return HttpResponse::ServiceUnavailable().content_type("text/plain").body("shutting down\n");
    }
    if shared.catalogue.all().is_empty() {
        return HttpResponse::ServiceUnavailable().content_type("text/plain").body("no exercises loaded\n");
    }
    match db(&shared, |store| store.stats()).await {
        Ok(_) => HttpResponse::Ok().content_type("text/plain").body("ready\n"),
        Err(_) => HttpResponse::ServiceUnavailable().content_type("text/plain").body("store unavailable\n"),
    }
}

/// Metrics in the Prometheus text format.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain"))
)]
pub async fn metrics(shared: Data) -> HttpResponse {
    match db(&shared, |store| store.stats()).await {
        Ok(stats) => HttpResponse::Ok()
            .insert_header((
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            ))
            .body(shared.metrics.render(&stats)),
        Err(problem) => problem.into(),
    }
}

async fn not_found(req: HttpRequest) -> HttpResponse {
    let path = req.path().to_string();
    Problem::not_found(
        "no-route",
        format!("There is nothing at {} {path}. The API is described at /api/v1/openapi.json.", req.method()),
        format!(
            "Unter {} {path} gibt es nichts. Die API ist unter /api/v1/openapi.json beschrieben.",
            req.method()
        ),
    )
    .into()
}

impl From<Problem> for HttpResponse {
    fn from(problem: Problem) -> Self {
        actix_web::ResponseError::error_response(&problem)
    }
}

struct SecurityAddon;

impl utoipa::Modify for SecurityAddon {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("A client token from `pruefstein client add NAME`"))
                    .build(),
            ),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Prüfstein",
        description = "Grades exercises on queues, at-least-once delivery and idempotent consumers. \
                       Submissions are accepted idempotently, graded from a durable queue, and their results \
                       are sent to the callback URL as signed webhooks (Standard Webhooks headers)."
    ),
    paths(
        create_submission,
        get_submission,
        list_exercises,
        get_exercise,
        dead_webhooks,
        redeliver_webhook,
        report_page,
        healthz,
        readyz,
        metrics
    ),
    components(schemas(
        SubmissionRequest,
        SubmissionView,
        ScoreView,
        Links,
        Problem,
        ExerciseList,
        ExerciseSummary,
        ExerciseDetail,
        AbiLink,
        KitView,
        KitFileView,
        DeadEvent,
        DeadEventList
    )),
    modifiers(&SecurityAddon)
)]
pub struct ApiDoc;

async fn openapi() -> HttpResponse {
    match ApiDoc::openapi().to_json() {
        Ok(json) => HttpResponse::Ok().content_type("application/json").body(json),
        Err(e) => Problem::internal(e).into(),
    }
}

#[cfg(test)]
mod tests {
    /// The OpenAPI document is a contract with the learning platforms: it changes only on purpose.
    /// Rewrite the snapshot with `PRUEFSTEIN_BLESS=1 cargo test --lib openapi_document`.
    #[test]
    fn openapi_document_is_unchanged() {
        use utoipa::OpenApi;
        let actual = super::ApiDoc::openapi().to_pretty_json().expect("the document serialises");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/openapi.json");
        if std::env::var_os("PRUEFSTEIN_BLESS").is_some() {
            std::fs::write(&path, format!("{actual}\n")).expect("the snapshot is written");
        }
        let expected = std::fs::read_to_string(&path).expect("tests/golden/openapi.json exists");
        assert_eq!(actual.trim_end(), expected.trim_end(), "the OpenAPI document changed");
    }
}
