//! A consumer as the harness runs it: the submission made ready to run, and its instances.
//!
//! - [`compiled`]: [`CompiledConsumer`], a module compiled and linked against ABI v1, or a source
//!   file loaded once on its interpreter; the rejections that are the grader's fault.
//! - [`instance`]: [`ConsumerProcess`], one instance (a process with its own memory and database
//!   connection): its start, its deliveries and its death, within the submission's deadline.

mod compiled;
mod instance;

pub use super::fault::FaultCode;
pub use compiled::CompiledConsumer;
pub(crate) use compiled::is_grader_fault;
pub use instance::{ConsumerProcess, DeliveryEnd, DeliveryOutcome, Launch, StartError};
