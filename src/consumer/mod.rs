//! The consumer grader: a student's WebAssembly consumer under the crash-injection harness.
//!
//! - `abi`: ABI v1, the host functions a module may import;
//! - `guestdb`: the hardened SQLite connection behind `db.*`;
//! - `process`: one consumer instance (a store, a connection), delivery and crash;
//! - `harness`: the crash harness around the one list of checks ([`harness::Check`]), with the
//!   catalogue of their texts, the runners of each family of checks and replay tokens;
//! - `rundb`: one run's database in memory, restored from the exercise's template;
//! - `state`: observable state and diffs, `detail`: the evidence in the report;
//! - `exercise`: the `[consumer]` exercise format; `world`: the outside services it declares (a
//!   mail provider), shared by a run's instances; `invariants`: what must hold, as data;
//! - `oracle`: the reference's states without faults, computed once or read from the module cache;
//! - `grading`: one grade (compile, run every check, the report); `soundness`: `pruefstein check`.

pub mod abi;
mod classify;
pub mod diagnose;
/// The evidence in a consumer report; its types belong to the report model.
pub use crate::report::consumer as detail;
mod exception;
pub mod exercise;
pub mod fault;
mod grader;
mod grading;
// Dropping the virtual-table modules of a connection calls SQLite's C API.
#[allow(unsafe_code)]
pub mod guestdb;
pub mod harness;
pub mod interleave;
pub mod interpreter;
pub mod invariants;
pub mod javascript;
pub mod oracle;
pub mod process;
pub mod python;
pub mod rundb;
pub mod schedule;
mod soundness;
pub mod state;
pub mod typescript;
pub mod world;

pub use self::harness::replay::ReplayToken;
pub use detail::ConsumerDetail;
pub use exercise::ConsumerExercise;
pub use grader::GRADER;
pub use grading::{grade, seed_of};
pub use oracle::{ORACLE_CACHE_KIND, Oracle, OracleStates, ReferenceStates, oracle};
pub use soundness::{EXPECT_FAIL_MARK, check, expect_fail_on_line};
