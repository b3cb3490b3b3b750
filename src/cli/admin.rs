//! The operator's commands: `pruefstein client`, `platform` (with the tool key's rollover) and
//! `regrade`, run against the store the configuration names.

use anyhow::Result;

use super::{ClientCommand, PlatformCommand};

/// `pruefstein regrade`.
pub(super) fn run_regrade(
    slug: &str,
    dry_run: bool,
    learners: Vec<String>,
    verdict: Option<String>,
    json: bool,
    serve: &crate::service::config::ServeArgs,
) -> Result<i32> {
    let config = crate::service::config::Config::resolve(serve)?;
    let request = crate::service::regrade::RegradeRequest {
        learners: (!learners.is_empty()).then_some(learners),
        verdict,
        dry_run,
    };
    let summary = crate::service::regrade::run_offline(&config, slug, &request)?;
    if json {
        println!("{}", crate::text::json_for_terminal(&serde_json::to_string_pretty(&summary)?));
    } else {
        print!("{}", crate::text::for_terminal(&crate::service::regrade::render_summary(&summary)));
    }
    Ok(0)
}

pub(super) fn run_client(command: ClientCommand, config: &crate::service::config::Config) -> Result<i32> {
    use crate::service::{clients, clock};
    match command {
        ClientCommand::Add { name, token_only, json, teacher } => {
            let (token, record) = clients::add(config, &name, teacher)?;
            if token_only {
                println!("{token}");
            } else if json {
                let value = serde_json::json!({
                    "name": record.name,
                    "token": token,
                    "webhook_secret": record.webhook_secret,
                    "teacher": record.teacher,
                });
                println!("{value}");
            } else {
                println!("client:         {}", record.name);
                println!("token:          {token}");
                println!("webhook secret: {}", record.webhook_secret);
                if record.teacher {
                    println!("role:           teacher (may regrade and read analytics)");
                }
                println!("The token is shown only now; Prüfstein keeps only its hash.");
            }
            Ok(0)
        }
        ClientCommand::List => {
            for client in clients::list(config)? {
                let state = match client.revoked_at {
                    Some(at) => format!("revoked {}", clock::rfc3339(at)),
                    None => "active".to_string(),
                };
                let role = if client.teacher { "teacher" } else { "client" };
                println!("{}\t{role}\tcreated {}\t{state}", client.name, clock::rfc3339(client.created_at));
            }
            Ok(0)
        }
        ClientCommand::Revoke { name } => {
            if clients::revoke(config, &name)? {
                println!("revoked {name}");
                Ok(0)
            } else {
                anyhow::bail!("there is no client named {name:?}")
            }
        }
        ClientCommand::Rotate { name, grace, token_only } => {
            let grace = grace.unwrap_or(crate::limits::CLIENT_TOKEN_GRACE_MS);
            let Some(token) = clients::rotate(config, &name, grace)? else {
                anyhow::bail!("there is no active client named {name:?}")
            };
            if token_only {
                println!("{token}");
            } else {
                println!("client:    {name}");
                println!("new token: {token}");
                println!(
                    "The token before stays valid until {}; put the new one into the LMS before then.",
                    clock::rfc3339(clock::now_ms() + grace as i64)
                );
            }
            Ok(0)
        }
        ClientCommand::JobeKey { name } => {
            let Some(key) = clients::jobe_key(config, &name)? else {
                anyhow::bail!("there is no active client named {name:?}")
            };
            println!("{key}");
            Ok(0)
        }
        ClientCommand::Remove { name } => {
            if clients::remove(config, &name)? {
                println!("removed {name}; the name may be used for a new client");
                Ok(0)
            } else {
                anyhow::bail!("there is no client named {name:?}")
            }
        }
    }
}

pub(super) fn run_platform(command: PlatformCommand, config: &crate::service::config::Config) -> Result<i32> {
    use crate::service::{platforms, store::NewPlatform};
    match command {
        PlatformCommand::Add {
            name,
            issuer,
            client_id,
            auth_url,
            token_url,
            jwks_url,
            deployment_id,
            json,
        } => {
            let platform =
                NewPlatform { name, issuer, client_id, auth_url, token_url, jwks_url, deployment_id };
            for note in platforms::private_notes(&platform) {
                eprintln!("{note}");
            }
            let (token, record) = platforms::add(config, platform)?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"name": record.platform.name, "api_client": format!("lti-{}", record.platform.name), "token": token})
                );
            } else {
                println!("platform:   {} ({})", record.platform.name, record.platform.issuer);
                println!("API client: lti-{} with token {token}", record.platform.name);
                println!("  (shown only now: it lists and redelivers the platform's dead score events)");
                println!("At the platform, register the tool with (PUBLIC_URL as `serve --public-url`):");
                println!("  tool URL / redirect URI:   PUBLIC_URL/lti/launch");
                println!("  initiate login URL:        PUBLIC_URL/lti/login");
                println!("  public keyset (JWKS) URL:  PUBLIC_URL/lti/jwks");
                println!("  deep linking URL:          PUBLIC_URL/lti/launch");
            }
            Ok(0)
        }
        PlatformCommand::Update {
            name,
            issuer,
            client_id,
            auth_url,
            token_url,
            jwks_url,
            deployment_id,
            any_deployment,
        } => {
            let updated = platforms::update(config, &name, |p| {
                let replace =
                    |field: &mut String, value: Option<String>| *field = value.unwrap_or(field.clone());
                replace(&mut p.issuer, issuer);
                replace(&mut p.client_id, client_id);
                replace(&mut p.auth_url, auth_url);
                replace(&mut p.token_url, token_url);
                replace(&mut p.jwks_url, jwks_url);
                if any_deployment {
                    p.deployment_id = None;
                } else if deployment_id.is_some() {
                    p.deployment_id = deployment_id;
                }
            })?;
            let Some(platform) = updated else { anyhow::bail!("there is no platform named {name:?}") };
            for note in platforms::private_notes(&platform) {
                eprintln!("{note}");
            }
            println!("updated {name} ({})", platform.issuer);
            Ok(0)
        }
        PlatformCommand::Remove { name } => {
            if !platforms::remove(config, &name)? {
                anyhow::bail!("there is no platform named {name:?}")
            }
            println!("removed {name}: its launches are refused from now on");
            Ok(0)
        }
        PlatformCommand::ToolKey { rotate, switch_after, withdraw_after, switch, withdraw } => {
            run_tool_key(config, rotate, switch_after, withdraw_after, switch, withdraw)
        }
        PlatformCommand::List => {
            for record in platforms::list(config)? {
                let p = &record.platform;
                println!(
                    "{}\t{}\tclient {}\tdeployment {}",
                    p.name,
                    p.issuer,
                    p.client_id,
                    p.deployment_id.as_deref().unwrap_or("(any)")
                );
            }
            Ok(0)
        }
    }
}

/// `pruefstein platform tool-key`: shows the tool's keys, or takes a step of a rollover.
fn run_tool_key(
    config: &crate::service::config::Config,
    rotate: bool,
    switch_after: Option<u64>,
    withdraw_after: Option<u64>,
    switch: bool,
    withdraw: bool,
) -> Result<i32> {
    use crate::service::clock::{now_ms, rfc3339};
    use crate::service::lti::rollover;
    let store = crate::service::shared::open_store(config)?;
    let now = now_ms();
    let keys = if rotate {
        let switch_after = switch_after.unwrap_or(crate::limits::LTI_KEY_SWITCH_AFTER_MS);
        let withdraw_after = withdraw_after.unwrap_or(crate::limits::LTI_KEY_WITHDRAW_AFTER_MS);
        rollover::rotate(store.as_ref(), now, switch_after, withdraw_after)
    } else if switch {
        rollover::switch_now(store.as_ref(), now)
    } else if withdraw {
        rollover::withdraw_now(store.as_ref(), now)
    } else {
        rollover::load(store.as_ref(), now)
    }
    .map_err(anyhow::Error::msg)?;
    println!("signing:  {}", keys.signing.kid);
    if let Some((key, at)) = &keys.next {
        println!("next:     {} (published; signs from {})", key.kid, rfc3339(*at));
    }
    if let Some((key, until)) = &keys.previous {
        println!("previous: {} (published until {})", key.kid, rfc3339(*until));
    }
    println!("A running server publishes the change at /lti/jwks within a minute.");
    Ok(0)
}
