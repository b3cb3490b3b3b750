//! The HTTP surface: `/api/v1` for learning platforms (bearer token per client), the student report
//! pages under `/reports`, the ABI guide and starter kits, and the operator's `/healthz`, `/readyz`,
//! `/metrics`. One module per resource; this one wires the routes, the request log and the error
//! handlers for paths and queries. The OpenAPI document at `/api/v1/openapi.json` is generated from
//! the handlers' annotations ([`openapi`]). Store calls and statement rendering run on the blocking
//! pool.
//!
//! This file is the table of contents: the routes and listeners are [`server`], what every handler
//! uses is [`handler`].

pub(crate) mod auth;
pub(crate) mod course;
pub(crate) mod exercises;
pub(crate) mod handler;
pub(crate) mod health;
pub mod intake;
pub(crate) mod jobe;
pub(crate) mod learn;
pub(crate) mod learners;
pub(crate) mod lti;
pub(crate) mod metrics;
pub mod openapi;
pub(crate) mod reports;
mod security_scheme;
pub(crate) mod server;
pub(crate) mod submissions;
pub(crate) mod teach;
#[cfg(test)]
mod testing;
pub(crate) mod views;
pub(crate) mod webhooks;
