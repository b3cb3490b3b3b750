//! The oracle run: the reference solution without faults, once per loaded exercise. It records the
//! states every check compares against and fails when the reference does not behave as a
//! reference must (a teacher's error, reported with the message it concerns).

use super::runner::{Expect, delivery_problem};
use super::{Harness, Run};
use crate::consumer::oracle::OracleStates;
use crate::consumer::process::{DeliveryEnd, DeliveryOutcome};
use crate::consumer::state::State;
use crate::report::trace_text::render_trace;
use crate::text::Lang;

impl<'a> Harness<'a> {
    /// Runs the reference solution without faults and records the states every check compares
    /// against. Fails when the reference does not behave as a reference must.
    pub fn oracle_run(&mut self, initial: &State) -> Result<OracleStates, String> {
        let messages = &self.exercise.messages;
        let mut run = Run::default();
        let does_not_start = |_| "the reference solution does not start".to_string();
        let db = self.fresh_db().map_err(|e| e.to_string())?;
        let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
        let first = self.deliver(&mut run, &mut process, &messages.fresh, None, None);
        if first.returned() != Some(1) || first.transaction_left_open {
            let what =
                format!("the reference solution must return 1 for the fresh message, but {}", ended(&first));
            return Err(self.with_run(&mut run, what));
        }
        let after_fresh = self.state(&db).map_err(|e| e.to_string())?;
        let second = self.deliver(&mut run, &mut process, &messages.same_body, None, None);
        if second.returned() != Some(1) || second.transaction_left_open {
            let what = format!("the reference solution must return 1 for same_body, but {}", ended(&second));
            return Err(self.with_run(&mut run, what));
        }
        let after_fresh_same_body = self.state(&db).map_err(|e| e.to_string())?;
        drop(process);
        let db = self.fresh_db().map_err(|e| e.to_string())?;
        let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
        let violation = self.deliver(&mut run, &mut process, &messages.violation, None, None);
        if delivery_problem(&violation, Expect::Error, self.voice).is_some() {
            let what = format!(
                "the reference solution must report an error for the violation message (return a value other \
                 than 0 and 1, or raise), but {}",
                ended(&violation)
            );
            return Err(self.with_run(&mut run, what));
        }
        let after_violation = self.state(&db).map_err(|e| e.to_string())?;
        if &after_violation != initial {
            let what = "the violation message must leave the database unchanged under the reference solution";
            return Err(self.with_run(&mut run, what.into()));
        }
        if after_fresh == *initial || after_fresh_same_body == after_fresh {
            let what = "the fresh and the same_body message must each change the observable state under the reference solution";
            return Err(self.with_run(&mut run, what.into()));
        }
        let mut poison = Vec::new();
        for message in &messages.batch {
            let db = self.fresh_db().map_err(|e| e.to_string())?;
            let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
            let outcome = self.deliver(&mut run, &mut process, message, None, None);
            drop(process);
            let is_poison = delivery_problem(&outcome, Expect::Error, self.voice).is_none();
            if !is_poison && delivery_problem(&outcome, Expect::Processed, self.voice).is_some() {
                let what = format!(
                    "the reference solution must process the batch message {message} (return 1) or report an error, but {}",
                    ended(&outcome)
                );
                return Err(self.with_run(&mut run, what));
            }
            if is_poison && self.state(&db).map_err(|e| e.to_string())? != *initial {
                let what =
                    format!("the reference solution reports an error for {message} but changes the database");
                return Err(self.with_run(&mut run, what));
            }
            poison.push(is_poison);
        }
        Ok(OracleStates { after_fresh, after_fresh_same_body, after_violation, poison })
    }
}

impl Harness<'_> {
    /// `what` went wrong, followed by the reference's run as a report shows a run (its
    /// deliveries, statements with their lines, SQL errors, what it returned or raised), so that a
    /// teacher can see why.
    fn with_run(&self, run: &mut Run, what: String) -> String {
        let (events, omitted) = std::mem::take(run).trace.into_parts();
        let source = self.compiled.source().map(|s| s.text());
        let mut out = format!("{what}\n    the reference solution's run:");
        for line in render_trace(&events, Lang::En, self.voice, source) {
            out.push_str("\n      ");
            out.push_str(&line);
        }
        if omitted > 0 {
            out.push_str(&format!("\n      ({omitted} more events not shown)"));
        }
        out
    }
}

/// How a delivery of the reference ended, in words.
fn ended(outcome: &DeliveryOutcome) -> String {
    let open = if outcome.transaction_left_open { " with its transaction left open" } else { "" };
    match &outcome.end {
        DeliveryEnd::Returned(1) => format!("it returned 1{open}"),
        DeliveryEnd::Returned(0) => format!("it returned 0 (already processed){open}"),
        DeliveryEnd::Returned(n) => format!("it returned {n} (an error){open}"),
        DeliveryEnd::Crashed { point, .. } => format!("it was stopped at crash point {point}"),
        DeliveryEnd::Faulted { code, message } => format!("it failed ({code}): {}", message.en),
    }
}
