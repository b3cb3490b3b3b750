//! A learner's data on request, behind a client's token: `GET /api/v1/learners/{id}/export` (every
//! submission, source, report and result version, as JSON) and `DELETE /api/v1/learners/{id}`
//! (everything erased). A client reaches only its own learners: another client's learner of the
//! same id is not touched, and answers as unknown. See `service::privacy`.

use crate::service::problem::answers::{ClientRevoked, NoValidToken};
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse};
use serde_json::{Value, json};

use super::auth::Client;
use super::handler::{Data, db};
use crate::service::erasures;
use crate::service::learner::Learner;
use crate::service::privacy::{self, Actor, ErasureSummary, LearnerExport};
use crate::service::problem::Problem;
use crate::service::store::LearnerFound;
use crate::service::{clock, store::Millis};

/// The learner of the path, by the one rule: 400 (`bad-learner`) if it breaks it. The path's
/// segment is decoded here, strictly: a percent-encoding that is not UTF-8 is refused, never
/// replaced by U+FFFD (which would name another learner).
fn learner(req: &HttpRequest) -> Result<Learner, Problem> {
    let raw = req.uri().path().strip_prefix("/api/v1/learners/").unwrap_or_default();
    let segment = raw.split('/').next().unwrap_or_default();
    let not_utf8 = || {
        Problem::bad_request(
            "bad-learner",
            "The learner id in the path is not percent-encoded UTF-8.",
            "Die Kennung im Pfad ist kein prozentkodiertes UTF-8.",
        )
    };
    let mut bytes = Vec::with_capacity(segment.len());
    let mut rest = segment.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let hex = tail.get(..2).and_then(|h| std::str::from_utf8(h).ok()).ok_or_else(not_utf8)?;
            bytes.push(u8::from_str_radix(hex, 16).map_err(|_| not_utf8())?);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    let text = String::from_utf8(bytes).map_err(|_| not_utf8())?;
    Learner::parse(&text).map_err(|invalid| Problem::bad_learner("bad-learner", invalid))
}

fn actor(client: &crate::service::store::ClientRecord) -> Actor {
    Actor { name: client.name.clone(), client_id: Some(client.id) }
}

/// 404: nothing of the learner is stored for this client, and no erasure of it is recorded.
fn unknown(learner: &Learner) -> Problem {
    Problem::not_found(
        "unknown-learner",
        format!(
            "Nothing of the learner {:?} is stored for this client: nothing was changed.",
            learner.as_str()
        ),
        format!(
            "Von der lernenden Person {:?} ist für diesen Client nichts gespeichert: nichts wurde geändert.",
            learner.as_str()
        ),
    )
}

/// 410: the learner's data was erased.
fn erased(at: Millis) -> Problem {
    let at = clock::rfc3339(at);
    Problem::new(
        StatusCode::GONE,
        "learner-erased",
        "Gone",
        format!("This learner's data was erased at {at}: nothing of it is stored."),
        format!("Die Daten dieser lernenden Person wurden am {at} gelöscht: nichts davon ist gespeichert."),
    )
}

#[utoipa::path(
    get,
    path = "/api/v1/learners/{id}/export",
    tag = "learners",
    params(("id" = String, Path, description = "The learner's id, as the client submitted it (percent-encoded)")),
    responses(
        (status = 200, description = "Everything stored of the learner through this client: each submission with \
         what was submitted, every result version with its report and exercise version, and the LTI launches \
         that name the learner", body = LearnerExport),
        (status = 400, description = "The learner id breaks the rule", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        ClientRevoked,
        (status = 404, description = "Nothing of the learner is stored for this client", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The learner's data was erased", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn export_learner(
    req: HttpRequest,
    shared: Data,
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
    let learner = learner(&req)?;
    let key = shared.report_key.current().to_vec();
    let (asked, actor) = (learner.clone(), actor(&client));
    let found =
        db(&shared, move |store| privacy::export(store, &key, &asked, &actor, clock::now_ms())).await?;
    match found {
        LearnerFound::Found(export) => {
            Ok(HttpResponse::Ok().insert_header((header::CACHE_CONTROL, "no-store")).json(export))
        }
        LearnerFound::Erased { at } => Err(erased(at)),
        LearnerFound::Unknown => Err(unknown(&learner)),
    }
}

#[utoipa::path(
    delete,
    path = "/api/v1/learners/{id}",
    tag = "learners",
    params(("id" = String, Path, description = "The learner's id, as the client submitted it (percent-encoded)")),
    responses(
        (status = 200, description = "Erased: the learner's submissions, their jobs, results, result versions and \
         webhook events, and the LTI launches that name the learner; their report links answer 410 from now on. \
         The erasure is recorded (who, when, rows per table) without the learner's id", body = ErasureSummary),
        (status = 400, description = "The learner id breaks the rule", body = Problem, content_type = "application/problem+json"),
        NoValidToken,
        ClientRevoked,
        (status = 404, description = "Nothing of the learner is stored for this client", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The learner's data was erased before", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn erase_learner(
    req: HttpRequest,
    shared: Data,
    Client(client): Client,
) -> Result<HttpResponse, Problem> {
    let learner = learner(&req)?;
    let key = shared.report_key.current().to_vec();
    let (asked, actor, now) = (learner.clone(), actor(&client), clock::now_ms());
    let journal_key = key.clone();
    let found = db(&shared, move |store| privacy::erase(store, &key, &asked, &actor, now)).await?;
    match found {
        LearnerFound::Found(summary) => {
            // Beside the store, so that a restored backup can be told of it (`restore --erasures`).
            let logged =
                erasures::record(&shared.config.data_dir, &journal_key, &learner, Some(client.id), now);
            if let Err(e) = logged {
                tracing::error!(event = "erasure_log_failed", error = %e);
            }
            tracing::info!(event = "learner_erased", client = %client.name, rows = ?summary.rows);
            shared.metrics.learners_erased.inc();
            Ok(HttpResponse::Ok().json(summary))
        }
        LearnerFound::Erased { at } => Err(erased(at)),
        LearnerFound::Unknown => Err(unknown(&learner)),
    }
}

/// A path as the request log writes it: a learner's id in a learner route replaced by `{id}`, so
/// that no log line names a learner (erased or not).
pub(crate) fn loggable_path(path: &str) -> String {
    match path.strip_prefix("/api/v1/learners/") {
        Some(rest) => match rest.split_once('/') {
            Some((_, tail)) => format!("/api/v1/learners/{{id}}/{tail}"),
            None => "/api/v1/learners/{id}".to_string(),
        },
        None => path.to_string(),
    }
}

/// The constraints of the learner routes: the path's learner by the one rule.
pub(super) fn constrain(doc: &mut Value, learner: &Value) -> Result<(), String> {
    for operation in
        ["/paths/~1api~1v1~1learners~1{id}~1export/get", "/paths/~1api~1v1~1learners~1{id}/delete"]
    {
        let parameters = doc
            .pointer_mut(&format!("{operation}/parameters"))
            .and_then(Value::as_array_mut)
            .ok_or_else(|| format!("{operation} has no parameters"))?;
        let id = parameters
            .iter_mut()
            .find(|p| p["name"] == "id")
            .ok_or_else(|| format!("{operation} has no parameter id"))?;
        id["schema"] = learner.clone();
        id["schema"]["examples"] = json!(["anna"]);
    }
    let times = [
        ("LearnerExport", "exported_at"),
        ("ExportedSubmission", "created_at"),
        ("ExportedResult", "finished_at"),
        ("ErasureSummary", "erased_at"),
    ];
    for (schema, field) in times {
        let pointer = format!("/components/schemas/{schema}/properties/{field}");
        doc.pointer_mut(&pointer).ok_or_else(|| format!("{pointer} is not in the document"))?["format"] =
            json!("date-time");
    }
    let rows = "/components/schemas/ErasureSummary/properties/rows";
    doc.pointer_mut(rows).ok_or_else(|| format!("{rows} is not in the document"))?["additionalProperties"] =
        json!({"type": "integer", "minimum": 0});
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_request_log_names_no_learner() {
        assert_eq!(super::loggable_path("/api/v1/learners/anna%20b/export"), "/api/v1/learners/{id}/export");
        assert_eq!(super::loggable_path("/api/v1/learners/anna"), "/api/v1/learners/{id}");
        assert_eq!(super::loggable_path("/api/v1/submissions/sub_1"), "/api/v1/submissions/sub_1");
    }
}
