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
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::handler::{Data, db};
use super::intake::{Parsed, validate};
use super::submissions::wait_for;
use crate::limits::{
    JOBE_FILE_BYTES_PER_CLIENT_MAX, JOBE_FILE_ID_BYTES_MAX, JOBE_FILES_MAX, QUEUE_DEPTH_MAX,
    REQUEST_BODY_BYTES_MAX,
};
use crate::report::{Report, Verdict};
use crate::service::shared::Shared;
use crate::service::store::{ClientRecord, Intake, Status, SubmissionRecord, TokenScope};
use crate::service::{auth, clock};
use crate::submission::SubmissionKind;
use crate::text::Lang;

/// The one language the endpoint offers.
pub(crate) const LANGUAGE: &str = "pruefstein";
/// Jobe's outcome codes that the endpoint answers with.
pub(crate) const OUTCOME_OK: u32 = 15;
pub(crate) const OUTCOME_TIME_LIMIT: u32 = 13;
pub(crate) const OUTCOME_INTERNAL: u32 = 20;
pub(crate) const OUTCOME_SERVER_OVERLOAD: u32 = 21;

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
    // Jobe refuses a missing or unknown key with 403, which CodeRunner shows as "Unauthorised to use
    // sandbox"; a 401 would read as "Sandbox submission limit reached".
    let key = req.headers().get("x-api-key").and_then(|v| v.to_str().ok()).unwrap_or("").trim().to_string();
    if key.is_empty() {
        return Err(jobe_error(StatusCode::FORBIDDEN, "an API key is required (X-API-KEY: a client token)"));
    }
    let hash = auth::token_hash(&key);
    let now = clock::now_ms();
    match db(shared, move |store| store.client_by_token_hash(&hash, TokenScope::Jobe, now)).await {
        Ok(Some(client)) if client.revoked_at.is_none() => Ok(client),
        Ok(Some(_)) => Err(jobe_error(StatusCode::FORBIDDEN, "this API key has been revoked")),
        Ok(None) => Err(jobe_error(StatusCode::FORBIDDEN, "unknown API key")),
        Err(problem) => Err(jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail)),
    }
}

/// `GET …/restapi/languages`.
#[utoipa::path(
    get,
    path = "/jobe/index.php/restapi/languages",
    tag = "jobe",
    description = "The languages a run may name: one, `pruefstein`, with the service's version. Served with `serve --jobe`; \
                   404 without it.",
    responses(
        (status = 200, description = "`[[\"pruefstein\", version]]`", body = Vec<Vec<String>>),
        (status = 403, description = "No, an unknown or a revoked API key (as Jobe answers)", body = String, content_type = "application/json"),
        (status = 404, description = "The Jobe endpoint is not enabled on this server", body = String, content_type = "application/json"),
        (status = 503, description = "The store is not available", body = String, content_type = "application/json"),
    ),
    security(("jobe_api_key" = []))
)]
pub(crate) async fn languages(req: HttpRequest, shared: Data) -> HttpResponse {
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
#[utoipa::path(
    head,
    path = "/jobe/index.php/restapi/files/{id}",
    tag = "jobe",
    description = "Whether the service holds a file of this client (CodeRunner's file cache).",
    params(("id" = String, Path, description = "The file's id as CodeRunner names it")),
    responses(
        (status = 204, description = "The file is held"),
        (status = 404, description = "The file is not held (or the endpoint is not enabled)"),
        (status = 403, description = "No, an unknown or a revoked API key (as Jobe answers)"),
    ),
    security(("jobe_api_key" = []))
)]
pub(crate) async fn check_file(req: HttpRequest, path: web::Path<String>, shared: Data) -> HttpResponse {
    let client = match client(&shared, &req).await {
        Ok(client) => client,
        Err(answer) => return answer,
    };
    let id = path.into_inner();
    if !valid_file_id(&id) {
        return HttpResponse::NotFound().finish();
    }
    match db(&shared, move |store| store.jobe_file(client.id, &id)).await {
        Ok(Some(_)) => HttpResponse::NoContent().finish(),
        Ok(None) => HttpResponse::NotFound().finish(),
        Err(problem) => jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail),
    }
}

/// The body of `PUT …/restapi/files/{id}`.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct PutFile {
    /// The file's bytes in standard base64.
    pub file_contents: String,
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
#[utoipa::path(
    put,
    path = "/jobe/index.php/restapi/files/{id}",
    tag = "jobe",
    description = "Keeps a file for this client's runs (a module a run names in its file list). The service keeps \
                   a bounded number of files per client in the store, where every node finds them (jobe_files_max, \
                   jobe_file_bytes_per_client_max), and forgets the oldest first, as Jobe's cache may: CodeRunner \
                   uploads a forgotten file again.",
    params(("id" = String, Path, description = "The file's id: letters, digits, '.', '_' or '-'")),
    request_body(content = PutFile, content_type = "application/json"),
    responses(
        (status = 204, description = "The file is kept"),
        (status = 400, description = "A malformed id, body or base64", body = String, content_type = "application/json"),
        (status = 403, description = "No, an unknown or a revoked API key (as Jobe answers)", body = String, content_type = "application/json"),
        (status = 404, description = "The Jobe endpoint is not enabled on this server", body = String, content_type = "application/json"),
        (status = 413, description = "The body is larger than request_body_bytes_max", body = String, content_type = "application/json"),
        (status = 503, description = "The store is not available", body = String, content_type = "application/json"),
    ),
    security(("jobe_api_key" = []))
)]
pub(crate) async fn put_file(
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
    // In the store, so that a run finds it on any node. Jobe's cache may forget files: the client's
    // oldest go first once it holds too many.
    let limits = (JOBE_FILES_MAX, JOBE_FILE_BYTES_PER_CLIENT_MAX);
    match db(&shared, move |store| store.put_jobe_file(client.id, &id, &bytes, limits, clock::now_ms())).await
    {
        Ok(()) => HttpResponse::NoContent().finish(),
        Err(problem) => jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail),
    }
}

/// The body of `POST …/restapi/runs`, as CodeRunner sends it.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct RunRequest {
    pub run_spec: RunSpec,
}

/// A run: the language, the answer or module as source code, files, and the question's sandbox
/// parameters.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct RunSpec {
    /// Always `pruefstein`.
    pub language_id: String,
    /// The answer (prediction exercises) or the module in WebAssembly text (consumer exercises).
    #[serde(default)]
    pub sourcecode: String,
    /// Files the run uses, as `[id, name]` pairs; a `*.wasm` or `*.wat` file is the module.
    #[serde(default)]
    #[schema(value_type = Vec<Vec<String>>)]
    pub file_list: Vec<(String, String)>,
    /// The question's sandbox parameters: `exercise` (required), `learner`, `lang` (`de`, `en`). A
    /// question without parameters sends an empty list (`[]`, PHP's empty array), which Jobe takes.
    #[serde(default, deserialize_with = "parameters")]
    #[schema(value_type = Object)]
    pub parameters: serde_json::Map<String, Value>,
}

/// A run's `parameters` as Jobe reads them (`(array) $run->parameters`): an object, or a list (PHP's
/// empty array, as CodeRunner sends it for a question without parameters) that names none.
fn parameters<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<serde_json::Map<String, Value>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Object(map) => Ok(map),
        Value::Array(_) | Value::Null => Ok(serde_json::Map::new()),
        _ => {
            Err(serde::de::Error::custom("parameters must be an object of the question's sandbox parameters"))
        }
    }
}

/// The answer to a run, as Jobe gives it.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RunResult {
    /// The submission the run became (`sub_<n>`); null when the run was not taken (outcome 21).
    pub run_id: Option<String>,
    /// Jobe's outcome: 15 graded, 13 still being graded after the wait, 20 not gradable, 21 the
    /// grading queue is full (Jobe's server overload: try again shortly).
    pub outcome: u32,
    /// Always empty: nothing is compiled on the host.
    pub cmpinfo: String,
    /// Outcome 15: CodeRunner's combinator-grader JSON (`fraction`, `prologuehtml`, `testresults`).
    /// Outcomes 13 and 20: why the run has no grade, which CodeRunner shows with the outcome.
    pub stdout: String,
    /// Always empty: CodeRunner takes any text on stderr for a runtime error of the run.
    pub stderr: String,
}

/// The first line a question's template puts before the answer to name the learner:
/// `pruefstein-learner: {{ STUDENT.id }}` (CodeRunner expands its Twig there; the sandbox parameters
/// it sends as they are written, the same for every student). Without it every run of a question is
/// one learner, and every student gets the same variant.
pub(crate) const LEARNER_LINE: &str = "pruefstein-learner:";

/// The learner a template's first line names, and the source after that line; the source whole
/// when its first line is not one.
fn split_learner_line(sourcecode: &str) -> (Option<String>, &str) {
    let (first, rest) = sourcecode.split_once('\n').unwrap_or((sourcecode, ""));
    match first.trim_end_matches('\r').strip_prefix(LEARNER_LINE) {
        Some(learner) => (Some(learner.trim().to_string()), rest),
        None => (None, sourcecode),
    }
}

/// `POST …/restapi/runs`: grades the run and answers CodeRunner's combinator-grader JSON.
#[utoipa::path(
    post,
    path = "/jobe/index.php/restapi/runs",
    tag = "jobe",
    description = "Grades a run as a submission of this client and waits for it (up to jobe_wait_ms, at most \
                   wait_ms_max). Its `stdout` is CodeRunner's combinator-grader JSON: the fraction of points, a \
                   prologue with the verdict, summary (and the reason of a rejection) and report link, and a row \
                   per check. A full grading queue is Jobe's server overload (outcome 21), a run not graded in \
                   time its time limit (outcome 13): both 200, as Jobe answers them.",
    request_body(content = RunRequest, content_type = "application/json"),
    responses(
        (status = 200, description = "The run's outcome", body = RunResult),
        (status = 400, description = "A malformed run, an unknown language, no exercise named, or a submission \
                                      the intake refuses", body = String, content_type = "application/json"),
        (status = 403, description = "No, an unknown or a revoked API key (as Jobe answers)", body = String, content_type = "application/json"),
        (status = 404, description = "An unknown exercise, a file the service does not hold (upload it and run \
                                      again), or the endpoint is not enabled", body = String, content_type = "application/json"),
        (status = 413, description = "The body is larger than request_body_bytes_max", body = String, content_type = "application/json"),
        (status = 503, description = "The store is not available", body = String, content_type = "application/json"),
    ),
    security(("jobe_api_key" = []))
)]
pub(crate) async fn run(req: HttpRequest, payload: web::Payload, shared: Data) -> HttpResponse {
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
    let (line_learner, sourcecode) = split_learner_line(&spec.sourcecode);
    let learner = line_learner.or_else(|| text("learner")).unwrap_or_else(|| "coderunner".to_string());
    let lang = if text("lang").as_deref() == Some("en") { Lang::En } else { Lang::De };
    let Some(served) = shared.catalogue.get(&exercise) else {
        return jobe_error(StatusCode::NOT_FOUND, format!("there is no exercise {exercise:?}"));
    };
    // A module may come as a file of the run's file list (binary wasm cannot be source code).
    let module = match module_file(&shared, client.id, &spec.file_list).await {
        Ok(module) => module,
        Err(answer) => return answer,
    };
    // Empty source code (and no module file) is nothing to grade.
    let source = Some(sourcecode.to_string()).filter(|s| !s.trim().is_empty());
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
    let mark = shared.waiters.mark();
    let record = match db(&shared, move |store| store.submit(&new, QUEUE_DEPTH_MAX, clock::now_ms())).await {
        Ok(Intake::Created(record) | Intake::Existing(record) | Intake::KeyReused(record)) => {
            shared.metrics.accepted.inc();
            shared.work.notify();
            record
        }
        Ok(Intake::QueueFull { .. }) => {
            // Jobe's answer when it is overloaded, which CodeRunner shows as "try again shortly".
            return run_answer(RunResult {
                run_id: None,
                outcome: OUTCOME_SERVER_OVERLOAD,
                cmpinfo: String::new(),
                stdout: String::new(),
                stderr: String::new(),
            });
        }
        Err(problem) => return jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail),
    };
    let wait_ms = shared.config.jobe_wait_ms;
    let record = match wait_for(&shared, record, mark, wait_ms).await {
        Ok(record) => record,
        Err(problem) => return jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail),
    };
    let public = crate::service::public_id::of(record.id);
    let (outcome, stdout) = outcome(&shared, record, lang, wait_ms);
    run_answer(RunResult {
        run_id: Some(public),
        outcome,
        cmpinfo: String::new(),
        stdout,
        stderr: String::new(),
    })
}

/// The module among the run's files (a `*.wasm` or `*.wat` file), if any; a file the service does
/// not hold is Jobe's 404, upon which CodeRunner uploads it and runs again.
async fn module_file(
    shared: &Data,
    client_id: i64,
    file_list: &[(String, String)],
) -> Result<Option<Vec<u8>>, HttpResponse> {
    let mut module = None;
    for (id, name) in file_list {
        if !(name.ends_with(".wasm") || name.ends_with(".wat")) {
            continue;
        }
        let held = if valid_file_id(id) {
            let id = id.clone();
            db(shared, move |store| store.jobe_file(client_id, &id))
                .await
                .map_err(|problem| jobe_error(StatusCode::SERVICE_UNAVAILABLE, problem.detail))?
        } else {
            None
        };
        match held {
            Some(bytes) => module = Some(bytes),
            None => return Err(jobe_error(StatusCode::NOT_FOUND, format!("file {id} not found"))),
        }
    }
    Ok(module)
}

/// Jobe's outcome of a run whose submission is `record` after the wait, and its output. Nothing
/// ever goes to stderr: CodeRunner would take it for a runtime error of the run and hide the
/// outcome. What a run without a grade has to say is its output, shown with the outcome.
fn outcome(shared: &Shared, record: SubmissionRecord, lang: Lang, wait_ms: u64) -> (u32, String) {
    let report: Option<Report> =
        record.result.as_ref().and_then(|r| r.report.as_deref()).and_then(|j| serde_json::from_str(j).ok());
    match (record.status, report) {
        (Status::Graded, Some(report)) => {
            (OUTCOME_OK, combinator(shared, &report, record.id, lang).to_string())
        }
        (Status::Failed, _) | (Status::Graded, None) => (
            OUTCOME_INTERNAL,
            record
                .result
                .and_then(|r| r.failure)
                .unwrap_or_else(|| "the submission could not be graded".into()),
        ),
        _ => {
            let (public, url) = (crate::service::public_id::of(record.id), shared.report_url(record.id));
            let text = if lang == Lang::De {
                format!(
                    "{public} wird nach {wait_ms} ms noch bewertet (jobe_wait_ms); der Bericht folgt unter {url}"
                )
            } else {
                format!(
                    "{public} is still being graded after {wait_ms} ms (jobe_wait_ms); its report will be at {url}"
                )
            };
            (OUTCOME_TIME_LIMIT, text)
        }
    }
}

fn run_answer(result: RunResult) -> HttpResponse {
    HttpResponse::Ok().insert_header((header::CACHE_CONTROL, "no-store")).json(result)
}

/// CodeRunner's combinator-grader result: the fraction, a prologue (verdict, summary, report link)
/// and one row per check (`iscorrect`, the check, what happened).
pub(crate) fn combinator(shared: &Shared, report: &Report, id: i64, lang: Lang) -> Value {
    let escape = |s: &str| maud::html! { (s) }.into_string();
    let fraction = if report.score.max == 0 {
        0.0
    } else {
        f64::from(report.score.points) / f64::from(report.score.max)
    };
    let verdict = match (report.verdict, lang) {
        (Verdict::Passed, Lang::De) => "bestanden",
        (Verdict::Passed, Lang::En) => "passed",
        (Verdict::Failed, Lang::De) => "nicht bestanden",
        (Verdict::Failed, Lang::En) => "failed",
        (Verdict::Rejected, Lang::De) => "abgewiesen",
        (Verdict::Rejected, Lang::En) => "rejected",
    };
    // A rejected submission has no checks: the reason is what the student needs to read.
    let reason = match &report.rejection {
        Some(rejection) => format!("<p>{}</p>", escape(rejection.message.get(lang))),
        None => String::new(),
    };
    let prologue = format!(
        "<p><strong>{}</strong> {}/{}: {}</p>{reason}<p><a href=\"{}&amp;lang={}\" target=\"_blank\">{}</a></p>",
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
