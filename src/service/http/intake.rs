//! Intake: turning a submission request into what the store keeps. The body is read under one
//! deadline and one size limit (JSON, or multipart with the module as a file), the `?wait=` and
//! `Idempotency-Key` inputs are parsed, and the parsed request is checked against the catalogue and
//! the limits. The parsers are public for the fuzz targets, which call them as functions.

use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use futures_util::StreamExt;

use super::views::SubmissionRequest;
use crate::exercise::Exercise;
use crate::limits::{
    CALLBACK_URL_BYTES_MAX, IDEMPOTENCY_KEY_BYTES_MAX, METADATA_BYTES_MAX, OVERSIZED_BODY_DRAINED_MAX,
    REQUEST_BODY_BYTES_MAX, WAIT_MS_MAX,
};
use crate::service::learner::Learner;
use crate::service::problem::Problem;
use crate::service::shared::Shared;
use crate::service::store::{ClientRecord, NewSubmission};
use crate::submission::{Language, Submission, SubmissionKind};

/// The syntax of `?wait=` (ECMA-262, as the OpenAPI document declares it): seconds, optionally with a
/// fraction and `s`, or milliseconds with `ms`; empty means no waiting. [`parse_wait`] accepts
/// exactly the values it matches.
pub(crate) const WAIT_PATTERN: &str = r"^([0-9]+(\.[0-9]+)?(ms|s)?)?$";

/// The `?wait=` duration in milliseconds, capped at [`WAIT_MS_MAX`]; the syntax is [`WAIT_PATTERN`].
/// Public for the fuzz targets, which call the intake parsers as functions.
pub fn parse_wait(raw: Option<&str>) -> Result<u64, Problem> {
    let Some(raw) = raw.filter(|r| !r.is_empty()) else { return Ok(0) };
    let (number, factor) = if let Some(n) = raw.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = raw.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (raw, 1000.0)
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (whole, fraction) = number.split_once('.').map_or((number, None), |(w, f)| (w, Some(f)));
    let value = (digits(whole) && fraction.is_none_or(digits))
        .then(|| number.parse::<f64>().ok())
        .flatten()
        .filter(|v| !v.is_nan())
        .ok_or_else(|| {
            Problem::bad_request(
                "bad-wait",
                format!(
                    "wait={raw:?} is not a duration: write e.g. wait=5s, wait=2.5 or wait=500ms (at most {} s).",
                    WAIT_MS_MAX / 1000
                ),
                format!(
                    "wait={raw:?} ist keine Dauer: z. B. wait=5s, wait=2.5 oder wait=500ms (höchstens {} s).",
                    WAIT_MS_MAX / 1000
                ),
            )
        })?;
    Ok(((value * factor) as u64).min(WAIT_MS_MAX))
}

/// What a request asks to grade, before it is checked against the catalogue and stored.
#[derive(Debug)]
pub struct Parsed {
    pub exercise: String,
    pub learner: String,
    pub answer: Option<String>,
    pub module: Option<Vec<u8>>,
    /// A consumer's source and its language.
    pub source: Option<(Language, String)>,
    pub callback_url: Option<String>,
    pub metadata: Option<serde_json::Value>,
}

/// The language a name stands for, or the problem that names the known ones.
fn language(name: &str) -> Result<Language, Problem> {
    name.trim().parse::<Language>().map_err(|e| {
        let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
        Problem::bad_request(
            "unknown-language",
            format!("{e}."),
            format!("Unbekannte Sprache {name:?} (bekannt: {}).", known.join(", ")),
        )
    })
}

pub(super) fn unavailable(en: &str, de: &str) -> Problem {
    let mut problem =
        Problem::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "Service unavailable", en, de);
    problem.retry_after = Some(5);
    problem
}

pub(super) fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, Problem> {
    let Some(value) = req.headers().get("idempotency-key") else { return Ok(None) };
    let key = value.to_str().ok().map(|k| k.trim().trim_matches('"').to_string()).unwrap_or_default();
    if key.is_empty()
        || key.len() > IDEMPOTENCY_KEY_BYTES_MAX
        || !key.bytes().all(|b| (0x21..0x7f).contains(&b))
    {
        return Err(Problem::bad_request(
            "bad-idempotency-key",
            format!("The Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_BYTES_MAX} visible ASCII characters."),
            format!(
                "Der Idempotency-Key muss aus 1 bis {IDEMPOTENCY_KEY_BYTES_MAX} sichtbaren ASCII-Zeichen bestehen."
            ),
        ));
    }
    Ok(Some(key))
}

/// How reading a submission's body ended.
pub(super) enum Body {
    Parsed(Parsed),
    /// The body did not arrive within its deadline: the answer to send (it closes the connection).
    TooSlow(HttpResponse),
}

/// Reads and parses a submission's body (JSON or multipart) under one deadline of `body_ms` and
/// [`REQUEST_BODY_BYTES_MAX`].
pub(super) async fn read_submission(
    req: &HttpRequest,
    payload: web::Payload,
    body_ms: u64,
) -> Result<Body, Problem> {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    // The body has one deadline as a whole (actix-web's client_request_timeout covers the head only):
    // a client that trickles it cannot hold its connection.
    let deadline = Duration::from_millis(body_ms);
    if let Some(length) = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        && length > REQUEST_BODY_BYTES_MAX
    {
        if length <= OVERSIZED_BODY_DRAINED_MAX {
            // Read (and dropped) until the deadline at most; the answer is 413 either way.
            let _ = tokio::time::timeout(deadline, drain(payload)).await;
        }
        return Err(Problem::too_large(REQUEST_BODY_BYTES_MAX));
    }
    let body = Rc::new(RefCell::new(payload));
    let read = async {
        if content_type.starts_with("application/json") || content_type.is_empty() {
            let bytes = read_body(UnreadBody(body.clone())).await?;
            parse_json(&bytes)
        } else if content_type.starts_with("multipart/form-data") {
            parse_multipart(req, UnreadBody(body.clone())).await
        } else {
            Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported-media-type",
                "Unsupported media type",
                format!("Send application/json or multipart/form-data, not {content_type:?}."),
                format!("Bitte application/json oder multipart/form-data senden, nicht {content_type:?}."),
            ))
        }
    };
    let parsed = match tokio::time::timeout(deadline, read).await {
        Ok(parsed) => parsed?,
        Err(_) => {
            let problem = Problem::body_timeout(body_ms);
            let text = serde_json::to_vec(&problem).unwrap_or_default();
            // The answer holds the unread body until its last byte is sent: actix-web then closes
            // the connection, where a dropped chunked body would be drained for as long as the
            // client keeps sending.
            let answer = AnswerHoldingBody { text: Some(text.into()), _unread: body };
            return Ok(Body::TooSlow(
                actix_web::ResponseError::error_response(&problem).set_body(answer).map_into_boxed_body(),
            ));
        }
    };
    Ok(Body::Parsed(parsed))
}

/// An answer's text that keeps the unread request body alive until the answer is sent.
struct AnswerHoldingBody {
    text: Option<web::Bytes>,
    _unread: Rc<RefCell<web::Payload>>,
}

impl actix_web::body::MessageBody for AnswerHoldingBody {
    type Error = std::convert::Infallible;

    fn size(&self) -> actix_web::body::BodySize {
        actix_web::body::BodySize::Sized(self.text.as_ref().map_or(0, |t| t.len() as u64))
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<web::Bytes, Self::Error>>> {
        Poll::Ready(self.text.take().map(Ok))
    }
}

/// The request body, shared between the handler and a reader that the deadline may cut off.
struct UnreadBody(Rc<RefCell<web::Payload>>);

impl futures_util::Stream for UnreadBody {
    type Item = Result<web::Bytes, actix_web::error::PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.borrow_mut().poll_next_unpin(cx)
    }
}

async fn drain(
    mut payload: impl futures_util::Stream<Item = Result<web::Bytes, actix_web::error::PayloadError>> + Unpin,
) {
    let mut seen = 0usize;
    while let Some(Ok(chunk)) = payload.next().await {
        seen += chunk.len();
        if seen > OVERSIZED_BODY_DRAINED_MAX {
            break;
        }
    }
}

async fn read_body(
    mut payload: impl futures_util::Stream<Item = Result<web::Bytes, actix_web::error::PayloadError>> + Unpin,
) -> Result<web::BytesMut, Problem> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            Problem::bad_request(
                "bad-body",
                format!("The body could not be read: {e}"),
                format!("Der Rumpf war nicht lesbar: {e}"),
            )
        })?;
        if body.len() + chunk.len() > REQUEST_BODY_BYTES_MAX {
            drain(payload).await;
            return Err(Problem::too_large(REQUEST_BODY_BYTES_MAX));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Reads a JSON intake body. Public for the fuzz targets.
pub fn parse_json(body: &[u8]) -> Result<Parsed, Problem> {
    let request: SubmissionRequest = serde_json::from_slice(body).map_err(|e| {
        Problem::bad_request(
            "bad-json",
            format!(
                "The body is not a valid submission: {e}. Expected {{\"exercise\": \"...\", \"learner\": \"...\", \
                 and one of \"answer\", \"wasm_base64\", \"wat\"}}."
            ),
            format!(
                "Der Rumpf ist keine gültige Abgabe: {e}. Erwartet wird {{\"exercise\": \"...\", \"learner\": \"...\" \
                 und eines von \"answer\", \"wasm_base64\", \"wat\"}}."
            ),
        )
    })?;
    let module = match (&request.wasm_base64, &request.wat) {
        (Some(_), Some(_)) => {
            return Err(Problem::bad_request(
                "several-submissions",
                "Send either wasm_base64 or wat, not both.",
                "Bitte entweder wasm_base64 oder wat senden, nicht beides.",
            ));
        }
        (Some(b64), None) => {
            Some(base64::engine::general_purpose::STANDARD.decode(b64.trim()).map_err(|e| {
                Problem::bad_request(
                    "bad-base64",
                    format!("wasm_base64 is not valid base64: {e}"),
                    format!("wasm_base64 ist kein gültiges Base64: {e}"),
                )
            })?)
        }
        (None, Some(wat)) => Some(wat.clone().into_bytes()),
        (None, None) => None,
    };
    let source = match (&request.language, request.source) {
        (Some(name), Some(text)) => Some((language(name)?, text)),
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            // The document's schema cannot say "both or neither" in its oneOf: a request that is
            // valid against it, but not one submission, is unprocessable (422), not malformed.
            return Err(Problem::unprocessable(
                "source-without-language",
                "Send source together with its language, e.g. {\"language\": \"python\", \"source\": \"...\"}.",
                "source nur zusammen mit language senden, z. B. {\"language\": \"python\", \"source\": \"...\"}.",
            ));
        }
    };
    if module.is_some() && source.is_some() {
        return Err(Problem::bad_request(
            "several-submissions",
            "Send either a module or source, not both.",
            "Bitte entweder ein Modul oder Quelltext senden, nicht beides.",
        ));
    }
    Ok(Parsed {
        exercise: request.exercise,
        learner: request.learner,
        answer: request.answer,
        module,
        source,
        callback_url: request.callback_url,
        metadata: request.metadata,
    })
}

/// Reads a multipart intake body (its size is checked field by field). Public for the fuzz targets,
/// which hand it a plain payload; the service hands it the body under its read deadline.
pub async fn parse_multipart<S>(req: &HttpRequest, payload: S) -> Result<Parsed, Problem>
where
    S: futures_util::Stream<Item = Result<web::Bytes, actix_web::error::PayloadError>> + 'static,
{
    let bad = |en: String, de: String| Problem::bad_request("bad-multipart", en, de);
    let mut multipart = actix_multipart::Multipart::new(req.headers(), payload);
    let mut parsed = Parsed {
        exercise: String::new(),
        learner: String::new(),
        answer: None,
        module: None,
        source: None,
        callback_url: None,
        metadata: None,
    };
    let (mut exercise, mut learner) = (None, None);
    let mut total = 0usize;
    while let Some(field) = multipart.next().await {
        let mut field = field.map_err(|e| {
            bad(
                format!("The multipart body is malformed: {e}"),
                format!("Der Multipart-Rumpf ist fehlerhaft: {e}"),
            )
        })?;
        let name = field.name().unwrap_or("").to_string();
        // A file whose name ends in a language's extension (consumer.py) is that language's source.
        let file_language = field
            .content_disposition()
            .and_then(|d| d.get_filename())
            .and_then(|f| f.rsplit_once('.').map(|(_, e)| e.to_string()))
            .and_then(|e| Language::from_extension(&e));
        let mut bytes = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| {
                bad(
                    format!("The multipart body is malformed: {e}"),
                    format!("Der Multipart-Rumpf ist fehlerhaft: {e}"),
                )
            })?;
            total += chunk.len();
            if total > REQUEST_BODY_BYTES_MAX {
                return Err(Problem::too_large(REQUEST_BODY_BYTES_MAX));
            }
            bytes.extend_from_slice(&chunk);
        }
        take_field(&mut parsed, &mut exercise, &mut learner, &name, bytes, file_language)?;
    }
    parsed.exercise = exercise
        .ok_or_else(|| bad("The field exercise is missing.".into(), "Das Feld exercise fehlt.".into()))?;
    parsed.learner = learner
        .ok_or_else(|| bad("The field learner is missing.".into(), "Das Feld learner fehlt.".into()))?;
    Ok(parsed)
}

/// Puts one multipart field where it belongs in `parsed` (the exercise and learner aside, checked
/// once all fields are read): an unknown field, a second module file or a field that is not UTF-8
/// is a bad request.
fn take_field(
    parsed: &mut Parsed,
    exercise: &mut Option<String>,
    learner: &mut Option<String>,
    name: &str,
    bytes: Vec<u8>,
    file_language: Option<Language>,
) -> Result<(), Problem> {
    let bad = |en: String, de: String| Problem::bad_request("bad-multipart", en, de);
    let text = |bytes: Vec<u8>| {
        String::from_utf8(bytes).map_err(|_| {
            bad(
                format!("The field {name:?} is not UTF-8 text."),
                format!("Das Feld {name:?} ist kein UTF-8-Text."),
            )
        })
    };
    match name {
        "exercise" => *exercise = Some(text(bytes)?),
        "learner" => *learner = Some(text(bytes)?),
        "answer" => parsed.answer = Some(text(bytes)?),
        "wat" | "file" | "module" | "wasm" => {
            if parsed.module.is_some() || parsed.source.is_some() {
                return Err(bad(
                    "Send one module file only.".into(),
                    "Bitte nur eine Moduldatei senden.".into(),
                ));
            }
            match file_language {
                Some(language) => parsed.source = Some((language, text(bytes)?)),
                None => parsed.module = Some(bytes),
            }
        }
        "callback_url" => parsed.callback_url = Some(text(bytes)?).filter(|u| !u.trim().is_empty()),
        // An empty field (a form left blank) is no metadata, as a blank callback_url is none.
        "metadata" if bytes.iter().all(u8::is_ascii_whitespace) => parsed.metadata = None,
        "metadata" => {
            let raw = text(bytes)?;
            parsed.metadata = Some(serde_json::from_str(&raw).map_err(|e| {
                bad(
                    format!("The field metadata is not JSON: {e}"),
                    format!("Das Feld metadata ist kein JSON: {e}"),
                )
            })?);
        }
        other => {
            return Err(bad(
                format!(
                    "Unknown field {other:?}: use exercise, learner, answer, file, callback_url, metadata."
                ),
                format!(
                    "Unbekanntes Feld {other:?}: erlaubt sind exercise, learner, answer, file, callback_url, metadata."
                ),
            ));
        }
    }
    Ok(())
}

/// Checks a parsed request against the catalogue and the limits, and builds what the store keeps.
pub(super) fn validate(
    shared: &Shared,
    client: &ClientRecord,
    parsed: Parsed,
    key: Option<String>,
) -> Result<NewSubmission, Problem> {
    let learner =
        Learner::parse(&parsed.learner).map_err(|e| Problem::bad_learner("bad-learner", e))?.into_string();
    let slug = parsed.exercise.trim();
    let Some(exercise) = shared.catalogue.get(slug) else {
        let known = shared.catalogue.slugs().join(", ");
        return Err(Problem::not_found(
            "unknown-exercise",
            format!("There is no exercise {slug:?}. Known exercises: {known}."),
            format!("Es gibt keine Aufgabe {slug:?}. Vorhandene Aufgaben: {known}."),
        ));
    };
    let module = module_of(&exercise, parsed.module, parsed.source)?;
    let submission = submission_of(&exercise, parsed.answer, module)?;
    let callback_url = callback_url_of(shared, parsed.callback_url)?;
    let metadata = metadata_of(parsed.metadata)?;
    let kind = match submission {
        Submission::Answer(_) => "answer",
        Submission::Module(_) => "module",
        Submission::Source { language, .. } => language.name(),
    };
    let meaning = serde_json::json!({
        "exercise": exercise.slug,
        "learner": learner,
        "kind": kind,
        "sha256": submission.sha256(),
        "callback_url": callback_url,
        "metadata": metadata,
    });
    Ok(NewSubmission {
        client_id: client.id,
        exercise: exercise.slug.clone(),
        learner,
        submission,
        callback_url,
        metadata,
        idempotency_key: key,
        request_hash: crate::submission::sha256_hex(meaning.to_string().as_bytes()),
        exercise_hash: Some(exercise.content_hash().to_string()),
    })
}

/// A module or source, if the request holds one (never both), in a language the exercise takes.
fn module_of(
    exercise: &Exercise,
    module: Option<Vec<u8>>,
    source: Option<(Language, String)>,
) -> Result<Option<Submission>, Problem> {
    Ok(match (module, source) {
        (Some(_), Some(_)) => {
            return Err(Problem::bad_request(
                "several-submissions",
                "Send either a module or source, not both.",
                "Bitte entweder ein Modul oder Quelltext senden, nicht beides.",
            ));
        }
        (Some(bytes), None) => Some(Submission::Module(bytes)),
        (None, Some((language, text))) => {
            let accepted = exercise.grader.languages();
            if !accepted.contains(&language) {
                let refusal = language.not_accepted(&accepted);
                return Err(Problem::unprocessable("language-not-accepted", refusal.en, refusal.de));
            }
            if text.len() > language.source_bytes_max() {
                return Err(Problem::too_large(language.source_bytes_max()));
            }
            Some(Submission::Source { language, text })
        }
        (None, None) => None,
    })
}

/// The one thing to grade: an answer for a prediction exercise, a module or source for a consumer
/// exercise.
fn submission_of(
    exercise: &Exercise,
    answer: Option<String>,
    module: Option<Submission>,
) -> Result<Submission, Problem> {
    let slug = &exercise.slug;
    match (exercise.grader.submission_kind(), answer, module) {
        (_, Some(_), Some(_)) => Err(Problem::bad_request(
            "several-submissions",
            "Send either an answer or a module, not both.",
            "Bitte entweder eine Antwort oder ein Modul senden, nicht beides.",
        )),
        (_, None, None) => Err(Problem::bad_request(
            "no-submission",
            "The request holds nothing to grade: send answer (prediction exercises) or wasm_base64, wat or a file (consumer exercises).",
            "Die Anfrage enthält nichts zu bewerten: answer (Vorhersage-Aufgaben) oder wasm_base64, wat bzw. eine Datei (Konsumenten-Aufgaben) senden.",
        )),
        (SubmissionKind::Answer, None, Some(_)) => Err(Problem::unprocessable(
            "wrong-submission-kind",
            format!(
                "{slug} is a prediction exercise: send the prediction as answer, e.g. \"(2, 2, 0)\", not a module."
            ),
            format!(
                "{slug} ist eine Vorhersage-Aufgabe: die Vorhersage als answer senden, z. B. \"(2, 2, 0)\", kein Modul."
            ),
        )),
        (SubmissionKind::Module, Some(_), None) => Err(Problem::unprocessable(
            "wrong-submission-kind",
            format!(
                "{slug} is a consumer exercise: send a WebAssembly module (wasm_base64, wat or a file), not an answer."
            ),
            format!(
                "{slug} ist eine Konsumenten-Aufgabe: ein WebAssembly-Modul senden (wasm_base64, wat oder Datei), keine Antwort."
            ),
        )),
        (_, Some(answer), None) => Ok(Submission::Answer(answer)),
        (_, None, Some(module)) => Ok(module),
    }
}

/// The callback URL, trimmed, if it is short enough and a target the address policy allows.
fn callback_url_of(shared: &Shared, raw: Option<String>) -> Result<Option<String>, Problem> {
    let Some(url) = raw.map(|u| u.trim().to_string()) else {
        return Ok(None);
    };
    if url.len() > CALLBACK_URL_BYTES_MAX {
        return Err(Problem::unprocessable(
            "bad-callback-url",
            format!("callback_url is longer than {CALLBACK_URL_BYTES_MAX} bytes."),
            format!("callback_url ist länger als {CALLBACK_URL_BYTES_MAX} Bytes."),
        ));
    }
    crate::service::outbound::parse_target(&url, shared.config.allow_private_callbacks).map_err(|e| {
        Problem::unprocessable(
            "bad-callback-url",
            format!("callback_url is not usable: {e}."),
            format!("callback_url ist nicht verwendbar: {e}."),
        )
    })?;
    Ok(Some(url))
}

/// The metadata as compact JSON: an object of at most [`METADATA_BYTES_MAX`] bytes, or none.
fn metadata_of(raw: Option<serde_json::Value>) -> Result<Option<String>, Problem> {
    match raw {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(value @ serde_json::Value::Object(_)) => {
            let text = value.to_string();
            if text.len() > METADATA_BYTES_MAX {
                return Err(Problem::unprocessable(
                    "metadata-too-large",
                    format!("metadata is larger than {METADATA_BYTES_MAX} bytes."),
                    format!("metadata ist größer als {METADATA_BYTES_MAX} Bytes."),
                ));
            }
            Ok(Some(text))
        }
        Some(_) => Err(Problem::unprocessable(
            "bad-metadata",
            "metadata must be a JSON object.",
            "metadata muss ein JSON-Objekt sein.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_multipart, parse_wait};
    use crate::limits::WAIT_MS_MAX;

    /// A multipart body with `fields` (name, value) through the intake's parser.
    async fn multipart(fields: &[(&str, &str)]) -> Result<super::Parsed, crate::service::problem::Problem> {
        let mut body = String::new();
        for (name, value) in fields {
            body.push_str(&format!(
                "--B\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            ));
        }
        body.push_str("--B--\r\n");
        let req = actix_web::test::TestRequest::default()
            .insert_header(("content-type", "multipart/form-data; boundary=B"))
            .to_http_request();
        let chunk: Result<actix_web::web::Bytes, actix_web::error::PayloadError> = Ok(body.into());
        parse_multipart(&req, futures_util::stream::once(async move { chunk })).await
    }

    /// A blank metadata field (a form left empty) is no metadata; anything else must be JSON.
    #[actix_web::test]
    async fn a_blank_multipart_metadata_field_is_none() {
        let base = [("exercise", "01-x"), ("learner", "anna"), ("answer", "(1)")];
        for blank in ["", " ", "\t"] {
            let parsed = multipart(&[&base[..], &[("metadata", blank)]].concat()).await.unwrap();
            assert_eq!(parsed.metadata, None, "{blank:?}");
        }
        let parsed = multipart(&[&base[..], &[("metadata", "{\"course\": 7}")]].concat()).await.unwrap();
        assert_eq!(parsed.metadata, Some(serde_json::json!({"course": 7})));
        let problem = multipart(&[&base[..], &[("metadata", "{")]].concat()).await.unwrap_err();
        assert_eq!(problem.code, "bad-multipart");
        assert!(problem.detail.contains("metadata is not JSON"), "{}", problem.detail);
    }

    /// `parse_wait` takes exactly the syntax of `WAIT_PATTERN` that the OpenAPI document declares.
    #[test]
    fn wait_takes_exactly_the_declared_syntax() {
        for (raw, ms) in [
            ("", 0),
            ("0", 0),
            ("5", 5_000),
            ("5s", 5_000),
            ("2.5", 2_500),
            ("2.5s", 2_500),
            ("500ms", 500),
            ("0.5ms", 0),
            ("007s", 7_000),
            ("31", WAIT_MS_MAX),
            ("99999999999999999999999999999999999999999999", WAIT_MS_MAX),
        ] {
            assert_eq!(parse_wait(Some(raw)).map_err(|p| p.detail), Ok(ms), "{raw:?}");
        }
        for raw in [
            " 5s", "5s ", "5 s", "-1", "+5", "1e3", ".5", "5.", "inf", "NaN", "5m", "s", "ms", "5S", "5.5.5",
            "0x10", "٥",
        ] {
            let problem = parse_wait(Some(raw)).expect_err(raw);
            assert_eq!(problem.code, "bad-wait", "{raw:?}");
            assert!(problem.detail.contains("at most 30 s"), "{}", problem.detail);
        }
    }
}
