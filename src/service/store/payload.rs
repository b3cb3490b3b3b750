//! How a submission is kept in the store's `payload` column, the same on every backend: an
//! answer as UTF-8, a module as its bytes, and source as a marker with its language, then the text.

use super::StoreError;
use crate::submission::Submission;

/// The marker that starts the stored payload of a source submission: `\0source:<language>\n`, then
/// the text. The submissions table knows the kinds answer and module; a module's payload starts
/// with `\0asm` (binary) or is text (WAT), so a payload with this marker is never a module.
const SOURCE_MARKER: &[u8] = b"\0source:";

pub(crate) fn source_payload(language: crate::submission::Language, text: &str) -> Vec<u8> {
    let mut payload = SOURCE_MARKER.to_vec();
    payload.extend_from_slice(language.name().as_bytes());
    payload.push(b'\n');
    payload.extend_from_slice(text.as_bytes());
    payload
}

/// A stored submission as it was submitted: an answer, a module, or source (a module payload that
/// starts with the source marker, see `source_payload`). The one decoder of stored payloads.
pub(crate) fn stored_submission(id: i64, kind: &str, payload: Vec<u8>) -> Result<Submission, StoreError> {
    Ok(match kind {
        "answer" => Submission::Answer(
            String::from_utf8(payload)
                .map_err(|_| StoreError::Corrupt(format!("the answer of submission {id} is not UTF-8")))?,
        ),
        _ => match parse_source_payload(&payload) {
            Some(Ok((language, text))) => Submission::Source { language, text },
            Some(Err(problem)) => {
                return Err(StoreError::Corrupt(format!("the source of submission {id}: {problem}")));
            }
            None => Submission::Module(payload),
        },
    })
}

/// A stored source submission's language and text; None for a module's payload.
fn parse_source_payload(payload: &[u8]) -> Option<Result<(crate::submission::Language, String), String>> {
    let rest = payload.strip_prefix(SOURCE_MARKER)?;
    let Some(newline) = rest.iter().position(|b| *b == b'\n') else {
        return Some(Err("the marker has no end".into()));
    };
    let parsed = std::str::from_utf8(&rest[..newline])
        .map_err(|_| "the language is not UTF-8".to_string())
        .and_then(|name| name.parse::<crate::submission::Language>())
        .and_then(|language| {
            String::from_utf8(rest[newline + 1..].to_vec())
                .map(|text| (language, text))
                .map_err(|_| "the text is not UTF-8".to_string())
        });
    Some(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_payload_round_trips_and_a_module_is_never_taken_for_one() {
        use crate::submission::Language;
        let payload = source_payload(Language::Python, "def verarbeite(con, msg):\n    return True\n");
        assert_eq!(
            parse_source_payload(&payload),
            Some(Ok((Language::Python, "def verarbeite(con, msg):\n    return True\n".to_string())))
        );
        assert_eq!(parse_source_payload(b"\0asm\x01\0\0\0"), None);
        assert_eq!(parse_source_payload(b"(module)"), None);
        assert!(matches!(parse_source_payload(b"\0source:cobol\nx"), Some(Err(_))));
        assert!(matches!(parse_source_payload(b"\0source:python"), Some(Err(_))));
    }
}
