//! The HTTP server: the routes of every resource, the listeners (public and, with `admin_bind`,
//! the operator's), the request log, the error handlers for paths and queries, and the graceful
//! stop at SIGTERM or SIGINT.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, guard, web};

use crate::service::problem::Problem;
use crate::service::shared::Shared;

use super::handler::Data;
use super::{
    course, exercises, health, jobe, learn, learners, lti, metrics, openapi, reports, submissions, teach,
    webhooks,
};

/// Runs the HTTP server until SIGTERM or SIGINT, then stops taking requests and lets running ones
/// finish. With `admin_bind`, the operator's routes (`/metrics`, `/readyz` with the node's details,
/// `/healthz`) are served there, and the public listener answers `/readyz` with its status line
/// alone and `/metrics` not at all.
pub(crate) async fn run_http(shared: Arc<Shared>) -> anyhow::Result<()> {
    let data = web::Data::from(shared.clone());
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let separate = shared.config.admin_bind.is_some();
    let public =
        listen(
            &data,
            &shared.config.bind,
            threads,
            move |cfg| {
                if separate { public_routes(cfg) } else { routes(cfg) }
            },
        )?;
    let admin = match &shared.config.admin_bind {
        Some(bind) => Some(listen(&data, bind, 1, admin_routes)?),
        None => None,
    };
    let handles: Vec<_> =
        std::iter::once(public.handle()).chain(admin.as_ref().map(|a| a.handle())).collect();
    let stopping = shared.clone();
    actix_web::rt::spawn(async move {
        let signal = wait_for_signal().await;
        tracing::info!(event = "shutting_down", signal);
        stopping.accepting.store(false, Ordering::SeqCst);
        stopping.work.notify();
        for handle in handles {
            handle.stop(true).await;
        }
    });
    tracing::info!(
        event = "listening",
        bind = %shared.config.bind,
        admin_bind = shared.config.admin_bind.as_deref().unwrap_or(""),
        public_url = %shared.config.public_url,
    );
    match admin {
        Some(admin) => {
            let (public, admin) = futures_util::future::join(public, admin).await;
            public?;
            admin?;
        }
        None => public.await?,
    }
    Ok(())
}

/// An HTTP server on `bind` with the request log and the routes `configure` adds.
fn listen(
    data: &Data,
    bind: &str,
    threads: usize,
    configure: impl Fn(&mut web::ServiceConfig) + Clone + Send + 'static,
) -> anyhow::Result<actix_web::dev::Server> {
    let data = data.clone();
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .wrap_fn(|req, srv| {
                use actix_web::dev::Service;
                let started = Instant::now();
                let method = req.method().to_string();
                let path = learners::loggable_path(req.path());
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
            .configure(configure.clone())
    })
    .workers(threads)
    .disable_signals()
    .shutdown_timeout(crate::limits::SHUTDOWN_GRACE_MS / 1000)
    .bind(bind)
    .map_err(|e| anyhow::anyhow!("cannot listen on {bind}: {e}"))?
    .run())
}

/// The operator's routes on the admin listener (`--admin-bind`).
pub(crate) fn admin_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(get("/healthz", health::healthz))
        .service(get("/readyz", health::readyz))
        .service(get("/metrics", metrics::metrics))
        .default_service(web::to(not_found));
}

/// The routes of the public listener when the operator's have a listener of their own: `/readyz`
/// tells a load balancer ready or not, nothing about the node; `/metrics` is not here.
pub(crate) fn public_routes(cfg: &mut web::ServiceConfig) {
    api_routes(cfg.service(get("/healthz", health::healthz)).service(get("/readyz", health::readyz_brief)));
}

/// The routes, with the error answers for malformed paths and queries (as problem details). Each
/// path is one resource: a method it does not serve is answered 405 with `Allow` (RFC 9110); a path
/// that is not here is answered 404.
pub(crate) fn routes(cfg: &mut web::ServiceConfig) {
    api_routes(
        cfg.service(get("/healthz", health::healthz))
            .service(get("/readyz", health::readyz))
            .service(get("/metrics", metrics::metrics)),
    );
}

/// Every route but the operator's.
fn api_routes(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PathConfig::default().error_handler(|e, _| {
        Problem::bad_request("bad-path", e.to_string(), format!("Ungültiger Pfad: {e}")).into()
    }))
    .app_data(web::QueryConfig::default().error_handler(|e, _| {
        Problem::bad_request("bad-query", e.to_string(), format!("Ungültige Query-Parameter: {e}")).into()
    }))
    .service(get("/api/v1/openapi.json", openapi::openapi))
    .service(get_and_post(
        "/api/v1/submissions",
        submissions::list_submissions,
        submissions::create_submission,
    ))
    .service(get("/api/v1/submissions/{id}", submissions::get_submission))
    .service(get("/api/v1/exercises", exercises::list_exercises))
    .service(get("/api/v1/exercises/{slug}", exercises::get_exercise))
    .service(post("/api/v1/exercises/{slug}/regrade", course::regrade_exercise))
    .service(get("/api/v1/exercises/{slug}/analytics", course::exercise_analytics))
    .service(get("/api/v1/webhooks/dead", webhooks::dead_webhooks))
    .service(post("/api/v1/webhooks/dead/{event_id}/redeliver", webhooks::redeliver_webhook))
    .service(get("/api/v1/exercises/{slug}/page", learn::page_link))
    .service(get("/api/v1/learners/{id}/export", learners::export_learner))
    .service(delete("/api/v1/learners/{id}", learners::erase_learner))
    .service(get("/reports/{id}", reports::report_page))
    .service(get("/teach", teach::dashboard))
    .service(get("/teach/learner", teach::learner))
    .service(get("/teach/compare", teach::compare))
    .service(get("/teach/exercises/{slug}", teach::exercise))
    .service(post("/teach/exercises/{slug}/regrade", teach::regrade))
    .service(
        web::resource("/learn/{slug}")
            .route(web::route().guard(guard::Any(guard::Get()).or(guard::Head())).to(learn::page))
            .route(web::post().to(learn::submit))
            .default_service(web::to(|req: HttpRequest| async move {
                method_not_allowed(&req, "GET, POST, HEAD")
            })),
    )
    .service(get("/lti/jwks", lti::jwks))
    .service(
        web::resource("/lti/login")
            .route(web::route().guard(guard::Any(guard::Get()).or(guard::Head())).to(lti::login))
            .route(web::post().to(lti::login_form))
            .default_service(web::to(|req: HttpRequest| async move {
                method_not_allowed(&req, "GET, POST, HEAD")
            })),
    )
    .service(post("/lti/launch", lti::launch))
    .service(post("/lti/deep-link", lti::deep_link))
    .service(get("/jobe/index.php/restapi/languages", jobe::languages))
    .service(post("/jobe/index.php/restapi/runs", jobe::run))
    .service(
        web::resource("/jobe/index.php/restapi/files/{id}")
            .route(web::route().guard(guard::Head()).to(jobe::check_file))
            .route(web::put().to(jobe::put_file))
            .default_service(web::to(
                |req: HttpRequest| async move { method_not_allowed(&req, "PUT, HEAD") },
            )),
    )
    .service(get("/docs/consumer-abi", exercises::abi_guide))
    .service(get("/kits/{kit}/{file:.*}", exercises::kit_file))
    .default_service(web::to(not_found));
}

/// A path served with GET, and HEAD (the same answer without its body, RFC 9110 section 9.3.2);
/// any other method: 405.
fn get<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::route().guard(guard::Any(guard::Get()).or(guard::Head())).to(handler))
        .default_service(web::to(|req: HttpRequest| async move { method_not_allowed(&req, "GET, HEAD") }))
}

/// A path served with GET (and HEAD) and POST; any other method: 405.
fn get_and_post<G, GArgs, P, PArgs>(path: &str, get_handler: G, post_handler: P) -> actix_web::Resource
where
    G: actix_web::Handler<GArgs>,
    GArgs: actix_web::FromRequest + 'static,
    G::Output: actix_web::Responder + 'static,
    P: actix_web::Handler<PArgs>,
    PArgs: actix_web::FromRequest + 'static,
    P::Output: actix_web::Responder + 'static,
{
    use actix_web::guard;
    web::resource(path)
        .route(web::route().guard(guard::Any(guard::Get()).or(guard::Head())).to(get_handler))
        .route(web::post().to(post_handler))
        .default_service(web::to(
            |req: HttpRequest| async move { method_not_allowed(&req, "GET, POST, HEAD") },
        ))
}

/// A path served with POST only; any other method: 405.
fn post<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::post().to(handler))
        .default_service(web::to(|req: HttpRequest| async move { method_not_allowed(&req, "POST") }))
}

/// A path served with DELETE only; any other method: 405.
fn delete<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::delete().to(handler))
        .default_service(web::to(|req: HttpRequest| async move { method_not_allowed(&req, "DELETE") }))
}

/// 405 for a method that a known path does not serve: a problem document with `Allow` naming the
/// methods it does (RFC 9110, section 15.5.6).
fn method_not_allowed(req: &HttpRequest, allow: &'static str) -> HttpResponse {
    let path = req.path().to_string();
    let method = req.method().to_string();
    let problem = Problem::new(
        actix_web::http::StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "Method not allowed",
        format!("{path} does not take {method}: use {allow}. The API is described at /api/v1/openapi.json."),
        format!(
            "{path} nimmt kein {method} an: {allow} verwenden. Die API ist unter /api/v1/openapi.json beschrieben."
        ),
    );
    let mut response = HttpResponse::from(problem);
    response
        .headers_mut()
        .insert(actix_web::http::header::ALLOW, actix_web::http::header::HeaderValue::from_static(allow));
    response
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

#[cfg(test)]
mod tests {
    use actix_web::http::{Method, header};
    use actix_web::{App, test};

    use crate::service::http::testing::shared;

    /// Sends `method path` through the real routes: status, `Allow`, body.
    async fn send(method: Method, path: &str) -> (u16, Option<String>, serde_json::Value) {
        let dir = tempfile::tempdir().unwrap();
        let data = shared(dir.path());
        let app = test::init_service(App::new().app_data(data).configure(super::routes)).await;
        let request = test::TestRequest::default().method(method).uri(path).to_request();
        let response = test::call_service(&app, request).await;
        let status = response.status().as_u16();
        let allow = response.headers().get(header::ALLOW).map(|v| v.to_str().unwrap().to_string());
        let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
        let body = test::read_body(response).await;
        if status >= 400 {
            assert_eq!(content_type.unwrap(), "application/problem+json", "{path}");
        }
        (status, allow, serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null))
    }

    #[actix_web::test]
    async fn a_known_path_with_a_method_it_does_not_serve_is_405_with_allow() {
        for (method, path, allow) in [
            (Method::POST, "/api/v1/exercises", "GET, HEAD"),
            (Method::DELETE, "/api/v1/submissions/sub_1", "GET, HEAD"),
            (Method::PUT, "/api/v1/submissions/sub_1", "GET, HEAD"),
            (Method::PUT, "/api/v1/submissions", "GET, POST, HEAD"),
            (Method::PATCH, "/api/v1/submissions", "GET, POST, HEAD"),
            (Method::GET, "/api/v1/exercises/01-x/regrade", "POST"),
            (Method::GET, "/api/v1/webhooks/dead/evt_sub_1/redeliver", "POST"),
            (Method::POST, "/reports/sub_1", "GET, HEAD"),
            (Method::OPTIONS, "/api/v1/openapi.json", "GET, HEAD"),
            (Method::HEAD, "/api/v1/webhooks/dead/evt_sub_1/redeliver", "POST"),
            (Method::POST, "/kits/c/README.md", "GET, HEAD"),
            (Method::PUT, "/learn/01-x", "GET, POST, HEAD"),
            (Method::DELETE, "/lti/login", "GET, POST, HEAD"),
            (Method::GET, "/lti/launch", "POST"),
            (Method::GET, "/lti/deep-link", "POST"),
            (Method::POST, "/lti/jwks", "GET, HEAD"),
            (Method::GET, "/jobe/index.php/restapi/runs", "POST"),
            (Method::GET, "/jobe/index.php/restapi/files/f1", "PUT, HEAD"),
        ] {
            let (status, allowed, body) = send(method.clone(), path).await;
            assert_eq!((status, allowed.as_deref()), (405, Some(allow)), "{method} {path}: {body}");
            if method != Method::HEAD {
                assert_eq!(body["type"], "urn:pruefstein:problem:method-not-allowed", "{body}");
                assert_eq!(body["status"], 405, "{body}");
                let detail = body["detail"].as_str().unwrap();
                assert!(detail.contains(&format!("use {allow}")), "{detail}");
                assert!(
                    body["detail_de"].as_str().unwrap().contains(&format!("{allow} verwenden")),
                    "{body}"
                );
            }
        }
    }

    #[actix_web::test]
    async fn an_unknown_path_stays_404_whatever_the_method() {
        for (method, path) in [
            (Method::GET, "/api/v2/nothing"),
            (Method::POST, "/api/v1/submission"),
            (Method::DELETE, "/api/v1/submissions/sub_1/extra"),
            (Method::GET, "/api/v1/webhooks/dead/evt_sub_1"),
        ] {
            let (status, allow, body) = send(method.clone(), path).await;
            assert_eq!((status, allow), (404, None), "{method} {path}: {body}");
            assert_eq!(body["type"], "urn:pruefstein:problem:no-route", "{body}");
        }
    }

    #[actix_web::test]
    async fn a_served_method_is_not_answered_405() {
        for method in [Method::GET, Method::HEAD] {
            let (status, allow, _) = send(method.clone(), "/healthz").await;
            assert_eq!((status, allow), (200, None), "{method}");
        }
        let (status, _, _) = send(Method::HEAD, "/api/v1/exercises").await;
        assert_eq!(status, 401, "HEAD runs the GET handler");
        let (status, _, body) = send(Method::GET, "/api/v1/exercises").await;
        assert_eq!(status, 401, "the guarded route runs its handler: {body}");
    }
}
