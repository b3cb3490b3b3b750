//! Grading in worker processes: a worker that overruns its deadline or memory is killed and replaced,
//! and nothing else is lost.
