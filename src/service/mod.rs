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

pub mod address;
pub mod analytics;
pub mod auth;
pub mod backup;
pub mod catalogue;
pub mod clients;
pub mod clock;
pub mod config;
pub mod config_reference;
pub mod dashboard;
pub mod data_dir;
pub mod dryruns;
pub mod erasures;
pub mod html;
pub mod http;
pub mod learner;
pub mod log;
pub mod lti;
pub mod metrics;
pub mod outbound;
pub mod platforms;
pub mod privacy;
pub mod problem;
pub mod public_id;
pub mod regrade;
pub mod reload;
pub mod retention;
pub mod run;
pub mod secrets;
pub mod shared;
pub mod similarity;
pub mod slot;
pub mod store;
pub mod versions;
pub mod webhook;
pub mod worker;
