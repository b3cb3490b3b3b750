//! The command line: `pruefstein grade | check | statement | ...`. Exit codes of `grade`:
//! 0 passed, 1 failed, 2 submission rejected (not gradable), 3 usage or exercise error.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use crate::exercise::Exercise;
use crate::grade::{Compiler, GradeOptions, grade};
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
        /// The wasm compiler: winch (default) or cranelift.
        #[arg(long, env = "PRUEFSTEIN_COMPILER", default_value = "winch")]
        compiler: Compiler,
    },
    /// Prove an exercise sound: the reference passes, every mutant fails its declared check.
    Check {
        /// One or more exercise folders.
        #[arg(required = true)]
        exercises: Vec<PathBuf>,
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
}

/// Runs the command line and returns the process exit code.
pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Grade { exercise, file, answer, learner, course_secret, json, lang, replay, compiler } => {
            let exercise = Exercise::load(&exercise)?;
            let submission = match (file, answer) {
                (Some(file), None) => {
                    let bytes = read_submission(&file)?;
                    Submission::Module(bytes)
                }
                (None, Some(answer)) => Submission::Answer(answer),
                _ => anyhow::bail!("give the submission: a module file, or --answer \"...\""),
            };
            let options = GradeOptions { learner, course_secret, compiler, replay };
            let report = grade(&exercise, &submission, &options)?;
            if json {
                println!("{}", report.to_json());
            } else {
                print!("{}", crate::report::render_text(&report, lang));
            }
            Ok(report.verdict.exit_code())
        }
        Command::Check { exercises } => {
            let mut all_sound = true;
            for dir in exercises {
                println!("== {}", dir.display());
                match Exercise::load(&dir) {
                    Ok(exercise) => {
                        let soundness = crate::check::check_exercise(&exercise);
                        print!("{}", soundness.render());
                        all_sound &= soundness.sound();
                    }
                    Err(e) => {
                        println!("problem: {e}\nexercise is NOT sound");
                        all_sound = false;
                    }
                }
            }
            Ok(if all_sound { 0 } else { 1 })
        }
        Command::Statement { exercise, learner, course_secret, lang } => {
            let exercise = Exercise::load(&exercise)?;
            let text =
                crate::prediction::render_statement(&exercise, learner.as_deref(), &course_secret, lang)?;
            print!("{text}");
            Ok(0)
        }
    }
}

/// Reads a submission file, refusing anything larger than any exercise could accept before it is
/// read into memory.
fn read_submission(path: &std::path::Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = Vec::new();
    // One byte over the largest limit is enough for the grader to report "too large".
    let cap = (crate::limits::MODULE_BYTES_MAX * 8 + 1) as u64;
    file.take(cap).read_to_end(&mut bytes).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes)
}
