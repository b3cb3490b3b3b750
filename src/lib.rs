//! Prüfstein grades exercises of a course on distributed systems: predictions about a simulated
//! queue, and consumers compiled to WebAssembly that must stay correct under crashes and duplicate
//! deliveries. See `ARCHITECTURE.md` for a map of the code.

// `unsafe` only where the operating system or SQLite's C API has no safe wrapper, each item with its
// own `allow` and SAFETY note. Untrusted input never panics the service: errors are values
// (`#[cfg(test)]` code may unwrap, see clippy.toml).
#![deny(unsafe_code)]
#![deny(clippy::unwrap_used)]
// An item is `pub` only when the binary, the tests, the benchmarks or the fuzz targets reach it;
// everything else is `pub(crate)`, so visibility tells what is the crate's surface.
#![warn(unreachable_pub)]

pub mod authoring;
pub mod check;
pub mod cli;
pub mod consumer;
pub mod deadline;
pub mod exercise;
pub mod grade;
pub mod graders;
pub mod isolation;
#[cfg(test)]
mod layers;
pub mod limits;
pub mod prediction;
pub mod report;
pub mod sandbox;
pub mod service;
pub mod sim;
pub mod submission;
pub mod text;

pub use exercise::Exercise;
pub use report::Report;
pub use text::{Lang, Text};
