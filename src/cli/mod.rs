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
        /// Compile the interpreter guests into the module cache, then exit.
        #[arg(long)]
        warm: bool,
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
    /// A learner's data on request: export it as JSON, or erase it from the store.
    Learner {
        #[command(subcommand)]
        command: LearnerCommand,
    },
    /// The audit log: teachers' exports, erasures, regrades and analytics reads, and the retention
    /// sweeps, oldest first (learners appear only as keyed hashes).
    Audit {
        /// Only entries after this number.
        #[arg(long, default_value_t = 0)]
        after: i64,
        /// At most this many entries.
        #[arg(long, default_value_t = 1000)]
        limit: usize,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        serve: crate::service::config::ServeArgs,
    },
    /// Copy the SQLite store while the service runs: a consistent snapshot, checked, written to a
    /// temporary file and renamed to DEST; prints its size and rows. (PostgreSQL: pg_dump.)
    Backup {
        /// The backup file to write (replaced only once the new copy is checked), or a directory
        /// to write a new file named by the time into (`pruefstein-20261207T144643123Z.db`).
        dest: PathBuf,
        /// With DEST a directory: keep only the N newest backups there, removing older ones.
        #[arg(long, value_name = "N")]
        keep: Option<usize>,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Put a backup into a new, empty data directory (refused for one that holds anything).
    Restore {
        /// The backup file.
        src: PathBuf,
        /// The erasure log of the store the backup was taken from (`erasures.jsonl` in its data
        /// directory): every learner erased after the backup was taken is erased again.
        #[arg(long, value_name = "FILE")]
        erasures: Option<PathBuf>,
        #[command(flatten)]
        store: StoreArgs,
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

/// Where the store is: a data directory, or a PostgreSQL database.
#[derive(Debug, clap::Args)]
pub struct StoreArgs {
    /// The service's data directory [default: ./data].
    #[arg(long, env = "PRUEFSTEIN_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// The service's PostgreSQL database, if it uses one (`postgres://…`).
    #[arg(long, env = "PRUEFSTEIN_DATABASE", hide_env_values = true)]
    database: Option<String>,
    /// The service's TOML configuration (for its data directory or database).
    #[arg(long, env = "PRUEFSTEIN_CONFIG")]
    config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum LearnerCommand {
    /// Print every submission, source, report and result version of the learner as JSON.
    Export {
        /// The learner's id, as the learning platform submitted it.
        learner: String,
        /// Only the learner of this client (by name); without it, the learner of every client.
        #[arg(long = "client")]
        client: Option<String>,
        #[command(flatten)]
        serve: crate::service::config::ServeArgs,
    },
    /// Erase everything of the learner from the store; the erasure is recorded without its id.
    Erase {
        learner: String,
        /// Only the learner of this client (by name); without it, the learner of every client.
        #[arg(long = "client")]
        client: Option<String>,
        #[command(flatten)]
        serve: crate::service::config::ServeArgs,
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
mod admin;
mod learners;

use self::admin::{run_client, run_platform, run_regrade};

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
            let exercise = crate::graders::load(&exercise)?;
            let submission = match (file, answer) {
                (Some(file), None) => {
                    let bytes = read_submission(&file)?;
                    source_or_module(&file, bytes)?
                }
                (None, Some(answer)) => Submission::Answer(answer),
                _ => anyhow::bail!("give the submission: a module file, or --answer \"...\""),
            };
            let options = GradeOptions { learner, course_secret, compiler, replay };
            grade_and_print(&exercise, &submission, &options, json, full, lang)
        }
        Command::Check { exercises, strict } => Ok(run_check(exercises, strict)),
        Command::New { kind, dir, language } => run_new(kind, &dir, language),
        Command::GradeWorker { module_cache, warm } => {
            Ok(crate::isolation::worker::run(module_cache.as_deref(), warm))
        }
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
        Command::Learner { command } => learners::run_learner(command),
        Command::Audit { after, limit, json, serve } => learners::run_audit(after, limit, json, &serve),
        Command::Backup { dest, keep, store } => learners::run_backup(&dest, keep, store),
        Command::Restore { src, erasures, store } => learners::run_restore(&src, erasures.as_deref(), store),
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
            let exercise = crate::graders::load(&exercise)?;
            let text = exercise.grader.statement(&exercise, learner.as_deref(), &course_secret, lang)?;
            print!("{text}");
            Ok(0)
        }
    }
}

/// Grades one submission in a grading process of its own, as the service does, and prints the
/// report (JSON, the full text with every trace, or the text); the exit code is the verdict's.
fn grade_and_print(
    exercise: &Exercise,
    submission: &Submission,
    options: &GradeOptions,
    json: bool,
    full: bool,
    lang: crate::text::Lang,
) -> Result<i32> {
    let program = std::env::current_exe().context("cannot find the pruefstein binary")?;
    let module_cache = crate::isolation::once::grade_module_cache();
    // A student's text may hold what a terminal acts on (escape sequences, bidi controls): both
    // forms show it escaped.
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
        exercise,
        submission,
        options,
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

/// `pruefstein check`: every folder's soundness; 0 when all are sound (under `--strict`, without
/// warnings too), else 1.
fn run_check(exercises: Vec<std::path::PathBuf>, strict: bool) -> i32 {
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
    if all_sound { 0 } else { 1 }
}

/// `pruefstein new`: a small sound exercise of `kind` in `dir`.
fn run_new(kind: NewKind, dir: &std::path::Path, language: Option<NewLanguage>) -> Result<i32> {
    let kind = match kind {
        NewKind::Consumer => crate::exercise::GraderKind::Consumer,
        NewKind::Prediction => crate::exercise::GraderKind::Prediction,
    };
    let language = language.map(|l| match l {
        NewLanguage::Python => crate::submission::Language::Python,
        NewLanguage::Javascript => crate::submission::Language::JavaScript,
        NewLanguage::Typescript => crate::submission::Language::TypeScript,
    });
    let written = crate::authoring::scaffold_with(kind, dir, language)?;
    println!("wrote a {} exercise to {}:", kind.name(), dir.display());
    for file in written {
        println!("  {file}");
    }
    println!("Change it step by step and run `pruefstein check {}` after each step.", dir.display());
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
