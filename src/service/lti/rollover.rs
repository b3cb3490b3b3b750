//! The tool key's rollover, as the LTI security framework describes key rotation: a new key is
//! published in the JWKS beside the one that signs, long enough for every platform to have fetched
//! it; then it signs, and the key before stays published for the JWTs it signed that are still in
//! flight; then that one is withdrawn.
//!
//! The state is four settings in the store beside the signing key ([`KEY_SETTING`]): the next key
//! and when it takes over, how long the key before stays published after that, and the previous key
//! with the end of its publication. Every node computes the keys in force from them and the time
//! ([`load`]); the one that finds a due change writes it (the same writes whichever node does it).
//! `pruefstein platform tool-key` starts a rollover ([`rotate`]) and may take its steps early
//! ([`switch_now`], [`withdraw_now`]); a running server notices within
//! [`LTI_TOOL_KEYS_REFRESH_MS`](crate::limits::LTI_TOOL_KEYS_REFRESH_MS).

use std::sync::Arc;

use serde_json::{Value, json};

use super::Context;
use super::keys::{KEY_SETTING, ToolKey, generate_pem};
use crate::service::store::{Millis, Store};

/// The next key (PKCS#8 PEM), published before it signs.
const NEXT: &str = "lti_tool_key_next";
/// When the next key takes over signing (ms since the epoch).
const NEXT_AT: &str = "lti_tool_key_next_at";
/// How long, after the switch, the key before stays published (ms).
const WITHDRAW_AFTER: &str = "lti_tool_key_withdraw_after_ms";
/// The key that signed before the last switch, still published.
const PREVIOUS: &str = "lti_tool_key_previous";
/// When the previous key is withdrawn (ms since the epoch).
const PREVIOUS_UNTIL: &str = "lti_tool_key_previous_until";

/// The tool's keys at one moment: the one that signs, and those published beside it.
#[derive(Debug)]
pub(crate) struct ToolKeys {
    pub signing: Arc<ToolKey>,
    /// The next key and when it signs.
    pub next: Option<(Arc<ToolKey>, Millis)>,
    /// The key before and when it is withdrawn.
    pub previous: Option<(Arc<ToolKey>, Millis)>,
}

impl ToolKeys {
    /// Every published key as a JWKS: the signing key first.
    pub(crate) fn jwks(&self) -> Value {
        let mut keys = vec![self.signing.jwk.clone()];
        keys.extend(self.next.iter().map(|(key, _)| key.jwk.clone()));
        keys.extend(self.previous.iter().map(|(key, _)| key.jwk.clone()));
        json!({ "keys": keys })
    }

    /// The next moment these keys change by themselves (a switch or a withdrawal).
    pub(crate) fn changes_at(&self) -> Option<Millis> {
        let next = self.next.as_ref().map(|(_, at)| *at);
        let previous = self.previous.as_ref().map(|(_, until)| *until);
        next.into_iter().chain(previous).min()
    }
}

fn setting(store: &dyn Store, key: &str) -> Result<Option<String>, String> {
    store.setting(key).map_err(|e| e.to_string())
}

fn put(store: &dyn Store, key: &str, value: Option<&str>) -> Result<(), String> {
    store.put_setting(key, value).map_err(|e| e.to_string())
}

fn millis(store: &dyn Store, key: &str) -> Result<Option<Millis>, String> {
    Ok(setting(store, key)?.and_then(|v| v.parse().ok()))
}

/// The keys in force at `now`: the signing key generated on first use; a next key whose time has
/// come made the signing key (the one before published until its withdrawal); a previous key whose
/// time is over withdrawn. Blocking.
pub(crate) fn load(store: &dyn Store, now: Millis) -> Result<ToolKeys, String> {
    let current = match setting(store, KEY_SETTING)? {
        Some(pem) => pem,
        None => {
            let pem = store.setting_or_insert(KEY_SETTING, &generate_pem()?).map_err(|e| e.to_string())?;
            tracing::info!(event = "lti_key_generated");
            pem
        }
    };
    if let (Some(next), Some(at)) = (setting(store, NEXT)?, millis(store, NEXT_AT)?)
        && at <= now
    {
        let keep = millis(store, WITHDRAW_AFTER)?.unwrap_or(0);
        put(store, PREVIOUS, Some(&current))?;
        put(store, PREVIOUS_UNTIL, Some(&(at + keep).to_string()))?;
        put(store, KEY_SETTING, Some(&next))?;
        for key in [NEXT, NEXT_AT, WITHDRAW_AFTER] {
            put(store, key, None)?;
        }
        tracing::warn!(event = "lti_key_switched", "the tool's next key signs from now on");
        return load(store, now);
    }
    if millis(store, PREVIOUS_UNTIL)?.is_some_and(|until| until <= now) {
        put(store, PREVIOUS, None)?;
        put(store, PREVIOUS_UNTIL, None)?;
        tracing::info!(event = "lti_key_withdrawn", "the tool's previous key is no longer published");
    }
    let with_time =
        |pem: Option<String>, at: Option<Millis>| -> Result<Option<(Arc<ToolKey>, Millis)>, String> {
            match (pem, at) {
                (Some(pem), Some(at)) => Ok(Some((Arc::new(ToolKey::from_pem(&pem)?), at))),
                _ => Ok(None),
            }
        };
    Ok(ToolKeys {
        signing: Arc::new(ToolKey::from_pem(&current)?),
        next: with_time(setting(store, NEXT)?, millis(store, NEXT_AT)?)?,
        previous: with_time(setting(store, PREVIOUS)?, millis(store, PREVIOUS_UNTIL)?)?,
    })
}

/// Starts a rollover: a new key, published at once, signing from `now + switch_after_ms`; the key
/// it replaces stays published `withdraw_after_ms` longer. Refused while a rollover waits for its
/// switch. Blocking (it makes an RSA key).
pub(crate) fn rotate(
    store: &dyn Store,
    now: Millis,
    switch_after_ms: u64,
    withdraw_after_ms: u64,
) -> Result<ToolKeys, String> {
    let keys = load(store, now)?;
    if let Some((next, at)) = &keys.next {
        return Err(format!(
            "a rollover is under way: the key {} signs from {}; switch to it first (--switch)",
            next.kid,
            crate::service::clock::rfc3339(*at)
        ));
    }
    put(store, NEXT, Some(&generate_pem()?))?;
    put(store, NEXT_AT, Some(&(now + switch_after_ms as Millis).to_string()))?;
    put(store, WITHDRAW_AFTER, Some(&withdraw_after_ms.to_string()))?;
    load(store, now)
}

/// Lets the next key sign now (the operator knows every platform has it).
pub(crate) fn switch_now(store: &dyn Store, now: Millis) -> Result<ToolKeys, String> {
    if setting(store, NEXT)?.is_none() {
        return Err("no rollover is under way: there is no next key to switch to (--rotate)".into());
    }
    put(store, NEXT_AT, Some(&now.to_string()))?;
    load(store, now)
}

/// Withdraws the previous key now (no JWT it signed is still in use).
pub(crate) fn withdraw_now(store: &dyn Store, now: Millis) -> Result<ToolKeys, String> {
    if setting(store, PREVIOUS)?.is_none() {
        return Err("there is no previous key to withdraw".into());
    }
    put(store, PREVIOUS_UNTIL, Some(&now.to_string()))?;
    load(store, now)
}

/// The tool's keys: loaded from the store (the signing key generated on first use), kept until
/// they change by themselves or [`crate::limits::LTI_TOOL_KEYS_REFRESH_MS`] passes (a rollover
/// started from the command line reaches a running server within that). Blocking: call it off the
/// executor.
pub(crate) fn tool_keys(service: &Context<'_>) -> Result<Arc<ToolKeys>, String> {
    let now = crate::service::clock::now_ms();
    let mut cached = service.lti.key.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((keys, until)) = cached.as_ref()
        && now < *until
    {
        return Ok(keys.clone());
    }
    let keys = Arc::new(load(service.store, now)?);
    let refresh = now + service.config.lti_tool_keys_refresh_ms as Millis;
    let until = keys.changes_at().map_or(refresh, |at| at.min(refresh));
    *cached = Some((keys.clone(), until));
    Ok(keys)
}

/// The key that signs the tool's JWTs now.
pub(crate) fn tool_key(service: &Context<'_>) -> Result<Arc<ToolKey>, String> {
    Ok(tool_keys(service)?.signing.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::sqlite::{Durability, SqliteStore};

    fn kids(keys: &ToolKeys) -> Vec<String> {
        keys.jwks()["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["kid"].as_str().unwrap().to_string())
            .collect()
    }

    /// The rollover's three phases by the clock: both keys published with the old one signing, the
    /// new one signing with the old one still published, the new one alone.
    #[test]
    fn a_rollover_publishes_then_switches_then_withdraws() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        let old = load(&store, 0).unwrap();
        assert_eq!(kids(&old), std::slice::from_ref(&old.signing.kid));
        assert_eq!(load(&store, 5).unwrap().signing.kid, old.signing.kid, "generated once");

        let started = rotate(&store, 1_000, 10_000, 5_000).unwrap();
        let new = started.next.as_ref().unwrap().0.kid.clone();
        assert_eq!(started.signing.kid, old.signing.kid, "the old key signs while the new one spreads");
        assert_eq!(kids(&started), [old.signing.kid.clone(), new.clone()]);
        assert_eq!(started.changes_at(), Some(11_000));
        assert!(rotate(&store, 2_000, 1, 1).unwrap_err().contains("under way"));

        let switched = load(&store, 11_000).unwrap();
        assert_eq!(switched.signing.kid, new);
        assert_eq!(kids(&switched), [new.clone(), old.signing.kid.clone()]);
        assert_eq!(switched.changes_at(), Some(16_000));
        let withdrawn = load(&store, 16_000).unwrap();
        assert_eq!(kids(&withdrawn), std::slice::from_ref(&new));
        assert_eq!(withdrawn.changes_at(), None);
        assert!(withdraw_now(&store, 17_000).is_err(), "nothing left to withdraw");
    }

    /// The operator may take the steps early; each refuses when there is nothing to do.
    #[test]
    fn a_rollover_switches_and_withdraws_when_told() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path(), Durability::Normal).unwrap();
        assert!(switch_now(&store, 0).unwrap_err().contains("no rollover"));
        let old = load(&store, 0).unwrap().signing.kid.clone();
        let started = rotate(&store, 0, 86_400_000, 86_400_000).unwrap();
        let new = started.next.unwrap().0.kid.clone();
        let switched = switch_now(&store, 10).unwrap();
        assert_eq!(
            (switched.signing.kid.clone(), switched.previous.unwrap().0.kid.clone()),
            (new.clone(), old)
        );
        let withdrawn = withdraw_now(&store, 20).unwrap();
        assert_eq!(kids(&withdrawn), [new]);
    }
}
