//! The student's page: `/learn/{slug}?c=CLIENT&l=LEARNER[&x=CONTEXT]&t=TOKEN[&lang=en][&s=sub_N]`.
//! One page shows the exercise's statement (the learner's variant), the starter kits, a form to
//! submit (an answer, or a `.wasm`/`.wat` file), the report of the chosen submission and the
//! learner's earlier submissions for this exercise. It works without JavaScript: the form is a
//! plain multipart POST, answered with `303 See Other` to the page of the new submission, which
//! reloads itself while the submission waits to be graded.
//!
//! The link is the learner's credential: its token ([`auth::page_token`]) is an HMAC of the client
//! the submissions belong to, the exercise, the learner and the LTI launch context (whose line item
//! receives the scores). A wrong token looks the same as an unknown page (404). A POST needs the
//! same token in its query, which a page of another site cannot know, so the form is safe from
//! cross-site request forgery without a cookie (cookies do not survive an LMS iframe anyway). The
//! page may be framed only by this service and the registered LTI platforms (`frame-ancestors`).
//!
//! A client of the REST API gets a learner's link from `GET /api/v1/exercises/{slug}/page`; an LTI
//! launch redirects to one.

use crate::service::problem::answers::{NoValidToken, UnknownExercise};
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Client;
use super::handler::{Data, db};
use super::intake::{Body, read_submission, validate};
use crate::limits::{PAGE_HISTORY_MAX, QUEUE_DEPTH_MAX};
use crate::service::html::{self, PageLink, StudentPage};
use crate::service::learner::Learner;
use crate::service::problem::Problem;
use crate::service::shared::Shared;
use crate::service::store::{ClientRecord, Intake, SubmissionRecord};
use crate::service::{auth, clock};
use crate::submission::SubmissionKind;
use crate::text::{Lang, Text};

/// The query of a page link. Every field is text, so that a malformed one is a 404 page, not a
/// problem document.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PageQuery {
    /// The client the learner's submissions belong to.
    #[param(value_type = String)]
    pub c: Option<String>,
    /// The learner.
    #[param(value_type = String)]
    pub l: Option<String>,
    /// The LTI launch context (only in links made by a launch).
    #[param(value_type = String, required = false)]
    pub x: Option<String>,
    /// The link's token.
    #[param(value_type = String)]
    pub t: Option<String>,
    /// `de` (default) or `en`; any other value shows German.
    #[param(value_type = String, required = false, example = "en")]
    pub lang: Option<String>,
    /// The submission whose report the page shows (`sub_<n>`); without it, the newest.
    #[param(value_type = String, required = false)]
    pub s: Option<String>,
}

/// The full URL of a learner's page (what the REST API hands out and an LTI launch redirects to).
pub(crate) fn page_url(
    shared: &Shared,
    client_id: i64,
    slug: &str,
    learner: &str,
    context: Option<i64>,
    lang: Lang,
) -> String {
    let link = PageLink {
        slug: slug.to_string(),
        client_id,
        learner: learner.to_string(),
        context,
        token: auth::page_token(shared.report_key.current(), client_id, slug, learner, context),
        lang,
    };
    format!("{}{}", shared.config.public_url, link.href(lang, None))
}

/// The language of a page: `en` is English, anything else German.
fn page_lang(raw: Option<&str>) -> Lang {
    raw.and_then(|l| l.parse::<Lang>().ok()).unwrap_or(Lang::De)
}

/// Checks a link: its fields well-formed and its token the right one. None: the page is 404.
pub(crate) fn check_link(shared: &Shared, slug: &str, query: &PageQuery) -> Option<PageLink> {
    let client_id = query.c.as_deref()?.parse::<i64>().ok().filter(|c| *c > 0)?;
    let learner = query.l.as_deref()?;
    // A link names the learner as stored: exactly, not merely after trimming.
    if Learner::parse(learner).ok()?.as_str() != learner {
        return None;
    }
    let context = match query.x.as_deref() {
        None => None,
        Some(x) => Some(x.parse::<i64>().ok().filter(|x| *x > 0)?),
    };
    let token = query.t.as_deref()?;
    let valid = shared.report_key.any_valid(clock::now_ms(), |key| {
        auth::tokens_equal(&auth::page_token(key, client_id, slug, learner, context), token)
    });
    valid.then(|| PageLink {
        slug: slug.to_string(),
        client_id,
        learner: learner.to_string(),
        context,
        token: token.to_string(),
        lang: page_lang(query.lang.as_deref()),
    })
}

/// `frame-ancestors` of the student's page: this service and the registered LTI platforms.
pub(crate) fn frame_ancestors(shared: &Shared) -> String {
    let mut sources = vec!["'self'".to_string()];
    sources.extend(crate::service::lti::platform_origins(&shared.lti_context()));
    sources.join(" ")
}

/// An HTML answer of the student's page with its headers: no caching, no referrer (the link is a
/// credential), no script, forms only to this service, framed only by the registered platforms.
pub(crate) fn page_response(shared: &Shared, status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            format!(
                "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; \
                 form-action 'self'; frame-ancestors {}",
                frame_ancestors(shared)
            ),
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}

fn not_found(shared: &Shared, lang: Lang) -> HttpResponse {
    page_response(
        shared,
        StatusCode::NOT_FOUND,
        html::message_page(
            lang,
            &Text::new("Seite nicht gefunden", "Page not found"),
            &Text::new(
                "Diese Seite gibt es nicht, oder der Link ist unvollständig. Bitte die Aufgabe erneut aus der Lernplattform öffnen.",
                "There is no such page, or the link is incomplete. Please open the exercise again from the learning platform.",
            ),
        ),
    )
}

/// The link's client, if it may still submit.
async fn live_client(shared: &Data, client_id: i64) -> Result<Option<ClientRecord>, Problem> {
    Ok(db(shared, move |store| store.client_by_id(client_id))
        .await?
        .filter(|client| client.revoked_at.is_none()))
}

/// `GET /learn/{slug}`: the student's page.
#[utoipa::path(
    get,
    path = "/learn/{slug}",
    tag = "reports",
    params(("slug" = String, Path, description = "The exercise's slug"), PageQuery),
    responses(
        (status = 200, description = "The student's page as HTML: statement, submission form, report, history", content_type = "text/html"),
        (status = 404, description = "No such page, or a wrong token", content_type = "text/html"),
    )
)]
pub(crate) async fn page(
    path: web::Path<String>,
    query: web::Query<PageQuery>,
    shared: Data,
) -> HttpResponse {
    let slug = path.into_inner();
    let query = query.into_inner();
    let Some(link) = check_link(&shared, &slug, &query) else {
        return not_found(&shared, page_lang(query.lang.as_deref()));
    };
    let selected = query.s.as_deref().and_then(crate::service::public_id::parse);
    render(&shared, &link, selected, None).await
}

/// The page of `link`, showing `selected` (or the newest submission), with an error from a
/// submission that was not accepted.
async fn render(
    shared: &Data,
    link: &PageLink,
    selected: Option<i64>,
    error: Option<(StatusCode, Text)>,
) -> HttpResponse {
    let lang = link.lang;
    let Some(exercise) = shared.catalogue.get(&link.slug) else { return not_found(shared, lang) };
    match live_client(shared, link.client_id).await {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(shared, lang),
        Err(problem) => return failure(shared, lang, &problem),
    }
    let statement = {
        let exercise = exercise.clone();
        let learner = link.learner.clone();
        let secret = shared.course_secret.clone();
        match web::block(move || exercise.grader.statement(&exercise, Some(&learner), &secret, lang)).await {
            Ok(Ok(statement)) => statement,
            Ok(Err(e)) => return failure(shared, lang, &Problem::internal(e)),
            Err(e) => return failure(shared, lang, &Problem::internal(e)),
        }
    };
    let (client_id, slug, learner) = (link.client_id, link.slug.clone(), link.learner.clone());
    let history = match db(shared, move |store| {
        store.learner_submissions(client_id, &slug, &learner, PAGE_HISTORY_MAX)
    })
    .await
    {
        Ok(history) => history,
        Err(problem) => return failure(shared, lang, &problem),
    };
    let shown: Option<SubmissionRecord> = match selected {
        None => history.first().cloned(),
        Some(id) => match history.iter().find(|r| r.id == id) {
            Some(record) => Some(record.clone()),
            None => match db(shared, move |store| store.submission(id)).await {
                Ok(record) => record.filter(|r| {
                    r.client_id == link.client_id && r.exercise == link.slug && r.learner == link.learner
                }),
                Err(problem) => return failure(shared, lang, &problem),
            },
        },
    };
    let kits = match exercise.grader.submission_kind() {
        SubmissionKind::Answer => Vec::new(),
        SubmissionKind::Module => shared.catalogue.kits(),
    };
    let status = error.as_ref().map_or(StatusCode::OK, |(status, _)| *status);
    let page = StudentPage {
        link,
        title: exercise.title.get(lang),
        points: exercise.points,
        statement: &statement,
        kind: exercise.grader.submission_kind(),
        languages: &exercise.grader.languages(),
        answer_example: exercise.grader.answer_example(),
        kits: &kits,
        shown: shown.as_ref(),
        history: &history,
        error: error.as_ref().map(|(_, text)| text),
    };
    page_response(shared, status, html::student_page(&page))
}

fn failure(shared: &Shared, lang: Lang, problem: &Problem) -> HttpResponse {
    tracing::error!(event = "page_failed", error = %problem.detail);
    page_response(
        shared,
        StatusCode::INTERNAL_SERVER_ERROR,
        html::message_page(
            lang,
            &Text::new("Fehler", "Error"),
            &Text::new(problem.detail_de.clone(), problem.detail.clone()),
        ),
    )
}

#[utoipa::path(
    post,
    path = "/learn/{slug}",
    tag = "reports",
    params(("slug" = String, Path, description = "The exercise's slug"), PageQuery),
    request_body(
        content = Object, content_type = "multipart/form-data",
        description = "The page's form: the hidden fields exercise and learner (as in the link), and answer or file."
    ),
    responses(
        (status = 303, description = "Accepted: the page of the new submission (`Location`)"),
        (status = 400, description = "A form that does not belong to the page, nothing to grade, a malformed body", content_type = "text/html"),
        (status = 404, description = "No such page, or a wrong token", content_type = "text/html"),
        (status = 408, description = "Body not received in time", content_type = "text/html"),
        (status = 413, description = "Body too large", content_type = "text/html"),
        (status = 415, description = "Not multipart/form-data", content_type = "text/html"),
        (status = 422, description = "The wrong kind of submission for the exercise", content_type = "text/html"),
        (status = 503, description = "Shutting down or queue full", content_type = "text/html"),
    )
)]
/// `POST /learn/{slug}`: a submission from the page's form (multipart: the hidden fields
/// `exercise` and `learner`, and `answer` or `file`). Accepted: `303 See Other` to the page of the
/// new submission. Not accepted: the page again, with the reason, and nothing stored.
pub(crate) async fn submit(
    req: HttpRequest,
    path: web::Path<String>,
    query: web::Query<PageQuery>,
    payload: web::Payload,
    shared: Data,
) -> HttpResponse {
    let slug = path.into_inner();
    let query = query.into_inner();
    let Some(link) = check_link(&shared, &slug, &query) else {
        return not_found(&shared, page_lang(query.lang.as_deref()));
    };
    let refuse =
        |problem: Problem| (StatusCode::from_u16(problem.status).unwrap_or(StatusCode::BAD_REQUEST), problem);
    let outcome: Result<SubmissionRecord, (StatusCode, Problem)> = async {
        if !shared.accepting.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(refuse(Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "Service unavailable",
                "The service is shutting down; please submit again in a minute.",
                "Der Dienst fährt herunter; bitte in einer Minute erneut abgeben.",
            )));
        }
        let client = live_client(&shared, link.client_id).await.map_err(refuse)?.ok_or_else(|| {
            refuse(Problem::not_found(
                "unknown-page",
                "This link is no longer valid.",
                "Dieser Link gilt nicht mehr.",
            ))
        })?;
        let mut parsed = match read_submission(&req, payload, shared.config.request_body_timeout_ms).await {
            Ok(Body::Parsed(parsed)) => parsed,
            Ok(Body::TooSlow(_)) => {
                return Err(refuse(Problem::body_timeout(shared.config.request_body_timeout_ms)));
            }
            Err(problem) => return Err(refuse(problem)),
        };
        if parsed.exercise != link.slug || parsed.learner != link.learner {
            return Err(refuse(Problem::bad_request(
                "page-mismatch",
                "The form does not belong to this page. Please reload the page and submit again.",
                "Das Formular gehört nicht zu dieser Seite. Bitte die Seite neu laden und erneut abgeben.",
            )));
        }
        // A form sends its empty fields: an empty answer or file is nothing submitted.
        parsed.answer = parsed.answer.filter(|a| !a.trim().is_empty());
        parsed.module = parsed.module.filter(|m| !m.is_empty());
        parsed.callback_url = None;
        parsed.metadata = link.context.map(|x| serde_json::json!({ "lti_context": x }));
        let new = validate(&shared, &client, parsed, None).map_err(refuse)?;
        match db(&shared, move |store| store.submit(&new, QUEUE_DEPTH_MAX, clock::now_ms()))
            .await
            .map_err(refuse)?
        {
            Intake::Created(record) | Intake::Existing(record) | Intake::KeyReused(record) => {
                shared.metrics.accepted.inc();
                shared.work.notify();
                Ok(record)
            }
            Intake::QueueFull { depth } => Err(refuse(Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "Service unavailable",
                format!("The grading queue is full ({depth} jobs); please submit again later."),
                format!("Die Warteschlange ist voll ({depth} Aufträge); bitte später erneut abgeben."),
            ))),
        }
    }
    .await;
    match outcome {
        Ok(record) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, format!("{}#result", link.href(link.lang, Some(record.id)))))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::REFERRER_POLICY, "no-referrer"))
            .finish(),
        Err((status, problem)) => {
            tracing::info!(event = "page_submission_refused", exercise = %link.slug, code = problem.code);
            render(&shared, &link, None, Some((status, Text::new(problem.detail_de, problem.detail)))).await
        }
    }
}

/// The answer of `GET /api/v1/exercises/{slug}/page`.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PageLinkView {
    /// The learner's page: hand it to the learner (it is their credential for this exercise).
    pub url: String,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PageLinkQuery {
    /// The learner's id in the platform: at most 255 characters, not blank, without control or
    /// bidirectional characters.
    #[param(example = "anna")]
    pub learner: String,
    /// The page's language: `de` (default) or `en`.
    #[param(value_type = String, required = false, example = "en")]
    pub lang: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/exercises/{slug}/page",
    tag = "exercises",
    params(("slug" = String, Path, description = "The exercise's slug"), PageLinkQuery),
    responses(
        (status = 200, description = "The learner's page link (statement, submission form, reports)", body = PageLinkView),
        (status = 400, description = "Bad learner or language", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        UnknownExercise,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn page_link(
    path: web::Path<String>,
    query: web::Query<PageLinkQuery>,
    shared: Data,
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
    let slug = path.into_inner();
    if shared.catalogue.get(&slug).is_none() {
        let known = shared.catalogue.slugs().join(", ");
        return Err(Problem::not_found(
            "unknown-exercise",
            format!("There is no exercise {slug:?}. Known exercises: {known}."),
            format!("Es gibt keine Aufgabe {slug:?}. Vorhandene Aufgaben: {known}."),
        ));
    }
    let lang = super::exercises::parse_lang(query.lang.as_deref())?;
    let learner = Learner::parse(&query.learner).map_err(|e| Problem::bad_learner("bad-learner", e))?;
    let learner = learner.as_str();
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(PageLinkView { url: page_url(&shared, client.id, &slug, learner, None, lang) }))
}
