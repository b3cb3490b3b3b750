//! The service's configuration: command-line flags over environment variables over an optional TOML
//! file over defaults. `pruefstein serve --help` lists every flag and its variable.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use super::sqlite::Durability;
use crate::grade::Compiler;
use crate::limits;

/// Flags (and environment variables) of `pruefstein serve`; every one overrides the TOML file.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    /// A TOML file with any of the settings below (keys as the flags, with '_' for '-').
    #[arg(long, env = "PRUEFSTEIN_CONFIG")]
    pub config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "PRUEFSTEIN_BIND")]
    pub bind: Option<String>,
    /// Where the database lives; created and migrated on first start [default: ./data].
    #[arg(long, env = "PRUEFSTEIN_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// The exercise folders to serve [default: ./exercises].
    #[arg(long, env = "PRUEFSTEIN_EXERCISES")]
    pub exercises: Option<PathBuf>,
    /// The graders' student-facing files (ABI guide, starter kits) [default: ./graders].
    #[arg(long, env = "PRUEFSTEIN_GRADERS")]
    pub graders: Option<PathBuf>,
    /// Grading threads [default: the number of cores].
    #[arg(long, env = "PRUEFSTEIN_WORKERS")]
    pub workers: Option<usize>,
    /// The address clients and students reach this service at, for links [default: http://BIND].
    #[arg(long, env = "PRUEFSTEIN_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// The course secret that derives learner variants (as for `pruefstein grade`).
    #[arg(long, env = "PRUEFSTEIN_COURSE_SECRET", hide_env_values = true)]
    pub course_secret: Option<String>,
    /// The key of report links [default: generated once and kept in the database].
    #[arg(long, env = "PRUEFSTEIN_REPORT_SECRET", hide_env_values = true)]
    pub report_secret: Option<String>,
    /// Allow callback URLs on loopback and private networks (for tests and closed networks).
    #[arg(long, env = "PRUEFSTEIN_ALLOW_PRIVATE_CALLBACKS", num_args = 0..=1, default_missing_value = "true")]
    pub allow_private_callbacks: Option<bool>,
    /// The wasm compiler: winch or cranelift [default: winch].
    #[arg(long, env = "PRUEFSTEIN_COMPILER")]
    pub compiler: Option<Compiler>,
    /// full (a commit survives a power cut) or normal (survives a crash of the process) [default: full].
    #[arg(long, env = "PRUEFSTEIN_DURABILITY")]
    pub durability: Option<Durability>,
    /// Attempts per webhook event before it is dead [default: see limits].
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_ATTEMPTS")]
    pub webhook_attempts: Option<u32>,
    /// First webhook retry delay in milliseconds; doubles per retry [default: see limits].
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_BACKOFF_MS")]
    pub webhook_backoff_ms: Option<u64>,
    /// Seed of the webhook retry jitter [default: 0].
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_SEED")]
    pub webhook_seed: Option<u64>,
    /// Deadline of one webhook attempt in milliseconds, lookup to answer [default and most: see limits].
    #[arg(long, env = "PRUEFSTEIN_WEBHOOK_TIMEOUT_MS")]
    pub webhook_timeout_ms: Option<u64>,
    /// Deadline for receiving a request body in milliseconds [default and most: see limits].
    #[arg(long, env = "PRUEFSTEIN_REQUEST_BODY_TIMEOUT_MS")]
    pub request_body_timeout_ms: Option<u64>,
    /// Where submissions are graded: process (a pool of worker processes with operating-system
    /// limits, one per grading slot) or thread (in the server's own process) [default: process].
    #[arg(long, env = "PRUEFSTEIN_ISOLATION")]
    pub isolation: Option<Isolation>,
    /// A grading job's lease in milliseconds, renewed while it is graded [default: see limits].
    #[arg(long, env = "PRUEFSTEIN_JOB_LEASE_MS", hide = true)]
    pub job_lease_ms: Option<u64>,
}

/// Where the service grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// Worker processes with operating-system limits, killed and replaced when they overrun.
    #[default]
    Process,
    /// Threads of the server process (no isolation from the operating system).
    Thread,
}

/// The TOML file: the same settings as the flags.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    bind: Option<String>,
    data_dir: Option<PathBuf>,
    exercises: Option<PathBuf>,
    graders: Option<PathBuf>,
    workers: Option<usize>,
    public_url: Option<String>,
    course_secret: Option<String>,
    report_secret: Option<String>,
    allow_private_callbacks: Option<bool>,
    compiler: Option<String>,
    durability: Option<Durability>,
    webhook_attempts: Option<u32>,
    webhook_backoff_ms: Option<u64>,
    webhook_seed: Option<u64>,
    webhook_timeout_ms: Option<u64>,
    request_body_timeout_ms: Option<u64>,
    isolation: Option<Isolation>,
    job_lease_ms: Option<u64>,
}

/// The settings in force.
#[derive(Debug, Clone)]
pub struct Config {
    pub bind: String,
    pub data_dir: PathBuf,
    pub exercises: PathBuf,
    pub graders: PathBuf,
    pub workers: usize,
    /// Without a trailing slash.
    pub public_url: String,
    pub course_secret: String,
    pub report_secret: Option<String>,
    pub allow_private_callbacks: bool,
    pub compiler: Compiler,
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
}

impl Config {
    pub fn resolve(args: &ServeArgs) -> Result<Config> {
        let file = match &args.config {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        let file_compiler = match &file.compiler {
            Some(name) => Some(name.parse::<Compiler>().map_err(anyhow::Error::msg)?),
            None => None,
        };
        let bind = args.bind.clone().or(file.bind).unwrap_or_else(|| "127.0.0.1:8080".into());
        let workers = args
            .workers
            .or(file.workers)
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
        if workers == 0 {
            anyhow::bail!("workers must be at least 1");
        }
        let public_url = args
            .public_url
            .clone()
            .or(file.public_url)
            .unwrap_or_else(|| format!("http://{bind}"))
            .trim_end_matches('/')
            .to_string();
        let webhook_attempts =
            args.webhook_attempts.or(file.webhook_attempts).unwrap_or(limits::WEBHOOK_ATTEMPTS_MAX);
        if webhook_attempts == 0 {
            anyhow::bail!("webhook-attempts must be at least 1");
        }
        let webhook_timeout_ms = within(
            "webhook-timeout-ms",
            args.webhook_timeout_ms.or(file.webhook_timeout_ms),
            limits::WEBHOOK_ATTEMPT_MS_MAX,
            "webhook_attempt_ms_max",
        )?;
        let request_body_timeout_ms = within(
            "request-body-timeout-ms",
            args.request_body_timeout_ms.or(file.request_body_timeout_ms),
            limits::REQUEST_BODY_MS_MAX,
            "request_body_ms_max",
        )?;
        let job_lease_ms = args.job_lease_ms.or(file.job_lease_ms).unwrap_or(limits::JOB_LEASE_MS);
        if job_lease_ms < 100 {
            anyhow::bail!("job-lease-ms must be at least 100");
        }
        Ok(Config {
            bind,
            data_dir: args.data_dir.clone().or(file.data_dir).unwrap_or_else(|| "data".into()),
            exercises: args.exercises.clone().or(file.exercises).unwrap_or_else(|| "exercises".into()),
            graders: args.graders.clone().or(file.graders).unwrap_or_else(|| "graders".into()),
            workers,
            public_url,
            course_secret: args.course_secret.clone().or(file.course_secret).unwrap_or_default(),
            report_secret: args.report_secret.clone().or(file.report_secret),
            allow_private_callbacks: args
                .allow_private_callbacks
                .or(file.allow_private_callbacks)
                .unwrap_or(false),
            compiler: args.compiler.or(file_compiler).unwrap_or_default(),
            durability: args.durability.or(file.durability).unwrap_or_default(),
            webhook_attempts,
            webhook_backoff_ms: args
                .webhook_backoff_ms
                .or(file.webhook_backoff_ms)
                .unwrap_or(limits::WEBHOOK_BACKOFF_BASE_MS),
            webhook_seed: args.webhook_seed.or(file.webhook_seed).unwrap_or(0),
            webhook_timeout_ms,
            request_body_timeout_ms,
            isolation: args.isolation.or(file.isolation).unwrap_or_default(),
            job_lease_ms,
        })
    }

    /// The data directory from flags or file, for the `client` commands.
    pub fn data_dir_only(config: Option<&Path>, data_dir: Option<PathBuf>) -> Result<PathBuf> {
        let file = match config {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        Ok(data_dir.or(file.data_dir).unwrap_or_else(|| "data".into()))
    }
}

/// A deadline an operator may shorten but not lengthen beyond the named limit (its default).
fn within(flag: &str, value: Option<u64>, max: u64, limit: &str) -> Result<u64> {
    match value {
        None => Ok(max),
        Some(ms) if (1..=max).contains(&ms) => Ok(ms),
        Some(ms) => anyhow::bail!("{flag} = {ms} is outside 1..={max} ({limit})"),
    }
}

fn read_file(path: &Path) -> Result<FileConfig> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("{}: not a valid configuration", path.display()))
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
}
