//! `pruefstein platform add|list|update|remove|tool-key`: the LTI 1.3 platforms registered with the
//! tool.

use anyhow::Result;

use crate::service::config::Config;
use crate::service::shared::open_store;
use crate::service::store::{NewPlatform, PlatformRecord};
use crate::service::{auth, clock, lti, outbound};

/// Checks a registration: a name as for clients, http(s) URLs, values of sane length.
pub(crate) fn validate(platform: &NewPlatform) -> Result<()> {
    let name = &platform.name;
    if name.is_empty()
        || name.len() + 4 > crate::limits::CLIENT_NAME_BYTES_MAX
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        anyhow::bail!(
            "a platform name is 1 to {} letters, digits, '-', '_' or '.'",
            crate::limits::CLIENT_NAME_BYTES_MAX - 4
        );
    }
    for (flag, url) in [
        ("--issuer", &platform.issuer),
        ("--auth-url", &platform.auth_url),
        ("--token-url", &platform.token_url),
        ("--jwks-url", &platform.jwks_url),
    ] {
        if url.len() > crate::limits::LTI_PARAM_BYTES_MAX || lti::origin(url).is_none() {
            anyhow::bail!("{flag} {url:?} is not an http or https URL");
        }
    }
    for (flag, value) in
        [("--client-id", Some(&platform.client_id)), ("--deployment-id", platform.deployment_id.as_ref())]
    {
        if let Some(value) = value
            && (value.is_empty()
                || value.len() > crate::limits::LTI_PARAM_BYTES_MAX
                || value.chars().any(char::is_control))
        {
            anyhow::bail!(
                "{flag} must be 1 to {} bytes without control characters",
                crate::limits::LTI_PARAM_BYTES_MAX
            );
        }
    }
    Ok(())
}

/// The notes for a registration whose URLs name a non-public address (an IP literal: names
/// are resolved only when the service connects): the service reaches them only with
/// `--allow-private-callbacks`.
pub(crate) fn private_notes(platform: &NewPlatform) -> Vec<String> {
    [("--issuer", &platform.issuer), ("--token-url", &platform.token_url), ("--jwks-url", &platform.jwks_url)]
        .into_iter()
        .filter(|(_, url)| {
            outbound::parse_target(url, false).is_err() && outbound::parse_target(url, true).is_ok()
        })
        .map(|(flag, url)| {
            format!(
                "note: {flag} {url} is on a loopback or private address: the service fetches the \
                 platform's keys and posts scores there only when it runs with \
                 --allow-private-callbacks"
            )
        })
        .collect()
}

/// Registers a platform with an API client of its own (`lti-NAME`); returns that client's
/// token (to be shown once) and the registration.
pub(crate) fn add(config: &Config, platform: NewPlatform) -> Result<(String, PlatformRecord)> {
    validate(&platform)?;
    let store = open_store(config)?;
    if let Some(taken) = store.list_platforms()?.into_iter().find(|p| {
        p.platform.name == platform.name
            || (p.platform.issuer == platform.issuer && p.platform.client_id == platform.client_id)
    }) {
        anyhow::bail!(
            "the platform {:?} has this name, or this issuer and client id, already",
            taken.platform.name
        );
    }
    let token = auth::new_token().map_err(anyhow::Error::msg)?;
    let secret = auth::new_webhook_secret().map_err(anyhow::Error::msg)?;
    let now = clock::now_ms();
    let client =
        store.add_client(&format!("lti-{}", platform.name), &auth::token_hash(&token), &secret, now)?;
    let record = store.add_platform(&platform, client.id, now)?;
    Ok((token, record))
}

pub(crate) fn list(config: &Config) -> Result<Vec<PlatformRecord>> {
    Ok(open_store(config)?.list_platforms()?)
}

/// Changes a registration: `change` edits a copy of the one stored, which must still pass
/// [`validate`]. None: no platform of that name.
pub(crate) fn update(
    config: &Config,
    name: &str,
    change: impl FnOnce(&mut NewPlatform),
) -> Result<Option<NewPlatform>> {
    let store = open_store(config)?;
    let Some(record) = store.list_platforms()?.into_iter().find(|p| p.platform.name == name) else {
        return Ok(None);
    };
    let mut platform = record.platform;
    change(&mut platform);
    validate(&platform)?;
    Ok(store.update_platform(&platform)?.then_some(platform))
}

/// Removes a registration, its pending logins and launch contexts, and its API client.
pub(crate) fn remove(config: &Config, name: &str) -> Result<bool> {
    Ok(open_store(config)?.remove_platform(name, clock::now_ms())?)
}
