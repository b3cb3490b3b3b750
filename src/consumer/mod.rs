//! The consumer grader: a student's WebAssembly consumer under the crash-injection harness.
//!
//! - `abi`: ABI v1, the host functions a module may import;
//! - `guestdb`: the hardened SQLite connection behind `db.*`;
//! - `process`: one consumer instance (a store, a connection), delivery and crash;
//! - `checks`: the one list of checks ([`checks::Check`]) and the catalogue of their texts;
//!   `folder_texts`: an exercise folder's own texts per check;
//! - `harness`: the crash harness: the runners of each family of checks, the oracle run, replay
//!   tokens; `gate` and `interleave`: two instances taking turns at statement boundaries;
//! - `rundb`: one run's database in memory, restored from the exercise's template;
//! - `state`: observable state and diffs, `detail`: the evidence in the report;
//! - `exercise`: the `[consumer]` exercise format; `world`: the outside services it declares (a
//!   mail provider, a broker), shared by a run's instances; `invariants`: what must hold, as data;
//! - `oracle`: the reference's states without faults and the record the module cache keeps;
//! - `grading`: one grade (compile, run every check, the report); `soundness`: `pruefstein check`.

pub mod abi;
pub mod checks;
mod classify;
pub(crate) mod diagnose;
/// The evidence in a consumer report; its types belong to the report model.
pub use crate::report::consumer as detail;
mod exception;
pub(crate) mod exercise;
pub(crate) mod fault;
mod folder_texts;
pub(crate) mod gate;
mod grader;
mod grading;
// Dropping the virtual-table modules of a connection calls SQLite's C API.
#[allow(unsafe_code)]
pub mod guestdb;
pub mod harness;
pub(crate) mod interleave;
pub mod interpreter;
pub(crate) mod invariants;
pub mod oracle;
pub mod process;
pub mod rundb;
pub mod schedule;
mod soundness;
pub(crate) mod state;
pub(crate) mod typescript;
pub mod world;

pub use self::harness::replay::ReplayToken;
pub use detail::ConsumerDetail;
pub use exercise::ConsumerExercise;
pub use grader::GRADER;
pub use grading::{grade, seed_of};
pub use harness::oracle::oracle;
pub use oracle::{ORACLE_CACHE_KIND, Oracle, OracleStates, ReferenceStates};
pub use soundness::{EXPECT_FAIL_MARK, check, expect_fail_on_line};
