//! The at-least-once schedule runner: drives `sim::Queue` (the same queue the prediction exercises
//! use) with several messages, among them a poison message, under a schedule drawn from the seed
//! (send order, duplicates, faults per delivery), and judges the end: every message took effect
//! once, none was lost, the poison message sits in the dead-letter list.

use std::sync::Arc;

use super::runner::evidence_of;
use super::runner::left_open;
use super::{Failure, Found, Harness, Run, Step};
use crate::consumer::checks::catalogue::problem;
use crate::consumer::checks::texts::{Problem, Prose, plain};
use crate::consumer::oracle::Oracle;
use crate::consumer::process::{CompiledConsumer, ConsumerProcess, DeliveryEnd, DeliveryOutcome};
use crate::consumer::schedule::{self, Fault, Schedule};
use crate::consumer::state::State;
use crate::exercise::GradeError;
use crate::limits::SCHEDULE_DELIVERIES_MAX;
use crate::report::consumer::{StateEvidence, TraceEvent};
use crate::report::voice::Voice;
use crate::sim::{Delivery, Queue, QueueConfig};
use crate::text;
use crate::text::Text;

/// How one schedule ended.
pub(super) struct ScheduleOutcome {
    pub(super) run: Run,
    pub(super) problem: Option<Problem>,
    pub(super) evidence: Option<StateEvidence>,
    /// Deliveries made (faults beyond them never struck).
    pub(super) deliveries: usize,
}

/// One schedule while it runs: the queue, the trace it writes, the messages processed so far.
struct ScheduleRun {
    queue: Queue<usize>,
    run: Run,
    /// Queue trace entries already copied into the run's trace.
    seen: usize,
    /// Batch messages a delivery processed (returned 1), in the order of their first processing.
    processed: Vec<usize>,
    batch: Vec<Arc<serde_json::Value>>,
}

impl ScheduleRun {
    /// Copies the queue's new trace entries into the run's trace, as bilingual lines.
    fn flush(&mut self) {
        let batch = &self.batch;
        let label = |i: &usize| schedule::message_label(&batch[*i]);
        for entry in &self.queue.trace()[self.seen..] {
            if let Some(line) = crate::sim::describe::queue_line(&self.queue, entry, &label) {
                self.run.trace.push(TraceEvent::Queue {
                    text: Text {
                        de: line.render(crate::text::Lang::De),
                        en: line.render(crate::text::Lang::En),
                    },
                });
            }
        }
        self.seen = self.queue.trace().len();
    }

    /// Acks (or not) after a delivery, as the queue's consumer loop would, and records what the
    /// delivery means for the schedule. Returns a problem with the delivery itself.
    fn settle(
        &mut self,
        delivery: &Delivery<usize>,
        outcome: &DeliveryOutcome,
        oracle: &Oracle,
        (no_ack, voice): (Option<Text>, Voice),
    ) -> Option<Problem> {
        let index = delivery.body;
        match &outcome.end {
            DeliveryEnd::Crashed { .. } => {
                self.run.queue(text!("kein Ack: der Prozess ist tot", "no ack: the process is dead"));
                None
            }
            DeliveryEnd::Faulted { code, message } if !code.is_deliberate() => {
                Some(Problem::fault(message.clone()))
            }
            DeliveryEnd::Faulted { .. } => None,
            DeliveryEnd::Returned(value) => {
                if outcome.transaction_left_open {
                    return left_open(outcome);
                }
                if *value == 1 && !self.processed.contains(&index) {
                    self.processed.push(index);
                }
                if *value != 0 && *value != 1 {
                    return None;
                }
                if let Some(note) = no_ack {
                    self.run.queue(note);
                } else {
                    self.queue.ack(delivery.id);
                }
                if oracle.states.poison[index] {
                    let message = plain(schedule::message_label(&self.batch[index]));
                    return Some(problem(
                        Prose::PoisonAcked,
                        &[("message", message), ("ended", voice.ended(*value))],
                    ));
                }
                None
            }
        }
    }
}

/// What the queue hears instead of an ack after a delivery that ended with `fault`, if anything.
fn no_ack(fault: Fault, crash_before_ack: bool) -> Option<Text> {
    match fault {
        Fault::LoseAck => Some(text!(
            "das Ack geht auf dem Weg zur Queue verloren",
            "the ack is lost on its way to the queue"
        )),
        _ if crash_before_ack => Some(text!(
            "Absturz nach dem COMMIT, vor dem Ack: die Queue stellt nach dem Visibility Timeout erneut zu",
            "crash after the COMMIT, before the ack: the queue redelivers after the visibility timeout"
        )),
        _ => None,
    }
}

impl<'a> Harness<'a> {
    pub(super) fn schedules(&mut self, run: &mut Run, oracle: &Oracle, spec: Option<&str>) -> Step<Found> {
        let messages = self.exercise.messages.batch.len();
        if let Some(spec) = spec {
            let schedule = Schedule::decode(spec, messages).ok_or_else(|| {
                Failure::Internal(GradeError::Replay(format!(
                    "\"{spec}\" is not a schedule of this exercise"
                )))
            })?;
            let outcome = self.run_schedule(oracle, &schedule)?;
            return Ok(self.show_schedule(run, schedule, outcome));
        }
        let mut explored = 0;
        let redrive = self.exercise.world.queue.as_ref().map(|q| q.max_receive_count);
        for index in 0..schedule::SCHEDULES_PER_SUBMISSION + u64::from(redrive.is_some()) {
            self.in_time()?;
            let drawn = self.draw_schedule(index, messages, redrive);
            let outcome = self.run_schedule(oracle, &drawn)?;
            explored += 1;
            if outcome.problem.is_some() {
                self.push_schedule_coverage(explored);
                let (shrunk, outcome) = self.shrink(oracle, drawn, outcome)?;
                return Ok(self.show_schedule(run, shrunk, outcome));
            }
        }
        self.push_schedule_coverage(explored);
        run.queue(text!(
            "{explored} Zeitpläne mit Verlusten, Duplikaten, Abstürzen und langsamen Konsumenten: alle richtig",
            "{explored} schedules with losses, duplicates, crashes and slow consumers: all correct"
        ));
        Ok(Found::passed())
    }

    /// The `index`-th schedule of this submission. The first is calm: reordered and duplicated
    /// sends, no faults; one instance sees every delivery, the poison message's retries included.
    /// With a declared queue (`redrive`: its receive limit), the second is the calm one's redrive
    /// schedule ([`Schedule::redrive`]) and the drawn ones follow.
    fn draw_schedule(&self, index: u64, messages: usize, redrive: Option<u32>) -> Schedule {
        if let (1, Some(max_receives)) = (index, redrive) {
            return Schedule::redrive(&self.draw_schedule(0, messages, None), max_receives);
        }
        let index = if redrive.is_some() && index > 1 { index - 1 } else { index };
        let seed = self.seed ^ 0x7363_6865_6475_6c65u64.wrapping_add(index); // "schedule"
        let mut drawn = Schedule::generate(seed, messages);
        if index == 0 {
            drawn.faults.clear();
            drawn.original_size = drawn.size();
        }
        drawn
    }

    /// Tells the run's world that the declared queue delivers `message` for the `receives`-th
    /// time (its transient failures count receives); nothing without a declared queue.
    fn tell_world(&self, db: &crate::consumer::rundb::RunDb, message: &serde_json::Value, receives: u32) {
        if self.exercise.world.queue.is_none() {
            return;
        }
        let id = message.get("id").map(ToString::to_string).unwrap_or_default();
        db.world().lock().unwrap_or_else(|poisoned| poisoned.into_inner()).received(id, receives);
    }

    /// A schedule's queue and its receive limit: the exercise's declared one, else the schedules'.
    fn schedule_queue(&self) -> Step<(Queue<usize>, u32)> {
        let max_receives =
            self.exercise.world.queue.as_ref().map_or(schedule::MAX_RECEIVES, |q| q.max_receive_count);
        let config = QueueConfig {
            visibility_timeout: schedule::VISIBILITY_TIMEOUT,
            max_receives: Some(max_receives),
        };
        let queue = Queue::new(config).map_err(|e| GradeError::Internal(format!("schedule queue: {e}")))?;
        Ok((queue, max_receives))
    }

    /// Hands the queue's dead letters to the run's world (its table `dlq`), with a declared queue.
    fn dead_letters_to_world(&self, sr: &ScheduleRun, db: &crate::consumer::rundb::RunDb) {
        if self.exercise.world.queue.is_none() {
            return;
        }
        let mut world = db.world().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for letter in sr.queue.dead_letters() {
            world.dead_lettered(&sr.batch[letter.body], letter.attempts);
        }
    }

    fn push_schedule_coverage(&mut self, explored: u64) {
        self.coverage.push(crate::report::Coverage {
            name: "schedules".into(),
            label: text!("Zeitpläne", "schedules"),
            exercised: explored,
            total: None,
        });
    }

    /// Puts one schedule's run into the check's trace; its problem and evidence are the check's.
    fn show_schedule(&mut self, run: &mut Run, schedule: Schedule, outcome: ScheduleOutcome) -> Found {
        let batch = &self.exercise.messages.batch;
        let label = |i: usize| schedule::message_label(&batch[i]);
        let info = schedule::schedule_info(&schedule, &label);
        run.queue(Text {
            de: format!("Zeitplan (Seed {}): {}", info.seed, info.description.de),
            en: format!("schedule (seed {}): {}", info.seed, info.description.en),
        });
        run.adopt(outcome.run);
        Found {
            problem: outcome.problem,
            state: outcome.evidence,
            replay_spec: Some(schedule.encode()),
            schedule: Some(info),
        }
    }

    /// The reference's state after processing the batch messages `order` once each, in that order.
    fn reference_state(&mut self, oracle: &Oracle, order: &[usize]) -> Step<State> {
        if let Some(state) = oracle.reference_states.get(order) {
            return Ok(state);
        }
        if let Some(state) = self.reference_states.get(order) {
            return Ok(state.clone());
        }
        self.in_time()?;
        // The reference runs under the submission's deadline too; failing only because that ran
        // out is the submission's time limit, not a broken exercise.
        let broken = |harness: &Self, message: String| {
            if harness.deadline.expired() {
                Failure::OutOfTime
            } else {
                Failure::Internal(GradeError::Internal(message))
            }
        };
        let state = if self.exercise.reference_language.is_some() {
            // A source reference runs on its interpreter's deeper stack, on a thread of its own
            // only now that it must run (a grade whose states are all kept never starts one).
            let limits = self.exercise.reference_limits(self.limits);
            let (exercise, deadline) = (self.exercise, self.deadline);
            crate::sandbox::with_stack(limits.wasm_stack_bytes, || {
                let reference = exercise.compiled_reference(oracle)?;
                let mut harness = Harness::new(exercise, &limits, reference).map_err(|e| e.to_string())?;
                harness.deadline = deadline;
                harness.reference_order(reference, order).map_err(|failure| match failure {
                    Failure::Internal(error) => error.to_string(),
                    _ => "the reference solution ran out of time".to_string(),
                })
            })
            .and_then(|state| state)
            .map_err(|message| broken(self, message))?
        } else {
            let reference =
                self.exercise.compiled_reference(oracle).map_err(|message| broken(self, message))?;
            self.reference_order(reference, order)?
        };
        if !oracle.reference_states.insert(order, &state) {
            self.reference_states.insert(order.to_vec(), state.clone());
        }
        Ok(state)
    }

    /// The state after the reference processed the batch messages `order` once each, in that
    /// order, on a fresh database.
    fn reference_order(&mut self, reference: &CompiledConsumer, order: &[usize]) -> Step<State> {
        let broken = |harness: &Self, message: String| {
            if harness.deadline.expired() {
                Failure::OutOfTime
            } else {
                Failure::Internal(GradeError::Internal(message))
            }
        };
        let db = self.fresh_db()?;
        let mut process = ConsumerProcess::start(&self.launch(reference), &db, 1, None)
            .map_err(|_| broken(self, "the reference solution does not start".into()))?;
        for &index in order {
            let outcome = process.deliver(&self.exercise.messages.batch[index], None);
            if outcome.returned() != Some(1) {
                return Err(broken(
                    self,
                    format!(
                        "the exercise's reference solution does not process batch message {} after the others",
                        self.exercise.messages.batch[index]
                    ),
                ));
            }
        }
        drop(process);
        self.relay_before_reading_with(&mut Run::default(), &db, reference)?;
        let state = self.state(&db)?;
        Ok(state)
    }

    /// Starts an instance for the schedule; a start that fails is the schedule's problem.
    fn start_for_schedule(
        &self,
        sr: &mut ScheduleRun,
        db: &crate::consumer::rundb::RunDb,
    ) -> Step<Result<ConsumerProcess, Problem>> {
        match self.start(&mut sr.run, db, None) {
            Ok(process) => Ok(Ok(process)),
            Err(Failure::Student(found)) => Ok(Err(found)),
            Err(other) => Err(other),
        }
    }

    /// Runs one schedule to the end (the queue empty) and judges it.
    pub(super) fn run_schedule(&mut self, oracle: &Oracle, plan: &Schedule) -> Step<ScheduleOutcome> {
        // An invariant broken by an earlier schedule of this check (or a candidate of the
        // shrinking) says nothing of this one: each schedule is judged by its own states.
        let earlier = self.violation.take();
        let outcome = self.run_one_schedule(oracle, plan);
        let invariant = self.invariant_problem();
        let outcome = outcome.map(|mut outcome| {
            outcome.problem = outcome.problem.or(invariant);
            outcome
        });
        let broken = self.violation.take();
        self.violation.replace(earlier.or(broken));
        outcome
    }

    fn run_one_schedule(&mut self, oracle: &Oracle, plan: &Schedule) -> Step<ScheduleOutcome> {
        let (queue, max_receives) = self.schedule_queue()?;
        let mut sr = ScheduleRun {
            queue,
            run: Run::default(),
            seen: 0,
            processed: Vec::new(),
            batch: self.exercise.messages.batch.clone(),
        };
        for &index in &plan.sends {
            sr.queue.send(index);
        }
        sr.flush();
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let mut current: Option<ConsumerProcess> = None;
        let mut problem: Option<Problem> = None;
        let mut deliveries = 0;
        while problem.is_none() {
            self.in_time()?;
            if deliveries >= SCHEDULE_DELIVERIES_MAX {
                problem = Some(self::problem(
                    Prose::ScheduleStopped,
                    &[("deliveries", plain(SCHEDULE_DELIVERIES_MAX))],
                ));
                break;
            }
            let Some(delivery) = sr.queue.receive() else {
                if sr.queue.open_count() == 0 {
                    break;
                }
                let _ = sr.queue.tick(1);
                sr.flush();
                continue;
            };
            sr.flush();
            let planned = plan.faults.get(deliveries).copied().unwrap_or(Fault::None);
            deliveries += 1;
            // A message's last allowed delivery is never disturbed in a way that prevents its ack:
            // otherwise a correct consumer would lose it to the dead-letter list as well.
            let last_chance = delivery.attempts >= max_receives;
            let fault = match planned {
                Fault::Crash(_) | Fault::LoseAck | Fault::Slow | Fault::CrashBeforeAck if last_chance => {
                    Fault::None
                }
                other => other,
            };
            if fault == Fault::Restart {
                current = None;
            }
            let mut process = match current.take().filter(|p| p.is_alive()) {
                Some(process) => process,
                None => match self.start_for_schedule(&mut sr, &db)? {
                    Ok(process) => process,
                    Err(text) => {
                        problem = Some(text);
                        break;
                    }
                },
            };
            let message = Arc::clone(&sr.batch[delivery.body]);
            if fault == Fault::Slow {
                problem = self.overtake(&mut sr, &db, oracle, process.instance)?;
                if problem.is_some() {
                    break;
                }
            }
            let crash_after = match fault {
                Fault::Crash(k) => Some(k),
                _ => None,
            };
            self.tell_world(&db, &message, delivery.attempts);
            let outcome = self.deliver(&mut sr.run, &mut process, &message, crash_after, None);
            let crash_before_ack =
                fault == Fault::CrashBeforeAck && matches!(outcome.returned(), Some(0 | 1));
            problem = sr.settle(&delivery, &outcome, oracle, (no_ack(fault, crash_before_ack), self.voice));
            if crash_before_ack {
                db.world().lock().unwrap_or_else(|poisoned| poisoned.into_inner()).crashed(process.instance);
            } else if process.is_alive() {
                current = Some(process);
            }
            let _ = sr.queue.tick(1);
            sr.flush();
        }
        drop(current);
        self.relay_before_reading(&mut sr.run, &db)?;
        self.dead_letters_to_world(&sr, &db);
        let after = self.state(&db)?;
        let expected = self.expected_after(oracle, plan, &sr.processed)?;
        if problem.is_none() {
            problem = self.judge_schedule(&sr.queue, plan, oracle, &after, &expected);
        }
        let evidence = Some(evidence_of(before, after, expected, None));
        Ok(ScheduleOutcome { run: sr.run, problem, evidence, deliveries })
    }

    /// A slow first instance: the visibility timeout runs out while it works, and a second
    /// instance gets whatever is visible next and finishes first. The problem it causes, if any.
    fn overtake(
        &self,
        sr: &mut ScheduleRun,
        db: &crate::consumer::rundb::RunDb,
        oracle: &Oracle,
        slow: u32,
    ) -> Step<Option<Problem>> {
        sr.run.queue(text!(
            "#{n} arbeitet langsamer als das Visibility Timeout",
            "#{n} works slower than the visibility timeout",
            n = slow
        ));
        let _ = sr.queue.tick(schedule::VISIBILITY_TIMEOUT);
        sr.flush();
        let Some(second) = sr.queue.receive() else {
            return Ok(None);
        };
        sr.flush();
        let mut helper = match self.start_for_schedule(sr, db)? {
            Ok(process) => process,
            Err(text) => return Ok(Some(text)),
        };
        let other = Arc::clone(&sr.batch[second.body]);
        self.tell_world(db, &other, second.attempts);
        let outcome = self.deliver(&mut sr.run, &mut helper, &other, None, None);
        let problem = sr.settle(&second, &outcome, oracle, (None, self.voice));
        sr.flush();
        Ok(problem)
    }

    /// The state a schedule must leave: every ordinary message sent taken effect once, as the
    /// reference leaves it after them in the order this run first processed them.
    fn expected_after(&mut self, oracle: &Oracle, plan: &Schedule, processed: &[usize]) -> Step<State> {
        let mut order: Vec<usize> = processed.iter().copied().filter(|i| !oracle.states.poison[*i]).collect();
        for &index in &plan.sends {
            if !oracle.states.poison[index] && !order.contains(&index) {
                order.push(index);
            }
        }
        self.reference_state(oracle, &order)
    }

    fn judge_schedule(
        &self,
        queue: &Queue<usize>,
        plan: &Schedule,
        oracle: &Oracle,
        after: &State,
        expected: &State,
    ) -> Option<Problem> {
        let batch = &self.exercise.messages.batch;
        for letter in queue.dead_letters() {
            if !oracle.states.poison[letter.body] {
                let message = plain(schedule::message_label(&batch[letter.body]));
                return Some(problem(
                    Prose::MessageLost,
                    &[("message", message), ("attempts", plain(letter.attempts))],
                ));
            }
        }
        for &index in &plan.sends {
            let dead = queue.dead_letters().iter().any(|d| d.body == index);
            if oracle.states.poison[index] && !dead {
                let message = plain(schedule::message_label(&batch[index]));
                return Some(problem(Prose::PoisonNotDeadLettered, &[("message", message)]));
            }
        }
        if after != expected {
            return Some(problem(Prose::ScheduleStateWrong, &[]));
        }
        None
    }
}
