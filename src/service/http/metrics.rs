//! `/metrics`: the service's counters and the store's queue figures in the Prometheus text format.

use actix_web::HttpResponse;
use actix_web::http::header::{self, HeaderValue};

use super::handler::{Data, db};

/// Metrics in the Prometheus text format.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain"))
)]
pub(crate) async fn metrics(shared: Data) -> HttpResponse {
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
