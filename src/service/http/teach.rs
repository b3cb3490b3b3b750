//! The teachers' dashboard in the browser, behind its signed, expiring, course-bound link
//! ([`crate::service::dashboard`]): `GET /teach` (the course's exercises and pass rates),
//! `GET /teach/exercises/{slug}` (an exercise's analytics over the course's submissions, with the
//! regrade buttons), `POST /teach/exercises/{slug}/regrade` (a dry run or a regrade of the
//! course's learners, with the form's CSRF token), `GET /teach/learner?learner=` (a learner's
//! submissions) and `GET /teach/compare?a=&b=` (two reports side by side). A wrong, changed or
//! expired link, and a submission outside the course, are a 404 page; a form without its CSRF
//! token is 403. The pages carry the student's page's headers (no caching, no referrer, no script,
//! forms only to this service, framed only by the registered platforms).
//!
//! An LTI launch with an instructor role comes here through [`instructor_launch`].

use std::collections::BTreeSet;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, web};
use futures_util::StreamExt;

use super::course::{analytics_of, served_exercise};
use super::handler::{Data, db};
use super::learn::page_response;
use crate::grade::GradeOptions;
use crate::limits::{
    ANALYTICS_SUBMISSIONS_MAX, DASHBOARD_COURSE_BYTES_MAX, DASHBOARD_FORM_BYTES_MAX,
    DASHBOARD_LEARNER_SUBMISSIONS_MAX, DASHBOARD_LINK_TTL_MS,
};
use crate::service::dashboard::analytics_page::{AnalyticsLinks, analytics_page};
use crate::service::dashboard::pages::{self, ExerciseRow};
use crate::service::dashboard::{Course, DashboardLink, LinkQuery, Members, check_link};
use crate::service::lti::verify::{LaunchClaims, LaunchError};
use crate::service::privacy::{self, Actor};
use crate::service::regrade::RegradeRequest;
use crate::service::regrade::{self, DryRunGrader};
use crate::service::shared::Shared;
use crate::service::store::{AuditAction, RowCounts};
use crate::service::store::{PlatformRecord, SubmissionRecord};
use crate::service::{auth, clock, html};
use crate::text::{Lang, Text};

/// The roles of the LTI vocabulary that open the dashboard instead of the student's page.
const INSTRUCTOR_ROLES: [&str; 3] = [
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
];

/// Whether a launch's roles make it a teacher's.
pub(crate) fn is_instructor(claims: &LaunchClaims) -> bool {
    claims.roles.iter().any(|role| INSTRUCTOR_ROLES.contains(&role.as_str()))
}

/// An instructor's launch: a link to the dashboard of the launch's course (its `context` claim),
/// valid for [`DASHBOARD_LINK_TTL_MS`].
pub(crate) fn instructor_launch(
    shared: &Shared,
    platform: &PlatformRecord,
    claims: &LaunchClaims,
    lang: Lang,
) -> Result<HttpResponse, LaunchError> {
    let context = claims
        .context
        .as_ref()
        .map(|c| c.id.clone())
        .filter(|id| !id.is_empty() && id.len() <= DASHBOARD_COURSE_BYTES_MAX)
        .ok_or_else(|| LaunchError::Claim("context (the course whose dashboard to open)".into()))?;
    let course = Course::Lti { platform: platform.id, context };
    let expires = clock::now_ms() + DASHBOARD_LINK_TTL_MS as i64;
    let link = DashboardLink::signed(shared.report_key.current(), course, expires, lang);
    tracing::info!(event = "lti_instructor_launch", platform = %platform.platform.name);
    Ok(HttpResponse::SeeOther()
        .insert_header((
            header::LOCATION,
            format!("{}{}", shared.config.public_url, link.href("/teach", lang, "")),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .finish())
}

fn not_found(shared: &Shared, lang: Lang) -> HttpResponse {
    page_response(
        shared,
        StatusCode::NOT_FOUND,
        html::message_page(
            lang,
            &Text::new("Seite nicht gefunden", "Page not found"),
            &Text::new(
                "Diese Seite gibt es nicht, oder der Link ist unvollständig oder abgelaufen. Bitte die Übersicht erneut aus der Lernplattform öffnen oder einen neuen Link erzeugen (pruefstein teacher link).",
                "There is no such page, or the link is incomplete or has expired. Please open the overview again from the learning platform, or make a new link (pruefstein teacher link).",
            ),
        ),
    )
}

fn failure(shared: &Shared, lang: Lang, status: StatusCode, text: Text) -> HttpResponse {
    tracing::warn!(event = "dashboard_refused", status = status.as_u16(), detail = %text.en);
    page_response(shared, status, html::message_page(lang, &Text::new("Fehler", "Error"), &text))
}

/// The link of a request; none: answer with [`not_found`] in the language it asked for.
fn link_of(shared: &Shared, query: &LinkQuery) -> Result<DashboardLink, Lang> {
    let lang = query.lang.as_deref().and_then(|l| l.parse::<Lang>().ok()).unwrap_or(Lang::De);
    check_link(shared, query, clock::now_ms()).ok_or(lang)
}

/// The course's submissions of `slug` (at most [`ANALYTICS_SUBMISSIONS_MAX`]).
fn course_submissions(
    store: &dyn crate::service::store::Store,
    members: &Members,
    slug: &str,
) -> Result<Vec<SubmissionRecord>, crate::service::store::StoreError> {
    Ok(store
        .exercise_submissions(slug, ANALYTICS_SUBMISSIONS_MAX)?
        .into_iter()
        .filter(|r| members.contains(r))
        .collect())
}

/// A report page's link of a submission in `lang`.
fn report_href(shared: &Shared, id: &str, lang: Lang) -> String {
    format!("/reports/{id}?t={}&lang={}", auth::report_token(shared.report_key.current(), id), lang.code())
}

/// `GET /teach`: the course's exercises, each with its pass rate.
pub(crate) async fn dashboard(query: web::Query<LinkQuery>, shared: Data) -> HttpResponse {
    let link = match link_of(&shared, &query) {
        Ok(link) => link,
        Err(lang) => return not_found(&shared, lang),
    };
    let catalogue = shared.catalogue.all();
    let slugs: Vec<(String, String)> =
        catalogue.values().map(|e| (e.slug.clone(), e.title.get(link.lang).to_string())).collect();
    let course = link.course.clone();
    let rows = db(&shared, move |store| {
        let members = Members::of(store, &course)?;
        let mut rows = Vec::with_capacity(slugs.len());
        for (slug, title) in slugs {
            let records = course_submissions(store, &members, &slug)?;
            let verdict = |r: &SubmissionRecord| r.result.as_ref().and_then(|r| r.verdict.clone());
            let graded = records.iter().filter(|r| verdict(r).is_some()).count();
            let passed = records.iter().filter(|r| verdict(r).as_deref() == Some("passed")).count();
            let learners = records.iter().map(|r| (&r.learner, r.client_id)).collect::<BTreeSet<_>>().len();
            rows.push(ExerciseRow { slug, title, submissions: records.len(), learners, passed, graded });
        }
        Ok(rows)
    })
    .await;
    match rows {
        Ok(rows) => page_response(&shared, StatusCode::OK, pages::dashboard_page(&link, &rows)),
        Err(p) => {
            failure(&shared, link.lang, StatusCode::SERVICE_UNAVAILABLE, Text::new(p.detail_de, p.detail))
        }
    }
}

/// `GET /teach/exercises/{slug}`: the exercise's analytics over the course's submissions.
pub(crate) async fn exercise(
    path: web::Path<String>,
    query: web::Query<LinkQuery>,
    shared: Data,
) -> HttpResponse {
    let link = match link_of(&shared, &query) {
        Ok(link) => link,
        Err(lang) => return not_found(&shared, lang),
    };
    let lang = link.lang;
    let slug = path.into_inner();
    let Ok(exercise) = served_exercise(&shared, &slug) else { return not_found(&shared, lang) };
    let (secret, course) = (shared.course_secret.clone(), link.course.clone());
    let analytics = db(&shared, move |store| {
        let members = Members::of(store, &course)?;
        analytics_of(store, &exercise, &secret, &|r| members.contains(r))
    })
    .await;
    let analytics = match analytics {
        Ok(analytics) => {
            let counts = [("submissions".to_string(), analytics.submissions as u64)];
            audit(&shared, &link.course, AuditAction::Analytics, &slug, counts.into());
            analytics
        }
        Err(p) => {
            return failure(&shared, lang, StatusCode::SERVICE_UNAVAILABLE, Text::new(p.detail_de, p.detail));
        }
    };
    let path = format!("/teach/exercises/{slug}");
    let other = |l: Lang| link.href(&path, l, "");
    let report = |id: &str| report_href(&shared, id, lang);
    let compare = |a: &str, b: &str| link.href("/teach/compare", lang, &format!("&a={a}&b={b}"));
    let links = AnalyticsLinks {
        lang: &other,
        report: &report,
        compare: Some(&compare),
        regrade: Some((link.href(&format!("{path}/regrade"), lang, ""), link.csrf(&shared))),
        back: Some(link.href("/teach", lang, "")),
    };
    page_response(&shared, StatusCode::OK, analytics_page(&analytics, lang, &links))
}

/// `POST /teach/exercises/{slug}/regrade`: a dry run or a regrade of the latest submission of
/// every learner of the course, from the analytics page's buttons.
pub(crate) async fn regrade(
    path: web::Path<String>,
    query: web::Query<LinkQuery>,
    mut payload: web::Payload,
    shared: Data,
) -> HttpResponse {
    let link = match link_of(&shared, &query) {
        Ok(link) => link,
        Err(lang) => return not_found(&shared, lang),
    };
    let lang = link.lang;
    let slug = path.into_inner();
    let Ok(exercise) = served_exercise(&shared, &slug) else { return not_found(&shared, lang) };
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let Ok(chunk) = chunk else {
            let text = Text::new("Das Formular kam nicht vollständig an.", "The form did not arrive whole.");
            return failure(&shared, lang, StatusCode::BAD_REQUEST, text);
        };
        if body.len() + chunk.len() > DASHBOARD_FORM_BYTES_MAX {
            let text = Text::new("Das Formular ist zu groß.", "The form is too large.");
            return failure(&shared, lang, StatusCode::PAYLOAD_TOO_LARGE, text);
        }
        body.extend_from_slice(&chunk);
    }
    let field =
        |name: &str| url::form_urlencoded::parse(&body).find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    // The form's token first: a form from another site changes nothing.
    if !field("csrf").is_some_and(|csrf| link.csrf_valid(&shared, &csrf)) {
        let text = Text::new(
            "Dieses Formular ist nicht von dieser Seite (das Prüfzeichen fehlt oder ist falsch). Bitte die Auswertung neu laden.",
            "This form is not from this page (its token is missing or wrong). Please reload the analytics.",
        );
        return failure(&shared, lang, StatusCode::FORBIDDEN, text);
    }
    let dry_run = field("dry_run").as_deref() != Some("false");
    let learners = match course_learners(&shared, &link.course, &slug).await {
        Ok(learners) => learners,
        Err(p) => {
            return failure(&shared, lang, StatusCode::SERVICE_UNAVAILABLE, Text::new(p.detail_de, p.detail));
        }
    };
    if learners.as_ref().is_some_and(BTreeSet::is_empty) {
        let text = Text::new(
            "Dieser Kurs hat noch keine Abgabe dieser Aufgabe.",
            "This course has no submission of this exercise yet.",
        );
        return failure(&shared, lang, StatusCode::UNPROCESSABLE_ENTITY, text);
    }
    let request =
        RegradeRequest { learners: learners.map(|l| l.into_iter().collect()), verdict: None, dry_run };
    match run_regrade(&shared, exercise, &request).await {
        Ok(Ok(summary)) => {
            if !summary.queued.is_empty() {
                shared.work.notify();
            }
            tracing::info!(event = "regrade", exercise = %summary.exercise, dry_run, from = "dashboard");
            let counts = [
                ("selected".to_string(), summary.selected as u64),
                ("queued".to_string(), summary.queued.len() as u64),
                ("dry_run".to_string(), u64::from(dry_run)),
            ];
            audit(&shared, &link.course, AuditAction::Regrade, &slug, counts.into());
            page_response(&shared, StatusCode::OK, pages::regrade_page(&link, &slug, &summary))
        }
        Ok(Err(e)) => {
            let problem = crate::service::problem::Problem::from(e);
            failure(
                &shared,
                lang,
                StatusCode::UNPROCESSABLE_ENTITY,
                Text::new(problem.detail_de, problem.detail),
            )
        }
        Err(p) => failure(&shared, lang, StatusCode::SERVICE_UNAVAILABLE, Text::new(p.detail_de, p.detail)),
    }
}

/// Records a dashboard action in the audit log (on the blocking pool, not waited for): the actor
/// is the dashboard of the link's course.
fn audit(shared: &Data, course: &Course, action: AuditAction, slug: &str, counts: RowCounts) {
    let name = match course {
        Course::Service => "dashboard".to_string(),
        Course::Lti { platform, context } => {
            format!("dashboard of course {context:?} of platform {platform}")
        }
    };
    let (store, slug) = (shared.store.clone(), slug.to_string());
    actix_web::rt::spawn(async move {
        let _ = web::block(move || {
            privacy::record(store.as_ref(), &Actor { name, client_id: None }, action, &slug, counts)
        })
        .await;
    });
}

/// The learners of the course who submitted `slug`: none for the service's course (every
/// learner).
async fn course_learners(
    shared: &Data,
    course: &Course,
    slug: &str,
) -> Result<Option<BTreeSet<String>>, crate::service::problem::Problem> {
    let (course, slug) = (course.clone(), slug.to_string());
    db(shared, move |store| {
        let members = Members::of(store, &course)?;
        let records = course_submissions(store, &members, &slug)?;
        Ok(match course {
            Course::Service => None,
            Course::Lti { .. } => Some(records.into_iter().map(|r| r.learner).collect::<BTreeSet<_>>()),
        })
    })
    .await
}

/// A regrade (or its dry run) as the API's route runs it, in the service's worker pool.
async fn run_regrade(
    shared: &Data,
    exercise: std::sync::Arc<crate::exercise::Exercise>,
    request: &RegradeRequest,
) -> Result<
    Result<crate::service::regrade::RegradeSummary, regrade::RegradeError>,
    crate::service::problem::Problem,
> {
    let filter = match regrade::filter(request) {
        Ok(filter) => filter,
        Err(e) => return Ok(Err(e)),
    };
    let options = GradeOptions {
        learner: None,
        course_secret: shared.course_secret.clone(),
        compiler: shared.config.compiler,
        replay: None,
    };
    let dry_run = request.dry_run;
    let mut grader = DryRunGrader::in_pool(shared.clone().into_inner(), exercise.clone());
    db(shared, move |store| Ok(regrade::regrade(store, &exercise, &filter, dry_run, &options, &mut grader)))
        .await
}

/// The query of the learner and compare pages: the link's fields and the page's own.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct PageQuery {
    #[serde(flatten)]
    link: LinkQuery,
    learner: Option<String>,
    a: Option<String>,
    b: Option<String>,
}

/// `GET /teach/learner?learner=`: a learner's submissions in the course, newest first.
pub(crate) async fn learner(query: web::Query<PageQuery>, shared: Data) -> HttpResponse {
    let query = query.into_inner();
    let link = match link_of(&shared, &query.link) {
        Ok(link) => link,
        Err(lang) => return not_found(&shared, lang),
    };
    let Some(learner) = query.learner.filter(|l| crate::service::learner::Learner::parse(l).is_ok()) else {
        return not_found(&shared, link.lang);
    };
    let slugs = shared.catalogue.slugs();
    let (course, wanted) = (link.course.clone(), learner.clone());
    let records = db(&shared, move |store| {
        let members = Members::of(store, &course)?;
        let mut records = Vec::new();
        for slug in slugs {
            records.extend(
                course_submissions(store, &members, &slug)?.into_iter().filter(|r| r.learner == wanted),
            );
        }
        records.sort_by_key(|r| std::cmp::Reverse(r.id));
        records.truncate(DASHBOARD_LEARNER_SUBMISSIONS_MAX);
        Ok(records)
    })
    .await;
    match records {
        Ok(records) => {
            let report = |id: &str| report_href(&shared, id, link.lang);
            page_response(&shared, StatusCode::OK, pages::learner_page(&link, &learner, &records, &report))
        }
        Err(p) => {
            failure(&shared, link.lang, StatusCode::SERVICE_UNAVAILABLE, Text::new(p.detail_de, p.detail))
        }
    }
}

/// `GET /teach/compare?a=sub_1&b=sub_2`: two submissions of the course side by side.
pub(crate) async fn compare(query: web::Query<PageQuery>, shared: Data) -> HttpResponse {
    let query = query.into_inner();
    let link = match link_of(&shared, &query.link) {
        Ok(link) => link,
        Err(lang) => return not_found(&shared, lang),
    };
    let ids =
        [query.a.as_deref(), query.b.as_deref()].map(|id| id.and_then(crate::service::public_id::parse));
    let [Some(a), Some(b)] = ids else { return not_found(&shared, link.lang) };
    let course = link.course.clone();
    let pair = db(&shared, move |store| {
        let members = Members::of(store, &course)?;
        let found = |id| {
            Ok::<_, crate::service::store::StoreError>(store.submission(id)?.filter(|r| members.contains(r)))
        };
        Ok((found(a)?, found(b)?))
    })
    .await;
    match pair {
        Ok((Some(a), Some(b))) => {
            page_response(&shared, StatusCode::OK, pages::compare_page(&link, [&a, &b]))
        }
        Ok(_) => not_found(&shared, link.lang),
        Err(p) => {
            failure(&shared, link.lang, StatusCode::SERVICE_UNAVAILABLE, Text::new(p.detail_de, p.detail))
        }
    }
}
