//! Errors of the HTTP API as RFC 9457 problem details (`application/problem+json`): a stable `type`
//! per kind of problem, a title, and a `detail` a human understands, in English and (`detail_de`)
//! German.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use super::store::StoreError;

/// An RFC 9457 problem.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// `urn:pruefstein:problem:<code>`.
    #[serde(rename = "type", serialize_with = "problem_type")]
    #[schema(value_type = String)]
    pub code: &'static str,
    pub title: &'static str,
    pub status: u16,
    /// What went wrong and what to do, in English.
    pub detail: String,
    /// The same in German.
    pub detail_de: String,
    /// The submission this problem is about (a reused idempotency key names the first one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission_id: Option<String>,
    #[serde(skip)]
    pub retry_after: Option<u32>,
    #[serde(skip)]
    pub authenticate: bool,
    /// Close the connection after this answer (the request's body was not read to its end).
    #[serde(skip)]
    pub close: bool,
}

fn problem_type<S: serde::Serializer>(code: &&'static str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format!("urn:pruefstein:problem:{code}"))
}

impl Problem {
    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        title: &'static str,
        en: impl Into<String>,
        de: impl Into<String>,
    ) -> Self {
        Problem {
            code,
            title,
            status: status.as_u16(),
            detail: en.into(),
            detail_de: de.into(),
            submission_id: None,
            retry_after: None,
            authenticate: false,
            close: false,
        }
    }

    pub(crate) fn bad_request(code: &'static str, en: impl Into<String>, de: impl Into<String>) -> Self {
        Problem::new(StatusCode::BAD_REQUEST, code, "Bad request", en, de)
    }

    /// A learner id that breaks the rule of [`Learner`](crate::service::learner::Learner): 400
    /// with `code` and the rule.
    pub(crate) fn bad_learner(code: &'static str, invalid: crate::service::learner::InvalidLearner) -> Self {
        let text = invalid.text();
        Problem::bad_request(code, text.en, text.de)
    }

    pub(crate) fn unprocessable(code: &'static str, en: impl Into<String>, de: impl Into<String>) -> Self {
        Problem::new(StatusCode::UNPROCESSABLE_ENTITY, code, "Unprocessable submission", en, de)
    }

    pub(crate) fn not_found(code: &'static str, en: impl Into<String>, de: impl Into<String>) -> Self {
        Problem::new(StatusCode::NOT_FOUND, code, "Not found", en, de)
    }

    pub(crate) fn unauthorized(en: impl Into<String>, de: impl Into<String>) -> Self {
        let mut problem = Problem::new(StatusCode::UNAUTHORIZED, "unauthorized", "Unauthorized", en, de);
        problem.authenticate = true;
        problem
    }

    pub(crate) fn too_large(limit: usize) -> Self {
        Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body-too-large",
            "Request body too large",
            format!("The request body is larger than the limit of {limit} bytes (request_body_bytes_max)."),
            format!(
                "Der Rumpf der Anfrage ist größer als die Grenze von {limit} Bytes (request_body_bytes_max)."
            ),
        )
    }

    /// The request body did not arrive within `ms` milliseconds; the connection is closed.
    pub(crate) fn body_timeout(ms: u64) -> Self {
        let mut problem = Problem::new(
            StatusCode::REQUEST_TIMEOUT,
            "body-timeout",
            "Request body too slow",
            format!(
                "The request body did not arrive within {ms} ms (request_body_ms_max); nothing was stored \
                 and the connection is closed. Send the whole body at once."
            ),
            format!(
                "Der Rumpf der Anfrage kam nicht innerhalb von {ms} ms an (request_body_ms_max); nichts wurde \
                 gespeichert, die Verbindung wird geschlossen. Bitte den ganzen Rumpf auf einmal senden."
            ),
        );
        problem.close = true;
        problem
    }

    pub(crate) fn internal(message: impl std::fmt::Display) -> Self {
        tracing::error!(event = "internal_error", error = %message);
        Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error",
            "Something went wrong inside Prüfstein; the request changed nothing that was not stored. Try again.",
            "In Prüfstein ist etwas schiefgegangen; gespeichert ist nur, was bestätigt wurde. Bitte erneut versuchen.",
        )
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.title, self.status, self.detail)
    }
}

impl ResponseError for Problem {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json")));
        if self.close {
            response.force_close();
        }
        if let Some(seconds) = self.retry_after {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        if self.authenticate {
            response.insert_header((
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"pruefstein\""),
            ));
        }
        response.body(serde_json::to_string(self).unwrap_or_default())
    }
}

impl From<StoreError> for Problem {
    /// An unreachable database (a shared one, restarting or cut off) is 503 with `Retry-After`: the
    /// request changed nothing that was not confirmed, and another node, or this one a moment
    /// later, may answer it. Any other store failure is an internal error.
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable { .. } => {
                tracing::error!(event = "store_unavailable", error = %error);
                let mut problem = Problem::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    "Service unavailable",
                    "The database cannot be reached right now; nothing was changed that was not confirmed. \
                     Try again (with the same Idempotency-Key).",
                    "Die Datenbank ist gerade nicht erreichbar; geändert wurde nur, was bestätigt wurde. \
                     Bitte erneut versuchen (mit demselben Idempotency-Key).",
                );
                problem.retry_after = Some(5);
                problem
            }
            other => Problem::internal(other),
        }
    }
}

impl From<actix_web::error::BlockingError> for Problem {
    fn from(error: actix_web::error::BlockingError) -> Self {
        Problem::internal(error)
    }
}

impl From<Problem> for HttpResponse {
    fn from(problem: Problem) -> Self {
        actix_web::ResponseError::error_response(&problem)
    }
}

/// The problem answers that many routes document alike, each once: a route lists them in its
/// `responses(...)` by name instead of repeating the attribute.
pub(crate) mod answers {
    use super::Problem;

    /// 401: the route needs a client's token.
    #[derive(utoipa::IntoResponses)]
    #[response(status = 401, description = "No valid token", content_type = "application/problem+json")]
    pub(crate) struct NoValidToken(#[allow(dead_code)] Problem);

    /// 403: the client's token was revoked.
    #[derive(utoipa::IntoResponses)]
    #[response(status = 403, description = "Client revoked", content_type = "application/problem+json")]
    pub(crate) struct ClientRevoked(#[allow(dead_code)] Problem);

    /// 404: the path names no exercise that is served.
    #[derive(utoipa::IntoResponses)]
    #[response(status = 404, description = "Unknown exercise", content_type = "application/problem+json")]
    pub(crate) struct UnknownExercise(#[allow(dead_code)] Problem);

    /// 413: the body is over its limit.
    #[derive(utoipa::IntoResponses)]
    #[response(status = 413, description = "Body too large", content_type = "application/problem+json")]
    pub(crate) struct BodyTooLarge(#[allow(dead_code)] Problem);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_store_is_503_with_retry_after_and_other_store_failures_are_500() {
        let unavailable = Problem::from(StoreError::Unavailable {
            operation: "store a submission",
            message: "refused".into(),
        });
        assert_eq!(
            (unavailable.status, unavailable.code, unavailable.retry_after),
            (503, "unavailable", Some(5))
        );
        assert!(!unavailable.detail.contains("refused"), "the database's words stay in the log");
        let failed =
            Problem::from(StoreError::Database { operation: "store a submission", message: "x".into() });
        assert_eq!((failed.status, failed.retry_after), (500, None));
    }
}
