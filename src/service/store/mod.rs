//! The service's durable state behind one trait, so that another database (PostgreSQL with
//! `FOR UPDATE SKIP LOCKED` for many stateless nodes) can take SQLite's place: clients and their
//! hashed tokens, submissions with their idempotency keys, the leased job queue, results, and the
//! webhook outbox. Every method is one transaction; times are milliseconds since the Unix epoch and
//! are passed in, so the queue's rules can be tested without a clock (a store that several nodes
//! share measures lease deadlines by the database's clock instead, see [`postgres::LeaseClock`]).
//! [`StoreError`] names no type of a database library; each backend ([`sqlite`], [`postgres`]) maps
//! its errors into it with the operation that failed.
//!
//! A store is opened for one node (a `pruefstein serve` process, named by its node id): the leases it
//! takes record that id, so that a node restarting gives back its own leases and no other node's.

pub(crate) mod contract;
pub(crate) mod payload;
pub mod postgres;
pub(crate) mod privacy;
pub(crate) mod records;
pub mod sqlite;
#[cfg(test)]
mod tests;

pub use self::contract::{Notice, Store};
pub use self::privacy::{
    AuditAction, AuditEntry, LearnerData, LearnerFound, LearnerScope, LearnerSubmission, LtiSubject,
    RowCounts,
};
pub use self::records::*;
