//! The consumer grader's checks as data: the one list of them ([`Check`]), their texts from
//! `graders/consumer/checks.toml` (`catalogue`), and the failure texts as templates filled in one
//! place (`texts`). The harness runs the checks; the exercise loader and the diagnosis read these
//! without knowing how a check runs.

pub(crate) mod catalogue;
pub mod check;
pub(crate) mod texts;

pub use self::check::{Check, UnknownCheck};
