//! Liveness and readiness for the operator (`/healthz`, `/readyz`).

use std::sync::atomic::Ordering;

use actix_web::HttpResponse;

use super::Data;

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
    // When the store does not answer (a shared database unreachable), the body says why, so that
    // the operator sees it in the load balancer's health check.
    let store = shared.store.clone();
    match actix_web::web::block(move || store.stats()).await {
        Ok(Ok(_)) => HttpResponse::Ok().content_type("text/plain").body("ready\n"),
        Ok(Err(e)) => HttpResponse::ServiceUnavailable()
            .content_type("text/plain")
            .body(format!("store unavailable: {e}\n")),
        Err(_) => HttpResponse::ServiceUnavailable().content_type("text/plain").body("store unavailable\n"),
    }
}
