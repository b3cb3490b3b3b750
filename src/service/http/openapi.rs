//! The OpenAPI document at `/api/v1/openapi.json`: generated from the handlers' annotations, then
//! given the constraints the handlers enforce (lengths from `crate::limits`, patterns, enums from the
//! code's own lists) and examples, so that a request valid by the document is one the service takes.

use actix_web::HttpResponse;
use serde_json::{Value, json};
use utoipa::OpenApi;

use super::course::*;
use super::exercises::*;
use super::health::*;
use super::jobe::*;
use super::learn::*;
use super::learners::*;
use super::lti::*;
use super::metrics::*;
use super::reports::*;
use super::submissions::*;
use super::views::*;
use super::webhooks::*;
use crate::service::analytics::*;
use crate::service::learner::Learner;
use crate::service::problem::Problem;
use crate::service::regrade::{NotGraded, Outcome, RegradeChange, RegradeRequest, RegradeSummary};
use crate::service::similarity::{SimilarPair, Similarity};

use super::security_scheme::SecurityAddon;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Prüfstein",
        description = "Grades exercises on queues, at-least-once delivery and idempotent consumers. \
                       Submissions are accepted idempotently, graded from a durable queue, and their results \
                       are sent to the callback URL as signed webhooks (Standard Webhooks headers)."
    ),
    paths(
        create_submission,
        list_submissions,
        get_submission,
        list_exercises,
        get_exercise,
        regrade_exercise,
        exercise_analytics,
        dead_webhooks,
        redeliver_webhook,
        report_page,
        page_link,
        export_learner,
        erase_learner,
        page,
        submit,
        jwks,
        login,
        login_form,
        launch,
        deep_link,
        languages,
        run,
        put_file,
        check_file,
        healthz,
        readyz,
        metrics
    ),
    components(schemas(
        SubmissionRequest,
        SubmissionView,
        ScoreView,
        Links,
        Problem,
        ExerciseList,
        ExerciseSummary,
        ExerciseDetail,
        AbiLink,
        KitView,
        KitFileView,
        DeadEvent,
        DeadEventList,
        SubmissionList,
        RegradeRequest,
        RegradeSummary,
        RegradeChange,
        Outcome,
        NotGraded,
        Analytics,
        CheckShare,
        MutantShare,
        crate::service::analytics::MistakeShare,
        FailingSubmission,
        PartShare,
        ParameterShare,
        LearnerTime,
        TimeToPass,
        Similarity,
        SimilarPair,
        PageLinkView,
        RunRequest,
        RunSpec,
        RunResult,
        PutFile,
        crate::service::privacy::LearnerExport,
        crate::service::privacy::ExportedSubmission,
        crate::service::privacy::ExportedResult,
        crate::service::privacy::ExportedLaunch,
        crate::service::privacy::ErasureSummary
    )),
    modifiers(&SecurityAddon)
)]
pub(crate) struct ApiDoc;

pub(crate) async fn openapi() -> HttpResponse {
    match document().and_then(|doc| serde_json::to_string(&doc).map_err(|e| e.to_string())) {
        Ok(json) => HttpResponse::Ok().content_type("application/json").body(json),
        Err(e) => Problem::internal(e).into(),
    }
}

/// A slug as `exercise::is_slug` accepts it.
pub(crate) const SLUG_PATTERN: &str = "^[a-z0-9-]{1,64}$";
/// A submission id as the API writes it (`crate::service::public_id::of`).
pub(crate) const SUBMISSION_ID_PATTERN: &str = "^sub_[1-9][0-9]*$";
/// An outbox event id: a webhook (`worker::version_event_id`) or an LTI score
/// (`lti::ags::score_event`); a regrade's event names its result version.
pub(crate) const EVENT_ID_PATTERN: &str = "^(evt|lti)_sub_[1-9][0-9]*(_v[1-9][0-9]*)?$";
/// An Idempotency-Key as the intake takes it: visible ASCII, at least one character that is not a
/// quote (quotes around the key, as in a structured-field string, are removed).
pub(crate) const IDEMPOTENCY_KEY_PATTERN: &str = r#"^[!-~]*[!#-~][!-~]*$"#;
/// Standard base64 with padding, as the intake decodes it (the unused bits of the last character
/// are zero).
pub(crate) const BASE64_PATTERN: &str =
    "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$";
/// The document as served: the annotations' document with the constraints and examples of
/// [`constrain`].
pub fn document() -> Result<Value, String> {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).map_err(|e| e.to_string())?;
    constrain(&mut doc)?;
    constrain_lti(&mut doc)?;
    Ok(doc)
}

/// A JWT in compact serialization (base64url parts), as `/lti/launch` takes an `id_token`.
pub(crate) const JWT_PATTERN: &str = "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$";

/// The constraints the LTI form routes enforce. A value may have `LTI_PARAM_BYTES_MAX` bytes of
/// UTF-8 and a form `LTI_FORM_BYTES_MAX` bytes as sent (percent-encoded): the document declares
/// what always fits, a quarter of the bytes as characters, and for the `id_token` and the picker's
/// `data` (base64url, one byte a character) the patterns that make them fit. Required values are
/// not empty (an empty one counts as missing). Further fields are allowed, as platforms add some.
fn constrain_lti(doc: &mut Value) -> Result<(), String> {
    use crate::limits::{LTI_FORM_BYTES_MAX, LTI_PARAM_BYTES_MAX};
    let text = |min: usize| json!({"type": "string", "minLength": min, "maxLength": LTI_PARAM_BYTES_MAX / 4});
    let form = |required: &[&str], optional: &[&str]| {
        let mut properties = serde_json::Map::new();
        for name in required {
            properties.insert(name.to_string(), text(1));
        }
        for name in optional {
            properties.insert(name.to_string(), text(0));
        }
        json!({"type": "object", "required": required, "properties": properties,
               "additionalProperties": text(0)})
    };
    let (required, optional) =
        (["iss", "login_hint", "target_link_uri"], ["client_id", "lti_deployment_id", "lti_message_hint"]);
    for name in required {
        param(doc, "/paths/~1lti~1login/get", name)?["schema"] = text(1);
    }
    for name in optional {
        param(doc, "/paths/~1lti~1login/get", name)?["schema"] = text(0);
    }
    let body = "requestBody/content/application~1x-www-form-urlencoded/schema";
    *at(doc, &format!("/paths/~1lti~1login/post/{body}"))? = form(&required, &optional);
    let mut launch = form(&[], &["state", "error", "error_description"]);
    launch["properties"]["id_token"] =
        json!({"type": "string", "maxLength": LTI_FORM_BYTES_MAX / 2, "pattern": JWT_PATTERN});
    launch["anyOf"] = json!([{"required": ["id_token", "state"]}, {"required": ["error"]}]);
    launch["properties"]["state"]["minLength"] = json!(1);
    launch["properties"]["error"]["minLength"] = json!(1);
    *at(doc, &format!("/paths/~1lti~1launch/post/{body}"))? = launch;
    let mut picked = form(&["p", "exercise", "e", "t"], &["d", "r", "lang"]);
    picked["properties"]["data"] =
        json!({"type": "string", "maxLength": LTI_PARAM_BYTES_MAX, "pattern": "^[A-Za-z0-9_-]*$"});
    *at(doc, &format!("/paths/~1lti~1deep-link/post/{body}"))? = picked;
    Ok(())
}

/// Adds what the annotations cannot say with the code's own constants: each constraint a handler
/// enforces, and examples. A pointer that is not in the document is an error (caught by the tests).
fn constrain(doc: &mut Value) -> Result<(), String> {
    let shapes = shapes();
    constrain_submission_routes(doc, &shapes)?;
    constrain_listing_and_pages(doc, &shapes)?;
    constrain_request_schemas(doc, &shapes)?;
    constrain_view_schemas(doc, &shapes)?;
    constrain_other_schemas(doc, &shapes)?;
    super::learners::constrain(doc, &shapes.learner)?;
    link_field_names(doc);
    Ok(())
}

/// The schema fragments several constraints share, built from the code's own rules and constants.
struct Shapes {
    statuses: Vec<&'static str>,
    verdicts: Vec<&'static str>,
    graders: Vec<&'static str>,
    langs: [&'static str; 2],
    learner: Value,
    wait: Value,
    slug: Value,
    submission_id: Value,
    title: Value,
}

fn shapes() -> Shapes {
    use crate::limits::{LEARNER_CHARS_MAX, WAIT_MS_MAX};
    use crate::service::store::Status;
    let statuses: Vec<&str> =
        [Status::Queued, Status::Running, Status::Graded, Status::Failed].map(Status::name).to_vec();
    let verdicts: Vec<&str> = crate::report::Verdict::ALL.map(crate::report::Verdict::name).to_vec();
    let graders: Vec<&str> = crate::graders::KINDS.iter().map(|k| k.kind.name()).collect();
    let langs = ["de", "en"];
    let learner = json!({
        "type": "string", "minLength": 1, "maxLength": LEARNER_CHARS_MAX, "pattern": Learner::PATTERN,
        "description": format!(
            "The learner's id in the platform (selects the learner's variant): at most {LEARNER_CHARS_MAX} \
             characters, not blank, without control or bidirectional characters; surrounding white space \
             is removed."
        ),
        "examples": ["anna"],
    });
    let wait = json!({
        "description": format!(
            "Wait up to this long for the result: seconds (`5`, `2.5`, `5s`) or milliseconds (`500ms`); \
             longer waits are cut to {} s (wait_ms_max). Without it (or empty) the answer comes at once.",
            WAIT_MS_MAX / 1000
        ),
        "schema": {
            "type": "string", "pattern": crate::service::http::intake::WAIT_PATTERN,
            "examples": ["5s", "2.5", "500ms"],
        },
    });
    let slug = json!({"type": "string", "pattern": SLUG_PATTERN, "examples": ["03-idempotenter-konsument"]});
    let submission_id = json!({"type": "string", "pattern": SUBMISSION_ID_PATTERN, "examples": ["sub_1"]});
    let title = json!({
        "type": "object", "required": ["de", "en"], "additionalProperties": false,
        "properties": {"de": {"type": "string"}, "en": {"type": "string"}},
        "description": "The title in German and English.",
    });
    Shapes { statuses, verdicts, graders, langs, learner, wait, slug, submission_id, title }
}

/// The pointer of property `name` of component schema `schema`.
fn property(schema: &str, name: &str) -> String {
    format!("/components/schemas/{schema}/properties/{name}")
}

/// The intake (`POST /api/v1/submissions`), one submission and the exercise statement.
fn constrain_submission_routes(doc: &mut Value, shapes: &Shapes) -> Result<(), String> {
    use crate::limits::{
        CALLBACK_URL_BYTES_MAX, IDEMPOTENCY_KEY_BYTES_MAX, LEARNER_CHARS_MAX, REQUEST_BODY_BYTES_MAX,
    };
    let Shapes { langs, learner, wait, slug, submission_id, .. } = shapes;
    let submissions = "/paths/~1api~1v1~1submissions/post";
    merge(param(doc, submissions, "wait")?, wait.clone())?;
    merge(
        param(doc, submissions, "Idempotency-Key")?,
        json!({"schema": {
            "type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_BYTES_MAX,
            "pattern": IDEMPOTENCY_KEY_PATTERN, "examples": ["5f0c6e2a-7d3b-4f7e-9a51-2c1d0e8b9f34"],
        }}),
    )?;
    merge(
        at(doc, &format!("{submissions}/requestBody"))?,
        json!({"description": format!(
            "JSON, or multipart/form-data with the fields exercise, learner, answer, callback_url, metadata \
             (JSON text) and the module as a file field named `file` (a file named *.py is Python source). At most {REQUEST_BODY_BYTES_MAX} bytes \
             (request_body_bytes_max)."
        )}),
    )?;
    merge(
        at(doc, &format!("{submissions}/requestBody/content/application~1json"))?,
        json!({"examples": {
            "prediction": {"summary": "A prediction", "value": {
                "exercise": "01-visibility-timeout", "learner": "anna", "answer": "(2, 2, 0)",
                "metadata": {"course": 7}}},
            "consumer": {"summary": "A consumer module in WebAssembly text", "value": {
                "exercise": "03-idempotenter-konsument", "learner": "anna",
                "wat": "(module ...)", "callback_url": "https://lms.example/hooks/pruefstein"}},
            "python": {"summary": "A consumer in Python (exercises whose languages include python)", "value": {
                "exercise": "03-idempotenter-konsument", "learner": "anna", "language": "python",
                "source": "def verarbeite(con, msg):\n    ..."}},
            "javascript": {"summary": "A consumer in JavaScript (exercises whose languages include javascript)", "value": {
                "exercise": "03-idempotenter-konsument", "learner": "anna", "language": "javascript",
                "source": "export function verarbeite(db, msg) {\n    ...\n}\n"}},
        }}),
    )?;
    merge(
        at(doc, &format!("{submissions}/requestBody/content/multipart~1form-data"))?,
        json!({"encoding": {"metadata": {"contentType": "application/json"}}}),
    )?;
    // The form: one schema per kind of submission, as for the JSON body (see `split_variants`).
    let form = json!({
        "exercise": slug, "learner": learner, "answer": {"type": "string"},
        "file": {"type": "string", "contentMediaType": "application/octet-stream",
                 "description": "The module: binary wasm or WebAssembly text; or a consumer's source, \
                                 by its file name's extension (consumer.py: Python)."},
        "callback_url": {"type": "string", "format": "uri", "maxLength": CALLBACK_URL_BYTES_MAX},
        "metadata": {"type": "object", "description": "A JSON object (as JSON text); empty is none."},
    });
    let form_variants = [
        ("AnswerForm", "A prediction as a form", &["answer"][..]),
        ("FileForm", "A consumer module or source file as a form", &["file"][..]),
    ];
    let form_schema = split_variants(doc, &form, &form_variants, &[])?;
    merge(
        at(doc, &format!("{submissions}/requestBody/content/multipart~1form-data"))?,
        json!({"schema": form_schema}),
    )?;
    let one_submission = "/paths/~1api~1v1~1submissions~1{id}/get";
    merge(param(doc, one_submission, "id")?, json!({"schema": submission_id}))?;
    merge(param(doc, one_submission, "wait")?, wait.clone())?;
    let exercise = "/paths/~1api~1v1~1exercises~1{slug}/get";
    merge(param(doc, exercise, "slug")?, json!({"schema": slug}))?;
    merge(
        param(doc, exercise, "learner")?,
        json!({
            "description": "The learner whose variant the statement shows; absent or blank: the exercise's own.",
            "schema": {"type": "string", "maxLength": LEARNER_CHARS_MAX, "pattern": Learner::OPTIONAL_PATTERN,
                       "examples": ["anna"]},
        }),
    )?;
    merge(
        param(doc, exercise, "lang")?,
        json!({"schema": {"type": "string", "enum": langs, "default": "de"}}),
    )?;
    Ok(())
}

/// The listing, regrades, page links, the learner's page and the report page.
fn constrain_listing_and_pages(doc: &mut Value, shapes: &Shapes) -> Result<(), String> {
    use crate::limits::{
        REGRADE_BODY_BYTES_MAX, REGRADE_DRY_RUN_MAX, REGRADE_SUBMISSIONS_MAX, SUBMISSIONS_PAGE_DEFAULT,
        SUBMISSIONS_PAGE_MAX,
    };
    let Shapes { verdicts, langs, learner, slug, submission_id, .. } = shapes;
    let listing = "/paths/~1api~1v1~1submissions/get";
    merge(param(doc, listing, "exercise")?, json!({"schema": slug}))?;
    merge(param(doc, listing, "learner")?, json!({"schema": learner.clone()}))?;
    merge(param(doc, listing, "verdict")?, json!({"schema": {"type": "string", "enum": verdicts}}))?;
    merge(
        param(doc, listing, "since")?,
        json!({"schema": {"type": "string", "format": "date-time", "pattern": crate::service::clock::RFC3339_PATTERN,
                          "examples": ["2026-12-01T00:00:00Z"]}}),
    )?;
    merge(
        param(doc, listing, "limit")?,
        json!({
            "description": format!(
                "Submissions per page: 1 to {SUBMISSIONS_PAGE_MAX} (submissions_page_max), {SUBMISSIONS_PAGE_DEFAULT} if not given."
            ),
            "schema": {"type": "integer", "minimum": 1, "maximum": SUBMISSIONS_PAGE_MAX,
                       "default": SUBMISSIONS_PAGE_DEFAULT},
        }),
    )?;
    merge(
        param(doc, listing, "cursor")?,
        json!({"schema": {"type": "string", "pattern": super::submissions::CURSOR_PATTERN, "examples": ["c42"]}}),
    )?;
    let regrade = "/paths/~1api~1v1~1exercises~1{slug}~1regrade/post";
    merge(param(doc, regrade, "slug")?, json!({"schema": slug}))?;
    merge(
        at(doc, &format!("{regrade}/requestBody"))?,
        json!({"required": false, "description": format!(
            "Optional: which submissions (learners, latest verdict), and `dry_run`. An empty body regrades the \
             latest submission of every learner. At most {REGRADE_BODY_BYTES_MAX} bytes (regrade_body_bytes_max); \
             at most {REGRADE_SUBMISSIONS_MAX} submissions (regrade_submissions_max), {REGRADE_DRY_RUN_MAX} in a dry \
             run (regrade_dry_run_max)."
        )}),
    )?;
    let page_link = "/paths/~1api~1v1~1exercises~1{slug}~1page/get";
    merge(param(doc, page_link, "slug")?, json!({"schema": slug}))?;
    merge(param(doc, page_link, "learner")?, json!({"schema": learner.clone()}))?;
    merge(
        param(doc, page_link, "lang")?,
        json!({"schema": {"type": "string", "enum": langs, "default": "de"}}),
    )?;
    merge(param(doc, "/paths/~1learn~1{slug}/get", "slug")?, json!({"schema": slug}))?;
    merge(param(doc, "/paths/~1learn~1{slug}/post", "slug")?, json!({"schema": slug}))?;
    let report = "/paths/~1reports~1{id}/get";
    merge(param(doc, report, "id")?, json!({"schema": submission_id}))?;
    merge(
        param(doc, "/paths/~1api~1v1~1webhooks~1dead~1{event_id}~1redeliver/post", "event_id")?,
        json!({"schema": {"type": "string", "pattern": EVENT_ID_PATTERN, "examples": ["evt_sub_1"]}}),
    )?;
    Ok(())
}

/// The submission request: its fields, and one closed schema per kind of submission.
fn constrain_request_schemas(doc: &mut Value, shapes: &Shapes) -> Result<(), String> {
    use crate::limits::{CALLBACK_URL_BYTES_MAX, METADATA_BYTES_MAX};
    let Shapes { learner, slug, .. } = shapes;
    let schemas = "/components/schemas";
    merge(at(doc, &property("SubmissionRequest", "exercise"))?, slug.clone())?;
    merge(at(doc, &property("SubmissionRequest", "learner"))?, learner.clone())?;
    for field in ["answer", "wat"] {
        merge(at(doc, &property("SubmissionRequest", field))?, json!({"type": "string"}))?;
    }
    let languages: Vec<&str> = crate::submission::Language::ALL.iter().map(|l| l.name()).collect();
    merge(
        at(doc, &property("SubmissionRequest", "language"))?,
        json!({"type": "string", "enum": languages}),
    )?;
    merge(
        at(doc, &property("SubmissionRequest", "source"))?,
        json!({"type": "string", "description": format!(
            "A consumer's source text in `language`, at most {} bytes in Python (python_source_bytes_max), {} in \
             JavaScript (javascript_source_bytes_max).",
            crate::limits::PYTHON_SOURCE_BYTES_MAX,
            crate::limits::JAVASCRIPT_SOURCE_BYTES_MAX
        )}),
    )?;
    merge(
        at(doc, &property("SubmissionRequest", "wasm_base64"))?,
        json!({"type": "string", "contentEncoding": "base64", "contentMediaType": "application/wasm",
               "pattern": BASE64_PATTERN}),
    )?;
    merge(
        at(doc, &property("SubmissionRequest", "callback_url"))?,
        json!({"type": ["string", "null"], "format": "uri", "maxLength": CALLBACK_URL_BYTES_MAX,
               "examples": ["https://lms.example/hooks/pruefstein"]}),
    )?;
    merge(
        at(doc, &property("SubmissionRequest", "metadata"))?,
        json!({"type": "object", "description": format!(
            "Any JSON object of at most {METADATA_BYTES_MAX} bytes (as compact JSON); stored and handed back unchanged."
        )}),
    )?;

    // The JSON body: one schema per kind of submission, each closed, so that "exactly one of" is
    // the document's own `oneOf` and a generated client gets a type per kind.
    let fields = at(doc, &format!("{schemas}/SubmissionRequest/properties"))?.clone();
    let json_variants = [
        ("AnswerSubmission", "A prediction (prediction exercises)", &["answer"][..]),
        (
            "WasmSubmission",
            "A consumer module as binary wasm in base64 (consumer exercises)",
            &["wasm_base64"][..],
        ),
        ("WatSubmission", "A consumer module in WebAssembly text (consumer exercises)", &["wat"][..]),
        (
            "SourceSubmission",
            "A consumer's source text (consumer exercises whose languages include `language`)",
            &["language", "source"][..],
        ),
    ];
    let examples = [
        json!({"exercise": "01-visibility-timeout", "learner": "anna", "answer": "(2, 2, 0)"}),
        json!({"exercise": "03-idempotenter-konsument", "learner": "anna", "wasm_base64": "AGFzbQEAAAA="}),
        json!({"exercise": "03-idempotenter-konsument", "learner": "anna", "wat": "(module ...)"}),
        json!({"exercise": "03-idempotenter-konsument", "learner": "anna", "language": "python",
               "source": "def verarbeite(con, msg):\n    ..."}),
    ];
    let request = split_variants(doc, &fields, &json_variants, &examples)?;
    let described = at(doc, &format!("{schemas}/SubmissionRequest"))?;
    let description = described["description"].clone();
    *described = request;
    merge(described, json!({"description": description}))?;
    Ok(())
}

/// What the API answers: submissions, regrades, outcomes, links and exercises.
fn constrain_view_schemas(doc: &mut Value, shapes: &Shapes) -> Result<(), String> {
    use crate::limits::{REGRADE_LEARNERS_MAX, SUBMISSIONS_PAGE_MAX};
    let Shapes { statuses, verdicts, graders, langs, learner, slug, submission_id, title, .. } = shapes;
    merge(at(doc, &property("SubmissionView", "id"))?, submission_id.clone())?;
    merge(at(doc, &property("SubmissionView", "result_version"))?, json!({"type": "integer", "minimum": 1}))?;
    merge(
        at(doc, &property("SubmissionView", "exercise_hash"))?,
        json!({"type": "string", "pattern": "^[0-9a-f]{64}$"}),
    )?;
    merge(at(doc, &property("SubmissionView", "grader_version"))?, json!({"type": "string"}))?;
    merge(at(doc, &property("SubmissionList", "next"))?, json!({"type": "string"}))?;
    merge(
        at(doc, &property("SubmissionList", "limit"))?,
        json!({"minimum": 1, "maximum": SUBMISSIONS_PAGE_MAX}),
    )?;
    merge(
        at(doc, &property("RegradeRequest", "learners"))?,
        json!({"type": "array", "maxItems": REGRADE_LEARNERS_MAX,
               "items": learner.clone()}),
    )?;
    merge(at(doc, &property("RegradeRequest", "verdict"))?, json!({"type": "string", "enum": verdicts}))?;
    merge(at(doc, &property("RegradeSummary", "exercise"))?, slug.clone())?;
    merge(at(doc, &property("RegradeSummary", "exercise_hash"))?, json!({"pattern": "^[0-9a-f]{64}$"}))?;
    merge(at(doc, &property("RegradeSummary", "would_change"))?, json!({"type": "integer", "minimum": 0}))?;
    for field in ["queued", "already_open"] {
        merge(at(doc, &format!("{}/items", property("RegradeSummary", field)))?, submission_id.clone())?;
    }
    merge(at(doc, &property("RegradeChange", "submission_id"))?, submission_id.clone())?;
    merge(at(doc, &property("NotGraded", "submission_id"))?, submission_id.clone())?;
    merge(at(doc, &property("Outcome", "verdict"))?, json!({"type": "string", "enum": verdicts}))?;
    merge(at(doc, &property("Outcome", "points"))?, json!({"type": "integer", "minimum": 0}))?;
    merge(at(doc, &property("SubmissionView", "status"))?, json!({"enum": statuses}))?;
    merge(at(doc, &property("SubmissionView", "verdict"))?, json!({"type": "string", "enum": verdicts}))?;
    merge(at(doc, &property("SubmissionView", "kind"))?, json!({"enum": ["answer", "module"]}))?;
    merge(at(doc, &property("SubmissionView", "exercise"))?, slug.clone())?;
    merge(at(doc, &property("SubmissionView", "sha256"))?, json!({"pattern": "^[0-9a-f]{64}$"}))?;
    merge(at(doc, &property("SubmissionView", "created_at"))?, json!({"format": "date-time"}))?;
    merge(
        at(doc, &property("SubmissionView", "finished_at"))?,
        json!({"type": "string", "format": "date-time"}),
    )?;
    for field in ["failure", "idempotency_key", "callback_url"] {
        merge(at(doc, &property("SubmissionView", field))?, json!({"type": "string"}))?;
    }
    merge(
        at(doc, &property("SubmissionView", "score"))?,
        json!({"oneOf": null, "$ref": "#/components/schemas/ScoreView"}),
    )?;
    for field in ["self", "report"] {
        merge(at(doc, &property("Links", field))?, json!({"format": "uri"}))?;
    }
    for schema in ["ExerciseSummary", "ExerciseDetail"] {
        merge(at(doc, &property(schema, "slug"))?, slug.clone())?;
        merge(at(doc, &property(schema, "grader"))?, json!({"enum": graders}))?;
        merge(at(doc, &property(schema, "title"))?, title.clone())?;
    }
    merge(at(doc, &property("ExerciseSummary", "href"))?, json!({"format": "uri"}))?;
    merge(at(doc, &property("ExerciseDetail", "lang"))?, json!({"enum": langs}))?;
    merge(at(doc, &property("ExerciseDetail", "submit"))?, json!({"enum": ["answer", "module"]}))?;
    for field in ["learner", "answer_example"] {
        merge(at(doc, &property("ExerciseDetail", field))?, json!({"type": "string"}))?;
    }
    merge(
        at(doc, &property("ExerciseDetail", "abi"))?,
        json!({"oneOf": null, "$ref": "#/components/schemas/AbiLink",
               "description": "The contract between a consumer module and Prüfstein (consumer exercises)."}),
    )?;
    Ok(())
}

/// Kits, dead events, problems and the Jobe endpoint.
fn constrain_other_schemas(doc: &mut Value, shapes: &Shapes) -> Result<(), String> {
    let Shapes { langs, slug, .. } = shapes;
    merge(at(doc, &property("AbiLink", "href"))?, json!({"format": "uri"}))?;
    merge(at(doc, &property("KitFileView", "href"))?, json!({"format": "uri"}))?;
    merge(at(doc, &property("KitView", "readme"))?, json!({"type": "string", "format": "uri"}))?;
    merge(at(doc, &property("PageLinkView", "url"))?, json!({"format": "uri"}))?;
    merge(at(doc, &property("DeadEvent", "event_id"))?, json!({"pattern": EVENT_ID_PATTERN}))?;
    merge(at(doc, &property("DeadEvent", "submission_id"))?, json!({"pattern": SUBMISSION_ID_PATTERN}))?;
    merge(at(doc, &property("DeadEvent", "created_at"))?, json!({"format": "date-time"}))?;
    merge(at(doc, &property("DeadEvent", "redeliver"))?, json!({"format": "uri"}))?;
    merge(at(doc, &property("DeadEvent", "last_error"))?, json!({"type": "string"}))?;
    merge(
        at(doc, &property("Problem", "type"))?,
        json!({"format": "uri", "pattern": "^urn:pruefstein:problem:[a-z0-9-]+$"}),
    )?;
    merge(at(doc, &property("Problem", "status"))?, json!({"minimum": 400, "maximum": 599}))?;
    merge(
        at(doc, &property("Problem", "submission_id"))?,
        json!({"type": "string", "pattern": SUBMISSION_ID_PATTERN}),
    )?;
    let file = "/paths/~1jobe~1index.php~1restapi~1files~1{id}";
    let file_id = json!({"schema": {
        "type": "string", "pattern": format!("^[A-Za-z0-9._-]{{1,{}}}$", crate::limits::JOBE_FILE_ID_BYTES_MAX),
        "examples": ["3b1f0c5e.wasm"],
    }});
    merge(param(doc, &format!("{file}/put"), "id")?, file_id.clone())?;
    merge(param(doc, &format!("{file}/head"), "id")?, file_id)?;
    merge(at(doc, &property("PutFile", "file_contents"))?, json!({"pattern": BASE64_PATTERN}))?;
    merge(at(doc, &property("RunSpec", "language_id"))?, json!({"enum": [super::jobe::LANGUAGE]}))?;
    merge(
        at(doc, &property("RunSpec", "parameters"))?,
        json!({"required": ["exercise"], "properties": {
            "exercise": slug, "learner": {"type": "string"}, "lang": {"type": "string", "enum": langs},
        }, "examples": [{"exercise": "03-idempotenter-konsument", "learner": "anna", "lang": "de"}]}),
    )?;
    merge(at(doc, &property("RunResult", "run_id"))?, json!({"pattern": SUBMISSION_ID_PATTERN}))?;
    merge(
        at(doc, &property("RunResult", "outcome"))?,
        json!({"enum": [
            super::jobe::OUTCOME_TIME_LIMIT,
            super::jobe::OUTCOME_OK,
            super::jobe::OUTCOME_INTERNAL,
            super::jobe::OUTCOME_SERVER_OVERLOAD,
        ]}),
    )?;
    Ok(())
}

/// Components `variants` (name, description, the fields that make the variant) built from the
/// common `fields`: each variant holds `exercise`, `learner`, `callback_url`, `metadata` and its own
/// fields, requires `exercise`, `learner` and its own, and admits nothing else. Returns the `oneOf`
/// of references to them. `examples`, where given, holds one example per variant.
fn split_variants(
    doc: &mut Value,
    fields: &Value,
    variants: &[(&str, &str, &[&str])],
    examples: &[Value],
) -> Result<Value, String> {
    const COMMON: [&str; 4] = ["exercise", "learner", "callback_url", "metadata"];
    let mut one_of = Vec::new();
    for (index, (name, description, own)) in variants.iter().enumerate() {
        let mut properties = serde_json::Map::new();
        for field in COMMON.iter().chain(own.iter()) {
            let schema = fields.get(*field).ok_or_else(|| format!("the submission has no field {field}"))?;
            properties.insert((*field).to_string(), schema.clone());
        }
        let required: Vec<&str> = ["exercise", "learner"].into_iter().chain(own.iter().copied()).collect();
        let mut schema = json!({
            "type": "object", "description": description, "required": required,
            "additionalProperties": false, "properties": properties,
        });
        if let Some(example) = examples.get(index) {
            merge(&mut schema, json!({"examples": [example]}))?;
        }
        let schemas = at(doc, "/components/schemas")?
            .as_object_mut()
            .ok_or("the OpenAPI document's schemas are not an object")?;
        schemas.insert((*name).to_string(), schema);
        one_of.push(json!({"$ref": format!("#/components/schemas/{name}")}));
    }
    Ok(json!({"oneOf": one_of}))
}

/// utoipa (5.5) writes a Link object's fields in snake case (`operation_id`); OpenAPI names them
/// in camel case (`operationId`), and validators reject the former.
fn link_field_names(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else { return };
    let operations = paths.values_mut().filter_map(Value::as_object_mut).flat_map(|item| item.values_mut());
    let responses =
        operations.filter_map(|op| op.get_mut("responses")?.as_object_mut()).flat_map(|r| r.values_mut());
    for response in responses {
        let Some(links) = response.get_mut("links").and_then(Value::as_object_mut) else { continue };
        for link in links.values_mut().filter_map(Value::as_object_mut) {
            for (from, to) in [
                ("operation_id", "operationId"),
                ("operation_ref", "operationRef"),
                ("request_body", "requestBody"),
            ] {
                if let Some(value) = link.remove(from) {
                    link.insert(to.to_string(), value);
                }
            }
        }
    }
}

/// The value at `pointer` (RFC 6901).
fn at<'a>(doc: &'a mut Value, pointer: &str) -> Result<&'a mut Value, String> {
    doc.pointer_mut(pointer).ok_or_else(|| format!("the OpenAPI document has nothing at {pointer}"))
}

/// The parameter `name` of the operation at `operation`.
fn param<'a>(doc: &'a mut Value, operation: &str, name: &str) -> Result<&'a mut Value, String> {
    at(doc, &format!("{operation}/parameters"))?
        .as_array_mut()
        .and_then(|params| params.iter_mut().find(|p| p["name"] == name))
        .ok_or_else(|| format!("the OpenAPI operation {operation} has no parameter {name}"))
}

/// Sets each of `fields` on the object `target`; a field set to null is removed.
fn merge(target: &mut Value, fields: Value) -> Result<(), String> {
    let (Some(target), Value::Object(fields)) = (target.as_object_mut(), fields) else {
        return Err("only an object can be merged into an object of the OpenAPI document".into());
    };
    for (key, value) in fields {
        if value.is_null() {
            target.remove(&key);
        } else {
            target.insert(key, value);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The OpenAPI document is a contract with the learning platforms: it changes only on purpose.
    /// Rewrite the snapshot with `PRUEFSTEIN_BLESS=1 cargo test --lib openapi_document`.
    #[test]
    fn openapi_document_is_unchanged() {
        let document = super::document().expect("the constraints apply to the generated document");
        let actual = serde_json::to_string_pretty(&document).expect("the document serialises");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/openapi.json");
        if std::env::var_os("PRUEFSTEIN_BLESS").is_some() {
            std::fs::write(&path, format!("{actual}\n")).expect("the snapshot is written");
        }
        let expected = std::fs::read_to_string(&path).expect("tests/golden/openapi.json exists");
        assert_eq!(actual.trim_end(), expected.trim_end(), "the OpenAPI document changed");
    }
}
