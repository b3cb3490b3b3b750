//! Liveness and readiness for the operator (`/healthz`, `/readyz`).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use actix_web::HttpResponse;

use super::Data;
use crate::service::{clock, versions};

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200, description = "alive")))]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok\n")
}

/// Readiness: exercises loaded, the store answers, not shutting down. Below `ready`, the body
/// names every exercise whose version here differs from another living node's, and the open jobs
/// this node leaves to the node that serves their version (see [`crate::service::versions`]):
/// such a node is still ready (it grades what was accepted under its own versions), and during a
/// rolling update every node differs from some other for a while.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    responses(
        (status = 200, description = "ready; further lines name exercise versions that differ between nodes", body = String, content_type = "text/plain"),
        (status = 503, description = "not ready: shutting down, no exercises, or the store unavailable", body = String, content_type = "text/plain"),
    )
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
    let census = actix_web::web::block(move || {
        store.stats()?;
        store.version_census(clock::now_ms())
    })
    .await;
    match census {
        Ok(Ok(census)) => {
            let ours: BTreeMap<String, String> = versions::served(&shared.catalogue).into_iter().collect();
            let mut body = String::from("ready\n");
            let differences = versions::differences(&shared.config.node_id, &ours, &census);
            if !differences.is_empty() {
                body.push_str("exercise versions differ between nodes:\n");
                for line in differences {
                    body.push_str(&format!("  {line}\n"));
                }
            }
            HttpResponse::Ok().content_type("text/plain").body(body)
        }
        Ok(Err(e)) => HttpResponse::ServiceUnavailable()
            .content_type("text/plain")
            .body(format!("store unavailable: {e}\n")),
        Err(_) => HttpResponse::ServiceUnavailable().content_type("text/plain").body("store unavailable\n"),
    }
}
