//! What a teacher does with a course, behind a teacher's token ([`Teacher`]): regrade an exercise
//! after fixing it (`POST /api/v1/exercises/{slug}/regrade`) and read its analytics
//! (`GET /api/v1/exercises/{slug}/analytics`, as JSON, CSV or an HTML page).

use crate::service::problem::answers::{BodyTooLarge, NoValidToken, UnknownExercise};
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use super::auth::Teacher;
use super::handler::{Data, db};
use crate::exercise::Exercise;
use crate::grade::GradeOptions;
use crate::limits::{ANALYTICS_SUBMISSIONS_MAX, REGRADE_BODY_BYTES_MAX, SIMILARITY_SUBMISSIONS_MAX};
use crate::service::analytics::{self, Analytics};
use crate::service::dashboard::analytics_page::{AnalyticsLinks, analytics_page};
use crate::service::privacy::{self, Actor};
use crate::service::problem::Problem;
use crate::service::regrade::{self, DryRunGrader, RegradeError};
use crate::service::regrade::{RegradeRequest, RegradeSummary};
use crate::service::similarity;
use crate::service::store::{AuditAction, RegradeFilter, Store};
use crate::text::Lang;

/// The served exercise `slug`, or 404 naming the ones there are.
pub(crate) fn served_exercise(shared: &Data, slug: &str) -> Result<std::sync::Arc<Exercise>, Problem> {
    shared.catalogue.get(slug).ok_or_else(|| {
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
    })
}

impl From<RegradeError> for Problem {
    fn from(error: RegradeError) -> Problem {
        match error {
            RegradeError::BadFilter(text) => Problem::bad_request("bad-filter", text.en, text.de),
            RegradeError::TooMany(text) => Problem::unprocessable("too-many-submissions", text.en, text.de),
            RegradeError::Store(e) => e.into(),
        }
    }
}

/// A small JSON body, read whole up to `limit` bytes (413 naming `limit_name` beyond it).
async fn read_small_body(
    mut payload: web::Payload,
    limit: usize,
    limit_name: &str,
) -> Result<Vec<u8>, Problem> {
    use futures_util::StreamExt;
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            Problem::bad_request(
                "bad-body",
                format!("The request body could not be read: {e}."),
                format!("Der Rumpf der Anfrage war nicht lesbar: {e}."),
            )
        })?;
        if body.len() + chunk.len() > limit {
            let mut problem = Problem::new(
                actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
                "body-too-large",
                "Request body too large",
                format!("The request body is larger than the limit of {limit} bytes ({limit_name})."),
                format!("Der Rumpf der Anfrage ist größer als die Grenze von {limit} Bytes ({limit_name})."),
            );
            problem.close = true;
            return Err(problem);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[utoipa::path(
    post,
    path = "/api/v1/exercises/{slug}/regrade",
    tag = "teachers",
    params(("slug" = String, Path, description = "The exercise's slug")),
    request_body(
        content((RegradeRequest = "application/json")),
        description = "Optional: which submissions (learners, latest verdict), and `dry_run`. An empty body \
                       regrades the latest submission of every learner."
    ),
    responses(
        (status = 202, description = "Regrade jobs queued (one per submission that had no open job)", body = RegradeSummary),
        (status = 200, description = "Dry run: what would change; nothing was written", body = RegradeSummary),
        (status = 400, description = "Malformed body or filter", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Client revoked, or not a teacher", body = Problem, content_type = "application/problem+json"),
        UnknownExercise,
        BodyTooLarge,
        (status = 422, description = "More submissions match than one regrade takes", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn regrade_exercise(
    path: web::Path<String>,
    shared: Data,
    Teacher(teacher): Teacher,
    payload: web::Payload,
) -> Result<HttpResponse, Problem> {
    let slug = path.into_inner();
    let exercise = served_exercise(&shared, &slug)?;
    let body = read_small_body(payload, REGRADE_BODY_BYTES_MAX, "regrade_body_bytes_max").await?;
    let request: RegradeRequest = if body.iter().all(u8::is_ascii_whitespace) {
        RegradeRequest::default()
    } else {
        // An object, not the array form serde would also take for a struct.
        let bad = |e: String| {
            Problem::bad_request(
                "bad-json",
                format!("The body is not a regrade request: {e}."),
                format!("Der Inhalt ist keine Anfrage zur Neubewertung: {e}."),
            )
        };
        match serde_json::from_slice::<serde_json::Value>(&body).map_err(|e| bad(e.to_string()))? {
            value @ serde_json::Value::Object(_) => {
                serde_json::from_value(value).map_err(|e| bad(e.to_string()))?
            }
            _ => return Err(bad("it must be a JSON object".into())),
        }
    };
    let filter = regrade::filter(&request)?;
    let dry_run = request.dry_run;
    let options = GradeOptions {
        learner: None,
        course_secret: shared.course_secret.clone(),
        compiler: shared.config.compiler,
        replay: None,
    };
    // A dry run grades in the service's worker pool, never beside it.
    let mut grader = DryRunGrader::in_pool(shared.clone().into_inner(), exercise.clone());
    let actor = Actor { name: teacher.name, client_id: Some(teacher.id) };
    let summary = db(&shared, move |store| {
        let summary = regrade::regrade(store, &exercise, &filter, dry_run, &options, &mut grader);
        if let Ok(summary) = &summary {
            let counts = [
                ("selected".to_string(), summary.selected as u64),
                ("queued".to_string(), summary.queued.len() as u64),
                ("dry_run".to_string(), u64::from(dry_run)),
            ]
            .into();
            privacy::record(store, &actor, AuditAction::Regrade, &exercise.slug, counts);
        }
        Ok(summary)
    })
    .await??;
    if !summary.queued.is_empty() {
        shared.work.notify();
    }
    tracing::info!(
        event = "regrade",
        exercise = %summary.exercise,
        dry_run,
        selected = summary.selected,
        queued = summary.queued.len(),
        would_change = summary.would_change.unwrap_or(0),
    );
    Ok(if dry_run { HttpResponse::Ok() } else { HttpResponse::Accepted() }.json(summary))
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnalyticsQuery {
    /// `json` (default), `csv` or `html`; without it, `Accept: text/csv` or `text/html` chooses.
    #[param(value_type = String, required = false, example = "csv")]
    pub format: Option<String>,
    /// The HTML page's language: `de` (default) or `en`.
    #[param(value_type = String, required = false, example = "en")]
    pub lang: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Csv,
    Html,
}

fn analytics_format(query: &AnalyticsQuery, req: &HttpRequest) -> Result<Format, Problem> {
    match query.format.as_deref().map(str::trim) {
        Some("json") => Ok(Format::Json),
        Some("csv") => Ok(Format::Csv),
        Some("html") => Ok(Format::Html),
        Some("") | None => {
            let accept = req
                .headers()
                .get(actix_web::http::header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            Ok(if accept.contains("text/csv") {
                Format::Csv
            } else if accept.contains("text/html") && !accept.contains("application/json") {
                Format::Html
            } else {
                Format::Json
            })
        }
        Some(other) => Err(Problem::bad_request(
            "bad-format",
            format!("format {other:?} is not one of json, csv, html."),
            format!("format {other:?} ist keines von json, csv, html."),
        )),
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/exercises/{slug}/analytics",
    tag = "teachers",
    params(("slug" = String, Path, description = "The exercise's slug"), AnalyticsQuery),
    responses(
        (status = 200, description = "The exercise's analytics over the latest result of every submission (of \
                                      every client): as JSON, CSV (`format=csv` or `Accept: text/csv`) or an \
                                      HTML page with bar charts (`format=html`)",
         content(
            (Analytics = "application/json"),
            (String = "text/csv"),
            (String = "text/html"),
         )),
        (status = 400, description = "Bad format or language, or an unknown query parameter", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        (status = 403, description = "Client revoked, or not a teacher", body = Problem, content_type = "application/problem+json"),
        UnknownExercise,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn exercise_analytics(
    path: web::Path<String>,
    query: web::Query<AnalyticsQuery>,
    req: HttpRequest,
    shared: Data,
    Teacher(teacher): Teacher,
) -> Result<HttpResponse, Problem> {
    let slug = path.into_inner();
    let format = analytics_format(&query, &req)?;
    let lang = super::exercises::parse_lang(query.lang.as_deref())?;
    let exercise = served_exercise(&shared, &slug)?;
    let secret = shared.course_secret.clone();
    let actor = Actor { name: teacher.name, client_id: Some(teacher.id) };
    let analytics = db(&shared, move |store| {
        let analytics = analytics_of(store, &exercise, &secret, &|_| true)?;
        let counts = [("submissions".to_string(), analytics.submissions as u64)].into();
        privacy::record(store, &actor, AuditAction::Analytics, &exercise.slug, counts);
        Ok(analytics)
    })
    .await?;
    // The course's data in every form: not kept by caches, not sniffed; the page as a report page.
    let mut answer = HttpResponse::Ok();
    answer
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    Ok(match format {
        Format::Json => answer.json(analytics),
        Format::Csv => answer
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}-analytics.csv\"", analytics.exercise),
            ))
            .body(analytics::to_csv(&analytics)),
        Format::Html => {
            let key = shared.report_key.current();
            let page_lang = |other: Lang| format!("?format=html&lang={}", other.code());
            let report = |id: &str| {
                format!(
                    "/reports/{id}?t={}&lang={}",
                    crate::service::auth::report_token(key, id),
                    lang.code()
                )
            };
            let links = AnalyticsLinks {
                lang: &page_lang,
                report: &report,
                compare: None,
                regrade: None,
                back: None,
            };
            answer
                .content_type("text/html; charset=utf-8")
                .insert_header((header::REFERRER_POLICY, "no-referrer"))
                .insert_header((header::CONTENT_SECURITY_POLICY, crate::service::html::PAGE_CSP))
                .body(analytics_page(&analytics, lang, &links))
        }
    })
}

/// The analytics of `exercise` from the store, with similarity hints for consumer exercises.
pub(crate) fn analytics_of(
    store: &dyn Store,
    exercise: &Exercise,
    course_secret: &str,
    in_course: &dyn Fn(&crate::service::store::SubmissionRecord) -> bool,
) -> Result<Analytics, crate::service::store::StoreError> {
    let mut records = store.exercise_submissions(&exercise.slug, ANALYTICS_SUBMISSIONS_MAX)?;
    records.retain(|r| in_course(r));
    let consumer = exercise.grader_kind() == crate::report::GraderKind::Consumer;
    let profiles = if consumer { analytics::PROFILES.of(exercise) } else { Default::default() };
    let parameters_of = |learner: &str| exercise.grader.variant_parameters(exercise, learner, course_secret);
    let descriptions = exercise.grader.mutant_descriptions();
    let mut analytics = analytics::compute(
        exercise,
        &records,
        ANALYTICS_SUBMISSIONS_MAX,
        &profiles,
        &descriptions,
        &parameters_of,
    );
    if consumer {
        let mut latest =
            store.latest_submissions(&exercise.slug, &RegradeFilter::default(), ANALYTICS_SUBMISSIONS_MAX)?;
        latest.retain(|r| in_course(r));
        let recent = &latest[latest.len().saturating_sub(SIMILARITY_SUBMISSIONS_MAX + 1)..];
        let mut with_bytes = Vec::with_capacity(recent.len());
        for record in recent {
            if let Some(submission) = store.submission_payload(record.id)? {
                with_bytes.push((record.clone(), submission));
            }
        }
        analytics.similarity = Some(similarity::closest_pairs(exercise, &with_bytes));
    }
    Ok(analytics)
}
