//! The tool's RSA key pair: generated on first use from the operating system's randomness, kept
//! in the store as PKCS#8 PEM (setting `lti_tool_key`), published as a JWKS at `/lti/jwks`, and
//! used to sign the tool's JWTs (client assertions for score passback, deep-linking responses)
//! with RS256.

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{KeyPair, KeySize};
use aws_lc_rs::signature::KeyPair as _;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;
use serde_json::{Value, json};

use crate::limits::LTI_KEY_BITS;
use crate::submission::sha256_hex;

/// The setting that keeps the tool's private key.
pub(crate) const KEY_SETTING: &str = "lti_tool_key";

/// The PEM label of a PKCS#8 private key.
const PKCS8_LABEL: &str = "PRIVATE KEY";

/// The tool's key pair, ready to sign.
pub struct ToolKey {
    /// The key id: the first 16 hex digits of SHA-256 of the modulus.
    pub kid: String,
    encoding: EncodingKey,
    /// The public key as a JWK.
    pub jwk: Value,
}

impl std::fmt::Debug for ToolKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolKey").field("kid", &self.kid).finish_non_exhaustive()
    }
}

/// The key size `LTI_KEY_BITS` names, as AWS-LC generates it.
const fn key_size() -> KeySize {
    match LTI_KEY_BITS {
        2048 => KeySize::Rsa2048,
        3072 => KeySize::Rsa3072,
        4096 => KeySize::Rsa4096,
        _ => panic!("LTI_KEY_BITS must be 2048, 3072 or 4096"),
    }
}

/// A new private key as PKCS#8 PEM, from AWS-LC (constant-time RSA; its generator draws from the
/// operating system).
pub fn generate_pem() -> Result<String, String> {
    const SIZE: KeySize = key_size();
    let key = KeyPair::generate(SIZE).map_err(|e| format!("cannot make an RSA key: {e}"))?;
    let der = AsDer::<aws_lc_rs::encoding::Pkcs8V1Der>::as_der(&key)
        .map_err(|e| format!("cannot write the RSA key: {e}"))?;
    let pem = pem::Pem::new(PKCS8_LABEL, der.as_ref().to_vec());
    Ok(pem::encode_config(&pem, pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF)))
}

impl ToolKey {
    /// Reads a private key from PKCS#8 PEM (the format `generate_pem` writes and earlier versions
    /// stored): the key is checked by AWS-LC, its public half becomes the JWK.
    pub fn from_pem(pem: &str) -> Result<ToolKey, String> {
        let unreadable = |e: &dyn std::fmt::Display| format!("the tool's key is unreadable: {e}");
        let parsed = pem::parse(pem).map_err(|e| unreadable(&e))?;
        if parsed.tag() != PKCS8_LABEL {
            return Err(unreadable(&format!("a PEM block \"{}\", not \"{PKCS8_LABEL}\"", parsed.tag())));
        }
        let key = KeyPair::from_pkcs8(parsed.contents()).map_err(|e| unreadable(&e))?;
        let public = key.public_key();
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let n = public.modulus().big_endian_without_leading_zero().to_vec();
        let e = public.exponent().big_endian_without_leading_zero().to_vec();
        let kid = sha256_hex(&n)[..16].to_string();
        let jwk = json!({
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
            "n": b64(&n), "e": b64(&e),
        });
        let encoding = EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|e| unreadable(&e))?;
        Ok(ToolKey { kid, encoding, jwk })
    }

    /// `claims` as a JWT signed with RS256 under this key (its `kid` in the header).
    pub fn sign<T: Serialize>(&self, claims: &T) -> Result<String, String> {
        self.sign_with_kid(claims, &self.kid)
    }

    /// `claims` signed with this key under the header's `kid` given (a platform's keys in tests).
    pub fn sign_with_kid<T: Serialize>(&self, claims: &T, kid: &str) -> Result<String, String> {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(kid.to_string());
        jsonwebtoken::encode(&header, claims, &self.encoding).map_err(|e| format!("cannot sign a JWT: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throwaway key written by the RSA implementation earlier versions used (PKCS#8 PEM, as the
    /// store keeps it), with the JWK fields and key id those versions published for it.
    const EARLIER_KEY: &str = include_str!("testdata/earlier-tool-key.pem");
    const EARLIER_KID: &str = "aee23e57583c475a";
    const EARLIER_N: &str = "ybLLDiszMkc38XBLI_ByCPJV1__ZH-F2LwY1WDcyobxh_BbYMsm7ar8tYJkTvNRA9iXsAnKgXfvaSPgOZ6quxRGS02uyoYL8jbMV7KMVjhCvSfZ3wQk01TQQvxCRjCFbkCAkjkD48HDr0fnU0jR5kr5N8gcWJLaFBjwxiNkR4d00zs2TSUY_LjQOQdwOIQwkU8vu4IewyB7ivDsJFMAM6_KruWLFJUGmT7mNjY6dQXmatIQRfjN0ozF_Iov022PPnPpEZpAgMja747n05Trgaik3KcIVY7AUNweOkZs5JM18UBRnLc2xVBtsx1RkqUapcH8SsTWcfMpIHocVZZNNIQ";

    fn verifies(token: &str, jwk: &Value) -> bool {
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwk.clone()).unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::RS256);
        validation.set_audience(&["platform"]);
        let decoding = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        jsonwebtoken::decode::<Value>(token, &decoding, &validation).is_ok()
    }

    #[test]
    fn a_signed_jwt_verifies_with_the_published_key_and_not_with_another() {
        let key = ToolKey::from_pem(&generate_pem().unwrap()).unwrap();
        let token = key.sign(&json!({"iss": "tool", "aud": "platform", "exp": 4_000_000_000u64})).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.kid.as_deref(), Some(key.kid.as_str()));
        assert!(verifies(&token, &key.jwk));
        let other = ToolKey::from_pem(&generate_pem().unwrap()).unwrap();
        assert!(!verifies(&token, &other.jwk));
        assert!(ToolKey::from_pem("not a key").is_err());
    }

    #[test]
    fn a_generated_key_has_the_configured_size_and_is_stored_as_pkcs8_pem() {
        let pem = generate_pem().unwrap();
        assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{pem}");
        assert!(pem.lines().all(|line| line.len() <= 64));
        let key = ToolKey::from_pem(&pem).unwrap();
        let n =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(key.jwk["n"].as_str().unwrap()).unwrap();
        assert_eq!(n.len() * 8, LTI_KEY_BITS);
        assert_eq!(key.jwk["e"], "AQAB");
    }

    #[test]
    fn a_key_stored_by_an_earlier_version_keeps_its_key_id_and_jwk_and_signs() {
        let key = ToolKey::from_pem(EARLIER_KEY).unwrap();
        assert_eq!(key.kid, EARLIER_KID);
        assert_eq!(
            key.jwk,
            json!({"kty": "RSA", "alg": "RS256", "use": "sig", "kid": EARLIER_KID, "n": EARLIER_N, "e": "AQAB"})
        );
        let token = key.sign(&json!({"iss": "tool", "aud": "platform", "exp": 4_000_000_000u64})).unwrap();
        assert!(verifies(&token, &key.jwk));
    }

    #[test]
    fn a_key_in_another_pem_block_is_refused_with_its_label() {
        let other = EARLIER_KEY.replace("PRIVATE KEY", "RSA PRIVATE KEY");
        let refused = ToolKey::from_pem(&other).unwrap_err();
        assert!(refused.contains("RSA PRIVATE KEY"), "{refused}");
    }
}
