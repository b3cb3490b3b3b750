//! Submissions: `POST /api/v1/submissions` (intake, idempotent by key, optionally waiting for the
//! result), `GET /api/v1/submissions/{id}` (the latest result version) and `GET /api/v1/submissions`
//! (a client's submissions, filtered, page by page: keyset on the id, an opaque cursor). Reading and checking the body is in [`super::intake`].

use crate::service::problem::answers::{BodyTooLarge, ClientRevoked, NoValidToken, UnknownExercise};
use std::sync::atomic::Ordering;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use super::auth::Client;
use super::handler::{Data, db};
use super::intake::{Body, idempotency_key, parse_wait, read_submission, unavailable, validate};
use super::views::{
    ListQuery, SubmissionList, SubmissionRequest, SubmissionView, WaitQuery, submission_view,
};
use crate::limits::{QUEUE_DEPTH_MAX, SUBMISSIONS_PAGE_DEFAULT, SUBMISSIONS_PAGE_MAX};
use crate::service::clock;
use crate::service::learner::Learner;
use crate::service::problem::Problem;
use crate::service::shared::Registration;
use crate::service::store::{Intake, SubmissionFilter, SubmissionRecord};

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
        NoValidToken,
        ClientRevoked,
        UnknownExercise,
        (status = 408, description = "Body not received in time", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        (status = 415, description = "Neither JSON nor multipart", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Wrong kind of submission, bad callback URL, reused idempotency key", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Shutting down or queue full", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn create_submission(
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
    let mark = shared.waiters.mark();
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
            problem.submission_id = Some(crate::service::public_id::of(record.id));
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
    let record = wait_for(&shared, record, mark, wait_ms).await?;
    let status = if record.status.is_final() || !created { StatusCode::OK } else { StatusCode::ACCEPTED };
    let view = submission_view(&shared, &record);
    let mut response = HttpResponse::build(status);
    response.insert_header((header::LOCATION, view.links.this.clone()));
    Ok(response.json(view))
}

/// Waits up to `wait_ms` for the submission to be finished and returns its latest state. `record`
/// is what the request read or wrote after taking `mark` (see [`crate::service::shared::Waiters`]).
pub(super) async fn wait_for(
    shared: &Data,
    record: SubmissionRecord,
    mark: u64,
    wait_ms: u64,
) -> Result<SubmissionRecord, Problem> {
    if wait_ms == 0 || record.status.is_final() {
        return Ok(record);
    }
    let id = record.id;
    let finished = match shared.waiters.register(id, mark) {
        Registration::Waiting(finished) => finished,
        // Finished between the request's read or intake and now: the store says what holds.
        Registration::FinishedSinceMark => {
            return Ok(db(shared, move |store| store.submission(id)).await?.unwrap_or(record));
        }
    };
    match tokio::time::timeout(Duration::from_millis(wait_ms), finished).await {
        // The grading thread handed over what it stored: nothing to read back.
        Ok(Ok(Some(stored))) => Ok(stored.apply(record)),
        // Waited out, or stored by an earlier grading or another node: the store says what holds.
        _ => Ok(db(shared, move |store| store.submission(id)).await?.unwrap_or(record)),
    }
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
        NoValidToken,
        (status = 404, description = "No such submission of this client", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The submission was erased on request or deleted after the retention period", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_submission(
    path: web::Path<String>,
    query: web::Query<WaitQuery>,
    shared: Data,
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
    let wait_ms = parse_wait(query.wait.as_deref())?;
    let public = path.into_inner();
    let id = crate::service::public_id::parse(&public).ok_or_else(|| submission_not_found(&public))?;
    let mark = shared.waiters.mark();
    let (record, gone) =
        db(&shared, move |store| Ok((store.submission(id)?, store.submission_gone(id)?))).await?;
    if gone && record.is_none() {
        return Err(Problem::new(
            actix_web::http::StatusCode::GONE,
            "submission-erased",
            "Gone",
            format!("The submission {public:?} was erased on request or deleted after the retention period."),
            format!(
                "Die Abgabe {public:?} wurde auf Wunsch oder nach Ablauf der Aufbewahrungsfrist gelöscht."
            ),
        ));
    }
    let record = record.filter(|r| r.client_id == client.id).ok_or_else(|| submission_not_found(&public))?;
    let record = wait_for(&shared, record, mark, wait_ms).await?;
    Ok(HttpResponse::Ok().json(submission_view(&shared, &record)))
}

/// A page cursor: where the page before ended. Clients pass it back unchanged and read nothing
/// into it (its form, [`CURSOR_PATTERN`], is documented only so that a malformed one is refused).
pub(crate) fn encode_cursor(after: i64) -> String {
    format!("c{after}")
}

/// What [`encode_cursor`] writes: `c` and an id (at most 18 digits, so it fits an i64).
pub(crate) const CURSOR_PATTERN: &str = "^c[1-9][0-9]{0,17}$";

fn decode_cursor(cursor: &str) -> Option<i64> {
    let digits = cursor.strip_prefix('c')?;
    let valid = !digits.is_empty()
        && digits.len() <= 18
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit());
    if valid { digits.parse().ok() } else { None }
}

/// The filter, page size and position of a listing, or a 400 naming the bad parameter.
fn parse_list_query(query: &ListQuery) -> Result<(SubmissionFilter, usize, i64), Problem> {
    let bad = |code: &'static str, en: String, de: String| Problem::bad_request(code, en, de);
    // A parameter given empty is malformed like any other bad value.
    fn given(value: &Option<String>) -> Option<&str> {
        value.as_deref()
    }
    let exercise = given(&query.exercise).map(str::to_string);
    if let Some(slug) = &exercise
        && !crate::exercise::is_slug(slug)
    {
        return Err(bad(
            "bad-filter",
            format!("exercise {slug:?} is not a slug (lowercase letters, digits and '-', at most 64)."),
            format!("exercise {slug:?} ist kein Kürzel (Kleinbuchstaben, Ziffern und '-', höchstens 64)."),
        ));
    }
    // A learner as intake stores it: surrounding white space removed, no control characters.
    let learner = match given(&query.learner) {
        None => None,
        Some(raw) => {
            Some(Learner::parse(raw).map_err(|e| Problem::bad_learner("bad-filter", e))?.into_string())
        }
    };
    let verdict = given(&query.verdict).map(str::to_string);
    if let Some(verdict) = &verdict {
        crate::report::Verdict::check_name(verdict).map_err(|text| bad("bad-filter", text.en, text.de))?;
    }
    let since = match given(&query.since) {
        None => None,
        Some(text) => Some(clock::parse_rfc3339(text).ok_or_else(|| {
            bad(
                "bad-filter",
                format!("since {text:?} is not a time in RFC 3339 form, such as 2026-12-01T00:00:00Z."),
                format!("since {text:?} ist keine Zeit in der Form von RFC 3339, etwa 2026-12-01T00:00:00Z."),
            )
        })?),
    };
    let limit = match given(&query.limit) {
        None => SUBMISSIONS_PAGE_DEFAULT,
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=SUBMISSIONS_PAGE_MAX).contains(n))
            .ok_or_else(|| {
                bad(
                    "bad-limit",
                    format!("limit {text:?} is not a number from 1 to {SUBMISSIONS_PAGE_MAX} (submissions_page_max)."),
                    format!("limit {text:?} ist keine Zahl von 1 bis {SUBMISSIONS_PAGE_MAX} (submissions_page_max)."),
                )
            })?,
    };
    let after = match given(&query.cursor) {
        None => 0,
        Some(text) => decode_cursor(text).ok_or_else(|| {
            bad(
                "bad-cursor",
                "cursor is not one this service gave out: pass the `next` value of the previous page unchanged."
                    .to_string(),
                "cursor stammt nicht von diesem Dienst: den Wert `next` der vorigen Seite unverändert übergeben."
                    .to_string(),
            )
        })?,
    };
    Ok((SubmissionFilter { exercise, learner, verdict, since }, limit, after))
}

#[utoipa::path(
    get,
    path = "/api/v1/submissions",
    tag = "submissions",
    params(ListQuery),
    responses(
        (status = 200, description = "One page of this client's submissions, oldest first, without their reports; \
                                      the latest result version of each", body = SubmissionList),
        (status = 400, description = "A bad filter, limit or cursor, or an unknown query parameter", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        ClientRevoked,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_submissions(
    query: web::Query<ListQuery>,
    shared: Data,
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
    let (filter, limit, after) = parse_list_query(&query)?;
    let client_id = client.id;
    // One more than a page: whether there is a next page, without a count.
    let mut records =
        db(&shared, move |store| store.list_submissions(client_id, &filter, after, limit + 1)).await?;
    let next = if records.len() > limit {
        records.truncate(limit);
        records.last().map(|r| encode_cursor(r.id))
    } else {
        None
    };
    let submissions = records.iter().map(|r| submission_view(&shared, r)).collect();
    Ok(HttpResponse::Ok().json(SubmissionList { submissions, limit, next }))
}
