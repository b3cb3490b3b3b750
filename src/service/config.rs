//! The service's configuration: command-line flags over environment variables over an optional TOML
//! file over defaults, merged once by `figment`. Each setting is declared once as a flag (with its
//! variable and help: `pruefstein serve --help` lists them) in [`ServeArgs`], and once as the
//! typed value in force, with its default, in [`Config`]; the TOML file has the same keys as
//! [`Config`] and nothing else.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use figment::Figment;
use figment::providers::{Format, Serialized, Toml};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::store::sqlite::Durability;
use crate::grade::Compiler;
use crate::limits;

/// Flags (and environment variables) of `pruefstein serve`; every one overrides the TOML file.
/// Given ones are merged over the file as they are named here; unset ones leave it alone.
#[derive(Debug, Clone, Default, clap::Args, Serialize)]
pub struct ServeArgs {
    /// A TOML file with any of the settings below (keys as the flags, with '_' for '-').
    #[arg(long, env = "PRUEFSTEIN_CONFIG")]
    #[serde(skip)]
    pub config: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, env = "PRUEFSTEIN_BIND")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bind: Option<String>,
    /// A second address for the operator's routes (/metrics, /readyz with the node's details,
    /// /healthz); the public address then serves /readyz as "ready" or "not ready" alone and no
    /// /metrics.
    #[arg(long, env = "PRUEFSTEIN_ADMIN_BIND")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_bind: Option<String>,
    /// Where the database lives; created and migrated on first start.
    #[arg(long, env = "PRUEFSTEIN_DATA_DIR")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
    /// Where grading processes keep compiled interpreters and reference solutions between processes;
    /// without it, `modules` in the data directory. Several nodes or servers of one user may share
    /// one.
    #[arg(long, env = "PRUEFSTEIN_MODULE_CACHE_DIR")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_cache: Option<PathBuf>,
    /// A PostgreSQL database (`postgres://user@host/db`) that several nodes share; without it, SQLite
    /// in the data directory (one node).
    #[arg(long, env = "PRUEFSTEIN_DATABASE", hide_env_values = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// This node's name on a shared database, unique among the nodes: its leases carry it, and at
    /// start it gives back only the leases under its name.
    #[arg(long, env = "PRUEFSTEIN_NODE_ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    /// The exercise folders to serve.
    #[arg(long, env = "PRUEFSTEIN_EXERCISES")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exercises: Option<PathBuf>,
    /// The graders' student-facing files (ABI guide, starter kits).
    #[arg(long, env = "PRUEFSTEIN_GRADERS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graders: Option<PathBuf>,
    /// Grading threads.
    #[arg(long, env = "PRUEFSTEIN_WORKERS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workers: Option<usize>,
    /// The address clients and students reach this service at, for links.
    #[arg(long, env = "PRUEFSTEIN_PUBLIC_URL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_url: Option<String>,
    /// The course secret that derives learner variants (as for `pruefstein grade`).
    #[arg(long, env = "PRUEFSTEIN_COURSE_SECRET", hide_env_values = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub course_secret: Option<String>,
    /// The key of report links.
    #[arg(long, env = "PRUEFSTEIN_REPORT_SECRET", hide_env_values = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_secret: Option<String>,
    /// Start with a report secret other than the one in use: links signed with the one before stay
    /// valid for 30 days (a start-up action, not a setting of the file).
    #[arg(long, env = "PRUEFSTEIN_ROTATE_REPORT_SECRET", num_args = 0..=1, default_missing_value = "true")]
    #[serde(skip)]
    pub rotate_report_secret: Option<bool>,
    /// The report secret in use before a rotation, when it was configured rather than generated.
    #[arg(long, env = "PRUEFSTEIN_PREVIOUS_REPORT_SECRET", hide_env_values = true)]
    #[serde(skip)]
    pub previous_report_secret: Option<String>,
    /// Start with a course secret other than the one in use: every learner's variant changes (a
    /// start-up action, not a setting of the file).
    #[arg(long, env = "PRUEFSTEIN_ROTATE_COURSE_SECRET", num_args = 0..=1, default_missing_value = "true")]
    #[serde(skip)]
    pub rotate_course_secret: Option<bool>,
    /// Allow callback URLs on loopback and private networks (for tests and closed networks).
    #[arg(long, env = "PRUEFSTEIN_ALLOW_PRIVATE_CALLBACKS", num_args = 0..=1, default_missing_value = "true")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_private_callbacks: Option<bool>,
    /// Serve the Jobe-compatible endpoint for Moodle CodeRunner under /jobe/index.php/restapi/
    /// (API key: a client's token in X-API-KEY).
    #[arg(long, env = "PRUEFSTEIN_JOBE", num_args = 0..=1, default_missing_value = "true")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobe: Option<bool>,
    /// How long a Jobe run waits for its grade in milliseconds before it answers Jobe's time-limit
    /// outcome (13) with its report link; the default is also the most.
    #[arg(long, env = "PRUEFSTEIN_JOBE_WAIT_MS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobe_wait_ms: Option<u64>,
    /// The wasm compiler: winch or cranelift.
    #[arg(long, env = "PRUEFSTEIN_COMPILER")]
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "by_name")]
    pub compiler: Option<Compiler>,
    /// full (a commit survives a power cut) or normal (survives a crash of the process).
    #[arg(long, env = "PRUEFSTEIN_DURABILITY")]
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "by_name")]
    pub durability: Option<Durability>,
    /// Attempts per webhook event before it is dead.
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_ATTEMPTS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_attempts: Option<u32>,
    /// First webhook retry delay in milliseconds; doubles per retry.
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_BACKOFF_MS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_backoff_ms: Option<u64>,
    /// Seed of the webhook retry jitter.
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_SEED")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_seed: Option<u64>,
    /// Deadline of one webhook attempt in milliseconds, lookup to answer; the default is also the most.
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_TIMEOUT_MS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook_timeout_ms: Option<u64>,
    /// Deadline for receiving a request body in milliseconds; the default is also the most.
    #[arg(long, env = "PRUEFSTEIN_REQUEST_BODY_TIMEOUT_MS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body_timeout_ms: Option<u64>,
    /// Where submissions are graded: process (a pool of worker processes with operating-system
    /// limits, one per grading slot) or thread (in the server's own process).
    #[arg(long, env = "PRUEFSTEIN_ISOLATION")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
    /// A grading job's lease in milliseconds, renewed while it is graded.
    #[arg(long, env = "PRUEFSTEIN_JOB_LEASE_MS", hide = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_lease_ms: Option<u64>,
    /// `/readyz` answers 503 when jobs wait and no grading thread has finished a job or found the
    /// queue empty for this many milliseconds.
    #[arg(long, env = "PRUEFSTEIN_GRADING_STALL_MS", hide = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grading_stall_ms: Option<u64>,
    /// A platform's key set (JWKS) is fetched at most once per this many milliseconds
    ///.
    #[arg(long, env = "PRUEFSTEIN_LTI_JWKS_INTERVAL_MS", hide = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lti_jwks_interval_ms: Option<u64>,
    /// How often a running server reads the tool's keys again, to see a rollover started from the
    /// command line, in milliseconds.
    #[arg(long, env = "PRUEFSTEIN_LTI_TOOL_KEYS_REFRESH_MS", hide = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lti_tool_keys_refresh_ms: Option<u64>,
    /// LTI logins from one client address (IPv4 address, IPv6 /64) that may wait for their launch
    /// at once; more are refused with 429.
    #[arg(long, env = "PRUEFSTEIN_LTI_LOGINS_PER_ADDRESS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lti_logins_per_address: Option<usize>,
    /// LTI logins of one platform that may wait for their launch at once; a further one replaces
    /// the oldest of the address holding the most.
    #[arg(long, env = "PRUEFSTEIN_LTI_LOGINS_PER_PLATFORM")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lti_logins_per_platform: Option<usize>,
    /// Delete submissions (with their results, reports and result versions), webhook events, uploaded
    /// Jobe files and LTI launch records older than this many days, in a sweep every hour (a
    /// submission whose job is still queued or running stays).
    #[arg(long, env = "PRUEFSTEIN_RETENTION_DAYS")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<u32>,
    /// Reverse proxies (addresses or networks, e.g. 127.0.0.1,10.0.0.0/8) whose X-Forwarded-For
    /// names the client: the last address in it that is not a trusted proxy; without any, the
    /// connection's peer is the client.
    #[arg(long = "trusted-proxy", env = "PRUEFSTEIN_TRUSTED_PROXIES", value_delimiter = ',')]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trusted_proxies: Option<Vec<String>>,
}

/// Where the service grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// Worker processes with operating-system limits, killed and replaced when they overrun.
    #[default]
    Process,
    /// Threads of the server process (no isolation from the operating system).
    Thread,
}

/// The settings in force. Deserialized from the merged layers: a key missing everywhere takes its
/// default (see the `Default` impl), a key nobody knows stops the start.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Config {
    pub bind: String,
    /// Where the operator's routes are served apart from the public ones (None: with them).
    pub admin_bind: Option<String>,
    pub data_dir: PathBuf,
    /// The module cache of the grading processes (None: [`Config::module_cache_dir`]'s default).
    pub module_cache: Option<PathBuf>,
    /// A PostgreSQL URL: several nodes share this database. None: SQLite in `data_dir`.
    pub database: Option<String>,
    /// This node's name (empty until resolved: the host name and the bind address).
    pub node_id: String,
    pub exercises: PathBuf,
    pub graders: PathBuf,
    pub workers: usize,
    /// Without a trailing slash.
    pub public_url: String,
    /// The configured course secret; None: the one generated and kept in the store
    /// ([`super::secrets`]).
    pub course_secret: Option<String>,
    pub report_secret: Option<String>,
    pub allow_private_callbacks: bool,
    pub jobe: bool,
    pub jobe_wait_ms: u64,
    #[serde(deserialize_with = "from_name", serialize_with = "name_of")]
    pub compiler: Compiler,
    #[serde(serialize_with = "name_of")]
    pub durability: Durability,
    pub webhook_attempts: u32,
    pub webhook_backoff_ms: u64,
    pub webhook_seed: u64,
    /// Deadline of one webhook attempt (at most [`limits::WEBHOOK_ATTEMPT_MS_MAX`]).
    pub webhook_timeout_ms: u64,
    /// Deadline for receiving a request body (at most [`limits::REQUEST_BODY_MS_MAX`]).
    pub request_body_timeout_ms: u64,
    pub isolation: Isolation,
    pub job_lease_ms: u64,
    pub grading_stall_ms: u64,
    /// A platform's key set is fetched at most once per this interval (and kept at least as long).
    pub lti_jwks_interval_ms: u64,
    pub lti_tool_keys_refresh_ms: u64,
    pub lti_logins_per_address: usize,
    pub lti_logins_per_platform: usize,
    /// How many days learners' data is kept (None: until erased), see [`super::retention`].
    pub retention_days: Option<u32>,
    /// Addresses or networks of reverse proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: "127.0.0.1:8080".into(),
            admin_bind: None,
            data_dir: "data".into(),
            module_cache: None,
            database: None,
            node_id: String::new(),
            exercises: "exercises".into(),
            graders: "graders".into(),
            workers: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            // Empty: `http://` and the address bound to.
            public_url: String::new(),
            course_secret: None,
            report_secret: None,
            allow_private_callbacks: false,
            jobe: false,
            jobe_wait_ms: limits::WAIT_MS_MAX,
            compiler: Compiler::default(),
            durability: Durability::default(),
            webhook_attempts: limits::WEBHOOK_ATTEMPTS_MAX,
            webhook_backoff_ms: limits::WEBHOOK_BACKOFF_BASE_MS,
            webhook_seed: 0,
            webhook_timeout_ms: limits::WEBHOOK_ATTEMPT_MS_MAX,
            request_body_timeout_ms: limits::REQUEST_BODY_MS_MAX,
            isolation: Isolation::default(),
            job_lease_ms: limits::JOB_LEASE_MS,
            grading_stall_ms: limits::GRADING_STALL_MS,
            lti_jwks_interval_ms: limits::LTI_JWKS_INTERVAL_MS,
            lti_tool_keys_refresh_ms: limits::LTI_TOOL_KEYS_REFRESH_MS,
            lti_logins_per_address: limits::LTI_LOGINS_PER_ADDRESS_MAX,
            lti_logins_per_platform: limits::LTI_LOGINS_PER_PLATFORM_MAX,
            retention_days: None,
            trusted_proxies: Vec::new(),
        }
    }
}

/// The folder of the data directory where grading workers keep compiled reference solutions and
/// interpreters between processes (`sandbox::module_cache`), unless `module_cache` says elsewhere.
pub(crate) const MODULE_CACHE_DIR: &str = "modules";

impl Config {
    /// Where the grading processes keep compiled modules: the configured `module_cache`, else
    /// `modules` in the data directory.
    pub(crate) fn module_cache_dir(&self) -> PathBuf {
        self.module_cache.clone().unwrap_or_else(|| self.data_dir.join(MODULE_CACHE_DIR))
    }

    pub(crate) fn resolve(args: &ServeArgs) -> Result<Config> {
        let mut config = merge(args.config.as_deref(), args)?;
        if config.workers == 0 {
            anyhow::bail!("workers must be at least 1");
        }
        if config.public_url.is_empty() {
            config.public_url = format!("http://{}", config.bind);
        }
        config.public_url = config.public_url.trim_end_matches('/').to_string();
        if config.webhook_attempts == 0 {
            anyhow::bail!("webhook-attempts must be at least 1");
        }
        if let Some(days) = config.retention_days
            && !(1..=limits::RETENTION_DAYS_MAX).contains(&days)
        {
            anyhow::bail!(
                "retention-days must be 1 to {} (retention_days_max); leave it out to keep data until it is erased",
                limits::RETENTION_DAYS_MAX
            );
        }
        within(
            "webhook-timeout-ms",
            config.webhook_timeout_ms,
            limits::WEBHOOK_ATTEMPT_MS_MAX,
            "webhook_attempt_ms_max",
        )?;
        within(
            "request-body-timeout-ms",
            config.request_body_timeout_ms,
            limits::REQUEST_BODY_MS_MAX,
            "request_body_ms_max",
        )?;
        if config.admin_bind.as_deref() == Some(config.bind.as_str()) {
            anyhow::bail!(
                "admin-bind must differ from bind: it keeps the operator's routes off the public address"
            );
        }
        within("jobe-wait-ms", config.jobe_wait_ms, limits::WAIT_MS_MAX, "wait_ms_max")?;
        if config.job_lease_ms < 100 {
            anyhow::bail!("job-lease-ms must be at least 100");
        }
        if config.lti_logins_per_address == 0 || config.lti_logins_per_platform == 0 {
            anyhow::bail!("lti-logins-per-address and lti-logins-per-platform must be at least 1");
        }
        config.trusted_networks()?;
        resolve_store(&mut config)?;
        Ok(config)
    }

    /// The trusted proxies' networks; an entry that is not one stops the start.
    pub(crate) fn trusted_networks(&self) -> Result<Vec<super::address::Network>> {
        self.trusted_proxies
            .iter()
            .map(|n| super::address::Network::parse(n).map_err(|e| anyhow::anyhow!("trusted-proxy: {e}")))
            .collect()
    }

    /// The data directory from flags or file, for the `client` commands.
    #[cfg(test)]
    pub(crate) fn data_dir_only(config: Option<&Path>, data_dir: Option<PathBuf>) -> Result<PathBuf> {
        Ok(merge(config, &ServeArgs { data_dir, ..ServeArgs::default() })?.data_dir)
    }

    /// Where the store is (data directory, database, node) from flags or file, for the `client` and
    /// `platform` commands.
    pub(crate) fn store_only(
        config: Option<&Path>,
        data_dir: Option<PathBuf>,
        database: Option<String>,
    ) -> Result<Config> {
        let mut config = merge(config, &ServeArgs { data_dir, database, ..ServeArgs::default() })?;
        resolve_store(&mut config)?;
        Ok(config)
    }
}

/// Checks the database URL and names the node if it has no name.
fn resolve_store(config: &mut Config) -> Result<()> {
    if let Some(database) = &config.database
        && !super::store::postgres::is_postgres_url(database)
    {
        anyhow::bail!(
            "database must be a PostgreSQL URL (postgres://…); without it, SQLite in the data directory"
        );
    }
    if config.node_id.is_empty() {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let host = host.trim();
        config.node_id = format!("{}:{}", if host.is_empty() { "localhost" } else { host }, config.bind);
    }
    if config.node_id.len() > limits::CLIENT_NAME_BYTES_MAX || config.node_id.chars().any(char::is_control) {
        anyhow::bail!(
            "node-id must be at most {} bytes without control characters",
            limits::CLIENT_NAME_BYTES_MAX
        );
    }
    Ok(())
}

/// Defaults, then the TOML file (if any), then the flags and variables that were given.
fn merge(file: Option<&Path>, args: &ServeArgs) -> Result<Config> {
    let mut figment = Figment::new();
    if let Some(path) = file {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        figment = figment.merge(Toml::string(&text));
    }
    let merged = figment.merge(Serialized::defaults(args)).extract::<Config>();
    match file {
        Some(path) => merged.with_context(|| format!("{}: not a valid configuration", path.display())),
        None => merged.context("not a valid configuration"),
    }
}

/// A flag's value as the name the file would give it (`Winch` → `winch`).
fn by_name<T: Debug, S: Serializer>(value: &Option<T>, serializer: S) -> Result<S::Ok, S::Error> {
    value.as_ref().map(|v| format!("{v:?}").to_ascii_lowercase()).serialize(serializer)
}

/// A value as the name the file gives it (`Winch` → `winch`).
fn name_of<T: Debug, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    format!("{value:?}").to_ascii_lowercase().serialize(serializer)
}

/// A value by its name, as the flag parses it.
fn from_name<'de, T, D>(deserializer: D) -> Result<T, D::Error>
where
    T: std::str::FromStr<Err = String>,
    D: Deserializer<'de>,
{
    String::deserialize(deserializer)?.parse().map_err(serde::de::Error::custom)
}

/// A deadline an operator may shorten but not lengthen beyond the named limit (its default).
fn within(flag: &str, ms: u64, max: u64, limit: &str) -> Result<()> {
    if !(1..=max).contains(&ms) {
        anyhow::bail!("{flag} = {ms} is outside 1..={max} ({limit})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_the_file_and_the_file_overrides_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.toml");
        std::fs::write(&path, "bind = \"0.0.0.0:9000\"\nworkers = 3\ndurability = \"normal\"\n").unwrap();
        let args = ServeArgs { config: Some(path.clone()), workers: Some(5), ..ServeArgs::default() };
        let config = Config::resolve(&args).unwrap();
        assert_eq!(config.bind, "0.0.0.0:9000");
        assert_eq!(config.workers, 5);
        assert_eq!(config.durability, Durability::Normal);
        assert_eq!(config.public_url, "http://0.0.0.0:9000");
        assert_eq!(config.data_dir, PathBuf::from("data"));
        assert_eq!(config.webhook_timeout_ms, limits::WEBHOOK_ATTEMPT_MS_MAX);
        assert!(config.node_id.ends_with(":0.0.0.0:9000"), "named by host and address: {}", config.node_id);
        assert_eq!(config.request_body_timeout_ms, limits::REQUEST_BODY_MS_MAX);
        let shorter = ServeArgs { webhook_timeout_ms: Some(500), ..args.clone() };
        assert_eq!(Config::resolve(&shorter).unwrap().webhook_timeout_ms, 500);
        let longer =
            ServeArgs { request_body_timeout_ms: Some(limits::REQUEST_BODY_MS_MAX + 1), ..args.clone() };
        let error = Config::resolve(&longer).unwrap_err();
        assert!(format!("{error:#}").contains("request_body_ms_max"), "{error:#}");
        std::fs::write(&path, "bnid = 1\n").unwrap();
        let error = Config::resolve(&args).unwrap_err();
        assert!(format!("{error:#}").contains("bnid"), "{error:#}");
    }

    /// Named values (compiler, durability, isolation) read the same from the file as from a flag,
    /// a flag wins over the file, and a name that does not exist is refused with the names that do.
    #[test]
    fn named_values_from_the_file_and_the_flags() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.toml");
        std::fs::write(
            &path,
            "compiler = \"cranelift\"\nisolation = \"thread\"\ndata_dir = \"kept\"\nworkers = 2\n",
        )
        .unwrap();
        let args = ServeArgs { config: Some(path.clone()), ..ServeArgs::default() };
        let config = Config::resolve(&args).unwrap();
        assert_eq!(config.compiler, Compiler::Cranelift);
        assert_eq!(config.isolation, Isolation::Thread);
        assert_eq!(config.durability, Durability::Full);
        let flags = ServeArgs {
            compiler: Some(Compiler::Winch),
            durability: Some(Durability::Normal),
            ..args.clone()
        };
        let config = Config::resolve(&flags).unwrap();
        assert_eq!((config.compiler, config.durability), (Compiler::Winch, Durability::Normal));
        assert_eq!(Config::data_dir_only(Some(&path), None).unwrap(), PathBuf::from("kept"));
        assert_eq!(Config::data_dir_only(Some(&path), Some("flag".into())).unwrap(), PathBuf::from("flag"));
        assert_eq!(config.database, None, "SQLite unless a database is named");
        std::fs::write(&path, "database = \"postgres://db.example/course\"\nnode_id = \"n1\"\n").unwrap();
        let config = Config::resolve(&args).unwrap();
        assert_eq!(
            (config.database.as_deref(), config.node_id.as_str()),
            (Some("postgres://db.example/course"), "n1")
        );
        let flag = ServeArgs { database: Some("postgresql://other/db".into()), ..args.clone() };
        assert_eq!(Config::resolve(&flag).unwrap().database.as_deref(), Some("postgresql://other/db"));
        let not_postgres = ServeArgs { database: Some("mysql://db/x".into()), ..args.clone() };
        assert!(format!("{:#}", Config::resolve(&not_postgres).unwrap_err()).contains("PostgreSQL URL"));
        std::fs::write(&path, "compiler = \"v8\"\n").unwrap();
        let error = format!("{:#}", Config::resolve(&args).unwrap_err());
        assert!(error.contains("unknown compiler") && error.contains("cranelift"), "{error}");
        assert!(error.contains("not a valid configuration"), "{error}");
        let zero = ServeArgs { workers: Some(0), config: None, ..ServeArgs::default() };
        let error = format!("{:#}", Config::resolve(&zero).unwrap_err());
        assert!(error.contains("workers must be at least 1"), "{error}");
        let missing = ServeArgs { config: Some(dir.path().join("missing.toml")), ..ServeArgs::default() };
        let error = format!("{:#}", Config::resolve(&missing).unwrap_err());
        assert!(error.contains("cannot read"), "{error}");
    }
}
