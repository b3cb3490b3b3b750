//! Every limit Prüfstein enforces, as a named constant with its default, and [`Limits`], the set in
//! force for one exercise (an exercise may override any of them in `exercise.toml` under `[limits]`).
//!
//! Untrusted input (a student's module, a teacher's script, an HTTP body) meets one of these limits
//! before it can hang, crash or slow down the service. Each limit has a name that reports quote.
//!
//! This file is the table of contents; the limits are grouped by what they bound.

mod exercise;
mod grading;
mod interpreters;
mod isolation;
mod log;
mod lti;
mod relations;
mod sandbox;
mod service;
mod world;

pub use self::exercise::Limits;
pub use self::grading::*;
pub use self::interpreters::*;
pub use self::isolation::*;
pub use self::log::*;
pub use self::lti::*;
pub use self::sandbox::*;
pub use self::service::*;
pub use self::world::*;
