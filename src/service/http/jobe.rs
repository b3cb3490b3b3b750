//! A Jobe-compatible endpoint, so that a Moodle CodeRunner question can use Prüfstein as its
//! sandbox (opt-in: `serve --jobe`). Under `/jobe/index.php/restapi/`, the path CodeRunner uses:
//! `GET languages` (one language, `pruefstein`), `POST runs` (a run names the exercise in its
//! parameters and carries the answer or module as source code, or a module as a file of its file
//! list), `PUT files/{id}` and `HEAD files/{id}` (CodeRunner's file cache: a run naming a file the
//! service does not hold is answered 404, CodeRunner uploads it and runs again). The API key
//! (`X-API-KEY`) is a client's token; the submissions belong to that client. A run is graded like
//! any submission and waited for; its output is CodeRunner's combinator-grader JSON on stdout:
//! `fraction`, `prologuehtml` (verdict, summary, report link) and a row per check.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{Value, json};

use super::intake::{Parsed, validate};
use super::submissions::wait_for;
use super::{Data, db};
use crate::limits::{
    JOBE_FILE_ID_BYTES_MAX, JOBE_FILES_MAX, QUEUE_DEPTH_MAX, REQUEST_BODY_BYTES_MAX, WAIT_MS_MAX,
};
use crate::report::Report;
use crate::service::store::{ClientRecord, Intake, Status};
use crate::service::{Shared, auth, clock};
use crate::submission::SubmissionKind;
use crate::text::Lang;

/// The one language the endpoint offers.
pub const LANGUAGE: &str = "pruefstein";
/// Jobe's outcome codes that the endpoint answers with.
const OUTCOME_OK: u32 = 15;
const OUTCOME_TIME_LIMIT: u32 = 13;
const OUTCOME_INTERNAL: u32 = 20;

/// An error as Jobe answers one: the status and a JSON string.
fn jobe_error(status: StatusCode, message: impl Into<String>) -> HttpResponse {
    HttpResponse::build(status).json(Value::String(message.into()))
}

/// The client behind `X-API-KEY`, if the endpoint is enabled.
async fn client(shared: &Data, req: &HttpRequest) -> Result<ClientRecord, HttpResponse> {
    if !shared.config.jobe {
        return Err(jobe_error(
            StatusCode::NOT_FOUND,
            "the Jobe endpoint is not enabled on this server (serve --jobe)",
        ));
    }
    let key = req.headers().get("x-api-key").and_then(|v| v.to_str().ok()).unwrap_or("").trim().to_string();
    if key.is_empty() {
        return Err(jobe_error(
            StatusCode::UNAUTHORIZED,
            "an API key is required (X-API-KEY: a client token)",
        ));
    }
    let hash = auth::token_hash(&key);
    match db(shared, move |store| store.client_by_token_hash(&hash)).await {
        Ok(Some(client)) if client.revoked_at.is_none() => Ok(client),
        Ok(Some(_)) => Err(jobe_error(StatusCode::FORBIDDEN, "this API key has been revoked")),
        Ok(None) => Err(jobe_error(StatusCode::UNAUTHORIZED, "unknown API key")),
        Err(problem) => Err(jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail)),
    }
}

/// `GET …/restapi/languages`.
pub async fn languages(req: HttpRequest, shared: Data) -> HttpResponse {
    match client(&shared, &req).await {
        Ok(_) => HttpResponse::Ok().json(json!([[LANGUAGE, env!("CARGO_PKG_VERSION")]])),
        Err(answer) => answer,
    }
}

fn valid_file_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= JOBE_FILE_ID_BYTES_MAX
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// `HEAD …/restapi/files/{id}`: 204 if the file is held, 404 if not.
pub async fn check_file(req: HttpRequest, path: web::Path<String>, shared: Data) -> HttpResponse {
    let client = match client(&shared, &req).await {
        Ok(client) => client,
        Err(answer) => return answer,
    };
    let id = path.into_inner();
    let held = shared.jobe_files.lock().unwrap_or_else(|p| p.into_inner()).contains_key(&(client.id, id));
    if held { HttpResponse::NoContent().finish() } else { HttpResponse::NotFound().finish() }
}

#[derive(Debug, Deserialize)]
struct PutFile {
    file_contents: String,
}

async fn read_json<T: serde::de::DeserializeOwned>(mut payload: web::Payload) -> Result<T, HttpResponse> {
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk
            .map_err(|e| jobe_error(StatusCode::BAD_REQUEST, format!("the body could not be read: {e}")))?;
        if body.len() + chunk.len() > REQUEST_BODY_BYTES_MAX {
            return Err(jobe_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body is larger than {REQUEST_BODY_BYTES_MAX} bytes (request_body_bytes_max)"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| {
        jobe_error(StatusCode::BAD_REQUEST, format!("the body is not valid JSON of a Jobe request: {e}"))
    })
}

/// `PUT …/restapi/files/{id}`: `{"file_contents": base64}`.
pub async fn put_file(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    shared: Data,
) -> HttpResponse {
    let client = match client(&shared, &req).await {
        Ok(client) => client,
        Err(answer) => return answer,
    };
    let id = path.into_inner();
    if !valid_file_id(&id) {
        return jobe_error(
            StatusCode::BAD_REQUEST,
            format!("a file id is 1 to {JOBE_FILE_ID_BYTES_MAX} letters, digits, '.', '_' or '-'"),
        );
    }
    let file: PutFile = match read_json(payload).await {
        Ok(file) => file,
        Err(answer) => return answer,
    };
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(file.file_contents.trim()) else {
        return jobe_error(StatusCode::BAD_REQUEST, "file_contents is not valid base64");
    };
    let mut files = shared.jobe_files.lock().unwrap_or_else(|p| p.into_inner());
    if files.len() >= JOBE_FILES_MAX && !files.contains_key(&(client.id, id.clone())) {
        // Jobe's cache may forget files: the oldest-named of this client goes first.
        let forget =
            files.keys().find(|(c, _)| *c == client.id).cloned().or_else(|| files.keys().next().cloned());
        if let Some(key) = forget {
            files.remove(&key);
        }
    }
    files.insert((client.id, id), std::sync::Arc::new(bytes));
    HttpResponse::NoContent().finish()
}

#[derive(Debug, Deserialize)]
struct RunRequest {
    run_spec: RunSpec,
}

#[derive(Debug, Deserialize)]
struct RunSpec {
    language_id: String,
    #[serde(default)]
    sourcecode: String,
    #[serde(default)]
    file_list: Vec<(String, String)>,
    #[serde(default)]
    parameters: serde_json::Map<String, Value>,
}

/// `POST …/restapi/runs`: grades the run and answers CodeRunner's combinator-grader JSON.
pub async fn run(req: HttpRequest, payload: web::Payload, shared: Data) -> HttpResponse {
    let client = match client(&shared, &req).await {
        Ok(client) => client,
        Err(answer) => return answer,
    };
    let request: RunRequest = match read_json(payload).await {
        Ok(request) => request,
        Err(answer) => return answer,
    };
    let spec = request.run_spec;
    if spec.language_id != LANGUAGE {
        return jobe_error(
            StatusCode::BAD_REQUEST,
            format!("unknown language {:?}: use {LANGUAGE:?}", spec.language_id),
        );
    }
    let text = |name: &str| spec.parameters.get(name).and_then(Value::as_str).map(str::to_string);
    let Some(exercise) = text("exercise") else {
        return jobe_error(
            StatusCode::BAD_REQUEST,
            "the run names no exercise: set the question's sandbox parameters to {\"exercise\": \"<slug>\"}",
        );
    };
    let learner = text("learner").unwrap_or_else(|| "coderunner".to_string());
    let lang = if text("lang").as_deref() == Some("en") { Lang::En } else { Lang::De };
    let Some(served) = shared.catalogue.get(&exercise) else {
        return jobe_error(StatusCode::NOT_FOUND, format!("there is no exercise {exercise:?}"));
    };
    // A module may come as a file of the run's file list (binary wasm cannot be source code).
    let mut module = None;
    for (id, name) in &spec.file_list {
        if !(name.ends_with(".wasm") || name.ends_with(".wat")) {
            continue;
        }
        let held = shared
            .jobe_files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(client.id, id.clone()))
            .cloned();
        match held {
            Some(bytes) => module = Some(bytes.to_vec()),
            // Jobe's answer for a file it does not hold: CodeRunner uploads it and runs again.
            None => return jobe_error(StatusCode::NOT_FOUND, format!("file {id} not found")),
        }
    }
    // Empty source code (and no module file) is nothing to grade.
    let source = Some(spec.sourcecode).filter(|s| !s.trim().is_empty());
    let (answer, module) = match (served.grader.submission_kind(), module) {
        (_, Some(module)) => (None, Some(module)),
        (SubmissionKind::Answer, None) => (source, None),
        (SubmissionKind::Module, None) => (None, source.map(String::into_bytes)),
    };
    let parsed =
        Parsed { exercise, learner, answer, module, source: None, callback_url: None, metadata: None };
    let new = match validate(&shared, &client, parsed, None) {
        Ok(new) => new,
        Err(problem) => {
            return jobe_error(
                StatusCode::from_u16(problem.status).unwrap_or(StatusCode::BAD_REQUEST),
                problem.detail,
            );
        }
    };
    let record = match db(&shared, move |store| store.submit(&new, QUEUE_DEPTH_MAX, clock::now_ms())).await {
        Ok(Intake::Created(record) | Intake::Existing(record) | Intake::KeyReused(record)) => {
            shared.metrics.accepted.inc();
            shared.work.notify();
            record
        }
        Ok(Intake::QueueFull { .. }) => {
            return jobe_error(StatusCode::SERVICE_UNAVAILABLE, "the grading queue is full");
        }
        Err(problem) => return jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail),
    };
    let record = match wait_for(&shared, record, WAIT_MS_MAX).await {
        Ok(record) => record,
        Err(problem) => return jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail),
    };
    let public = Shared::public_id(record.id);
    let report: Option<Report> =
        record.result.as_ref().and_then(|r| r.report.as_deref()).and_then(|j| serde_json::from_str(j).ok());
    let (outcome, stdout, stderr) = match (record.status, report) {
        (Status::Graded, Some(report)) => {
            (OUTCOME_OK, combinator(&shared, &report, record.id, lang).to_string(), String::new())
        }
        (Status::Failed, _) | (Status::Graded, None) => (
            OUTCOME_INTERNAL,
            String::new(),
            record
                .result
                .and_then(|r| r.failure)
                .unwrap_or_else(|| "the submission could not be graded".into()),
        ),
        _ => (
            OUTCOME_TIME_LIMIT,
            String::new(),
            format!("{public} is still being graded after {} s (wait_ms_max)", WAIT_MS_MAX / 1000),
        ),
    };
    HttpResponse::Ok().insert_header((header::CACHE_CONTROL, "no-store")).json(
        json!({"run_id": public, "outcome": outcome, "cmpinfo": "", "stdout": stdout, "stderr": stderr}),
    )
}

/// CodeRunner's combinator-grader result: the fraction, a prologue (verdict, summary, report link)
/// and one row per check (`iscorrect`, the check, what happened).
pub fn combinator(shared: &Shared, report: &Report, id: i64, lang: Lang) -> Value {
    let escape = |s: &str| maud::html! { (s) }.into_string();
    let fraction = if report.score.max == 0 {
        0.0
    } else {
        f64::from(report.score.points) / f64::from(report.score.max)
    };
    let verdict = crate::service::worker::verdict_name(report.verdict);
    let prologue = format!(
        "<p><strong>{}</strong> {}/{}: {}</p><p><a href=\"{}&amp;lang={}\" target=\"_blank\">{}</a></p>",
        escape(verdict),
        report.score.points,
        report.score.max,
        escape(report.summary.get(lang)),
        escape(&shared.report_url(id)),
        lang.code(),
        if lang == Lang::De { "Ganzer Bericht" } else { "Full report" },
    );
    let mut rows = vec![json!([
        "iscorrect",
        if lang == Lang::De { "Prüfung" } else { "Check" },
        if lang == Lang::De { "Ergebnis" } else { "Result" }
    ])];
    for check in &report.checks {
        let result = match (&check.failure, check.passed, check.not_run) {
            (_, _, true) => if lang == Lang::De { "nicht gelaufen" } else { "not run" }.to_string(),
            (_, true, _) => "OK".to_string(),
            (Some(failure), _, _) => failure.get(lang).to_string(),
            (None, false, _) => if lang == Lang::De { "nicht bestanden" } else { "failed" }.to_string(),
        };
        rows.push(json!([check.passed, format!("{} ({})", check.title.get(lang), check.name), result]));
    }
    json!({"fraction": fraction, "prologuehtml": prologue, "testresults": rows})
}
