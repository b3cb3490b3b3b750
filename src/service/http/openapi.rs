//! The OpenAPI document at `/api/v1/openapi.json`, generated from the handlers' annotations.

use actix_web::HttpResponse;
use utoipa::OpenApi;

use super::exercises::*;
use super::health::*;
use super::metrics::*;
use super::reports::*;
use super::submissions::*;
use super::views::*;
use super::webhooks::*;
use crate::service::problem::Problem;

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

pub async fn openapi() -> HttpResponse {
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
