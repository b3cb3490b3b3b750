//! The command line: `pruefstein grade | check | statement | ...`. Exit codes of `grade`:
//! 0 passed, 1 failed, 2 submission rejected (not gradable), 3 usage or exercise error.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use crate::exercise::Exercise;
use crate::grade::{Compiler, GradeOptions};
use crate::submission::Submission;
use crate::text::Lang;

/// Exit code for usage errors and broken exercises.
pub const EXIT_USAGE: i32 = 3;

#[derive(Debug, Parser)]
#[command(
    name = "pruefstein",
    version,
    about = "Grades exercises on queues, at-least-once delivery and idempotent consumers"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Grade a submission: a consumer module (.wasm or .wat) or a prediction (--answer).
    Grade {
        /// The exercise folder, e.g. exercises/03-idempotenter-konsument.
        exercise: PathBuf,
        /// The consumer module (.wasm binary or .wat text).
        file: Option<PathBuf>,
        /// The prediction, e.g. "(2, 2, 0)" or "[2, 2, 0]".
        #[arg(long, conflicts_with = "file")]
        answer: Option<String>,
        /// The learner whose variant is graded.
        #[arg(long)]
        learner: Option<String>,
        /// The course secret that derives learner variants.
        #[arg(long, env = "PRUEFSTEIN_COURSE_SECRET", default_value = "", hide_env_values = true)]
        course_secret: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        #[arg(long, default_value = "de")]
        lang: Lang,
        /// Re-run exactly the run named by a report's replay token and print its full trace.
        #[arg(long)]
        replay: Option<String>,
        /// Print every check with its full trace (by default one screen: the main problem first).
        #[arg(long, conflicts_with = "json")]
        trace: bool,
        /// The wasm compiler: winch (default) or cranelift.
        #[arg(long, env = "PRUEFSTEIN_COMPILER", default_value = "winch")]
        compiler: Compiler,
    },
    /// Prove an exercise sound: the reference passes, every mutant fails its declared check.
    Check {
        /// One or more exercise folders.
        #[arg(required = true)]
        exercises: Vec<PathBuf>,
        /// Warnings are problems too (a mutant that fails for another reason than it declares,
        /// mutants that fail every check, a statement copied into the other language).
        #[arg(long)]
        strict: bool,
    },
    /// Scaffold a new exercise folder that passes `check` as generated: statements (German, English),
    /// exercise.toml with every key commented, and for a consumer exercise a schema, a reference
    /// solution and a mutant; for a prediction exercise a scenario script.
    New {
        /// consumer or prediction.
        kind: NewKind,
        /// The new folder, e.g. exercises/05-outbox; its name is the exercise's slug.
        dir: PathBuf,
        /// For a consumer exercise: the exercise in this source language only (its reference, the
        /// oracle, and a mutant in it; no WebAssembly text).
        #[arg(long)]
        language: Option<NewLanguage>,
    },
    /// Render an exercise's statement (for a learner's variant).
    Statement {
        exercise: PathBuf,
        #[arg(long)]
        learner: Option<String>,
        #[arg(long, env = "PRUEFSTEIN_COURSE_SECRET", default_value = "", hide_env_values = true)]
        course_secret: String,
        #[arg(long, default_value = "de")]
        lang: Lang,
    },
    /// Run the grading service over HTTP (see README: "Service").
    Serve(crate::service::config::ServeArgs),
    /// A grading worker process, started by `grade` and `serve`: reads grade requests on stdin and
    /// answers on stdout (see src/isolation). Not for direct use.
    #[command(hide = true)]
    GradeWorker {
        /// Keep compiled reference solutions and interpreters in this directory between processes.
        #[arg(long)]
        module_cache: Option<PathBuf>,
    },
    /// Regrade an exercise after fixing it: queue a regrade of the latest submission of every
    /// learner (or the filtered ones) against the exercise version in the exercises folder, for a
    /// running (or the next) server to grade; each writes a new result version. With --dry-run,
    /// grade them now and report which verdicts would change, writing nothing.
    Regrade {
        /// The exercise's slug.
        slug: String,
        /// Grade now and report what would change; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Only this learner's latest submission (repeatable).
        #[arg(long = "learner")]
        learners: Vec<String>,
        /// Only submissions whose latest verdict is this one (passed, failed, rejected).
        #[arg(long)]
        verdict: Option<String>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        serve: crate::service::config::ServeArgs,
    },
    /// Manage the clients (learning platforms) that may use the service's API.
    Client {
        #[command(subcommand)]
        command: ClientCommand,
        /// The service's data directory [default: ./data].
        #[arg(long, env = "PRUEFSTEIN_DATA_DIR", global = true)]
        data_dir: Option<PathBuf>,
        /// The service's PostgreSQL database, if it uses one (`postgres://…`).
        #[arg(long, env = "PRUEFSTEIN_DATABASE", global = true, hide_env_values = true)]
        database: Option<String>,
        /// The service's TOML configuration (for its data directory or database).
        #[arg(long, env = "PRUEFSTEIN_CONFIG", global = true)]
        config: Option<PathBuf>,
    },
    /// The teachers' dashboard in a browser, for operators without a learning platform.
    Teacher {
        #[command(subcommand)]
        command: TeacherCommand,
    },
    /// Manage the LTI 1.3 platforms (Moodle, Canvas, ILIAS, OpenOlat) that may launch the tool.
    Platform {
        #[command(subcommand)]
        command: PlatformCommand,
        /// The service's data directory [default: ./data].
        #[arg(long, env = "PRUEFSTEIN_DATA_DIR", global = true)]
        data_dir: Option<PathBuf>,
        /// The service's PostgreSQL database, if it uses one (`postgres://…`).
        #[arg(long, env = "PRUEFSTEIN_DATABASE", global = true, hide_env_values = true)]
        database: Option<String>,
        /// The service's TOML configuration (for its data directory or database).
        #[arg(long, env = "PRUEFSTEIN_CONFIG", global = true)]
        config: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum TeacherCommand {
    /// Print a signed link to the dashboard of every submission of the service (exercises, pass
    /// rates, analytics, regrade buttons, a learner's submissions), valid for --expires. Anyone
    /// holding the link sees the course: hand it to teachers only.
    Link {
        /// How long the link opens the dashboard (e.g. 8h, 2d; at most 30d).
        #[arg(long, value_parser = crate::service::clock::parse_duration)]
        expires: Option<u64>,
        /// The dashboard's language.
        #[arg(long, default_value = "de")]
        lang: Lang,
        #[command(flatten)]
        serve: crate::service::config::ServeArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum PlatformCommand {
    /// Register a platform with the values its tool registration shows. It gets an API client of
    /// its own (`lti-NAME`), whose token is printed once (for its dead score events).
    Add {
        name: String,
        /// The platform's issuer (`iss`), e.g. https://moodle.example.org.
        #[arg(long)]
        issuer: String,
        /// The client id the platform gave this tool.
        #[arg(long)]
        client_id: String,
        /// The platform's OIDC authentication request URL.
        #[arg(long)]
        auth_url: String,
        /// The platform's OAuth 2 access token URL.
        #[arg(long)]
        token_url: String,
        /// The platform's public keyset URL.
        #[arg(long)]
        jwks_url: String,
        /// Accept launches of this deployment only [default: any deployment of the platform].
        #[arg(long)]
        deployment_id: Option<String>,
        /// Print the registration as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the platforms.
    List,
    /// Change a registration (what the platform's tool registration shows has changed); only the
    /// values given change.
    Update {
        name: String,
        #[arg(long)]
        issuer: Option<String>,
        #[arg(long)]
        client_id: Option<String>,
        #[arg(long)]
        auth_url: Option<String>,
        #[arg(long)]
        token_url: Option<String>,
        #[arg(long)]
        jwks_url: Option<String>,
        /// Accept launches of this deployment only.
        #[arg(long, conflicts_with = "any_deployment")]
        deployment_id: Option<String>,
        /// Accept launches of any deployment of the platform.
        #[arg(long)]
        any_deployment: bool,
    },
    /// Remove a registration: its launches are refused from now on, its learners' pages and
    /// pending score events end, its API client is removed; its submissions stay.
    Remove { name: String },
    /// Show the tool's keys (the one that signs, the next, the previous), or roll the key over: a
    /// new key is published beside the old one, signs after --switch-after, and the old one is
    /// withdrawn --withdraw-after later (the LTI security framework's key rotation).
    ToolKey {
        /// Start a rollover.
        #[arg(long, conflicts_with_all = ["switch", "withdraw"])]
        rotate: bool,
        /// With --rotate: how long the new key is published before it signs [default: 24h].
        #[arg(long, requires = "rotate", value_parser = crate::service::clock::parse_duration)]
        switch_after: Option<u64>,
        /// With --rotate: how long the old key stays published after the switch [default: 24h].
        #[arg(long, requires = "rotate", value_parser = crate::service::clock::parse_duration)]
        withdraw_after: Option<u64>,
        /// Let the new key sign now.
        #[arg(long, conflicts_with = "withdraw")]
        switch: bool,
        /// Withdraw the old key now.
        #[arg(long)]
        withdraw: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Add a client and print its bearer token (shown once; only its hash is kept) and its webhook
    /// signing secret.
    Add {
        name: String,
        /// Print only the token (for scripts: TOKEN=$(pruefstein client add lms --token-only)).
        #[arg(long, conflicts_with = "json")]
        token_only: bool,
        /// Print {"name", "token", "webhook_secret"} as JSON.
        #[arg(long)]
        json: bool,
        /// A teacher's client: it may also regrade exercises and read their analytics.
        #[arg(long)]
        teacher: bool,
    },
    /// List the clients.
    List,
    /// Revoke a client's token: its calls get 403 from now on.
    Revoke { name: String },
    /// Give a client a new token (shown once); the one before keeps working for a grace period,
    /// long enough to change it in the LMS.
    Rotate {
        name: String,
        /// How long the token before stays valid: a whole number and s, m, h or d [default: 24h; at
        /// most 30d].
        #[arg(long, value_parser = crate::service::clock::parse_duration)]
        grace: Option<u64>,
        /// Print only the new token.
        #[arg(long)]
        token_only: bool,
    },
    /// Make a key for Moodle CodeRunner's Jobe key field (at most 40 characters, which the client
    /// token is not): valid on the Jobe-compatible endpoint only, shown once.
    JobeKey { name: String },
    /// Remove a client: it is revoked, its tokens and keys are deleted and its name may be used
    /// again; its submissions stay.
    Remove { name: String },
}

/// The kinds of exercise `pruefstein new` writes.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum NewKind {
    Consumer,
    Prediction,
}

/// The source languages `pruefstein new consumer --language` writes.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum NewLanguage {
    Python,
    Javascript,
    Typescript,
}

/// Parses the command line; the help of `serve` and `regrade` shows each setting's default, as the
/// configuration reference states it.
pub fn parse() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let command = Cli::command()
        .mut_subcommand("serve", crate::service::config_reference::with_defaults)
        .mut_subcommand("regrade", crate::service::config_reference::with_defaults);
    Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

/// Runs the command line and returns the process exit code.
pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Grade {
            exercise,
            file,
            answer,
            learner,
            course_secret,
            json,
            lang,
            replay,
            trace,
            compiler,
        } => {
            let full = trace || replay.is_some();
            let exercise = Exercise::load(&exercise)?;
            let submission = match (file, answer) {
                (Some(file), None) => {
                    let bytes = read_submission(&file)?;
                    source_or_module(&file, bytes)?
                }
                (None, Some(answer)) => Submission::Answer(answer),
                _ => anyhow::bail!("give the submission: a module file, or --answer \"...\""),
            };
            let options = GradeOptions { learner, course_secret, compiler, replay };
            // The same isolation as the service: a grading process of its own grades this submission.
            let program = std::env::current_exe().context("cannot find the pruefstein binary")?;
            let module_cache = crate::isolation::once::grade_module_cache();
            // A student's text may hold what a terminal acts on (escape sequences, bidi controls):
            // both forms show it escaped.
            let print = |report: &crate::report::Report| crate::isolation::outcome::Printed {
                output: if json {
                    format!("{}\n", crate::text::json_for_terminal(&report.to_json()))
                } else if full {
                    crate::text::for_terminal(&crate::report::render_text_full(report, lang)).into_owned()
                } else {
                    crate::text::for_terminal(&crate::report::render_text(report, lang)).into_owned()
                },
                exit_code: report.verdict.exit_code(),
            };
            let printed = match crate::isolation::once::grade_once(
                &program,
                &exercise,
                &submission,
                &options,
                module_cache,
                &print,
            ) {
                Ok(graded) => graded?,
                Err(failure) => {
                    let reason = failure.reason();
                    eprintln!("pruefstein: {}", reason.get(lang));
                    return Ok(crate::report::Verdict::Rejected.exit_code());
                }
            };
            print!("{}", printed.output);
            Ok(printed.exit_code)
        }
        Command::Check { exercises, strict } => {
            let mut all_sound = true;
            for dir in exercises {
                println!("== {}", dir.display());
                let soundness = crate::check::check_dir(&dir);
                print!("{}", soundness.render());
                all_sound &= if strict { soundness.sound_strictly() } else { soundness.sound() };
                if strict && soundness.sound() && !soundness.sound_strictly() {
                    println!("NOT sound under --strict: {} warning(s)", soundness.warnings.len());
                }
            }
            Ok(if all_sound { 0 } else { 1 })
        }
        Command::New { kind, dir, language } => {
            let kind = match kind {
                NewKind::Consumer => crate::exercise::GraderKind::Consumer,
                NewKind::Prediction => crate::exercise::GraderKind::Prediction,
            };
            let language = language.map(|l| match l {
                NewLanguage::Python => crate::submission::Language::Python,
                NewLanguage::Javascript => crate::submission::Language::JavaScript,
                NewLanguage::Typescript => crate::submission::Language::TypeScript,
            });
            let written = crate::authoring::scaffold_with(kind, &dir, language)?;
            println!("wrote a {} exercise to {}:", kind.name(), dir.display());
            for file in written {
                println!("  {file}");
            }
            println!("Change it step by step and run `pruefstein check {}` after each step.", dir.display());
            Ok(0)
        }
        Command::GradeWorker { module_cache } => Ok(crate::isolation::worker::run(module_cache.as_deref())),
        Command::Serve(args) => {
            crate::service::log::init();
            let served = crate::service::config::Config::resolve(&args).and_then(|config| {
                crate::service::run::serve(config, &crate::service::secrets::Rotation::from_args(&args))
            });
            crate::service::log::flush();
            served.map(|()| 0)
        }
        Command::Client { command, data_dir, database, config } => {
            let config = crate::service::config::Config::store_only(config.as_deref(), data_dir, database)?;
            run_client(command, &config)
        }
        Command::Regrade { slug, dry_run, learners, verdict, json, serve } => {
            run_regrade(&slug, dry_run, learners, verdict, json, &serve)
        }
        Command::Teacher { command: TeacherCommand::Link { expires, lang, serve } } => {
            let config = crate::service::config::Config::resolve(&serve)?;
            println!("{}", crate::service::dashboard::service_link(&config, expires, lang)?);
            Ok(0)
        }
        Command::Platform { command, data_dir, database, config } => {
            let config = crate::service::config::Config::store_only(config.as_deref(), data_dir, database)?;
            run_platform(command, &config)
        }
        Command::Statement { exercise, learner, course_secret, lang } => {
            let exercise = Exercise::load(&exercise)?;
            let text = exercise.grader.statement(&exercise, learner.as_deref(), &course_secret, lang)?;
            print!("{text}");
            Ok(0)
        }
    }
}

/// `pruefstein regrade`.
fn run_regrade(
    slug: &str,
    dry_run: bool,
    learners: Vec<String>,
    verdict: Option<String>,
    json: bool,
    serve: &crate::service::config::ServeArgs,
) -> Result<i32> {
    let config = crate::service::config::Config::resolve(serve)?;
    let request = crate::service::http::views::RegradeRequest {
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

fn run_client(command: ClientCommand, config: &crate::service::config::Config) -> Result<i32> {
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

fn run_platform(command: PlatformCommand, config: &crate::service::config::Config) -> Result<i32> {
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

/// Reads a submission file, refusing anything larger than any exercise could accept before it is
/// read into memory.
/// A file whose extension names a language (`consumer.py`) is that language's source; any other
/// file is a module (`.wasm`, `.wat`).
fn source_or_module(path: &std::path::Path, bytes: Vec<u8>) -> Result<Submission> {
    let language =
        path.extension().and_then(|e| e.to_str()).and_then(crate::submission::Language::from_extension);
    match language {
        None => Ok(Submission::Module(bytes)),
        Some(language) => {
            let text = String::from_utf8(bytes)
                .map_err(|_| anyhow::anyhow!("{} is not UTF-8 text", path.display()))?;
            Ok(Submission::Source { language, text })
        }
    }
}

fn read_submission(path: &std::path::Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = Vec::new();
    // One byte over the largest limit is enough for the grader to report "too large".
    let cap = (crate::limits::MODULE_BYTES_MAX * 8 + 1) as u64;
    file.take(cap).read_to_end(&mut bytes).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes)
}

/// The environment variable that places `pruefstein grade`'s module cache (see
/// [`crate::isolation::once::grade_module_cache`]).
pub use crate::isolation::once::MODULE_CACHE_ENV;
