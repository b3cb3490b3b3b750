//! The tool's RSA key pair: generated on first use from the operating system's randomness, kept
//! in the store as PKCS#8 PEM (setting `lti_tool_key`), published as a JWKS at `/lti/jwks`, and
//! used to sign the tool's JWTs (client assertions for score passback, deep-linking responses)
//! with RS256.

use std::sync::Arc;

use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs1::EncodeRsaPrivateKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use rsa::traits::PublicKeyParts;
use serde::Serialize;
use serde_json::{Value, json};

use crate::limits::LTI_KEY_BITS;
use crate::service::Shared;
use crate::submission::sha256_hex;

/// The setting that keeps the tool's private key.
pub const KEY_SETTING: &str = "lti_tool_key";

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

/// The operating system's generator as the RSA crate's random source.
struct OsRandom;

/// The operating system gave no randomness.
#[derive(Debug)]
struct NoRandomness(String);

impl std::fmt::Display for NoRandomness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no randomness from the operating system: {}", self.0)
    }
}

impl std::error::Error for NoRandomness {}

impl rsa::rand_core::TryRng for OsRandom {
    type Error = NoRandomness;

    fn try_next_u32(&mut self) -> Result<u32, NoRandomness> {
        let mut bytes = [0u8; 4];
        self.try_fill_bytes(&mut bytes)?;
        Ok(u32::from_le_bytes(bytes))
    }

    fn try_next_u64(&mut self) -> Result<u64, NoRandomness> {
        let mut bytes = [0u8; 8];
        self.try_fill_bytes(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), NoRandomness> {
        getrandom::fill(dst).map_err(|e| NoRandomness(e.to_string()))
    }
}

impl rsa::rand_core::TryCryptoRng for OsRandom {}

/// A new private key as PKCS#8 PEM.
pub fn generate_pem() -> Result<String, String> {
    let key = rsa::PrivateKey::new(&mut OsRandom, LTI_KEY_BITS)
        .map_err(|e| format!("cannot make an RSA key: {e}"))?;
    let pem =
        key.to_pkcs8_pem(rsa::pkcs8::LineEnding::LF).map_err(|e| format!("cannot write the RSA key: {e}"))?;
    Ok(pem.to_string())
}

impl ToolKey {
    /// Reads a private key from PKCS#8 PEM.
    pub fn from_pem(pem: &str) -> Result<ToolKey, String> {
        let key =
            rsa::PrivateKey::from_pkcs8_pem(pem).map_err(|e| format!("the tool's key is unreadable: {e}"))?;
        let der = key.to_pkcs1_der().map_err(|e| format!("the tool's key is unreadable: {e}"))?;
        let public = key.to_public_key();
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let n = public.n_bytes();
        let kid = sha256_hex(&n)[..16].to_string();
        let jwk = json!({
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
            "n": b64(&n), "e": b64(&public.e_bytes()),
        });
        Ok(ToolKey { kid, encoding: EncodingKey::from_rsa_der(der.as_bytes()), jwk })
    }

    /// The public keys as a JWKS.
    pub fn jwks(&self) -> Value {
        json!({ "keys": [self.jwk] })
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

/// The tool's key: loaded from the store, or generated and stored on first use (a second server
/// generating at the same moment keeps the first one stored). Blocking: call it off the executor.
pub fn tool_key(shared: &Shared) -> Result<Arc<ToolKey>, String> {
    let mut cached = shared.lti.key.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(key) = cached.as_ref() {
        return Ok(key.clone());
    }
    let pem = match shared.store.setting(KEY_SETTING).map_err(|e| e.to_string())? {
        Some(pem) => pem,
        None => {
            let generated = generate_pem()?;
            let pem = shared.store.setting_or_insert(KEY_SETTING, &generated).map_err(|e| e.to_string())?;
            tracing::info!(event = "lti_key_generated");
            pem
        }
    };
    let key = Arc::new(ToolKey::from_pem(&pem)?);
    *cached = Some(key.clone());
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_jwt_verifies_with_the_published_key_and_not_with_another() {
        let key = ToolKey::from_pem(&generate_pem().unwrap()).unwrap();
        let token = key.sign(&json!({"iss": "tool", "aud": "platform", "exp": 4_000_000_000u64})).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.kid.as_deref(), Some(key.kid.as_str()));
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(key.jwk.clone()).unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::RS256);
        validation.set_audience(&["platform"]);
        let decoding = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        let claims = jsonwebtoken::decode::<Value>(&token, &decoding, &validation).unwrap().claims;
        assert_eq!(claims["iss"], "tool");
        let other = ToolKey::from_pem(&generate_pem().unwrap()).unwrap();
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(other.jwk.clone()).unwrap();
        let decoding = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        assert!(jsonwebtoken::decode::<Value>(&token, &decoding, &validation).is_err());
        assert!(ToolKey::from_pem("not a key").is_err());
    }
}
