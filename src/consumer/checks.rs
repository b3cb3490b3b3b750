//! The crash harness and its checks. Each check runs on fresh databases and fresh instances of the
//! submission, compares the observable state with the oracle (the reference solution run without
//! faults) and explains a failure with the trace that shows it.
//!
//! Every loop here (crash points, interleavings, schedules, shrinking, redeliveries) checks the
//! submission's [`Deadline`] before each round; a check that meets it ends with
//! [`CheckEnd::OutOfTime`] and names the limit, and the caller lists the checks after it as not run.

use std::path::PathBuf;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::Oracle;
use super::detail::{Boundary, ConsumerDetail, CrashPoint, CrashPoints, StateEvidence, Trace, TraceEvent};
use super::exercise::ConsumerExercise;
use super::interleave;
use super::process::{CompiledConsumer, ConsumerProcess, DeliveryEnd, DeliveryOutcome, StartError};
use super::schedule::{self, Fault, SCHEDULE_DELIVERIES_MAX, Schedule, ScheduleInfo};
use super::state::{State, diff, open_observer, read_state_from};
use crate::deadline::Deadline;
use crate::grade::GradeError;
use crate::limits::{CRASH_POINTS_EDGE, CRASH_POINTS_MAX, Limits};
use crate::sim::{Queue, QueueConfig};
use crate::text;
use crate::text::Text;

/// The checks, in the order they run.
pub const CHECKS: &[&str] = &[
    "fresh-message",
    "duplicate-same-instance",
    "duplicate-after-restart",
    "same-body-new-id",
    "constraint-violation",
    "crash-points",
    "lost-ack",
    "concurrent-duplicate",
    "at-least-once-schedule",
];

/// The most trace events one check keeps in the report.
pub const TRACE_EVENTS_PER_CHECK_MAX: usize = 400;

/// The outcome of one check before it becomes part of the report.
pub struct CheckResult {
    pub name: &'static str,
    pub failure: Option<Text>,
    pub detail: ConsumerDetail,
    /// What a replay token must carry besides the check's name to rerun exactly the reported run
    /// (the choices of an interleaving, the seed and shape of a schedule).
    pub replay_spec: Option<String>,
    pub end: CheckEnd,
}

/// How a check ended, besides its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckEnd {
    /// It ran to its end (passed or failed).
    Finished,
    /// It met the submission's deadline before its end; its failure names the limit.
    OutOfTime,
    /// It did not run: the submission's time was used up before it began.
    NotRun,
}

impl CheckResult {
    /// A check that did not run because the submission's time was used up.
    pub fn not_run(name: &'static str, deadline: &Deadline) -> CheckResult {
        let why = deadline.limit_name();
        CheckResult {
            name,
            failure: Some(Text {
                de: format!("Nicht ausgeführt: {} erreicht, bevor diese Prüfung an der Reihe war.", why.de),
                en: format!("Not run: the {} was reached before this check's turn.", why.en),
            }),
            detail: ConsumerDetail {
                trace: Vec::new(),
                trace_omitted: 0,
                state: None,
                fuel_used: 0,
                crash_points: None,
                schedule: None,
            },
            replay_spec: None,
            end: CheckEnd::NotRun,
        }
    }
}

/// The world one grading runs in: a temporary directory for its databases and the compiled module.
pub struct Harness<'a> {
    pub exercise: &'a ConsumerExercise,
    pub limits: &'a Limits,
    pub compiled: &'a CompiledConsumer,
    dir: tempfile::TempDir,
    databases: u32,
    /// Seeds every random choice of this grading (derived from the submission's hash).
    pub seed: u64,
    /// Coverage figures the checks add to the report.
    pub coverage: Vec<crate::report::Coverage>,
    /// Keep every trace event (a replay prints the whole run).
    pub full_trace: bool,
    /// The submission's deadline: every loop checks it, every instance's clock is capped to it.
    pub deadline: Deadline,
    /// The reference's state after processing batch messages in a given order, computed once.
    reference_states: std::collections::HashMap<Vec<usize>, State>,
    /// A read-only connection to the database last observed.
    observer: std::cell::RefCell<Option<(PathBuf, rusqlite::Connection)>>,
}

/// What one check records while it runs.
#[derive(Default)]
struct Run {
    /// Bounded while it is recorded (events and bytes), not only when the report is built.
    trace: Trace,
    fuel_used: u64,
    instances: u32,
    /// The replay spec of the run shown in the report.
    replay_spec: Option<String>,
    /// The schedule the trace shows.
    schedule: Option<ScheduleInfo>,
}

impl Run {
    fn queue(&mut self, text: Text) {
        self.trace.push(TraceEvent::Queue { text });
    }

    /// Takes over a finished inner run (an interleaving, a schedule) as the one the check shows:
    /// its trace, fuel and instances; its problem, if any, is the check's failure.
    fn adopt(&mut self, inner: Run, problem: Option<Text>) -> Step<()> {
        self.trace.append(inner.trace);
        self.fuel_used += inner.fuel_used;
        self.instances = inner.instances;
        match problem {
            Some(problem) => Err(Failure::Student(problem)),
            None => Ok(()),
        }
    }

    fn into_detail(
        self,
        state: Option<StateEvidence>,
        crash_points: Option<CrashPoints>,
        full_trace: bool,
    ) -> ConsumerDetail {
        let (mut trace, omitted_while_recording) = self.trace.into_parts();
        let keep = if full_trace { trace.len() } else { TRACE_EVENTS_PER_CHECK_MAX };
        let omitted = trace.len().saturating_sub(keep);
        trace.truncate(keep);
        ConsumerDetail {
            trace,
            trace_omitted: (omitted as u32).saturating_add(omitted_while_recording),
            state,
            fuel_used: self.fuel_used,
            crash_points,
            schedule: self.schedule,
        }
    }
}

/// A check failed for this reason; `?` ends the check.
type Step<T> = Result<T, Failure>;

enum Failure {
    /// The submission did something wrong.
    Student(Text),
    /// The submission's deadline passed before the check's end.
    OutOfTime,
    /// The harness or the exercise broke.
    Internal(GradeError),
}

impl From<GradeError> for Failure {
    fn from(error: GradeError) -> Self {
        Failure::Internal(error)
    }
}

impl<'a> Harness<'a> {
    pub fn new(
        exercise: &'a ConsumerExercise,
        limits: &'a Limits,
        compiled: &'a CompiledConsumer,
    ) -> Result<Self, GradeError> {
        let dir = scratch_dir()?;
        Ok(Harness {
            exercise,
            limits,
            compiled,
            dir,
            databases: 0,
            seed: 0,
            coverage: Vec::new(),
            full_trace: false,
            deadline: Deadline::for_submission(limits),
            reference_states: Default::default(),
            observer: Default::default(),
        })
    }

    /// Ends the check when the submission's time is used up (called before each round of a loop).
    fn in_time(&self) -> Step<()> {
        if self.deadline.expired() { Err(Failure::OutOfTime) } else { Ok(()) }
    }

    /// A new database file holding the exercise's schema and seed rows.
    fn fresh_db(&mut self) -> Result<PathBuf, GradeError> {
        self.databases += 1;
        let path = self.dir.path().join(format!("run-{}.db", self.databases));
        std::fs::write(&path, &self.exercise.template)
            .map_err(|e| GradeError::Internal(format!("cannot write {}: {e}", path.display())))?;
        Ok(path)
    }

    /// The observable state of the database at `db`, read through one observer connection per
    /// database (kept open while the check uses it).
    fn state(&self, db: &std::path::Path) -> Result<State, GradeError> {
        let failed =
            |e: rusqlite::Error| GradeError::Internal(format!("cannot read the database state: {e}"));
        let mut observer = self.observer.borrow_mut();
        if observer.as_ref().is_none_or(|(path, _)| path != db) {
            *observer = Some((db.to_path_buf(), open_observer(db).map_err(failed)?));
        }
        let Some((_, conn)) = observer.as_ref() else {
            return Err(GradeError::Internal("no observer connection".into()));
        };
        read_state_from(conn, &self.exercise.state_queries).map_err(failed)
    }

    /// Starts a new instance; a start that fails is the student's failure.
    fn start(&self, run: &mut Run, db: &std::path::Path) -> Step<ConsumerProcess> {
        run.instances += 1;
        let instance = run.instances;
        run.trace.push(TraceEvent::Start { instance });
        let started = ConsumerProcess::start(
            self.compiled,
            db,
            Arc::clone(&self.exercise.tables),
            self.limits,
            &self.deadline,
            instance,
        );
        match started {
            Ok(process) => Ok(process),
            Err(StartError::Internal(message)) => Err(Failure::Internal(GradeError::Internal(message))),
            Err(StartError::Fault { code, message, events, fuel_used }) => {
                run.trace.extend(events);
                run.fuel_used += fuel_used;
                run.trace.push(TraceEvent::Fault { instance, code, message: message.clone() });
                Err(Failure::Student(Text {
                    de: format!("Der Konsument konnte nicht starten: {}", message.de),
                    en: format!("The consumer could not start: {}", message.en),
                }))
            }
        }
    }

    fn deliver(
        &self,
        run: &mut Run,
        process: &mut ConsumerProcess,
        message: &Arc<serde_json::Value>,
        crash_after: Option<u32>,
        note: Option<Text>,
    ) -> DeliveryOutcome {
        run.trace.push(TraceEvent::Deliver {
            instance: process.instance,
            message: (**message).clone(),
            note,
        });
        let outcome = process.deliver(message, crash_after);
        run.trace.extend(process.take_events());
        run.fuel_used += outcome.fuel_used;
        outcome
    }

    /// Runs the reference solution without faults and records the states every check compares
    /// against. Fails when the reference does not behave as a reference must.
    pub fn oracle_run(&mut self, initial: &State) -> Result<OracleStates, String> {
        let messages = &self.exercise.messages;
        let mut run = Run::default();
        let db = self.fresh_db().map_err(|e| e.to_string())?;
        let mut process =
            self.start(&mut run, &db).map_err(|_| "the reference solution does not start".to_string())?;
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
        let mut process =
            self.start(&mut run, &db).map_err(|_| "the reference solution does not start".to_string())?;
        let violation = self.deliver(&mut run, &mut process, &messages.violation, None, None);
        if delivery_problem(&violation, Expect::Error).is_some() {
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
            let mut process =
                self.start(&mut run, &db).map_err(|_| "the reference solution does not start".to_string())?;
            let outcome = self.deliver(&mut run, &mut process, message, None, None);
            drop(process);
            let is_poison = delivery_problem(&outcome, Expect::Error).is_none();
            if !is_poison && delivery_problem(&outcome, Expect::Processed).is_some() {
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

    /// Runs every check.
    pub fn run_all(&mut self, oracle: &Oracle) -> Result<Vec<CheckResult>, GradeError> {
        let mut results = Vec::new();
        for &name in CHECKS {
            results.push(self.run_check(name, oracle)?);
        }
        Ok(results)
    }

    pub fn run_check(&mut self, name: &'static str, oracle: &Oracle) -> Result<CheckResult, GradeError> {
        self.run_check_spec(name, None, oracle)
    }

    /// Runs check `name`; with a replay `spec`, exactly the run it names.
    pub fn run_check_spec(
        &mut self,
        name: &'static str,
        spec: Option<&str>,
        oracle: &Oracle,
    ) -> Result<CheckResult, GradeError> {
        let mut run = Run::default();
        let mut evidence = None;
        let mut crash_points = None;
        let outcome = match name {
            "fresh-message" => self.fresh_message(&mut run, oracle, &mut evidence),
            "duplicate-same-instance" => self.duplicate_same_instance(&mut run, oracle, &mut evidence),
            "duplicate-after-restart" => self.duplicate_after_restart(&mut run, oracle, &mut evidence),
            "same-body-new-id" => self.same_body_new_id(&mut run, oracle, &mut evidence),
            "constraint-violation" => self.constraint_violation(&mut run, oracle, &mut evidence),
            "crash-points" => self.crash_points(&mut run, oracle, &mut evidence, &mut crash_points),
            "lost-ack" => self.lost_ack(&mut run, oracle, &mut evidence),
            "concurrent-duplicate" => self.concurrent_duplicate(&mut run, oracle, &mut evidence, spec),
            "at-least-once-schedule" => self.schedules(&mut run, oracle, &mut evidence, spec),
            other => return Err(GradeError::Internal(format!("unknown consumer check {other}"))),
        };
        let (failure, end) = match outcome {
            Ok(()) => (None, CheckEnd::Finished),
            Err(Failure::Student(text)) => (Some(text), CheckEnd::Finished),
            Err(Failure::OutOfTime) => {
                run.queue(self.deadline.limit_name());
                (Some(self.deadline.limit_text()), CheckEnd::OutOfTime)
            }
            Err(Failure::Internal(error)) => return Err(error),
        };
        // A check whose deliveries met the deadline (a capped epoch, a stopped statement) failed
        // because time ran out, whatever it concluded from them.
        let end = if failure.is_some() && self.deadline.expired() { CheckEnd::OutOfTime } else { end };
        let replay_spec = run.replay_spec.take();
        let detail = run.into_detail(evidence, crash_points, self.full_trace);
        Ok(CheckResult { name, failure, detail, replay_spec, end })
    }

    /// Delivers `message` to a fresh instance and requires a clean "processed" (1), the first step of
    /// most checks.
    fn process_first(
        &self,
        run: &mut Run,
        process: &mut ConsumerProcess,
        message: &Arc<serde_json::Value>,
    ) -> Step<()> {
        let outcome = self.deliver(run, process, message, None, None);
        if let Some(problem) = delivery_problem(&outcome, Expect::Processed) {
            return Err(Failure::Student(prefix_first_delivery(problem)));
        }
        Ok(())
    }

    fn fresh_message(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
    ) -> Step<()> {
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let mut process = self.start(run, &db)?;
        let outcome = self.deliver(run, &mut process, &self.exercise.messages.fresh, None, None);
        drop(process);
        let after = self.state(&db)?;
        let problem = delivery_problem(&outcome, Expect::Processed);
        *evidence = Some(evidence_of(before, after.clone(), oracle.after_fresh.clone(), None));
        if let Some(problem) = problem {
            return Err(Failure::Student(problem));
        }
        require_state(&after, &oracle.after_fresh, &outcome)
    }

    fn duplicate_same_instance(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
    ) -> Step<()> {
        self.second_delivery(
            run,
            evidence,
            SecondDelivery {
                between: text!(
                    "bestätigt (Ack); der Produzent sendet dieselbe Nachricht noch einmal",
                    "acked; the producer sends the same message again"
                ),
                restart: false,
                note: text!("Duplikat", "duplicate"),
                same_body: false,
                expect: Expect::Duplicate,
                expected: &oracle.after_fresh,
            },
        )
    }

    fn duplicate_after_restart(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
    ) -> Step<()> {
        self.second_delivery(
            run,
            evidence,
            SecondDelivery {
                between: text!(
                    "bestätigt (Ack); der Konsument wird neu gestartet, dann kommt dieselbe Nachricht noch einmal",
                    "acked; the consumer restarts, then the same message arrives again"
                ),
                restart: true,
                note: text!("Duplikat nach Neustart", "duplicate after a restart"),
                same_body: false,
                expect: Expect::Duplicate,
                expected: &oracle.after_fresh,
            },
        )
    }

    fn same_body_new_id(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
    ) -> Step<()> {
        self.second_delivery(
            run,
            evidence,
            SecondDelivery {
                between: text!("bestätigt (Ack)", "acked"),
                restart: false,
                note: text!("neue ID, gleicher Inhalt", "new id, same body"),
                same_body: true,
                expect: Expect::Processed,
                expected: &oracle.after_fresh_same_body,
            },
        )
    }

    /// The fresh message is processed and acked; then a second message arrives (the same again, or
    /// the same body under a new id), at the same instance or at a new one, and must have the
    /// expected outcome and leave the expected state.
    fn second_delivery(
        &mut self,
        run: &mut Run,
        evidence: &mut Option<StateEvidence>,
        second: SecondDelivery<'_>,
    ) -> Step<()> {
        let db = self.fresh_db()?;
        let mut process = self.start(run, &db)?;
        self.process_first(run, &mut process, &self.exercise.messages.fresh)?;
        self.in_time()?;
        run.queue(second.between);
        let before = if second.restart {
            drop(process);
            let before = self.state(&db)?;
            process = self.start(run, &db)?;
            before
        } else {
            self.state(&db)?
        };
        let message =
            if second.same_body { &self.exercise.messages.same_body } else { &self.exercise.messages.fresh };
        let outcome = self.deliver(run, &mut process, message, None, Some(second.note));
        drop(process);
        let after = self.state(&db)?;
        *evidence = Some(evidence_of(before, after.clone(), second.expected.clone(), None));
        if let Some(problem) = delivery_problem(&outcome, second.expect) {
            return Err(Failure::Student(problem));
        }
        require_state(&after, second.expected, &outcome)
    }

    fn constraint_violation(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
    ) -> Step<()> {
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let mut process = self.start(run, &db)?;
        let note = text!("die Wirkung verletzt eine Bedingung", "the effect violates a constraint");
        let outcome = self.deliver(run, &mut process, &self.exercise.messages.violation, None, Some(note));
        drop(process);
        let after = self.state(&db)?;
        *evidence = Some(evidence_of(before, after.clone(), oracle.after_violation.clone(), None));
        if let Some(problem) = delivery_problem(&outcome, Expect::Error) {
            return Err(Failure::Student(problem));
        }
        run.queue(text!(
            "nicht bestätigt: die Nachricht kommt später erneut",
            "not acked: the message will come again"
        ));
        if after != oracle.after_violation {
            return Err(Failure::Student(with_notes(
                text!(
                    "Der Fehler kam zwar an, aber die Datenbank hat sich trotzdem geändert (siehe Unterschied): \
                     ist die ID gemerkt, obwohl die Gutschrift scheiterte? Dann wäre die Nachricht für immer \
                     „erledigt“, aber nie ausgeführt. Merken und Wirkung gehören in eine Transaktion, die bei \
                     einem Fehler zurückgerollt wird.",
                    "The error did surface, but the database changed anyway (see the difference): is the id \
                     remembered although the credit failed? Then the message is \"done\" forever but never \
                     carried out. Remembering and effect belong in one transaction that is rolled back on error."
                ),
                &outcome,
            )));
        }
        Ok(())
    }

    /// Kills the consumer at every crash point of the fresh message (after each write and after each
    /// statement that committed a transaction), then redelivers; afterwards does the same for the
    /// message whose effect fails. See [`CrashPoint`] for why these points are all that matter.
    fn crash_points(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
        crash_points: &mut Option<CrashPoints>,
    ) -> Step<()> {
        // A fault-free run finds the crash points: one after each write and each COMMIT.
        run.queue(text!(
            "Probelauf ohne Fehler: nach welchen Anweisungen kann ein Absturz etwas ausmachen (nach jedem Schreibzugriff und jedem COMMIT)?",
            "fault-free run: after which statements can a crash matter (after every write and every COMMIT)?"
        ));
        let probe_db = self.fresh_db()?;
        let mut probe = self.start(run, &probe_db)?;
        let outcome = self.deliver(run, &mut probe, &self.exercise.messages.fresh, None, None);
        drop(probe);
        if let Some(problem) = delivery_problem(&outcome, Expect::Processed) {
            return Err(Failure::Student(prefix_first_delivery(problem)));
        }
        let points = outcome.crash_points;
        let mut counted = CrashPoints {
            writes: 0,
            commits: 0,
            tested: 0,
            sampled: false,
            failed_at: None,
            failed_where: None,
        };
        count_points(&mut counted, &points);
        *crash_points = Some(counted);
        if outcome.writes == 0 {
            return Err(Failure::Student(text!(
                "Der Konsument hat bei einer neuen Nachricht nichts in die Datenbank geschrieben; es gibt \
                 keinen Absturzpunkt zu prüfen. Eine Wirkung, die nicht in der Datenbank steht, überlebt keinen \
                 Neustart.",
                "The consumer wrote nothing to the database for a fresh message; there is no crash point to \
                 test. An effect that is not in the database does not survive a restart."
            )));
        }
        let total = points.len();
        for point in points_to_try(&points, self.seed, crash_points) {
            self.in_time()?;
            let k = point.number;
            let place = point.describe();
            let tested = mark_tested(crash_points);
            run.queue(Text {
                de: format!("Absturzpunkt {k} von {total}: {}", place.de),
                en: format!("crash point {k} of {total}: {}", place.en),
            });
            let fail = |crash_points: &mut Option<CrashPoints>| mark_failed(crash_points, tested, &place);
            let db = self.fresh_db()?;
            let before = self.exercise.initial_state.clone();
            let mut victim = self.start(run, &db)?;
            let outcome = self.deliver(run, &mut victim, &self.exercise.messages.fresh, Some(k), None);
            drop(victim); // the process dies: its connection closes, SQLite discards what was not committed
            let crashed = matches!(outcome.end, DeliveryEnd::Crashed { .. });
            if !crashed {
                // The same message, the same database: a deterministic consumer passes the same crash
                // points as in the probe. One that does not is reported as it behaved.
                if let Some(problem) = delivery_problem(&outcome, Expect::Processed) {
                    fail(crash_points);
                    return Err(Failure::Student(problem));
                }
            }
            let middle = self.state(&db)?;
            let nothing = middle == before;
            let everything = middle == oracle.after_fresh;
            if !nothing && !everything {
                fail(crash_points);
                *evidence =
                    Some(evidence_of(before.clone(), middle, oracle.after_fresh.clone(), Some(before)));
                let advice = match point.after {
                    Boundary::Commit { .. } => text!(
                        "Dieses COMMIT hat einen Teil dauerhaft gemacht, bevor der Rest geschah: merkst du \
                         die ID zuerst und die Buchung kommt nicht mehr, ist die Nachricht für immer \
                         erledigt, aber nie ausgeführt. Merken und Wirkung gehören in dieselbe Transaktion: \
                         ein BEGIN vor dem ersten Schreibzugriff, ein COMMIT nach dem letzten.",
                        "This COMMIT made one part durable before the rest happened: if you remember the id \
                         first and the credit never comes, the message is done forever but never carried \
                         out. Remembering and effect belong in the same transaction: one BEGIN before the \
                         first write, one COMMIT after the last."
                    ),
                    Boundary::Write { .. } => text!(
                        "Die Schreibzugriffe müssen in einer Transaktion stehen (BEGIN … COMMIT).",
                        "The writes must be in one transaction (BEGIN … COMMIT)."
                    ),
                };
                return Err(Failure::Student(Text {
                    de: format!(
                        "Nach dem Absturz {}, ist nur ein Teil passiert: die Datenbank ist weder im Zustand \
                         vorher noch im Zustand nach der vollständigen Verarbeitung (entweder beides oder \
                         nichts; siehe Unterschied). {}",
                        place.de, advice.de
                    ),
                    en: format!(
                        "After the crash {}, only part happened: the database is neither in the state before \
                         nor in the state after complete processing (all or nothing; see the difference). {}",
                        place.en, advice.en
                    ),
                }));
            }
            if everything {
                // The process died after all its work: the redelivery is the check "lost-ack".
                run.queue(text!(
                    "alles ist passiert, nur das Ack fehlt: die erneute Zustellung prüft „Verlorenes Ack“",
                    "everything happened, only the ack is missing: the redelivery is the check \"lost ack\""
                ));
                continue;
            }
            run.queue(text!(
                "nichts ist passiert; die Queue stellt neu zu",
                "nothing happened; the queue redelivers"
            ));
            let mut second = self.start(run, &db)?;
            let note = text!("erneute Zustellung nach dem Absturz", "redelivery after the crash");
            let redelivery = self.deliver(run, &mut second, &self.exercise.messages.fresh, None, Some(note));
            drop(second);
            let after = self.state(&db)?;
            let problem = delivery_problem(&redelivery, Expect::Processed);
            if problem.is_some() || after != oracle.after_fresh {
                fail(crash_points);
                *evidence = Some(evidence_of(before, after.clone(), oracle.after_fresh.clone(), None));
                let problem = problem.unwrap_or_else(|| {
                    with_notes(
                        Text {
                            de: format!(
                                "Nach dem Absturz {}, und erneuter Zustellung stimmt die Datenbank nicht: die \
                                 Wirkung muss am Ende genau einmal eingetreten sein (siehe Unterschied).",
                                place.de
                            ),
                            en: format!(
                                "After the crash {}, and redelivery the database is wrong: in the end the \
                                 effect must have happened exactly once (see the difference).",
                                place.en
                            ),
                        },
                        &redelivery,
                    )
                });
                return Err(Failure::Student(problem));
            }
        }
        self.crash_points_changing_nothing(run, oracle, evidence, crash_points, QuietPath::FailingEffect)?;
        self.crash_points_changing_nothing(run, oracle, evidence, crash_points, QuietPath::Duplicate)
    }

    /// The crash points of the deliveries that must change nothing durable: the message whose
    /// effect violates a constraint, and a duplicate. Whatever a crash on such a path leaves
    /// behind must be nothing; the redelivery then meets the state a check without a crash
    /// already tried.
    fn crash_points_changing_nothing(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
        crash_points: &mut Option<CrashPoints>,
        path: QuietPath,
    ) -> Step<()> {
        let (message, expect, expected) = match path {
            QuietPath::FailingEffect => {
                (Arc::clone(&self.exercise.messages.violation), Expect::Error, oracle.after_violation.clone())
            }
            QuietPath::Duplicate => {
                (Arc::clone(&self.exercise.messages.fresh), Expect::Duplicate, oracle.after_fresh.clone())
            }
        };
        let (label, probe_note) = match path {
            QuietPath::FailingEffect => (
                text!("der scheiternden Nachricht", "of the failing message"),
                text!(
                    "Probelauf ohne Fehler mit der Nachricht, deren Wirkung an einer Bedingung scheitert",
                    "fault-free run with the message whose effect fails on a constraint"
                ),
            ),
            QuietPath::Duplicate => (
                text!("des Duplikats", "of the duplicate"),
                text!(
                    "Probelauf ohne Fehler mit einem Duplikat: die neue Nachricht ist verarbeitet, ein neuer Prozess erhält sie noch einmal",
                    "fault-free run with a duplicate: the fresh message is processed, a new process receives it again"
                ),
            ),
        };
        run.queue(probe_note);
        let probe_db = self.fresh_db()?;
        let outcome = self.deliver_quietly(run, &probe_db, &message, path, None)?;
        if delivery_problem(&outcome, expect).is_some() || self.state(&probe_db)? != expected {
            // The checks without crashes report how this delivery goes wrong.
            run.queue(text!(
                "diese Zustellung geht schon ohne Absturz schief (siehe die anderen Prüfungen); keine weiteren Absturzpunkte",
                "this delivery goes wrong without a crash already (see the other checks); no more crash points"
            ));
            return Ok(());
        }
        let points = outcome.crash_points;
        if let Some(counted) = crash_points.as_mut() {
            count_points(counted, &points);
        }
        let total = points.len();
        for point in points_to_try(&points, self.seed, crash_points) {
            self.in_time()?;
            let k = point.number;
            let place = point.describe();
            let tested = mark_tested(crash_points);
            run.queue(Text {
                de: format!("Absturzpunkt {k} von {total} {}: {}", label.de, place.de),
                en: format!("crash point {k} of {total} {}: {}", label.en, place.en),
            });
            let db = self.fresh_db()?;
            let outcome = self.deliver_quietly(run, &db, &message, path, Some(k))?;
            let crashed = matches!(outcome.end, DeliveryEnd::Crashed { .. });
            if !crashed && let Some(problem) = delivery_problem(&outcome, expect) {
                mark_failed(crash_points, tested, &place);
                return Err(Failure::Student(problem));
            }
            let middle = self.state(&db)?;
            if middle != expected {
                mark_failed(crash_points, tested, &place);
                let before = match path {
                    QuietPath::FailingEffect => self.exercise.initial_state.clone(),
                    QuietPath::Duplicate => oracle.after_fresh.clone(),
                };
                *evidence = Some(evidence_of(before, middle, expected, None));
                return Err(Failure::Student(match path {
                    QuietPath::FailingEffect => Text {
                        de: format!(
                            "Die Wirkung dieser Nachricht scheitert an einer Bedingung, aber nach dem Absturz {}, \
                             ist die Datenbank verändert (siehe Unterschied): ist die ID dauerhaft gemerkt? Dann \
                             hält die erneute Zustellung die Nachricht für ein Duplikat, sie wird bestätigt und \
                             ist verloren, ohne dass jemand den Fehler sieht. Was bei einem Fehler zurückgenommen \
                             wird, darf nie bestätigt werden: ROLLBACK statt COMMIT und Löschen.",
                            place.de
                        ),
                        en: format!(
                            "The effect of this message fails on a constraint, but after the crash {}, the \
                             database has changed (see the difference): is the id remembered durably? Then the \
                             redelivery takes the message for a duplicate, it is acked and lost without anybody \
                             seeing the error. What is taken back on an error must never be committed: ROLLBACK \
                             instead of COMMIT and delete.",
                            place.en
                        ),
                    },
                    QuietPath::Duplicate => Text {
                        de: format!(
                            "Ein Duplikat darf nichts ändern, aber nach dem Absturz {}, ist die Datenbank nicht \
                             mehr im Zustand nach der ersten Verarbeitung (siehe Unterschied): die erneute \
                             Zustellung findet die Nachricht nicht mehr als erledigt vor, oder ihre Wirkung ist \
                             angetastet. Ein Duplikat wird nur erkannt, nicht neu geschrieben.",
                            place.de
                        ),
                        en: format!(
                            "A duplicate must change nothing, but after the crash {}, the database is no longer \
                             in the state after the first processing (see the difference): the redelivery no \
                             longer finds the message done, or its effect has been touched. A duplicate is only \
                             recognised, never written again.",
                            place.en
                        ),
                    },
                }));
            }
            // Nothing changed: a redelivery meets the state a check without a crash already tried.
            run.queue(text!(
                "nichts hat sich geändert; die erneute Zustellung trifft denselben Zustand wie vorher",
                "nothing changed; the redelivery meets the same state as before"
            ));
        }
        Ok(())
    }

    /// Delivers `message` on `db` for a path of [`Self::crash_points_changing_nothing`]: for a
    /// duplicate, first the fresh message to a first process, then `message` to a new one, which is
    /// killed at crash point `crash_after`.
    fn deliver_quietly(
        &mut self,
        run: &mut Run,
        db: &std::path::Path,
        message: &Arc<serde_json::Value>,
        path: QuietPath,
        crash_after: Option<u32>,
    ) -> Step<DeliveryOutcome> {
        if path == QuietPath::Duplicate {
            let mut first = self.start(run, db)?;
            self.process_first(run, &mut first, &self.exercise.messages.fresh)?;
            drop(first);
            run.queue(text!(
                "bestätigt (Ack); dieselbe Nachricht kommt noch einmal",
                "acked; the same message comes again"
            ));
        }
        let mut process = self.start(run, db)?;
        let note = match path {
            QuietPath::Duplicate => Some(text!("Duplikat", "duplicate")),
            QuietPath::FailingEffect => None,
        };
        let outcome = self.deliver(run, &mut process, message, crash_after, note);
        drop(process); // a crash: the connection closes, SQLite discards what was not committed
        Ok(outcome)
    }

    fn lost_ack(&mut self, run: &mut Run, oracle: &Oracle, evidence: &mut Option<StateEvidence>) -> Step<()> {
        self.second_delivery(
            run,
            evidence,
            SecondDelivery {
                between: text!(
                    "das Ack geht verloren: der Prozess stirbt, bevor es die Queue erreicht; nach dem Visibility Timeout stellt die Queue erneut zu",
                    "the ack is lost: the process dies before it reaches the queue; after the visibility timeout the queue delivers again"
                ),
                restart: true,
                note: text!("erneute Zustellung (Ack verloren)", "redelivery (ack lost)"),
                same_body: false,
                expect: Expect::Duplicate,
                expected: &oracle.after_fresh,
            },
        )
    }
}

/// A delivery that must leave nothing durable behind, whose crash points the crash check tries too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuietPath {
    /// The message whose effect violates a constraint.
    FailingEffect,
    /// The fresh message again, after it was processed.
    Duplicate,
}

/// The second delivery of [`Harness::second_delivery`]: what happens between the two, and what the
/// second must do.
struct SecondDelivery<'a> {
    /// What the trace says between the first delivery and the second.
    between: Text,
    /// The second delivery goes to a new instance (the first one died or restarted).
    restart: bool,
    /// How the trace labels the second delivery.
    note: Text,
    /// The second message is the same body under a new id, not the same message again.
    same_body: bool,
    expect: Expect,
    /// The state the second delivery must leave.
    expected: &'a State,
}

/// What the reference solution does without faults (see [`Oracle`]).
pub struct OracleStates {
    pub after_fresh: State,
    pub after_fresh_same_body: State,
    pub after_violation: State,
    pub poison: Vec<bool>,
}

/// The outcome of one interleaved run of the concurrent-duplicate check.
struct ConcurrentRun {
    run: Run,
    choices: Vec<usize>,
    order: Vec<usize>,
    problem: Option<Text>,
    evidence: StateEvidence,
}

impl<'a> Harness<'a> {
    fn concurrent_duplicate(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
        spec: Option<&str>,
    ) -> Step<()> {
        if let Some(spec) = spec {
            let choices = parse_choices(spec).ok_or_else(|| {
                Failure::Internal(GradeError::Replay(format!(
                    "\"{spec}\" is not a sequence of interleaving choices (0 and 1)"
                )))
            })?;
            let replayed = self.concurrent_run(oracle, &choices, &mut || 0)?;
            return self.show_concurrent(run, replayed, evidence);
        }
        let seed = self.seed ^ 0x636f_6e63_7572_7265; // "concurre": one stream per check
        let mut first: Option<ConcurrentRun> = None;
        let mut internal: Option<Failure> = None;
        let exploration = interleave::explore(seed, |prefix, chooser| {
            match self.in_time().and_then(|()| self.concurrent_run(oracle, prefix, chooser)) {
                Ok(outcome) => {
                    let choices = outcome.choices.clone();
                    if outcome.problem.is_some() {
                        return Err(Box::new(outcome));
                    }
                    first.get_or_insert(outcome);
                    Ok(choices)
                }
                Err(error) => {
                    internal = Some(error);
                    // Stop exploring: report the internal error below.
                    Err(Box::new(ConcurrentRun {
                        run: Run::default(),
                        choices: Vec::new(),
                        order: Vec::new(),
                        problem: None,
                        evidence: evidence_of(State::new(), State::new(), State::new(), None),
                    }))
                }
            }
        });
        if let Some(failure) = internal {
            return Err(failure);
        }
        self.coverage.push(crate::report::Coverage {
            name: "interleavings".into(),
            label: text!("Verschränkungen", "interleavings"),
            exercised: exploration.explored as u64,
            total: exploration.exhaustive.then_some(exploration.explored as u64),
        });
        let shown = match exploration.failure {
            Some(failing) => *failing,
            None => match first {
                Some(passing) => passing,
                None => return Ok(()),
            },
        };
        self.show_concurrent(run, shown, evidence)
    }

    /// Puts one interleaved run into the check's trace and evidence.
    fn show_concurrent(
        &mut self,
        run: &mut Run,
        shown: ConcurrentRun,
        evidence: &mut Option<StateEvidence>,
    ) -> Step<()> {
        run.replay_spec = Some(shown.choices.iter().map(|c| if *c == 0 { '0' } else { '1' }).collect());
        let order: Vec<String> = shown.order.iter().map(|w| format!("#{}", w + 1)).collect();
        let note = text!(
            "Verschränkung (wer die nächste Anweisung ausführt): {order}",
            "interleaving (who runs the next statement): {order}",
            order = order.join(" ")
        );
        run.trace.push(TraceEvent::Queue { text: note });
        *evidence = Some(shown.evidence);
        run.adopt(shown.run, shown.problem)
    }

    /// One interleaved run: two instances get the same message at once (the visibility timeout
    /// expired while the first was still working); afterwards every delivery that ended in an
    /// error is redelivered, as the queue would.
    fn concurrent_run(
        &mut self,
        oracle: &Oracle,
        prefix: &[usize],
        chooser: &mut dyn FnMut() -> usize,
    ) -> Step<ConcurrentRun> {
        let mut run = Run::default();
        let message = Arc::clone(&self.exercise.messages.fresh);
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let gates = interleave::gates();
        let mut processes = Vec::with_capacity(2);
        for gate in &gates {
            run.instances += 1;
            let instance = run.instances;
            run.trace.push(TraceEvent::Start { instance });
            let tables = Arc::clone(&self.exercise.tables);
            match ConsumerProcess::start_gated(
                self.compiled,
                &db,
                tables,
                self.limits,
                &self.deadline,
                instance,
                gate.clone(),
            ) {
                Ok(process) => processes.push(process),
                Err(StartError::Internal(message)) => {
                    return Err(Failure::Internal(GradeError::Internal(message)));
                }
                Err(StartError::Fault { code, message, events, fuel_used }) => {
                    run.trace.extend(events);
                    run.fuel_used += fuel_used;
                    run.trace.push(TraceEvent::Fault { instance, code, message: message.clone() });
                    let problem = Some(Text {
                        de: format!("Der Konsument konnte nicht starten: {}", message.de),
                        en: format!("The consumer could not start: {}", message.en),
                    });
                    let evidence =
                        evidence_of(before.clone(), before.clone(), oracle.after_fresh.clone(), None);
                    return Ok(ConcurrentRun {
                        run,
                        choices: Vec::new(),
                        order: Vec::new(),
                        problem,
                        evidence,
                    });
                }
            }
        }
        for process in &processes {
            let note = if process.instance == 1 {
                text!("arbeitet langsam", "works slowly")
            } else {
                text!(
                    "dieselbe Nachricht: das Visibility Timeout lief ab, während #1 noch arbeitete",
                    "the same message: the visibility timeout expired while #1 was still working"
                )
            };
            run.trace.push(TraceEvent::Deliver {
                instance: process.instance,
                message: (*message).clone(),
                note: Some(note),
            });
        }
        let [mut first, mut second]: [ConsumerProcess; 2] = match processes.try_into() {
            Ok(pair) => pair,
            Err(_) => return Err(GradeError::Internal("two instances expected".into()).into()),
        };
        let interleaved = interleave::drive(&mut first, &mut second, &gates[0], &message, prefix, chooser);
        drop((first, second));
        run.trace.extend(interleaved.trace);
        let mut processed = 0;
        let mut problem = None;
        let mut redeliver = 0;
        for outcome in interleaved.outcomes.iter() {
            let Some(outcome) = outcome else {
                return Err(
                    GradeError::Internal("an interleaved instance did not report its end".into()).into()
                );
            };
            run.fuel_used += outcome.fuel_used;
            match outcome.returned() {
                Some(1) => processed += 1,
                Some(0) => {}
                _ => redeliver += 1,
            }
            if let (None, DeliveryEnd::Faulted { message, .. }) = (&problem, &outcome.end) {
                problem = Some(message.clone());
            }
            if problem.is_none() && outcome.transaction_left_open {
                problem = delivery_problem(outcome, Expect::Duplicate)
                    .or_else(|| delivery_problem(outcome, Expect::Processed));
            }
        }
        for _ in 0..redeliver {
            if problem.is_some() {
                break;
            }
            self.in_time()?;
            run.queue(text!(
                "eine Zustellung endete mit einem Fehler: die Queue stellt erneut zu",
                "one delivery ended in an error: the queue delivers again"
            ));
            let middle = self.state(&db)?;
            let mut again = match self.start(&mut run, &db) {
                Ok(process) => process,
                Err(Failure::Student(text)) => {
                    problem = Some(text);
                    break;
                }
                Err(other) => return Err(other),
            };
            let note = text!("erneute Zustellung", "redelivery");
            let outcome = self.deliver(&mut run, &mut again, &message, None, Some(note));
            let expect = if middle == oracle.after_fresh { Expect::Duplicate } else { Expect::Processed };
            if outcome.returned() == Some(1) {
                processed += 1;
            }
            problem = delivery_problem(&outcome, expect);
        }
        let after = self.state(&db)?;
        if problem.is_none() && (after != oracle.after_fresh || processed != 1) {
            let twice = processed > 1 || after != oracle.after_fresh && after != before;
            problem = Some(if twice {
                text!(
                    "Zwei Prozesse haben dieselbe Nachricht gleichzeitig verarbeitet, und die Wirkung ist {processed}-mal gemeldet bzw. nicht genau einmal eingetreten (siehe Unterschied). Zwischen Prüfen („schon gesehen?“) und Merken darf kein anderer dazwischenkommen: die Prüfung muss in derselben Transaktion wie die Wirkung stehen, am besten erledigt sie der PRIMARY KEY der Dedup-Tabelle.",
                    "Two processes handled the same message at the same time, and the effect was reported {processed} times or did not happen exactly once (see the difference). Nobody may come in between checking (\"seen already?\") and remembering: the check must be in the same transaction as the effect; best let the dedup table's PRIMARY KEY do it."
                )
            } else {
                text!(
                    "Zwei Prozesse haben dieselbe Nachricht gleichzeitig erhalten, und am Ende ist die Wirkung nicht genau einmal eingetreten (siehe Unterschied).",
                    "Two processes received the same message at the same time, and in the end the effect did not happen exactly once (see the difference)."
                )
            });
        }
        let evidence = evidence_of(before, after, oracle.after_fresh.clone(), None);
        Ok(ConcurrentRun { run, choices: interleaved.choices, order: interleaved.order, problem, evidence })
    }
}

/// A temporary directory for a grading's databases: below the worker process's own scratch
/// directory when it runs in one (`PRUEFSTEIN_SCRATCH_DIR`, removed with the worker, so a killed
/// grading leaves nothing behind), else in memory-backed `/dev/shm` where it exists (every run
/// creates, writes and drops small database files), else the system's temp directory.
fn scratch_dir() -> Result<tempfile::TempDir, GradeError> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("pruefstein-");
    if let Some(root) = std::env::var_os(crate::sandbox::SCRATCH_ENV) {
        let root = PathBuf::from(root);
        return std::fs::create_dir_all(&root)
            .and_then(|()| builder.tempdir_in(&root))
            .map_err(|e| GradeError::Internal(format!("cannot create a scratch directory: {e}")));
    }
    let shm = std::path::Path::new("/dev/shm");
    let dir =
        if shm.is_dir() { builder.tempdir_in(shm).or_else(|_| builder.tempdir()) } else { builder.tempdir() };
    dir.map_err(|e| GradeError::Internal(format!("cannot create a temporary directory: {e}")))
}

/// How one schedule ended.
struct ScheduleOutcome {
    run: Run,
    problem: Option<Text>,
    evidence: Option<StateEvidence>,
    /// Deliveries made (faults beyond them never struck).
    deliveries: usize,
}

impl<'a> Harness<'a> {
    fn schedules(
        &mut self,
        run: &mut Run,
        oracle: &Oracle,
        evidence: &mut Option<StateEvidence>,
        spec: Option<&str>,
    ) -> Step<()> {
        let messages = self.exercise.messages.batch.len();
        if let Some(spec) = spec {
            let schedule = Schedule::decode(spec, messages).ok_or_else(|| {
                Failure::Internal(GradeError::Replay(format!(
                    "\"{spec}\" is not a schedule of this exercise"
                )))
            })?;
            let outcome = self.run_schedule(oracle, &schedule)?;
            return self.show_schedule(run, schedule, outcome, evidence);
        }
        let mut explored = 0;
        for index in 0..schedule::SCHEDULES_PER_SUBMISSION {
            self.in_time()?;
            let seed = self.seed ^ 0x7363_6865_6475_6c65u64.wrapping_add(index); // "schedule"
            let mut drawn = Schedule::generate(seed, messages);
            if index == 0 {
                // The first schedule is calm: reordered and duplicated sends, no faults. One
                // instance sees every delivery, the poison message's retries included.
                drawn.faults.clear();
                drawn.original_size = drawn.size();
            }
            let outcome = self.run_schedule(oracle, &drawn)?;
            explored += 1;
            if outcome.problem.is_some() {
                self.push_schedule_coverage(explored);
                let (shrunk, outcome) = self.shrink(oracle, drawn, outcome)?;
                return self.show_schedule(run, shrunk, outcome, evidence);
            }
        }
        self.push_schedule_coverage(explored);
        run.queue(text!(
            "{explored} Zeitpläne mit Verlusten, Duplikaten, Abstürzen und langsamen Konsumenten: alle richtig",
            "{explored} schedules with losses, duplicates, crashes and slow consumers: all correct"
        ));
        Ok(())
    }

    fn push_schedule_coverage(&mut self, explored: u64) {
        self.coverage.push(crate::report::Coverage {
            name: "schedules".into(),
            label: text!("Zeitpläne", "schedules"),
            exercised: explored,
            total: None,
        });
    }

    fn show_schedule(
        &mut self,
        run: &mut Run,
        schedule: Schedule,
        outcome: ScheduleOutcome,
        evidence: &mut Option<StateEvidence>,
    ) -> Step<()> {
        let batch = &self.exercise.messages.batch;
        let label = |i: usize| schedule::message_label(&batch[i]);
        let info = ScheduleInfo::of(&schedule, &label);
        run.queue(Text {
            de: format!("Zeitplan (Seed {}): {}", info.seed, info.description.de),
            en: format!("schedule (seed {}): {}", info.seed, info.description.en),
        });
        run.replay_spec = Some(schedule.encode());
        run.schedule = Some(info);
        *evidence = outcome.evidence;
        run.adopt(outcome.run, outcome.problem)
    }

    /// Shrinks a failing schedule: tries smaller ones and keeps any that still fails, until none of
    /// its candidates fails or the run budget is spent.
    fn shrink(
        &mut self,
        oracle: &Oracle,
        mut best: Schedule,
        mut best_outcome: ScheduleOutcome,
    ) -> Step<(Schedule, ScheduleOutcome)> {
        best.faults.truncate(best_outcome.deliveries);
        let mut runs = 0;
        'smaller: loop {
            for mut candidate in best.candidates() {
                if runs >= schedule::SHRINK_RUNS_MAX || self.deadline.expired() {
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

    /// The reference's state after processing the batch messages `order` once each, in that order.
    fn reference_state(&mut self, oracle: &Oracle, order: &[usize]) -> Step<State> {
        if let Some(state) = self.reference_states.get(order) {
            return Ok(state.clone());
        }
        self.in_time()?;
        let db = self.fresh_db()?;
        // The reference runs under the submission's deadline too; failing only because that ran
        // out is the submission's time limit, not a broken exercise.
        let broken = |harness: &Self, message: String| {
            if harness.deadline.expired() {
                Failure::OutOfTime
            } else {
                Failure::Internal(GradeError::Internal(message))
            }
        };
        let tables = Arc::clone(&self.exercise.tables);
        let mut process =
            ConsumerProcess::start(&oracle.reference, &db, tables, self.limits, &self.deadline, 1)
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
        let state = self.state(&db)?;
        self.reference_states.insert(order.to_vec(), state.clone());
        Ok(state)
    }

    /// Runs one schedule to the end (the queue empty) and judges it.
    fn run_schedule(&mut self, oracle: &Oracle, plan: &Schedule) -> Step<ScheduleOutcome> {
        let batch = self.exercise.messages.batch.clone();
        let label = |i: &usize| schedule::message_label(&batch[*i]);
        let config = QueueConfig {
            visibility_timeout: schedule::VISIBILITY_TIMEOUT,
            max_receives: Some(schedule::MAX_RECEIVES),
        };
        let mut queue: Queue<usize> =
            Queue::new(config).map_err(|e| GradeError::Internal(format!("schedule queue: {e}")))?;
        let mut run = Run::default();
        let mut seen = 0;
        let flush = |queue: &Queue<usize>, run: &mut Run, seen: &mut usize| {
            for entry in &queue.trace()[*seen..] {
                if let Some(line) = crate::sim::describe::queue_line(queue, entry, &label) {
                    run.trace.push(TraceEvent::Queue {
                        text: Text {
                            de: line.render(crate::text::Lang::De),
                            en: line.render(crate::text::Lang::En),
                        },
                    });
                }
            }
            *seen = queue.trace().len();
        };
        for &index in &plan.sends {
            queue.send(index);
        }
        flush(&queue, &mut run, &mut seen);
        let db = self.fresh_db()?;
        let before = self.exercise.initial_state.clone();
        let mut current: Option<ConsumerProcess> = None;
        let mut processed: Vec<usize> = Vec::new();
        let mut problem: Option<Text> = None;
        let mut deliveries = 0;
        'queue: while problem.is_none() {
            self.in_time()?;
            if deliveries >= SCHEDULE_DELIVERIES_MAX {
                problem = Some(text!(
                    "Der Zeitplan wurde nach {SCHEDULE_DELIVERIES_MAX} Zustellungen abgebrochen.",
                    "The schedule was stopped after {SCHEDULE_DELIVERIES_MAX} deliveries."
                ));
                break;
            }
            let Some(delivery) = queue.receive() else {
                if queue.open_count() == 0 {
                    break;
                }
                let _ = queue.tick(1);
                flush(&queue, &mut run, &mut seen);
                continue;
            };
            flush(&queue, &mut run, &mut seen);
            let planned = plan.faults.get(deliveries).copied().unwrap_or(Fault::None);
            deliveries += 1;
            // A message's last allowed delivery is never disturbed in a way that prevents its ack:
            // otherwise a correct consumer would lose it to the dead-letter list as well.
            let last_chance = delivery.attempts >= schedule::MAX_RECEIVES;
            let fault = match planned {
                Fault::Crash(_) | Fault::LoseAck | Fault::Slow if last_chance => Fault::None,
                other => other,
            };
            if fault == Fault::Restart {
                current = None;
            }
            let mut process = match current.take().filter(|p| p.is_alive()) {
                Some(process) => process,
                None => match self.start(&mut run, &db) {
                    Ok(process) => process,
                    Err(Failure::Student(text)) => {
                        problem = Some(text);
                        break;
                    }
                    Err(other) => return Err(other),
                },
            };
            let message = Arc::clone(&batch[delivery.body]);
            if fault == Fault::Slow {
                // The first instance is still working when the timeout runs out: a second one gets
                // whatever is visible next, finishes first, and only then does the first finish.
                run.queue(text!(
                    "#{n} arbeitet langsamer als das Visibility Timeout",
                    "#{n} works slower than the visibility timeout",
                    n = process.instance
                ));
                let _ = queue.tick(schedule::VISIBILITY_TIMEOUT);
                flush(&queue, &mut run, &mut seen);
                if let Some(second) = queue.receive() {
                    flush(&queue, &mut run, &mut seen);
                    let mut helper = match self.start(&mut run, &db) {
                        Ok(process) => process,
                        Err(Failure::Student(text)) => {
                            problem = Some(text);
                            break 'queue;
                        }
                        Err(other) => return Err(other),
                    };
                    let other = Arc::clone(&batch[second.body]);
                    let outcome = self.deliver(&mut run, &mut helper, &other, None, None);
                    problem = self.settle(
                        &mut queue,
                        &mut run,
                        second.id,
                        second.body,
                        &outcome,
                        oracle,
                        &mut processed,
                        false,
                    );
                    flush(&queue, &mut run, &mut seen);
                    if problem.is_some() {
                        break;
                    }
                }
            }
            let crash_after = match fault {
                Fault::Crash(k) => Some(k),
                _ => None,
            };
            let outcome = self.deliver(&mut run, &mut process, &message, crash_after, None);
            let lose_ack = fault == Fault::LoseAck;
            problem = self.settle(
                &mut queue,
                &mut run,
                delivery.id,
                delivery.body,
                &outcome,
                oracle,
                &mut processed,
                lose_ack,
            );
            if process.is_alive() {
                current = Some(process);
            }
            let _ = queue.tick(1);
            flush(&queue, &mut run, &mut seen);
        }
        drop(current);
        let after = self.state(&db)?;
        // Every ordinary message sent must have taken effect once; the expected state is the
        // reference's after them, in the order this run first processed them.
        let mut order: Vec<usize> = processed.iter().copied().filter(|i| !oracle.poison[*i]).collect();
        for &index in &plan.sends {
            if !oracle.poison[index] && !order.contains(&index) {
                order.push(index);
            }
        }
        let expected = self.reference_state(oracle, &order)?;
        if problem.is_none() {
            problem = self.judge_schedule(&queue, plan, oracle, &after, &expected);
        }
        let evidence = Some(evidence_of(before, after, expected, None));
        Ok(ScheduleOutcome { run, problem, evidence, deliveries })
    }

    /// Acks (or not) after a delivery, as the queue's consumer loop would, and records what the
    /// delivery means for the schedule. Returns a problem with the delivery itself.
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &self,
        queue: &mut Queue<usize>,
        run: &mut Run,
        queue_id: u64,
        index: usize,
        outcome: &DeliveryOutcome,
        oracle: &Oracle,
        processed: &mut Vec<usize>,
        lose_ack: bool,
    ) -> Option<Text> {
        match &outcome.end {
            DeliveryEnd::Crashed { .. } => {
                run.queue(text!("kein Ack: der Prozess ist tot", "no ack: the process is dead"));
                None
            }
            DeliveryEnd::Faulted { code, message }
                if !matches!(code.as_str(), "abort" | "unreachable" | "trap") =>
            {
                Some(message.clone())
            }
            DeliveryEnd::Faulted { .. } => None,
            DeliveryEnd::Returned(value) => {
                if outcome.transaction_left_open {
                    return delivery_problem(outcome, Expect::Processed)
                        .or_else(|| delivery_problem(outcome, Expect::Duplicate));
                }
                if *value == 1 && !processed.contains(&index) {
                    processed.push(index);
                }
                if *value != 0 && *value != 1 {
                    return None;
                }
                if lose_ack {
                    run.queue(text!(
                        "das Ack geht auf dem Weg zur Queue verloren",
                        "the ack is lost on its way to the queue"
                    ));
                } else {
                    queue.ack(queue_id);
                }
                if oracle.poison[index] {
                    return Some(text!(
                        "Die Giftnachricht {m} wurde mit {value} bestätigt, obwohl ihre Wirkung nicht eintreten kann: sie ist verloren, statt in der Dead-Letter-Liste zu landen, wo jemand sie sehen würde.",
                        "The poison message {m} was acked with {value} although its effect cannot happen: it is lost instead of landing in the dead-letter list, where somebody would see it.",
                        m = schedule::message_label(&self.exercise.messages.batch[index])
                    ));
                }
                None
            }
        }
    }

    fn judge_schedule(
        &self,
        queue: &Queue<usize>,
        plan: &Schedule,
        oracle: &Oracle,
        after: &State,
        expected: &State,
    ) -> Option<Text> {
        let batch = &self.exercise.messages.batch;
        for letter in queue.dead_letters() {
            if !oracle.poison[letter.body] {
                return Some(text!(
                    "Die Nachricht {m} ging verloren: nach {n} Zustellungen ohne Ack landete sie in der Dead-Letter-Liste, obwohl sie verarbeitet werden konnte.",
                    "The message {m} was lost: after {n} deliveries without an ack it went to the dead-letter list although it could have been processed.",
                    m = schedule::message_label(&batch[letter.body]),
                    n = letter.attempts
                ));
            }
        }
        for &index in &plan.sends {
            let dead = queue.dead_letters().iter().any(|d| d.body == index);
            if oracle.poison[index] && !dead {
                return Some(text!(
                    "Die Giftnachricht {m} ist nicht in der Dead-Letter-Liste gelandet.",
                    "The poison message {m} did not end in the dead-letter list.",
                    m = schedule::message_label(&batch[index])
                ));
            }
        }
        if after != expected {
            return Some(text!(
                "Nach dem Zeitplan stimmt die Datenbank nicht: jede Nachricht muss genau einmal gewirkt haben, die Giftnachricht gar nicht (siehe Unterschied).",
                "After the schedule the database is wrong: every message must have taken effect exactly once, the poison message not at all (see the difference)."
            ));
        }
        None
    }
}

/// The crash points of one path that the check tries: all of them, or a sample drawn from the seed
/// beyond [`CRASH_POINTS_MAX`] (recorded in `counted`, so the coverage line says so).
fn points_to_try<'p>(
    points: &'p [CrashPoint],
    seed: u64,
    counted: &mut Option<CrashPoints>,
) -> Vec<&'p CrashPoint> {
    let (numbers, sampled) = crash_points_to_test(points.len() as u32, seed);
    if let Some(counted) = counted.as_mut() {
        counted.sampled |= sampled;
    }
    numbers.iter().filter_map(|&k| points.get(k as usize - 1)).collect()
}

/// The crash points to test for a consumer that makes `writes` writes, ascending, and whether they
/// are a sample: every one up to [`CRASH_POINTS_MAX`]; beyond it the first and last
/// [`CRASH_POINTS_EDGE`] (where a transaction begins and commits) and the rest drawn without
/// repetition from `seed`, so a regrade tests the same points.
pub fn crash_points_to_test(writes: u32, seed: u64) -> (Vec<u32>, bool) {
    if writes <= CRASH_POINTS_MAX {
        return ((1..=writes).collect(), false);
    }
    let edge = CRASH_POINTS_EDGE.min(CRASH_POINTS_MAX / 2);
    let mut points: std::collections::BTreeSet<u32> = (1..=edge).chain(writes - edge + 1..=writes).collect();
    let middle = (edge + 1, writes - edge);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6372_6173_6870_6f69); // "crashpoi"
    while points.len() < CRASH_POINTS_MAX as usize {
        let span = middle.1 - middle.0 + 1;
        points.insert(middle.0 + rng.next_u32() % span);
    }
    (points.into_iter().collect(), true)
}

/// "0110" -> [0, 1, 1, 0]; an empty spec is the first interleaving.
fn parse_choices(spec: &str) -> Option<Vec<usize>> {
    spec.chars()
        .map(|c| match c {
            '0' => Some(0),
            '1' => Some(1),
            _ => None,
        })
        .collect()
}

/// Adds the crash points of one probe to the counts.
fn count_points(counted: &mut CrashPoints, points: &[CrashPoint]) {
    for point in points {
        match point.after {
            Boundary::Write { .. } => counted.writes += 1,
            Boundary::Commit { .. } => counted.commits += 1,
        }
    }
}

/// Counts one more crash point as tested; returns its number over the whole check.
fn mark_tested(points: &mut Option<CrashPoints>) -> u32 {
    match points.as_mut() {
        Some(points) => {
            points.tested += 1;
            points.tested
        }
        None => 0,
    }
}

fn mark_failed(points: &mut Option<CrashPoints>, k: u32, place: &Text) {
    if let Some(points) = points.as_mut() {
        points.failed_at = Some(k);
        points.failed_where = Some(place.clone());
    }
}

fn evidence_of(before: State, after: State, expected: State, also_allowed: Option<State>) -> StateEvidence {
    let diff = diff(&after, &expected);
    StateEvidence { before, after, expected, also_allowed, diff }
}

fn require_state(after: &State, expected: &State, outcome: &DeliveryOutcome) -> Step<()> {
    if after == expected {
        return Ok(());
    }
    Err(Failure::Student(with_notes(
        text!(
            "Die Datenbank stimmt danach nicht mit der Referenzlösung überein (siehe Unterschied: - fehlt, + zu viel).",
            "Afterwards the database does not match the reference solution (see the difference: - missing, + extra)."
        ),
        outcome,
    )))
}

/// Appends notes on limits met without a trap (a stopped statement, a cut log).
fn with_notes(mut text: Text, outcome: &DeliveryOutcome) -> Text {
    for note in &outcome.notes {
        text.de.push(' ');
        text.de.push_str(&note.de);
        text.en.push(' ');
        text.en.push_str(&note.en);
    }
    text
}

fn prefix_first_delivery(problem: Text) -> Text {
    Text {
        de: format!("Schon die erste Zustellung der neuen Nachricht ging schief: {}", problem.de),
        en: format!("Already the first delivery of the fresh message went wrong: {}", problem.en),
    }
}

/// What a delivery should end with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Return 1, transaction closed.
    Processed,
    /// Return 0, transaction closed.
    Duplicate,
    /// The error surfaces: a return value other than 0 and 1, or a deliberate trap (abort,
    /// unreachable), transaction closed.
    Error,
}

/// Why `outcome` is not what `expect` requires, in words a student understands.
fn delivery_problem(outcome: &DeliveryOutcome, expect: Expect) -> Option<Text> {
    let problem = match (&outcome.end, expect) {
        (DeliveryEnd::Crashed { point, after }, _) => {
            let after = after.describe();
            Some(Text {
                de: format!("Der Prozess wurde an Absturzpunkt {point} abgeschossen, {}.", after.de),
                en: format!("The process was killed at crash point {point}, {}.", after.en),
            })
        }
        (DeliveryEnd::Faulted { code, message }, Expect::Error)
            if matches!(code.as_str(), "abort" | "unreachable" | "trap") =>
        {
            let _ = message;
            None
        }
        (DeliveryEnd::Faulted { message, .. }, _) => Some(message.clone()),
        (DeliveryEnd::Returned(1), Expect::Processed) | (DeliveryEnd::Returned(0), Expect::Duplicate) => None,
        (DeliveryEnd::Returned(v), Expect::Error) if *v != 0 && *v != 1 => None,
        (DeliveryEnd::Returned(0), Expect::Processed) => Some(text!(
            "Rückgabe 0 (Duplikat) für eine Nachricht, die noch nicht verarbeitet war: die Queue bestätigt sie, \
             und ihre Wirkung tritt nie ein.",
            "Returned 0 (duplicate) for a message that was not yet processed: the queue acks it and its effect \
             never happens."
        )),
        (DeliveryEnd::Returned(v), Expect::Processed) => Some(text!(
            "Rückgabe {v} (Fehler) für eine Nachricht, die verarbeitet werden sollte; erwartet war 1.",
            "Returned {v} (error) for a message that should have been processed; expected 1."
        )),
        (DeliveryEnd::Returned(1), Expect::Duplicate) => Some(text!(
            "Rückgabe 1 (verarbeitet) für ein Duplikat: die Nachricht war schon verarbeitet, erwartet war 0.",
            "Returned 1 (processed) for a duplicate: the message had already been processed; expected 0."
        )),
        (DeliveryEnd::Returned(v), Expect::Duplicate) => Some(text!(
            "Rückgabe {v} (Fehler) für ein Duplikat: die Queue würde es nie bestätigen und endlos neu zustellen. \
             Ein erkanntes Duplikat gibt 0 zurück.",
            "Returned {v} (error) for a duplicate: the queue would never ack it and redeliver it forever. A \
             recognised duplicate returns 0."
        )),
        (DeliveryEnd::Returned(v), Expect::Error) => Some(text!(
            "Rückgabe {v}, obwohl die Wirkung an einer Bedingung der Datenbank scheiterte: der Fehler wurde \
             verschluckt. Die Queue bestätigt die Nachricht, und sie ist verloren. Gib den Fehler weiter \
             (einen Wert ungleich 0 und 1).",
            "Returned {v} although the effect failed on a database constraint: the error was swallowed. The queue \
             acks the message and it is lost. Pass the error on (a value other than 0 and 1)."
        )),
    };
    if problem.is_some() {
        return problem.map(|p| with_notes(p, outcome));
    }
    if outcome.transaction_left_open {
        return Some(text!(
            "Transaktion offen gelassen: beim Zurückkehren war noch eine Transaktion offen, der Prüfstand hat \
             sie zurückgerollt. In einem langlebigen Konsumenten hielte sie die Schreibsperre und blockierte \
             die nächste Zustellung. Schließe jede Transaktion mit COMMIT oder ROLLBACK.",
            "Transaction left open: a transaction was still open on return, and the harness rolled it back. In \
             a long-running consumer it would hold the write lock and block the next delivery. End every \
             transaction with COMMIT or ROLLBACK."
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_crash_point_is_tested_up_to_the_bound() {
        assert_eq!(crash_points_to_test(2, 7), (vec![1, 2], false));
        let (all, sampled) = crash_points_to_test(CRASH_POINTS_MAX, 7);
        assert_eq!(all, (1..=CRASH_POINTS_MAX).collect::<Vec<_>>());
        assert!(!sampled);
        assert_eq!(crash_points_to_test(0, 7), (vec![], false));
    }

    /// Beyond the bound: exactly the bound many, ascending, distinct, the edges always in, the
    /// middle drawn from the seed (the same seed, the same points; another seed, others).
    #[test]
    fn many_crash_points_are_sampled_from_the_seed_with_both_edges() {
        let writes = 992;
        let (points, sampled) = crash_points_to_test(writes, 7);
        assert!(sampled);
        assert_eq!(points.len(), CRASH_POINTS_MAX as usize);
        assert!(points.windows(2).all(|w| w[0] < w[1]), "ascending and distinct");
        assert!(points.iter().all(|k| (1..=writes).contains(k)));
        for k in (1..=CRASH_POINTS_EDGE).chain(writes - CRASH_POINTS_EDGE + 1..=writes) {
            assert!(points.contains(&k), "edge point {k}");
        }
        assert_eq!(crash_points_to_test(writes, 7).0, points);
        assert_ne!(crash_points_to_test(writes, 8).0, points);
        let (just_over, _) = crash_points_to_test(CRASH_POINTS_MAX + 1, 3);
        assert_eq!(just_over.len(), CRASH_POINTS_MAX as usize);
    }
}
