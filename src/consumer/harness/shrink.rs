//! Shrinking a failing schedule: tries smaller candidates (fewer messages, sends and faults) and
//! keeps any that still fails, until none of its candidates fails or the run budget
//! ([`SHRINK_RUNS_MAX`]) or the submission's time is spent.

use super::schedules::ScheduleOutcome;
use super::{Harness, Step};
use crate::consumer::oracle::Oracle;
use crate::consumer::schedule::{Fault, Schedule};
use crate::limits::SHRINK_RUNS_MAX;

impl<'a> Harness<'a> {
    /// Shrinks a failing schedule; returns the smallest failing one found, with its run.
    pub(super) fn shrink(
        &mut self,
        oracle: &Oracle,
        mut best: Schedule,
        mut best_outcome: ScheduleOutcome,
    ) -> Step<(Schedule, ScheduleOutcome)> {
        best.faults.truncate(best_outcome.deliveries);
        let mut runs = 0;
        'smaller: loop {
            for mut candidate in best.candidates() {
                if runs >= SHRINK_RUNS_MAX || self.deadline.expired() {
                    break 'smaller;
                }
                runs += 1;
                let outcome = self.run_schedule(oracle, &candidate)?;
                if outcome.problem.is_some() {
                    candidate.faults.truncate(outcome.deliveries);
                    while candidate.faults.last() == Some(&Fault::None) {
                        candidate.faults.pop();
                    }
                    best = candidate;
                    best_outcome = outcome;
                    continue 'smaller;
                }
            }
            break;
        }
        // The reported trace must be the run of exactly the reported schedule. When time ran out
        // while shrinking, the failure found so far stands, with the run that found it.
        if self.deadline.expired() {
            return Ok((best, best_outcome));
        }
        let outcome = self.run_schedule(oracle, &best)?;
        Ok((best, outcome))
    }
}
