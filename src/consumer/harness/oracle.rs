//! The oracle run: the reference solution without faults, once per loaded exercise. It records the
//! states every check compares against and fails when the reference does not behave as a
//! reference must (a teacher's error, reported with the message it concerns).

use super::runner::{Expect, delivery_problem};
use super::{Harness, Run};
use crate::consumer::oracle::OracleStates;
use crate::consumer::state::State;

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
            return Err(format!(
                "the reference solution must return 1 for the fresh message; it ended with {:?}",
                first.end
            ));
        }
        let after_fresh = self.state(&db).map_err(|e| e.to_string())?;
        let second = self.deliver(&mut run, &mut process, &messages.same_body, None, None);
        if second.returned() != Some(1) || second.transaction_left_open {
            return Err(format!(
                "the reference solution must return 1 for same_body; it ended with {:?}",
                second.end
            ));
        }
        let after_fresh_same_body = self.state(&db).map_err(|e| e.to_string())?;
        drop(process);
        let db = self.fresh_db().map_err(|e| e.to_string())?;
        let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
        let violation = self.deliver(&mut run, &mut process, &messages.violation, None, None);
        if delivery_problem(&violation, Expect::Error, self.voice).is_some() {
            return Err(format!(
                "the reference solution must report an error for the violation message; it ended with {:?}",
                violation.end
            ));
        }
        let after_violation = self.state(&db).map_err(|e| e.to_string())?;
        if &after_violation != initial {
            return Err(
                "the violation message must leave the database unchanged under the reference solution".into(),
            );
        }
        if after_fresh == *initial || after_fresh_same_body == after_fresh {
            return Err("the fresh and the same_body message must each change the observable state under the reference solution".into());
        }
        let mut poison = Vec::new();
        for message in &messages.batch {
            let db = self.fresh_db().map_err(|e| e.to_string())?;
            let mut process = self.start(&mut run, &db, None).map_err(does_not_start)?;
            let outcome = self.deliver(&mut run, &mut process, message, None, None);
            drop(process);
            let is_poison = delivery_problem(&outcome, Expect::Error, self.voice).is_none();
            if !is_poison && delivery_problem(&outcome, Expect::Processed, self.voice).is_some() {
                return Err(format!(
                    "the reference solution must process the batch message {message} (return 1) or report an error; it ended with {:?}",
                    outcome.end
                ));
            }
            if is_poison && self.state(&db).map_err(|e| e.to_string())? != *initial {
                return Err(format!(
                    "the reference solution reports an error for {message} but changes the database"
                ));
            }
            poison.push(is_poison);
        }
        Ok(OracleStates { after_fresh, after_fresh_same_body, after_violation, poison })
    }
}
