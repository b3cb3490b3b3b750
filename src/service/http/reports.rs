//! The student's report page: HTML behind a link with an HMAC token, no bearer token needed. The
//! link is read and its token checked by the [`ReportLink`] extractor; a wrong token looks the same
//! as an unknown submission (404), so that ids cannot be probed.

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use futures_util::future::LocalBoxFuture;

use super::handler::{Data, db};
use super::views::ReportQuery;
use crate::service::problem::Problem;
use crate::service::{auth, clock, html};
use crate::text::Lang;

/// A report link as requested: `/reports/{id}?t=TOKEN[&lang=en]`.
#[derive(Debug)]
pub(crate) struct ReportLink {
    /// The id as written in the path.
    pub public: String,
    /// The page's language (German unless `lang=en`; an unknown one is German too).
    pub lang: Lang,
    /// The token as given (empty without one).
    pub token: String,
    /// The submission, only if the id is well-formed and the token is the right one for it.
    pub id: Option<i64>,
}

impl FromRequest for ReportLink {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<ReportLink, actix_web::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let path = web::Path::<String>::from_request(req, payload);
        let query = web::Query::<ReportQuery>::from_request(req, payload);
        let shared = req.app_data::<Data>().cloned();
        Box::pin(async move {
            let public = path.await?.into_inner();
            let query = query.await?.into_inner();
            let shared = shared
                .ok_or_else(|| Problem::internal("the service state is missing from the application"))?;
            let lang = query.lang.as_deref().and_then(|l| l.parse::<Lang>().ok()).unwrap_or(Lang::De);
            let token_ok = query.t.as_deref().is_some_and(|t| {
                shared.report_key.any_valid(clock::now_ms(), |key| auth::report_token_valid(key, &public, t))
            });
            let id = crate::service::public_id::parse(&public).filter(|_| token_ok);
            Ok(ReportLink { public, lang, token: query.t.unwrap_or_default(), id })
        })
    }
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
        (status = 410, description = "The report was erased on request or deleted after the retention period", content_type = "text/html"),
    )
)]
pub(crate) async fn report_page(link: ReportLink, shared: Data) -> HttpResponse {
    let ReportLink { public, lang, token, id } = link;
    let record = match id {
        None => None,
        Some(id) => {
            match db(&shared, move |store| Ok((store.submission(id)?, store.submission_gone(id)?))).await {
                Ok((None, true)) => {
                    return HttpResponse::Gone()
                        .content_type("text/html; charset=utf-8")
                        .insert_header((header::CACHE_CONTROL, "no-store"))
                        .body(html::gone_page(lang));
                }
                Ok((record, _)) => record,
                Err(problem) => {
                    return HttpResponse::InternalServerError()
                        .content_type("text/html; charset=utf-8")
                        .body(html::error_page(lang, &problem.detail_de, &problem.detail));
                }
            }
        }
    };
    let Some(record) = record else {
        return HttpResponse::NotFound()
            .content_type("text/html; charset=utf-8")
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .body(html::not_found_page(lang));
    };
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::CONTENT_SECURITY_POLICY, html::PAGE_CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(html::report_page(&record, lang, &public, &token))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, shared};
    use crate::service::auth;
    use crate::service::store::{Intake, NewSubmission};
    use crate::submission::Submission;

    #[actix_web::test]
    async fn a_report_link_opens_only_with_the_token_of_its_submission() {
        let dir = tempfile::tempdir().unwrap();
        let data = shared(dir.path());
        let new = NewSubmission {
            client_id: 1,
            exercise: "01-x".into(),
            learner: "l".into(),
            submission: Submission::Answer("(1)".into()),
            callback_url: None,
            metadata: None,
            idempotency_key: None,
            request_hash: "h".into(),
            exercise_hash: None,
        };
        let Intake::Created(record) = data.store.submit(&new, 10, 0).unwrap() else { panic!("not stored") };
        let public = format!("sub_{}", record.id);
        let token = auth::report_token(data.report_key.current(), &public);
        let (status, _) = call(&data, "GET", &format!("/reports/{public}?t={token}&lang=en"), None).await;
        assert_eq!(status, 200, "the right token opens the page");
        let other = auth::report_token(data.report_key.current(), "sub_999");
        for uri in [
            format!("/reports/{public}?t={other}"),
            format!("/reports/{public}?t="),
            format!("/reports/{public}?lang=en"),
            format!("/reports/sub_999?t={other}"),
        ] {
            let (status, _) = call(&data, "GET", &uri, None).await;
            assert_eq!(status, 404, "{uri}");
        }
        let (status, body) =
            call(&data, "GET", &format!("/reports/{public}?t={token}&t={token}"), None).await;
        assert_eq!(status, 400, "{body}");
        assert!(body["type"].as_str().unwrap().ends_with("bad-query"), "{body}");
    }
}
