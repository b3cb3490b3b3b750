//! The HTTP surface: `/api/v1` for learning platforms (bearer token per client), the student report
//! pages under `/reports`, the ABI guide and starter kits, and the operator's `/healthz`, `/readyz`,
//! `/metrics`. One module per resource; this one wires the routes, the request log and the error
//! handlers for paths and queries. The OpenAPI document at `/api/v1/openapi.json` is generated from
//! the handlers' annotations ([`openapi`]). Store calls and statement rendering run on the blocking
//! pool.
//!
//! This file is the table of contents: the routes and listeners are [`server`], what every handler
//! uses is [`handler`].

pub mod auth;
pub mod course;
pub mod exercises;
pub mod handler;
pub mod health;
pub mod intake;
pub mod jobe;
pub mod learn;
pub mod learners;
pub mod lti;
pub mod metrics;
pub mod openapi;
pub mod reports;
mod security_scheme;
pub mod server;
pub mod submissions;
pub mod teach;
#[cfg(test)]
mod testing;
pub mod views;
pub mod webhooks;
