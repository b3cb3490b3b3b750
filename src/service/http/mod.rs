//! The HTTP surface: `/api/v1` for learning platforms (bearer token per client), the student report
//! pages under `/reports`, the ABI guide and starter kits, and the operator's `/healthz`, `/readyz`,
//! `/metrics`. One module per resource; this one wires the routes, the request log and the error
//! handlers for paths and queries. The OpenAPI document at `/api/v1/openapi.json` is generated from
//! the handlers' annotations ([`openapi`]). Store calls and statement rendering run on the blocking
//! pool.

pub mod auth;
pub mod exercises;
pub mod health;
pub mod intake;
pub mod metrics;
pub mod openapi;
pub mod reports;
pub mod submissions;
#[cfg(test)]
mod testing;
pub mod views;
pub mod webhooks;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};

pub use self::intake::{Parsed, parse_json, parse_multipart, parse_wait};
pub use self::views::submission_view;
use super::Shared;
use super::problem::Problem;
use super::store::Store;

type Data = web::Data<Shared>;

/// Runs the HTTP server until SIGTERM or SIGINT, then stops taking requests and lets running ones
/// finish.
pub async fn run_http(shared: Arc<Shared>) -> anyhow::Result<()> {
    let data = web::Data::from(shared.clone());
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .wrap_fn(|req, srv| {
                use actix_web::dev::Service;
                let started = Instant::now();
                let method = req.method().to_string();
                let path = req.path().to_string();
                let call = srv.call(req);
                async move {
                    let response = call.await?;
                    let status = response.status().as_u16();
                    if status >= 500 || path.starts_with("/api/") && status >= 400 {
                        tracing::info!(
                            event = "http",
                            method = %method,
                            path = %path,
                            status,
                            ms = started.elapsed().as_millis() as u64,
                        );
                    }
                    Ok(response)
                }
            })
            .configure(routes)
    })
    .workers(threads)
    .disable_signals()
    .shutdown_timeout(crate::limits::SHUTDOWN_GRACE_MS / 1000)
    .bind(&shared.config.bind)
    .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", shared.config.bind))?
    .run();
    let handle = server.handle();
    let stopping = shared.clone();
    actix_web::rt::spawn(async move {
        let signal = wait_for_signal().await;
        tracing::info!(event = "shutting_down", signal);
        stopping.accepting.store(false, Ordering::SeqCst);
        stopping.work.notify();
        handle.stop(true).await;
    });
    tracing::info!(event = "listening", bind = %shared.config.bind, public_url = %shared.config.public_url);
    server.await?;
    Ok(())
}

/// The routes, with the error answers for malformed paths and queries (as problem details).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PathConfig::default().error_handler(|e, _| {
        Problem::bad_request("bad-path", e.to_string(), format!("Ungültiger Pfad: {e}")).into()
    }))
    .app_data(web::QueryConfig::default().error_handler(|e, _| {
        Problem::bad_request("bad-query", e.to_string(), format!("Ungültige Query-Parameter: {e}")).into()
    }))
    .route("/healthz", web::get().to(health::healthz))
    .route("/readyz", web::get().to(health::readyz))
    .route("/metrics", web::get().to(metrics::metrics))
    .route("/api/v1/openapi.json", web::get().to(openapi::openapi))
    .route("/api/v1/submissions", web::post().to(submissions::create_submission))
    .route("/api/v1/submissions/{id}", web::get().to(submissions::get_submission))
    .route("/api/v1/exercises", web::get().to(exercises::list_exercises))
    .route("/api/v1/exercises/{slug}", web::get().to(exercises::get_exercise))
    .route("/api/v1/webhooks/dead", web::get().to(webhooks::dead_webhooks))
    .route("/api/v1/webhooks/dead/{event_id}/redeliver", web::post().to(webhooks::redeliver_webhook))
    .route("/reports/{id}", web::get().to(reports::report_page))
    .route("/docs/consumer-abi", web::get().to(exercises::abi_guide))
    .route("/kits/{kit}/{file:.*}", web::get().to(exercises::kit_file))
    .default_service(web::to(not_found));
}

async fn wait_for_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
        (Ok(mut term), Ok(mut int)) => tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        },
        _ => {
            let _ = tokio::signal::ctrl_c().await;
            "SIGINT"
        }
    }
}

/// Runs a store call on the blocking pool.
pub(crate) async fn db<T: Send + 'static>(
    shared: &Shared,
    f: impl FnOnce(&dyn Store) -> Result<T, crate::service::store::StoreError> + Send + 'static,
) -> Result<T, Problem> {
    let store = shared.store.clone();
    Ok(web::block(move || f(store.as_ref())).await??)
}

async fn not_found(req: HttpRequest) -> HttpResponse {
    let path = req.path().to_string();
    Problem::not_found(
        "no-route",
        format!("There is nothing at {} {path}. The API is described at /api/v1/openapi.json.", req.method()),
        format!(
            "Unter {} {path} gibt es nichts. Die API ist unter /api/v1/openapi.json beschrieben.",
            req.method()
        ),
    )
    .into()
}

impl From<Problem> for HttpResponse {
    fn from(problem: Problem) -> Self {
        actix_web::ResponseError::error_response(&problem)
    }
}
