//! The checks of an LTI 1.3 launch: the `id_token` a platform posts to `/lti/launch` is verified
//! with `jsonwebtoken` (RS256 only) against the platform's JWKS (cached as [`super::jwks`] says:
//! fetched again when it is stale or a token names a `kid` it lacks, at most once per interval), then
//! its claims: issuer, audience (the tool's client id; with several audiences `azp` must name it),
//! the times (`exp` past, `nbf` or `iat` in the future, each with [`LTI_CLOCK_LEEWAY_S`]), the
//! nonce of the login, the deployment, the message type and the LTI version. Each claim is read on
//! its own, so that one of the wrong type is named. Every failure is a [`LaunchError`] with a text
//! for the page in both languages.

use std::collections::BTreeMap;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use super::Context;
use super::jwks::KeyError;
use crate::limits::LTI_CLOCK_LEEWAY_S;
use crate::service::store::PlatformRecord;
use crate::text::Text;

pub(crate) const RESOURCE_LINK: &str = "LtiResourceLinkRequest";
pub(crate) const DEEP_LINKING: &str = "LtiDeepLinkingRequest";
pub(crate) const LTI_VERSION: &str = "1.3.0";

const CLAIM: &str = "https://purl.imsglobal.org/spec/lti/claim/";

/// The claim names the tool reads, for tests.
#[cfg(test)]
pub(crate) fn claim(name: &str) -> String {
    format!("{CLAIM}{name}")
}

/// The claims of a launch that the tool reads.
#[derive(Debug, Clone)]
pub(crate) struct LaunchClaims {
    pub sub: Option<String>,
    pub azp: Option<String>,
    pub aud: Audience,
    pub nonce: Option<String>,
    /// Issued at, seconds since the epoch (NumericDate: fractions allowed).
    pub iat: Option<f64>,
    /// Not before, seconds since the epoch.
    pub nbf: Option<f64>,
    pub message_type: Option<String>,
    pub version: Option<String>,
    pub deployment_id: Option<String>,
    pub target_link_uri: Option<String>,
    pub custom: BTreeMap<String, Value>,
    pub launch_presentation: Option<LaunchPresentation>,
    pub ags: Option<AgsEndpoint>,
    pub deep_linking: Option<DeepLinkingSettings>,
    /// The launcher's roles (`…/membership#Instructor`, `…#Learner`, …).
    pub roles: Vec<String>,
    /// The course the launch comes from.
    pub context: Option<ContextClaim>,
}

/// The `context` claim: the course at the platform.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ContextClaim {
    pub id: String,
}

/// The claims of a token as they were signed: each claim's JSON text.
pub(crate) type RawClaims = BTreeMap<String, Box<RawValue>>;

impl LaunchClaims {
    /// Reads the claims the tool uses from a verified token's payload, each on its own: a claim of
    /// the wrong type is refused with its name ([`LaunchError::ClaimType`]). A claim that is
    /// `null` counts as absent.
    pub(crate) fn from_raw(raw: &RawClaims) -> Result<LaunchClaims, LaunchError> {
        let lti = |name: &str| format!("{CLAIM}{name}");
        // The issuer chose the platform before the signature was checked; here it must only be there.
        read::<String>(raw, "iss")?.ok_or_else(|| LaunchError::Claim("iss".into()))?;
        Ok(LaunchClaims {
            sub: read(raw, "sub")?,
            azp: read(raw, "azp")?,
            aud: read(raw, "aud")?.unwrap_or_default(),
            nonce: read(raw, "nonce")?,
            iat: read(raw, "iat")?,
            nbf: read(raw, "nbf")?,
            message_type: read(raw, &lti("message_type"))?,
            version: read(raw, &lti("version"))?,
            deployment_id: read(raw, &lti("deployment_id"))?,
            target_link_uri: read(raw, &lti("target_link_uri"))?,
            custom: read(raw, &lti("custom"))?.unwrap_or_default(),
            launch_presentation: read(raw, &lti("launch_presentation"))?,
            ags: read(raw, "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint")?,
            deep_linking: read(raw, "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings")?,
            roles: read(raw, &lti("roles"))?.unwrap_or_default(),
            context: read(raw, &lti("context"))?,
        })
    }
}

/// The claim `name` of `raw` as a `T`: none when it is absent or `null`, [`LaunchError::ClaimType`]
/// naming it when it has another type.
fn read<T: DeserializeOwned>(raw: &RawClaims, name: &str) -> Result<Option<T>, LaunchError> {
    match raw.get(name) {
        None => Ok(None),
        Some(value) => serde_json::from_str::<Option<T>>(value.get())
            .map_err(|e| LaunchError::ClaimType { claim: name.to_string(), detail: e.to_string() }),
    }
}

/// `aud`: one audience or several.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(untagged)]
pub(crate) enum Audience {
    One(String),
    Many(Vec<String>),
    #[default]
    None,
}

impl Audience {
    pub(crate) fn all(&self) -> Vec<&str> {
        match self {
            Audience::One(one) => vec![one.as_str()],
            Audience::Many(many) => many.iter().map(String::as_str).collect(),
            Audience::None => Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct LaunchPresentation {
    #[serde(default)]
    pub locale: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct AgsEndpoint {
    #[serde(default)]
    pub lineitem: Option<String>,
    #[serde(default)]
    pub scope: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct DeepLinkingSettings {
    pub deep_link_return_url: String,
    #[serde(default)]
    pub accept_types: Vec<String>,
    /// The platform's opaque `data`: any JSON value, kept as the text it was signed as (a `null`
    /// too), to be returned unchanged.
    #[serde(default, deserialize_with = "present")]
    pub data: Option<Box<RawValue>>,
}

/// A field that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(d).map(Some)
}

/// Why a launch was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LaunchError {
    /// The request is not a launch (no `id_token` or `state`, malformed form, oversized values).
    Malformed(String),
    /// The platform sent an error instead of a token.
    PlatformError(String),
    /// The `state` is unknown, used before or expired.
    State,
    /// The platform of the login is no longer registered.
    UnknownPlatform,
    /// The token is not a JWT, or not RS256.
    NotAJwt(String),
    /// No key of the platform has the token's `kid`: not after fetching its JWKS again, nor (within
    /// the refetch interval) in the set last fetched.
    UnknownKey(String),
    /// The platform's JWKS could not be fetched.
    Jwks(String),
    /// The signature does not verify.
    Signature,
    Expired,
    /// `nbf` or `iat` lies further in the future than the clock leeway: the claim and by how
    /// many seconds.
    NotYetValid {
        claim: &'static str,
        ahead_s: u64,
    },
    Issuer,
    Audience,
    Azp,
    Nonce,
    Deployment(String),
    MessageType(String),
    Version(String),
    /// A claim the tool needs is missing or unusable.
    Claim(String),
    /// A claim has the wrong type: its name and what the reader said.
    ClaimType {
        claim: String,
        detail: String,
    },
    /// The client address holds its bound of logins waiting for their launch, or the platform
    /// its own and the address its share of them.
    TooManyLogins {
        per_platform: bool,
        address: String,
        pending: usize,
        retry_after_s: u64,
    },
}

impl LaunchError {
    /// The text of the page (and, in English, of the log line).
    pub(crate) fn text(&self) -> Text {
        match self {
            LaunchError::Malformed(what) => Text::new(
                format!("Das ist kein gültiger LTI-Start: {what}."),
                format!("This is not a valid LTI launch: {what}."),
            ),
            LaunchError::PlatformError(what) => Text::new(
                format!("Die Lernplattform hat die Anmeldung abgelehnt: {what}"),
                format!("The learning platform refused the login: {what}"),
            ),
            LaunchError::State => Text::new(
                "Dieser Start ist abgelaufen oder wurde schon benutzt. Bitte die Aktivität in der Lernplattform erneut öffnen.",
                "This launch has expired or was used already. Please open the activity in the learning platform again.",
            ),
            LaunchError::UnknownPlatform => Text::new(
                "Diese Lernplattform ist bei Prüfstein nicht (mehr) registriert.",
                "This learning platform is not (or no longer) registered with Prüfstein.",
            ),
            LaunchError::NotAJwt(e) => Text::new(
                format!("Das id_token ist kein RS256-signiertes JWT ({e})."),
                format!("The id_token is not an RS256-signed JWT ({e})."),
            ),
            LaunchError::UnknownKey(kid) => Text::new(
                format!(
                    "Die Lernplattform hat das Token mit einem unbekannten Schlüssel signiert (kid {kid:?})."
                ),
                format!("The learning platform signed the token with an unknown key (kid {kid:?})."),
            ),
            LaunchError::Jwks(e) => Text::new(
                format!("Die Schlüssel der Lernplattform waren nicht abrufbar: {e}"),
                format!("The learning platform's keys could not be fetched: {e}"),
            ),
            LaunchError::Signature => {
                Text::new("Die Signatur des Tokens ist ungültig.", "The token's signature is not valid.")
            }
            LaunchError::Expired => Text::new(
                "Das Token der Lernplattform ist abgelaufen. Bitte die Aktivität erneut öffnen.",
                "The learning platform's token has expired. Please open the activity again.",
            ),
            LaunchError::NotYetValid { claim, ahead_s } => not_yet_valid_text(claim, *ahead_s),
            LaunchError::Issuer => Text::new(
                "Das Token stammt nicht von der Lernplattform, bei der die Anmeldung begann (iss).",
                "The token does not come from the platform the login started at (iss).",
            ),
            LaunchError::Audience => Text::new(
                "Das Token ist nicht für Prüfstein bestimmt (aud).",
                "The token is not meant for Prüfstein (aud).",
            ),
            LaunchError::Azp => Text::new(
                "Das Token nennt eine andere autorisierte Partei (azp).",
                "The token names another authorised party (azp).",
            ),
            LaunchError::Nonce => Text::new(
                "Das Token gehört nicht zu dieser Anmeldung (nonce).",
                "The token does not belong to this login (nonce).",
            ),
            LaunchError::Deployment(d) => Text::new(
                format!("Die Installation {d:?} ist für diese Lernplattform nicht registriert."),
                format!("The deployment {d:?} is not registered for this learning platform."),
            ),
            LaunchError::MessageType(m) => Text::new(
                format!("Die Nachricht {m:?} kann Prüfstein nicht verarbeiten."),
                format!("Prüfstein cannot handle the message {m:?}."),
            ),
            LaunchError::Version(v) => Text::new(
                format!("LTI-Version {v:?} wird nicht unterstützt (nur 1.3.0)."),
                format!("LTI version {v:?} is not supported (only 1.3.0)."),
            ),
            LaunchError::Claim(c) => Text::new(
                format!("Im Start fehlt eine nötige Angabe: {c}."),
                format!("The launch lacks something it needs: {c}."),
            ),
            LaunchError::ClaimType { claim, detail } => Text::new(
                format!("Die Angabe {claim} im Token hat den falschen Typ ({detail})."),
                format!("The token's claim {claim} has the wrong type ({detail})."),
            ),
            LaunchError::TooManyLogins { per_platform, address, pending, retry_after_s } => {
                too_many_logins_text(*per_platform, address, *pending, *retry_after_s)
            }
        }
    }

    /// A short name for the log and the metrics.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            LaunchError::Malformed(_) => "malformed",
            LaunchError::PlatformError(_) => "platform-error",
            LaunchError::State => "state",
            LaunchError::UnknownPlatform => "unknown-platform",
            LaunchError::NotAJwt(_) => "not-a-jwt",
            LaunchError::UnknownKey(_) => "unknown-kid",
            LaunchError::Jwks(_) => "jwks",
            LaunchError::Signature => "signature",
            LaunchError::Expired => "expired",
            LaunchError::NotYetValid { .. } => "not-yet-valid",
            LaunchError::Issuer => "issuer",
            LaunchError::Audience => "audience",
            LaunchError::Azp => "azp",
            LaunchError::Nonce => "nonce",
            LaunchError::Deployment(_) => "deployment",
            LaunchError::MessageType(_) => "message-type",
            LaunchError::Version(_) => "version",
            LaunchError::Claim(_) => "claim",
            LaunchError::ClaimType { .. } => "claim-type",
            LaunchError::TooManyLogins { .. } => "too-many-logins",
        }
    }
}

/// The text of [`LaunchError::NotYetValid`].
fn not_yet_valid_text(claim: &str, ahead_s: u64) -> Text {
    Text::new(
        format!(
            "Das Token der Lernplattform gilt erst in {ahead_s} s ({claim}): ihre Uhr und die von \
                     Prüfstein gehen um mehr als {LTI_CLOCK_LEEWAY_S} s auseinander. Bitte die Uhren \
                     abgleichen lassen (NTP)."
        ),
        format!(
            "The learning platform's token is valid only in {ahead_s} s ({claim}): its clock and \
                     Prüfstein's differ by more than {LTI_CLOCK_LEEWAY_S} s. Please have the clocks \
                     synchronised (NTP)."
        ),
    )
}

/// The text of [`LaunchError::TooManyLogins`].
fn too_many_logins_text(per_platform: bool, address: &str, pending: usize, retry_after_s: u64) -> Text {
    if per_platform {
        Text::new(
            format!(
                "Bei dieser Lernplattform warten schon {pending} Anmeldungen auf ihren Start, \
                     so viele wie möglich von {address} (lti_logins_per_platform). Bitte in \
                     {retry_after_s} s erneut versuchen."
            ),
            format!(
                "{pending} logins of this learning platform are waiting for their launch already, \
                     as many from {address} as allowed (lti_logins_per_platform). Please try again \
                     in {retry_after_s} s."
            ),
        )
    } else {
        Text::new(
            format!(
                "Von {address} warten schon {pending} Anmeldungen auf ihren Start \
                     (lti_logins_per_address). Bitte in {retry_after_s} s erneut versuchen."
            ),
            format!(
                "{pending} logins from {address} are waiting for their launch already \
                     (lti_logins_per_address). Please try again in {retry_after_s} s."
            ),
        )
    }
}

/// Verifies a launch's `id_token` for `platform` and the login's `nonce`. Blocking (it may fetch
/// the platform's JWKS).
pub(crate) fn verify(
    service: &Context<'_>,
    platform: &PlatformRecord,
    id_token: &str,
    nonce: &str,
) -> Result<LaunchClaims, LaunchError> {
    let header = jsonwebtoken::decode_header(id_token).map_err(|e| LaunchError::NotAJwt(e.to_string()))?;
    if header.alg != Algorithm::RS256 {
        return Err(LaunchError::NotAJwt(format!("its algorithm is {:?}", header.alg)));
    }
    let kid = header.kid.ok_or_else(|| LaunchError::NotAJwt("its header names no kid".into()))?;
    let key = super::jwks::key_for(service, platform, &kid).map_err(|e| match e {
        KeyError::Unknown(kid) => LaunchError::UnknownKey(kid),
        KeyError::Unusable(message) => LaunchError::NotAJwt(message),
        KeyError::Fetch(message) => LaunchError::Jwks(message),
    })?;
    let mut validation = Validation::new(Algorithm::RS256);
    validation.leeway = LTI_CLOCK_LEEWAY_S;
    validation.set_issuer(&[platform.platform.issuer.as_str()]);
    validation.set_audience(&[platform.platform.client_id.as_str()]);
    // `sub` may be absent (an anonymous launch, a deep-linking request); a resource link needs it.
    validation.set_required_spec_claims(&["exp", "iat", "iss", "aud"]);
    let raw = jsonwebtoken::decode::<RawClaims>(id_token, &key, &validation)
        .map_err(|e| match e.kind() {
            ErrorKind::InvalidSignature => LaunchError::Signature,
            ErrorKind::ExpiredSignature => LaunchError::Expired,
            ErrorKind::InvalidIssuer => LaunchError::Issuer,
            ErrorKind::InvalidAudience => LaunchError::Audience,
            ErrorKind::MissingRequiredClaim(claim) => LaunchError::Claim(claim.clone()),
            _ => LaunchError::NotAJwt(e.to_string()),
        })?
        .claims;
    let claims = LaunchClaims::from_raw(&raw)?;
    check_times(&claims, jsonwebtoken::get_current_timestamp())?;
    check_claims(platform, &claims, nonce)?;
    Ok(claims)
}

/// `nbf` and `iat` must not lie in the future by more than [`LTI_CLOCK_LEEWAY_S`] (`now` in
/// seconds since the epoch); `exp` is checked with the signature.
pub(crate) fn check_times(claims: &LaunchClaims, now: u64) -> Result<(), LaunchError> {
    for (claim, at) in [("nbf", claims.nbf), ("iat", claims.iat)] {
        let Some(at) = at else { continue };
        let ahead = at - now as f64;
        if !ahead.is_finite() || ahead > LTI_CLOCK_LEEWAY_S as f64 {
            let ahead_s = if ahead.is_finite() { ahead.ceil() as u64 } else { u64::MAX };
            return Err(LaunchError::NotYetValid { claim, ahead_s });
        }
    }
    Ok(())
}

/// The checks after the signature: `azp`, nonce, deployment, message type, version.
pub(crate) fn check_claims(
    platform: &PlatformRecord,
    claims: &LaunchClaims,
    nonce: &str,
) -> Result<(), LaunchError> {
    let client_id = platform.platform.client_id.as_str();
    let audiences = claims.aud.all();
    match claims.azp.as_deref() {
        Some(azp) if azp != client_id => return Err(LaunchError::Azp),
        None if audiences.len() > 1 => return Err(LaunchError::Azp),
        _ => {}
    }
    if !crate::service::auth::tokens_equal(nonce, claims.nonce.as_deref().unwrap_or("")) {
        return Err(LaunchError::Nonce);
    }
    let deployment =
        claims.deployment_id.as_deref().ok_or_else(|| LaunchError::Claim("deployment_id".into()))?;
    if let Some(registered) = platform.platform.deployment_id.as_deref()
        && registered != deployment
    {
        return Err(LaunchError::Deployment(deployment.to_string()));
    }
    match claims.version.as_deref() {
        Some(LTI_VERSION) => {}
        other => return Err(LaunchError::Version(other.unwrap_or("").to_string())),
    }
    match claims.message_type.as_deref() {
        Some(RESOURCE_LINK | DEEP_LINKING) => Ok(()),
        other => Err(LaunchError::MessageType(other.unwrap_or("").to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::NewPlatform;

    fn platform(deployment: Option<&str>) -> PlatformRecord {
        PlatformRecord {
            id: 1,
            platform: NewPlatform {
                name: "moodle".into(),
                issuer: "https://lms.example".into(),
                client_id: "tool".into(),
                auth_url: "https://lms.example/auth".into(),
                token_url: "https://lms.example/token".into(),
                jwks_url: "https://lms.example/jwks".into(),
                deployment_id: deployment.map(str::to_string),
            },
            api_client_id: 1,
            created_at: 0,
        }
    }

    fn claims(changes: serde_json::Value) -> LaunchClaims {
        let mut base = serde_json::json!({
            "iss": "https://lms.example", "sub": "u1", "aud": "tool", "nonce": "n1",
            claim("message_type"): RESOURCE_LINK, claim("version"): LTI_VERSION, claim("deployment_id"): "d1",
        });
        for (key, value) in changes.as_object().unwrap() {
            base[key] = value.clone();
        }
        LaunchClaims::from_raw(&serde_json::from_str(&base.to_string()).unwrap()).unwrap()
    }

    #[test]
    fn each_claim_check_passes_the_right_launch_and_fails_its_mutant() {
        let p = platform(Some("d1"));
        assert_eq!(check_claims(&p, &claims(serde_json::json!({})), "n1"), Ok(()));
        let deep = claims(serde_json::json!({ claim("message_type"): DEEP_LINKING }));
        assert_eq!(check_claims(&p, &deep, "n1"), Ok(()));
        let two = claims(serde_json::json!({"aud": ["tool", "other"], "azp": "tool"}));
        assert_eq!(check_claims(&p, &two, "n1"), Ok(()));
        for (mutant, error) in [
            (serde_json::json!({"aud": ["tool", "other"]}), LaunchError::Azp),
            (serde_json::json!({"azp": "other"}), LaunchError::Azp),
            (serde_json::json!({"nonce": "n2"}), LaunchError::Nonce),
            (serde_json::json!({"nonce": null}), LaunchError::Nonce),
            (serde_json::json!({ claim("deployment_id"): "d2" }), LaunchError::Deployment("d2".into())),
            (serde_json::json!({ claim("deployment_id"): null }), LaunchError::Claim("deployment_id".into())),
            (serde_json::json!({ claim("version"): "1.1" }), LaunchError::Version("1.1".into())),
            (
                serde_json::json!({ claim("message_type"): "LtiSubmissionReviewRequest" }),
                LaunchError::MessageType("LtiSubmissionReviewRequest".into()),
            ),
        ] {
            assert_eq!(check_claims(&p, &claims(mutant.clone()), "n1"), Err(error), "{mutant}");
        }
        // Without a registered deployment, any deployment of the platform is taken.
        let any = claims(serde_json::json!({ claim("deployment_id"): "d2" }));
        assert_eq!(check_claims(&platform(None), &any, "n1"), Ok(()));
    }

    #[test]
    fn tokens_from_the_future_are_refused_beyond_the_leeway() {
        let now = 1_800_000_000u64;
        let at = |claim: &str, t: f64| {
            let mut c = claims(serde_json::json!({}));
            if claim == "nbf" {
                c.nbf = Some(t)
            } else {
                c.iat = Some(t)
            }
            c
        };
        for claim in ["nbf", "iat"] {
            assert_eq!(check_times(&at(claim, now as f64), now), Ok(()), "{claim} now");
            assert_eq!(check_times(&at(claim, (now - 3600) as f64), now), Ok(()), "{claim} past");
            let edge = (now + LTI_CLOCK_LEEWAY_S) as f64;
            assert_eq!(check_times(&at(claim, edge), now), Ok(()), "{claim} at the leeway");
            let expected = match claim {
                "nbf" => LaunchError::NotYetValid { claim: "nbf", ahead_s: 3600 },
                _ => LaunchError::NotYetValid { claim: "iat", ahead_s: 3600 },
            };
            assert_eq!(check_times(&at(claim, (now + 3600) as f64), now), Err(expected), "{claim} ahead");
            let error = check_times(&at(claim, edge + 0.5), now).unwrap_err();
            assert_eq!(error.code(), "not-yet-valid", "{claim} just past the leeway");
            assert!(error.text().en.contains(claim), "{}", error.text().en);
        }
    }

    #[test]
    fn a_claim_of_the_wrong_type_is_named_and_data_is_kept_as_signed() {
        let base = r#"{"iss":"https://lms.example","sub":"u1","aud":"tool"}"#;
        let with = |name: &str, value: &str| {
            let text = format!("{},\"{name}\":{value}}}", &base[..base.len() - 1]);
            LaunchClaims::from_raw(&serde_json::from_str(&text).unwrap())
        };
        for (name, value) in [
            ("sub", "7"),
            ("iat", "\"yesterday\""),
            (claim("custom").as_str(), "\"exercise=03\""),
            (claim("launch_presentation").as_str(), "[1]"),
            ("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings", r#"{"accept_types":[]}"#),
        ] {
            match with(name, value) {
                Err(LaunchError::ClaimType { claim, .. }) => assert_eq!(claim, name),
                other => panic!("{name} = {value}: {other:?}"),
            }
            let error = with(name, value).unwrap_err();
            assert!(error.text().de.contains(name) && error.text().en.contains(name), "{:?}", error.text());
        }
        assert!(with("sub", "null").unwrap().sub.is_none(), "null counts as absent");
        let data = r#"{"z": 1, "a": [2.50, 123456789012345678901234567890], "z": null}"#;
        for data in [data, "null", "\"opaque\"", "17"] {
            let settings = format!(r#"{{"deep_link_return_url": "https://lms.example/r", "data": {data}}}"#);
            let claims =
                with("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings", &settings)
                    .unwrap();
            let kept = claims.deep_linking.unwrap().data.unwrap();
            assert_eq!(kept.get(), data, "the text as signed");
        }
    }
}
