//! Authentication as an extractor: a handler that takes a [`Client`] runs only for a request with a
//! valid bearer token of a client that is not revoked. Without one the request ends with 401 (no or
//! an unknown token) or 403 (a revoked client) before the handler runs. Put it after the path and
//! query arguments: those are checked first (a malformed query is a 400 whatever the token).

use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;

use super::handler::{Data, db};
use crate::service::problem::Problem;
use crate::service::shared::Shared;
use crate::service::store::{ClientRecord, TokenScope};
use crate::service::{auth, clock};

/// The client whose bearer token authenticated the request.
#[derive(Debug, Clone)]
pub(crate) struct Client(pub ClientRecord);

impl FromRequest for Client {
    type Error = Problem;
    type Future = LocalBoxFuture<'static, Result<Client, Problem>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let shared = req
                .app_data::<Data>()
                .cloned()
                .ok_or_else(|| Problem::internal("the service state is missing from the application"))?;
            authenticate(&shared, &req).await.map(Client)
        })
    }
}

/// A client with the teacher role (`pruefstein client add NAME --teacher`): it may regrade and read
/// a course's analytics. Another client's valid token is 403 (`teacher-only`), an invalid one 401.
#[derive(Debug, Clone)]
pub(crate) struct Teacher(pub ClientRecord);

impl FromRequest for Teacher {
    type Error = Problem;
    type Future = LocalBoxFuture<'static, Result<Teacher, Problem>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let shared = req
                .app_data::<Data>()
                .cloned()
                .ok_or_else(|| Problem::internal("the service state is missing from the application"))?;
            let client = authenticate(&shared, &req).await?;
            if !client.teacher {
                return Err(Problem::new(
                    StatusCode::FORBIDDEN,
                    "teacher-only",
                    "Forbidden",
                    format!(
                        "The client {:?} is not a teacher: this call needs a teacher's token \
                         (pruefstein client add NAME --teacher).",
                        client.name
                    ),
                    format!(
                        "Der Client {:?} ist keine Lehrkraft: dieser Aufruf braucht das Token einer Lehrkraft \
                         (pruefstein client add NAME --teacher).",
                        client.name
                    ),
                ));
            }
            Ok(Teacher(client))
        })
    }
}

/// The client behind the request's bearer token: 401 without a valid one, 403 if revoked.
async fn authenticate(shared: &Shared, req: &HttpRequest) -> Result<ClientRecord, Problem> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Err(Problem::unauthorized(
            "This call needs a bearer token: 'Authorization: Bearer <token>' (create one with 'pruefstein client add NAME').",
            "Dieser Aufruf braucht ein Bearer-Token: 'Authorization: Bearer <token>' (erzeugt mit 'pruefstein client add NAME').",
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        return Err(Problem::unauthorized(
            "The Authorization header must have the form 'Bearer <token>'.",
            "Der Authorization-Header muss die Form 'Bearer <token>' haben.",
        ));
    };
    let hash = auth::token_hash(token);
    let now = clock::now_ms();
    let client = db(shared, move |store| store.client_by_token_hash(&hash, TokenScope::Api, now)).await?;
    match client {
        None => Err(Problem::unauthorized("This token is not known.", "Dieses Token ist unbekannt.")),
        Some(client) if client.revoked_at.is_some() => Err(Problem::new(
            StatusCode::FORBIDDEN,
            "client-revoked",
            "Forbidden",
            format!("The client {:?} has been revoked; its token is no longer accepted.", client.name),
            format!("Der Client {:?} wurde gesperrt; sein Token gilt nicht mehr.", client.name),
        )),
        Some(client) => Ok(client),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, shared};

    /// Every route that needs a bearer token.
    const GUARDED: &[(&str, &str)] = &[
        ("POST", "/api/v1/submissions"),
        ("GET", "/api/v1/submissions"),
        ("POST", "/api/v1/exercises/01-x/regrade"),
        ("GET", "/api/v1/exercises/01-x/analytics"),
        ("GET", "/api/v1/submissions/sub_1"),
        ("GET", "/api/v1/exercises"),
        ("GET", "/api/v1/exercises/01-x"),
        ("GET", "/api/v1/webhooks/dead"),
        ("POST", "/api/v1/webhooks/dead/evt_sub_1/redeliver"),
    ];

    #[actix_web::test]
    async fn every_guarded_route_refuses_a_missing_unknown_or_revoked_token() {
        let dir = tempfile::tempdir().unwrap();
        let data = shared(dir.path());
        for (method, uri) in GUARDED {
            let (status, body) = call(&data, method, uri, None).await;
            assert_eq!(status, 401, "{method} {uri} without a token: {body}");
            assert!(body["detail"].as_str().unwrap().contains("bearer token"), "{body}");
            assert!(body["detail_de"].as_str().is_some(), "{body}");
            let (status, body) = call(&data, method, uri, Some("pst_unknown")).await;
            assert_eq!(status, 401, "{method} {uri} with an unknown token: {body}");
            let (status, body) = call(&data, method, uri, Some("pst_revoked")).await;
            assert_eq!(status, 403, "{method} {uri} with a revoked client's token: {body}");
            assert!(body["type"].as_str().unwrap().ends_with("client-revoked"), "{body}");
        }
        let (status, body) = call(&data, "GET", "/api/v1/exercises", Some("pst_good")).await;
        assert_eq!((status, &body["exercises"]), (200, &serde_json::json!([])), "{body}");
    }

    #[actix_web::test]
    async fn teacher_routes_refuse_a_client_that_is_not_a_teacher() {
        let dir = tempfile::tempdir().unwrap();
        let data = shared(dir.path());
        for (method, uri) in
            [("POST", "/api/v1/exercises/01-x/regrade"), ("GET", "/api/v1/exercises/01-x/analytics")]
        {
            let (status, body) = call(&data, method, uri, Some("pst_good")).await;
            assert_eq!(status, 403, "{method} {uri}: {body}");
            assert!(body["type"].as_str().unwrap().ends_with("teacher-only"), "{body}");
            assert!(body["detail_de"].as_str().unwrap().contains("Lehrkraft"), "{body}");
            // A teacher passes the guard: the exercise is unknown here.
            let (status, body) = call(&data, method, uri, Some("pst_teacher")).await;
            assert_eq!(status, 404, "{method} {uri}: {body}");
        }
    }

    #[actix_web::test]
    async fn a_malformed_query_is_answered_before_the_token_is_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let data = shared(dir.path());
        for uri in ["/api/v1/submissions/sub_1?wait=1&wait=2", "/api/v1/exercises/01-x?lang=de&lang=en"] {
            let (status, body) = call(&data, "GET", uri, None).await;
            assert_eq!(status, 400, "{uri}: {body}");
            assert!(body["type"].as_str().unwrap().ends_with("bad-query"), "{body}");
        }
    }
}
