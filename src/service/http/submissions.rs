//! Submissions: `POST /api/v1/submissions` (intake, idempotent by key, optionally waiting for the
//! result) and `GET /api/v1/submissions/{id}`. Reading and checking the body is in [`super::intake`].

use std::sync::atomic::Ordering;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use super::auth::Client;
use super::intake::{Body, idempotency_key, parse_wait, read_submission, unavailable, validate};
use super::views::{SubmissionRequest, SubmissionView, WaitQuery, submission_view};
use super::{Data, db};
use crate::limits::QUEUE_DEPTH_MAX;
use crate::service::problem::Problem;
use crate::service::store::{Intake, SubmissionRecord};
use crate::service::{Shared, clock};

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
        (status = 202, description = "Accepted and queued", body = SubmissionView,
         headers(("Location" = String, description = "The submission's URL, as `links.self`")),
         links(
            ("GetSubmission" = (operation_id = "get_submission", parameters(("id" = "$response.body#/id")),
                description = "The submission's state and, once graded, its result and report")),
            ("GetExercise" = (operation_id = "get_exercise", parameters(("slug" = "$response.body#/exercise")),
                description = "The exercise the submission is for")),
         )),
        (status = 200, description = "Graded within `wait`, or an earlier submission with this idempotency key", body = SubmissionView,
         headers(("Location" = String, description = "The submission's URL, as `links.self`")),
         links(
            ("GetSubmission" = (operation_id = "get_submission", parameters(("id" = "$response.body#/id")),
                description = "The submission's state and, once graded, its result and report")),
            ("GetExercise" = (operation_id = "get_exercise", parameters(("slug" = "$response.body#/exercise")),
                description = "The exercise the submission is for")),
         )),
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
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
    if !shared.accepting.load(Ordering::SeqCst) {
        return Err(unavailable("The service is shutting down.", "Der Dienst fährt herunter."));
    }
    let wait_ms = parse_wait(query.wait.as_deref())?;
    let key = idempotency_key(&req)?;
    let parsed = match read_submission(&req, payload, shared.config.request_body_timeout_ms).await? {
        Body::Parsed(parsed) => parsed,
        Body::TooSlow(answer) => return Ok(answer),
    };
    let new = validate(&shared, &client, parsed, key)?;
    let intake = db(&shared, move |store| store.submit(&new, QUEUE_DEPTH_MAX, clock::now_ms())).await?;
    let (record, created) = match intake {
        Intake::Created(record) => {
            shared.metrics.accepted.inc();
            shared.work.notify();
            (record, true)
        }
        Intake::Existing(record) => {
            shared.metrics.idempotent_repeats.inc();
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

/// Waits up to `wait_ms` for the submission to be finished and returns its latest state.
pub(super) async fn wait_for(
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
        (status = 200, description = "The submission, its status and (once graded) its result and report", body = SubmissionView,
         links(
            ("GetExercise" = (operation_id = "get_exercise", parameters(("slug" = "$response.body#/exercise")),
                description = "The exercise the submission is for")),
         )),
        (status = 400, description = "Malformed `wait`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such submission of this client", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub async fn get_submission(
    path: web::Path<String>,
    query: web::Query<WaitQuery>,
    shared: Data,
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
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
