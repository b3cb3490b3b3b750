//! The student's report page: HTML behind a link with an HMAC token, no bearer token needed.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use super::views::ReportQuery;
use super::{Data, db};
use crate::service::{Shared, auth, html};
use crate::text::Lang;

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
