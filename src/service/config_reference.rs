//! The configuration reference, generated from the code: every setting of `pruefstein serve` with its
//! flag, environment variable, key in the TOML file and default value. The flags and their help come
//! from [`ServeArgs`] (what clap parses), the defaults from [`Config::default`] (what is in force
//! when nothing is given): [`CONFIGURATION.md`](../../CONFIGURATION.md) is [`markdown`]'s output,
//! kept equal by a test, and `pruefstein serve --help` shows the same defaults ([`with_defaults`]),
//! so no default is written twice.

use clap::{Args, Command};
use serde_json::Value;

use super::config::{Config, ServeArgs};

/// What an argument's default is, in the operator's words: the value in force without it.
fn default_text(key: &str, defaults: &serde_json::Map<String, Value>) -> String {
    match (key, defaults.get(key)) {
        ("workers", _) => "the number of cores".into(),
        ("node_id", _) => "the host name and the bind address".into(),
        ("public_url", _) => "http:// and the bind address".into(),
        ("course_secret" | "report_secret", _) => "generated once and kept in the database".into(),
        ("database", _) => "none: SQLite in the data directory".into(),
        ("admin_bind", _) => "none: the operator's routes on the public address".into(),
        ("trusted_proxies", _) => "none: the connection's peer is the client".into(),
        ("retention_days", _) => "none: kept until erased".into(),
        (_, Some(Value::Null)) | (_, None) => "none".into(),
        (_, Some(Value::Array(items))) if items.is_empty() => "none".into(),
        (_, Some(Value::Bool(true))) => "on".into(),
        (_, Some(Value::Bool(false))) => "off".into(),
        (_, Some(Value::String(text))) => text.clone(),
        (_, Some(other)) => other.to_string(),
    }
}

/// One row of the reference. `--help`'s defaults read `id` and `default`; the rest is for
/// `CONFIGURATION.md`, which the tests write and compare.
#[cfg_attr(not(test), allow(dead_code))]
struct Row {
    /// clap's id of the argument (the field's name).
    id: String,
    flag: String,
    env: String,
    /// The key in the TOML file; None for a start-up action or the file itself.
    key: Option<String>,
    default: Option<String>,
    help: String,
    hidden: bool,
}

fn rows() -> Vec<Row> {
    let defaults = match serde_json::to_value(Config::default()) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let command = ServeArgs::augment_args(Command::new("serve"));
    command
        .get_arguments()
        .filter_map(|arg| {
            let long = arg.get_long()?;
            // The file's key is the field's name (`--trusted-proxy` sets `trusted_proxies`).
            let key = arg.get_id().to_string();
            let in_file = defaults.contains_key(&key);
            Some(Row {
                id: arg.get_id().to_string(),
                flag: format!("--{long}"),
                env: arg.get_env().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default(),
                default: in_file.then(|| default_text(&key, &defaults)),
                key: in_file.then_some(key),
                help: arg.get_long_help().or(arg.get_help()).map(|h| h.to_string()).unwrap_or_default(),
                hidden: arg.is_hide_set(),
            })
        })
        .collect()
}

#[cfg(test)]
/// `CONFIGURATION.md`: every setting, its default and the order of precedence.
pub(crate) fn markdown() -> String {
    let mut out = String::from(
        "# Configuration reference\n\n\
         <!-- Generated from the code (src/service/config_reference.rs); a test keeps it equal.\n     \
         Rewrite it with `PRUEFSTEIN_BLESS=1 cargo test --lib config_reference`. -->\n\n\
         Every setting of `pruefstein serve` can be given as a flag, as an environment variable, or as\n\
         a key in a TOML file named with `--config` (or `PRUEFSTEIN_CONFIG`). **Precedence: a flag over\n\
         its environment variable over the file over the default.** An unknown key in the file stops\n\
         the start and names the valid keys. `pruefstein serve --help` shows the same defaults.\n\n\
         | setting | flag | environment variable | default |\n|---|---|---|---|\n",
    );
    let rows = rows();
    for row in rows.iter().filter(|r| r.key.is_some()) {
        out.push_str(&format!(
            "| `{}` | `{}` | `{}` | {} |\n",
            row.key.as_deref().unwrap_or_default(),
            row.flag,
            row.env,
            row.default.as_deref().unwrap_or("none")
        ));
    }
    out.push_str("\n## What each setting does\n\n");
    for row in rows.iter().filter(|r| r.key.is_some()) {
        let hidden = if row.hidden { " (not in `--help`: meant for tests and unusual set-ups)" } else { "" };
        out.push_str(&format!(
            "- **`{}`**{hidden}: {} Default: {}.\n",
            row.key.as_deref().unwrap_or_default(),
            one_line(&row.help),
            row.default.as_deref().unwrap_or("none")
        ));
    }
    out.push_str(
        "\n## Actions at start\n\nThese are flags and environment variables only (no key in the file): \
         they act once, at the start they are given to.\n\n",
    );
    // `--config` is the file itself, told in the introduction.
    for row in rows.iter().filter(|r| r.key.is_none() && r.id != "config") {
        out.push_str(&format!("- `{}` (`{}`): {}\n", row.flag, row.env, one_line(&row.help)));
    }
    out
}

/// A help text on one line.
#[cfg(test)]
fn one_line(help: &str) -> String {
    let text = help.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.ends_with('.') { text } else { format!("{text}.") }
}

/// The `serve` command with each setting's default appended to its help, as `CONFIGURATION.md`
/// states it.
pub(crate) fn with_defaults(serve: Command) -> Command {
    let defaults: Vec<(String, String)> =
        rows().into_iter().filter_map(|r| Some((r.id, r.default?))).collect();
    defaults.into_iter().fold(serve, |command, (id, default)| {
        command.mut_arg(id.as_str(), |arg| {
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            arg.help(format!("{help} [default: {default}]"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CONFIGURATION.md is what the code says; rewrite it with `PRUEFSTEIN_BLESS=1`.
    #[test]
    fn the_configuration_reference_is_generated_from_the_code() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("CONFIGURATION.md");
        let generated = markdown();
        if std::env::var_os("PRUEFSTEIN_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == generated, "CONFIGURATION.md is out of date: bless it (see its first lines)");
    }

    /// Every key the file takes is documented with a flag, a variable and a default, and every
    /// documented key is one the file takes (parsing a file with it succeeds).
    #[test]
    fn every_setting_has_a_flag_a_variable_and_a_default_and_no_other_key_is_listed() {
        let defaults = match serde_json::to_value(Config::default()).unwrap() {
            Value::Object(map) => map,
            other => panic!("{other}"),
        };
        let rows = rows();
        for key in defaults.keys() {
            let row = rows.iter().find(|r| r.key.as_deref() == Some(key.as_str()));
            let row = row.unwrap_or_else(|| panic!("the file key {key} has no flag"));
            assert!(row.env.starts_with("PRUEFSTEIN_") && row.default.is_some(), "{key}");
            assert!(!row.help.is_empty() && !row.help.contains("[default"), "{key}: {}", row.help);
        }
        assert_eq!(rows.iter().filter(|r| r.key.is_some()).count(), defaults.len());
        let text = markdown();
        assert!(!text.contains("see limits"), "every default is a value");
    }

    #[test]
    fn serve_help_shows_the_defaults() {
        let serve = with_defaults(ServeArgs::augment_args(Command::new("serve")));
        let bind = serve.get_arguments().find(|a| a.get_long() == Some("bind")).unwrap();
        assert_eq!(bind.get_help().unwrap().to_string(), "Address to listen on [default: 127.0.0.1:8080]");
        let attempts = serve.get_arguments().find(|a| a.get_long() == Some("webhook-attempts")).unwrap();
        assert!(
            attempts
                .get_help()
                .unwrap()
                .to_string()
                .ends_with(&format!("[default: {}]", crate::limits::WEBHOOK_ATTEMPTS_MAX))
        );
    }
}
