//! The hostile corpus: submissions and requests written as an adversary (or an honest student with an
//! ordinary bug) would write them. The invariant every test here guards: every submission ends, in
//! bounded time and memory, whatever it does, with the limit it met named; the service stays up and
//! other submissions are unaffected. One module per class of attack.

mod bounds;
mod crash_points;
mod deadline;
mod fuzz;
mod isolation;
mod javascript;
mod python;
mod report_diagram;
mod service_limits;
