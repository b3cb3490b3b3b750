//! The grading service (`pruefstein serve`): an HTTP API on actix-web for learning platforms, with
//! idempotent intake, a durable leased job queue, signed webhooks through an outbox, and student
//! report pages. Grading uses the same [`crate::grade::grade`] as the command line, in a pool of
//! worker processes (one per grading thread, see [`crate::isolation`]), never on the async executor.
//!
//! Files: [`config`] (flags, environment, TOML), [`store`] (the durable state, a trait) with
//! [`store::sqlite`] (its SQLite implementation, the default) and [`store::postgres`] (several nodes
//! on one PostgreSQL), [`http`] (the HTTP routes and handlers, one module
//! per resource), [`worker`] (grading threads), [`webhook`] (the outbox sender), [`html`] (the report page), [`auth`] (tokens and signatures),
//! [`problem`] (RFC 9457 errors), [`metrics`], [`log`] (the `tracing` set-up), [`clock`], [`lti`]
//! (LTI 1.3: platforms, keys, launch checks, score passback).
//!
//! This file is the table of contents: the state every part shares is [`shared`], the start and
//! stop of the service [`run`].

pub(crate) mod address;
pub(crate) mod analytics;
pub mod auth;
pub mod backup;
pub(crate) mod catalogue;
pub(crate) mod clients;
pub mod clock;
pub(crate) mod config;
pub(crate) mod config_reference;
pub mod dashboard;
pub(crate) mod data_dir;
pub(crate) mod dryruns;
pub(crate) mod erasures;
pub mod html;
pub mod http;
pub mod learner;
pub(crate) mod log;
pub mod lti;
pub(crate) mod metrics;
pub mod outbound;
pub(crate) mod platforms;
pub mod privacy;
pub mod problem;
pub(crate) mod public_id;
pub(crate) mod regrade;
pub(crate) mod reload;
pub(crate) mod retention;
pub(crate) mod run;
pub(crate) mod secrets;
pub(crate) mod shared;
pub(crate) mod similarity;
pub(crate) mod slot;
pub mod store;
pub(crate) mod versions;
pub(crate) mod webhook;
pub(crate) mod worker;
