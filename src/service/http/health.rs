//! Liveness and readiness for the operator (`/healthz`, `/readyz`).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use actix_web::HttpResponse;

use super::handler::Data;
use crate::service::{clock, versions};

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200, description = "alive")))]
pub(crate) async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok\n")
}

/// Readiness for a load balancer on the public listener when the operator's routes have their own
/// (`--admin-bind`): the same decision as [`readyz`], told as `ready` or `not ready` alone, without
/// the node's versions or errors.
pub(crate) async fn readyz_brief(shared: Data) -> HttpResponse {
    let full = readyz(shared).await;
    let status = full.status();
    let line = if status.is_success() { "ready\n" } else { "not ready\n" };
    HttpResponse::build(status).content_type("text/plain").body(line)
}

/// Readiness: exercises loaded, the store answers, not shutting down, and grading not stalled (jobs
/// waiting while no grading thread finished a job or found nothing to lease for
/// `grading_stall_ms`, [`crate::limits::GRADING_STALL_MS`] by default). Below `ready`, the body
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
        (status = 503, description = "not ready: shutting down, no exercises, the store unavailable, or grading stalled", body = String, content_type = "text/plain"),
    )
)]
pub(crate) async fn readyz(shared: Data) -> HttpResponse {
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
        let stats = store.stats()?;
        Ok::<_, crate::service::store::StoreError>((stats, store.version_census(clock::now_ms())?))
    })
    .await;
    match census {
        Ok(Ok((stats, _)))
            if stats.jobs_queued > 0
                && shared.since_grading_progress_ms() > shared.config.grading_stall_ms =>
        {
            HttpResponse::ServiceUnavailable().content_type("text/plain").body(format!(
                "grading stalled: no grading thread has finished a job for {} s while {} jobs wait\n",
                shared.since_grading_progress_ms() / 1000,
                stats.jobs_queued
            ))
        }
        Ok(Ok((_, census))) => {
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
