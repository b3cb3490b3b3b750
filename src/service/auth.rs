//! Clients and their credentials: a bearer token per client, shown once and stored only as its
//! SHA-256; a webhook signing secret per client; and the HMAC keys of report links.

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::submission::sha256_hex;

/// Prefix of client tokens, so that a leaked one is easy to recognise.
pub(crate) const TOKEN_PREFIX: &str = "pst_";
/// Prefix of webhook secrets (Standard Webhooks).
pub(crate) const WEBHOOK_SECRET_PREFIX: &str = "whsec_";

/// `bytes` bytes from the operating system's generator: credentials must be unpredictable, so they
/// are the one thing not drawn from a seed.
pub(crate) fn random_bytes(bytes: usize) -> Result<Vec<u8>, String> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).map_err(|e| format!("no randomness from the operating system: {e}"))?;
    Ok(buffer)
}

/// A new bearer token.
pub(crate) fn new_token() -> Result<String, String> {
    Ok(format!(
        "{TOKEN_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes(32)?)
    ))
}

/// The prefix of a key for the Jobe-compatible endpoint only.
pub(crate) const JOBE_KEY_PREFIX: &str = "pjk_";

/// A new key for the Jobe-compatible endpoint: `pjk_` and 24 random bytes in base64 (36
/// characters, within CodeRunner's 40).
pub(crate) fn new_jobe_key() -> Result<String, String> {
    let key = format!(
        "{JOBE_KEY_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes(24)?)
    );
    debug_assert!(key.len() <= crate::limits::JOBE_KEY_CHARS_MAX);
    Ok(key)
}

/// A new webhook secret: `whsec_` and 32 random bytes in base64.
pub(crate) fn new_webhook_secret() -> Result<String, String> {
    Ok(format!(
        "{WEBHOOK_SECRET_PREFIX}{}",
        base64::engine::general_purpose::STANDARD.encode(random_bytes(32)?)
    ))
}

/// What the store keeps of a token.
pub fn token_hash(token: &str) -> String {
    sha256_hex(token.as_bytes())
}

/// HMAC-SHA256 of `message` under `key`.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    // HMAC takes keys of any length: this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// The key bytes of a webhook secret (`whsec_<base64>`); a secret in another form is used as is.
pub(crate) fn webhook_key(secret: &str) -> Vec<u8> {
    secret
        .strip_prefix(WEBHOOK_SECRET_PREFIX)
        .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
        .unwrap_or_else(|| secret.as_bytes().to_vec())
}

/// The Standard Webhooks signature header value: `v1,<base64 HMAC-SHA256(id.timestamp.body)>`.
pub(crate) fn sign_webhook(secret: &str, event_id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut message = format!("{event_id}.{timestamp}.").into_bytes();
    message.extend_from_slice(body);
    let mac = hmac_sha256(&webhook_key(secret), &message);
    format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(mac))
}

/// The token of a report link: HMAC of the submission id under the report key, 128 bits in hex.
pub(crate) fn report_token(report_key: &[u8], submission_id: &str) -> String {
    let mac = hmac_sha256(report_key, format!("report:{submission_id}").as_bytes());
    hex::encode(&mac[..16])
}

/// Compares a presented report token in constant time.
pub(crate) fn report_token_valid(report_key: &[u8], submission_id: &str, presented: &str) -> bool {
    let expected = report_token(report_key, submission_id);
    expected.len() == presented.len()
        && expected.bytes().zip(presented.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// The token of a student's page link: HMAC under the report key of everything the link decides
/// (the client the submissions belong to, the exercise, the learner, and the LTI launch context
/// whose line item receives the scores, if any), 128 bits in hex. Fields are length-prefixed, so
/// that no two different links share a message.
pub(crate) fn page_token(
    key: &[u8],
    client_id: i64,
    exercise: &str,
    learner: &str,
    context: Option<i64>,
) -> String {
    let context = context.map(|c| c.to_string()).unwrap_or_default();
    let mut message = format!("page:{client_id}");
    for field in [exercise, learner, context.as_str()] {
        message.push_str(&format!(":{}:{field}", field.len()));
    }
    let mac = hmac_sha256(key, message.as_bytes());
    hex::encode(&mac[..16])
}

/// Compares a presented token with the expected one in constant time.
pub(crate) fn tokens_equal(expected: &str, presented: &str) -> bool {
    expected.len() == presented.len()
        && expected.bytes().zip(presented.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_webhooks_signature_of_the_specification_example() {
        // The example of the Standard Webhooks specification.
        let signature = sign_webhook(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn report_tokens_depend_on_key_and_id() {
        let token = report_token(b"k", "sub_1");
        assert!(report_token_valid(b"k", "sub_1", &token));
        assert!(!report_token_valid(b"k", "sub_2", &token));
        assert!(!report_token_valid(b"other", "sub_1", &token));
        assert!(!report_token_valid(b"k", "sub_1", ""));
        assert_ne!(new_token().unwrap(), new_token().unwrap());
    }

    #[test]
    fn page_tokens_bind_client_exercise_learner_and_context() {
        let token = page_token(b"k", 1, "01-x", "anna", None);
        assert!(tokens_equal(&token, &page_token(b"k", 1, "01-x", "anna", None)));
        for other in [
            page_token(b"k2", 1, "01-x", "anna", None),
            page_token(b"k", 2, "01-x", "anna", None),
            page_token(b"k", 1, "01-y", "anna", None),
            page_token(b"k", 1, "01-x", "anna2", None),
            page_token(b"k", 1, "01-x", "anna", Some(1)),
            // The same characters split differently between the fields.
            page_token(b"k", 1, "01-x:4", "anna", None),
        ] {
            assert!(!tokens_equal(&token, &other));
        }
        assert!(!tokens_equal(&token, ""));
    }
}
