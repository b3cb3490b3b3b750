//! LTI 1.3: logins, key sets, launches, score passback, the tool key's rollover.

/// How long an OIDC login initiation (its `state` and `nonce`) waits for its launch, in ms.
pub const LTI_STATE_TTL_MS: u64 = 10 * 60 * 1000;
/// LTI logins waiting for their launch on one node, per client address and platform (`lti::logins`).
pub const LTI_LOGINS_PER_ADDRESS_MAX: usize = 200;
pub const LTI_LOGINS_PER_PLATFORM_MAX: usize = 2_000;
/// One exchange with a platform (its JWKS, its token endpoint), lookup to answer, in ms.
pub const LTI_FETCH_MS_MAX: u64 = 5_000;
/// Largest answer of a platform's JWKS or token endpoint that is read, in bytes.
pub const LTI_FETCH_BYTES_MAX: usize = 64 * 1024;
/// Largest form a platform may post to the tool (a launch with its `id_token`), in bytes.
pub const LTI_FORM_BYTES_MAX: usize = 64 * 1024;
/// Longest value of one login or launch parameter other than the `id_token`, in bytes.
pub const LTI_PARAM_BYTES_MAX: usize = 2_048;
/// Longest deep-linking `data` (its JSON text) carried through the picker (in base64url), in bytes.
pub const LTI_DEEP_LINK_DATA_BYTES_MAX: usize = LTI_PARAM_BYTES_MAX / 4 * 3;
/// Lifetime of the tool's own JWTs (client assertions, deep-linking responses), in seconds.
pub const LTI_JWT_TTL_S: u64 = 300;
/// An access token for score passback is used until this long before it expires, in seconds.
pub const LTI_TOKEN_MARGIN_S: u64 = 30;
/// A platform's JWKS (`lti::jwks`): refetch interval, longest and default lifetime, in ms.
pub const LTI_JWKS_INTERVAL_MS: u64 = 60_000;
pub const LTI_JWKS_MAX_AGE_MS: u64 = 24 * 60 * 60 * 1000;
pub const LTI_JWKS_MAX_AGE_DEFAULT_MS: u64 = 60 * 60 * 1000;
/// Clock difference allowed for a platform's `exp`, `nbf` and `iat`, in seconds.
pub const LTI_CLOCK_LEEWAY_S: u64 = 60;
/// Bits of the tool's RSA key, generated on first use and kept in the store.
pub const LTI_KEY_BITS: usize = 2048;
/// A running server reads the tool's keys again at least this often, so that a rollover started
/// from the command line (`platform tool-key --rotate`) is published within a minute.
pub const LTI_TOOL_KEYS_REFRESH_MS: u64 = 60_000;
/// A rollover of the tool's key: how long the new key is published before it signs (every
/// platform must have fetched it: their caches hold a JWKS for up to a day), and how long the key
/// before stays published after the switch (for the short-lived JWTs it signed).
pub const LTI_KEY_SWITCH_AFTER_MS: u64 = 24 * 3600 * 1000;
pub const LTI_KEY_WITHDRAW_AFTER_MS: u64 = 24 * 3600 * 1000;
