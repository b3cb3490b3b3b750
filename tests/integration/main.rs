//! Prüfstein's integration tests, in one test binary (each binary links wasmtime, so one link
//! instead of seven): one module per area. Name filters select an area, e.g.
//! `cargo test --test integration consumer::` or `cargo test --test integration hostile::fuzz::`
//! (CONTRIBUTING lists them).
//!
//! All modules share one process: no test sets an environment variable, changes the current
//! directory or installs a signal handler in it; what must differ (fault injection, a capped
//! SQLite heap, OS limits) happens only in the child processes the tests start.

mod support;

mod authoring;
mod consumer;
mod diagnosis;
mod golden;
mod hostile;
mod javascript;
mod kits;
mod prediction;
mod python;
mod reports;
mod service;
