//! `pruefstein client add|list|revoke|rotate|jobe-key|remove`: the API clients (learning platforms
//! and teachers) and their tokens.

use anyhow::Result;

use crate::service::config::Config;
use crate::service::shared::open_store;
use crate::service::{auth, clock, store};

/// Adds a client (a teacher's, if `teacher`) and returns its token (to be shown once) and its
/// record.
pub(crate) fn add(config: &Config, name: &str, teacher: bool) -> Result<(String, store::ClientRecord)> {
    let name = name.trim();
    if name.is_empty()
        || name.len() > crate::limits::CLIENT_NAME_BYTES_MAX
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        anyhow::bail!(
            "a client name is 1 to {} letters, digits, '-', '_' or '.'",
            crate::limits::CLIENT_NAME_BYTES_MAX
        );
    }
    let store = open_store(config)?;
    let token = auth::new_token().map_err(anyhow::Error::msg)?;
    let secret = auth::new_webhook_secret().map_err(anyhow::Error::msg)?;
    let mut record = store.add_client(name, &auth::token_hash(&token), &secret, clock::now_ms())?;
    if teacher {
        store.set_teacher(name, true)?;
        record.teacher = true;
    }
    Ok((token, record))
}

pub(crate) fn list(config: &Config) -> Result<Vec<store::ClientRecord>> {
    Ok(open_store(config)?.list_clients()?)
}

pub(crate) fn revoke(config: &Config, name: &str) -> Result<bool> {
    Ok(open_store(config)?.revoke_client(name, clock::now_ms())?)
}

/// Gives a client a new token (returned, to be shown once); the one before stays valid for
/// `grace_ms` (at most [`crate::limits::CLIENT_TOKEN_GRACE_MS_MAX`]). None: no such active client.
pub(crate) fn rotate(config: &Config, name: &str, grace_ms: u64) -> Result<Option<String>> {
    if grace_ms > crate::limits::CLIENT_TOKEN_GRACE_MS_MAX {
        anyhow::bail!(
            "the grace period may be at most {} days (client_token_grace_ms_max)",
            crate::limits::CLIENT_TOKEN_GRACE_MS_MAX / 86_400_000
        );
    }
    let token = auth::new_token().map_err(anyhow::Error::msg)?;
    let now = clock::now_ms();
    let rotated = open_store(config)?.rotate_client_token(
        name,
        &auth::token_hash(&token),
        now + grace_ms as i64,
        now,
    )?;
    Ok(rotated.then_some(token))
}

/// A key for the client valid on the Jobe-compatible endpoint only (at most
/// [`crate::limits::JOBE_KEY_CHARS_MAX`] characters, for CodeRunner's key field). None: no such
/// active client.
pub(crate) fn jobe_key(config: &Config, name: &str) -> Result<Option<String>> {
    let key = auth::new_jobe_key().map_err(anyhow::Error::msg)?;
    let added = open_store(config)?.add_client_token(
        name,
        &auth::token_hash(&key),
        store::TokenScope::Jobe,
        clock::now_ms(),
    )?;
    Ok(added.then_some(key))
}

/// Removes a client: revoked, its tokens gone, its name free again; its submissions stay.
pub(crate) fn remove(config: &Config, name: &str) -> Result<bool> {
    Ok(open_store(config)?.remove_client(name, clock::now_ms())?)
}
