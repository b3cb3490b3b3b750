//! The crash harness: runs every [`Check`] on fresh databases and fresh instances of the
//! submission, compares the observable state with the oracle (the reference solution run without
//! faults) and explains a failure with the trace that shows it.
//!
//! - `runner`: what every check is made of (start, deliver, compare, a failed start in one place);
//! - `oracle`: the reference run every check compares against;
//! - `single`: the checks of one or two deliveries without a crash;
//! - `crash`: the crash-point check (`log`: where a crash leaves a record of an event log);
//!   `concurrent`: the interleavings runner;
//! - `relay`: the exercise's relay, run before a state is read, and its crash points;
//! - `schedules`: the at-least-once schedule runner; `shrink`: shrinking a failing schedule;
//! - `replay`: replay tokens, which name one run of one check.
//!
//! Every loop (crash points, interleavings, schedules, shrinking, redeliveries) checks the
//! submission's [`Deadline`] before each round; a check that meets it ends with
//! [`CheckEnd::OutOfTime`] and names the limit, and the caller lists the checks after it as not run.

mod concurrent;
mod crash;
mod log;
pub(crate) mod oracle;
mod relay;
pub(crate) mod replay;
mod runner;
mod schedules;
mod shrink;
mod single;

pub use self::crash::crash_points_to_test;
use super::exercise::ConsumerExercise;
use super::process::CompiledConsumer;
use super::rundb::{RunDb, TemplateSource};
use super::schedule::ScheduleInfo;
use super::state::{State, read_state_from};
use crate::consumer::checks::Check;
use crate::consumer::checks::catalogue::problem;
use crate::consumer::checks::texts::{Problem, Prose};
use crate::consumer::oracle::Oracle;
use crate::deadline::Deadline;
use crate::exercise::GradeError;
use crate::limits::{Limits, TRACE_EVENTS_PER_CHECK_MAX};
use crate::report::consumer::{ConsumerDetail, StateEvidence, Trace, TraceEvent};
use crate::report::roles::Roles;
use crate::report::voice::Voice;
use crate::text::Text;

/// The outcome of one check before it becomes part of the report.
pub struct CheckResult {
    pub check: Check,
    pub failure: Option<Problem>,
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
    pub(crate) fn not_run(check: Check, deadline: &Deadline) -> CheckResult {
        CheckResult {
            check,
            failure: Some(problem(Prose::NotRun, &[("limit", deadline.limit_name())])),
            detail: ConsumerDetail::default(),
            replay_spec: None,
            end: CheckEnd::NotRun,
        }
    }
}

/// The world one grading runs in: the template every run's database (in memory) is restored from,
/// and the compiled module.
pub struct Harness<'a> {
    pub exercise: &'a ConsumerExercise,
    pub limits: &'a Limits,
    pub compiled: &'a CompiledConsumer,
    /// The template and the run databases, taken from those the thread kept after its last
    /// grading of the same exercise, and left to the next one (none only while it is dropped).
    databases: Option<KeptDatabases>,
    /// Seeds every random choice of this grading (derived from the submission's hash).
    pub seed: u64,
    /// Coverage figures the checks add to the report.
    pub coverage: Vec<crate::report::Coverage>,
    /// Keep every trace event (a replay prints the whole run).
    pub full_trace: bool,
    /// The submission's deadline: every loop checks it, every instance's clock is capped to it.
    pub deadline: Deadline,
    /// Whose words the failure texts use (the submission's language, or ABI v1's for a module).
    pub voice: Voice,
    /// Which state queries show the remembered ids and which the effect.
    pub roles: Roles,
    /// The reference's states this grading needed beyond what the exercise keeps
    /// ([`crate::consumer::ReferenceStates`]), computed once per grading.
    reference_states: std::collections::HashMap<Vec<usize>, State>,
    /// The first violation of an exercise's invariant in a state read during the current check.
    violation: std::cell::RefCell<Option<crate::consumer::invariants::Violation>>,
    /// The run database whose relay last ran to its end, and its `data_version` then: nothing
    /// committed since, so the relay has nothing new to do (`relay.rs`).
    settled: std::cell::RefCell<Option<(std::path::PathBuf, i64)>>,
}

/// An exercise's template opened as the source of run databases, and the run databases kept for
/// the next runs (at most [`crate::limits::RUN_DBS_KEPT_MAX`]): one that no run holds any more is
/// made the template again instead of creating a new one, so that its observer, their prepared
/// queries and the spare guest connections stay with it. A grading leaves them to the next grading
/// of the same exercise on its thread (a grading process grades one submission after the other
/// on one thread), which finds them by the template's bytes; the thread keeps those of one
/// exercise, the last graded.
struct KeptDatabases {
    template_bytes: Vec<u8>,
    source: TemplateSource,
    run_dbs: Vec<std::rc::Rc<RunDb>>,
}

thread_local! {
    static KEPT_DATABASES: std::cell::RefCell<Option<KeptDatabases>> = const { std::cell::RefCell::new(None) };
}

impl KeptDatabases {
    /// Those the thread kept for `template`, or a new source with no run database yet.
    fn take(template: &[u8]) -> rusqlite::Result<KeptDatabases> {
        let kept = KEPT_DATABASES.with(|kept| kept.borrow_mut().take());
        match kept {
            Some(kept) if kept.template_bytes == template => Ok(kept),
            // Another exercise's (or another version's): dropped, its databases freed.
            _ => Ok(KeptDatabases {
                template_bytes: template.to_vec(),
                source: TemplateSource::open(template)?,
                run_dbs: Vec::new(),
            }),
        }
    }
}

impl Drop for Harness<'_> {
    fn drop(&mut self) {
        let databases = self.databases.take();
        // During a thread's teardown the slot may be gone: then they are simply freed.
        let _ = KEPT_DATABASES.try_with(|kept| *kept.borrow_mut() = databases);
    }
}

/// What one check records while it runs: its trace, the fuel and instances it used.
#[derive(Default)]
struct Run {
    /// Bounded while it is recorded (events and bytes), not only when the report is built.
    trace: Trace,
    fuel_used: u64,
    instances: u32,
}

impl Run {
    fn queue(&mut self, text: Text) {
        self.trace.push(TraceEvent::Queue { text });
    }

    /// Takes over a finished inner run (an interleaving, a schedule) as the one the check shows:
    /// its trace, fuel and instances.
    fn adopt(&mut self, inner: Run) {
        self.trace.append(inner.trace);
        self.fuel_used += inner.fuel_used;
        self.instances = inner.instances;
    }
}

/// A check failed for this reason before it could compare anything; `?` ends the check.
type Step<T> = Result<T, Failure>;

enum Failure {
    /// The submission did something wrong.
    Student(Problem),
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

/// What a check that ran to its end found: its problem (none: passed) and its evidence.
#[derive(Default)]
struct Found {
    problem: Option<Problem>,
    state: Option<StateEvidence>,
    /// The replay spec of the run shown in the report.
    replay_spec: Option<String>,
    /// The schedule the trace shows.
    schedule: Option<ScheduleInfo>,
}

impl Found {
    fn passed() -> Found {
        Found::default()
    }

    fn failed(problem: Problem) -> Found {
        Found { problem: Some(problem), ..Found::default() }
    }

    /// The outcome of a comparison: the state evidence, and the problem if there is one.
    fn compared(state: StateEvidence, problem: Option<Problem>) -> Found {
        Found { problem, state: Some(state), ..Found::default() }
    }
}

impl<'a> Harness<'a> {
    pub fn new(
        exercise: &'a ConsumerExercise,
        limits: &'a Limits,
        compiled: &'a CompiledConsumer,
    ) -> Result<Self, GradeError> {
        let databases = KeptDatabases::take(&exercise.template)
            .map_err(|e| GradeError::Internal(format!("cannot open the database template: {e}")))?;
        Ok(Harness {
            exercise,
            limits,
            compiled,
            databases: Some(databases),
            seed: 0,
            coverage: Vec::new(),
            full_trace: false,
            deadline: Deadline::for_submission(limits),
            voice: compiled.voice(),
            roles: Roles::default(),
            reference_states: Default::default(),
            violation: Default::default(),
            settled: Default::default(),
        })
    }

    pub fn run_check(&mut self, check: Check, oracle: &Oracle) -> Result<CheckResult, GradeError> {
        self.run_check_spec(check, None, oracle)
    }

    /// Runs `check`; with a replay `spec`, exactly the run it names.
    pub(crate) fn run_check_spec(
        &mut self,
        check: Check,
        spec: Option<&str>,
        oracle: &Oracle,
    ) -> Result<CheckResult, GradeError> {
        let mut run = Run::default();
        let mut crash_points = None;
        self.violation.replace(None);
        let outcome = match check {
            Check::FreshMessage => self.fresh_message(&mut run, oracle),
            Check::DuplicateSameInstance => self.duplicate_same_instance(&mut run, oracle),
            Check::DuplicateAfterRestart => self.duplicate_after_restart(&mut run, oracle),
            Check::SameBodyNewId => self.same_body_new_id(&mut run, oracle),
            Check::ConstraintViolation => self.constraint_violation(&mut run, oracle),
            Check::CrashPoints => {
                let (outcome, counted) = self.crash_points(&mut run, oracle);
                crash_points = counted;
                outcome
            }
            Check::LostAck => self.lost_ack(&mut run, oracle),
            Check::ConcurrentDuplicate => self.concurrent_duplicate(&mut run, oracle, spec),
            Check::AtLeastOnceSchedule => self.schedules(&mut run, oracle, spec),
        };
        let (found, end) = match outcome {
            Ok(found) => (found, CheckEnd::Finished),
            Err(Failure::Student(text)) => (Found::failed(text), CheckEnd::Finished),
            Err(Failure::OutOfTime) => {
                run.queue(self.deadline.limit_name());
                let text = self.deadline.limit_text();
                (Found::failed(Problem { key: Problem::OUT_OF_TIME, text }), CheckEnd::OutOfTime)
            }
            Err(Failure::Internal(error)) => return Err(error),
        };
        // A check that found nothing else wrong fails when a state it read broke an invariant.
        let found = Found { problem: found.problem.or_else(|| self.invariant_problem()), ..found };
        let invariant = self.violation.take().map(|v| v.name);
        // A check whose deliveries met the deadline (a capped epoch, a stopped statement) failed
        // because time ran out, whatever it concluded from them.
        let end = if found.problem.is_some() && self.deadline.expired() { CheckEnd::OutOfTime } else { end };
        let (mut trace, omitted_while_recording) = run.trace.into_parts();
        let keep = if self.full_trace { trace.len() } else { TRACE_EVENTS_PER_CHECK_MAX };
        let omitted = trace.len().saturating_sub(keep);
        trace.truncate(keep);
        let detail = ConsumerDetail {
            trace,
            trace_omitted: (omitted as u32).saturating_add(omitted_while_recording),
            state: found.state,
            fuel_used: run.fuel_used,
            crash_points,
            schedule: found.schedule,
            invariant,
        };
        Ok(CheckResult { check, failure: found.problem, detail, replay_spec: found.replay_spec, end })
    }

    /// A state read during the current check broke one of the exercise's invariants. A check
    /// that runs many times (crash points, schedules, interleavings) stops at the run where this
    /// first holds, so the trace it shows is the run that broke it.
    pub(super) fn invariant_broken(&self) -> bool {
        self.violation.borrow().is_some()
    }

    /// The failure of the invariant a state read during the current check broke, if one did.
    pub(super) fn invariant_problem(&self) -> Option<Problem> {
        self.violation.borrow().as_ref().map(|v| Problem { key: Problem::INVARIANT, text: v.describe() })
    }

    /// Ends the check when the submission's time is used up (called before each round of a loop).
    fn in_time(&self) -> Step<()> {
        if self.deadline.expired() { Err(Failure::OutOfTime) } else { Ok(()) }
    }

    /// A database in memory holding the exercise's schema and seed rows, and nothing of any run
    /// before: a kept one that nobody uses any more (no run holds it, no connection but its holder,
    /// the observer and the spare guest connections has it open), made the template again;
    /// otherwise a new one.
    fn fresh_db(&mut self) -> Result<std::rc::Rc<RunDb>, GradeError> {
        self.settled.replace(None);
        let Some(KeptDatabases { source, run_dbs, .. }) = &mut self.databases else {
            return Err(GradeError::Internal("the run databases are gone".into()));
        };
        let mut index = 0;
        while index < run_dbs.len() {
            let kept = &mut run_dbs[index];
            let Some(db) = std::rc::Rc::get_mut(kept) else {
                index += 1;
                continue;
            };
            if db.idle() && db.restore_from(source).is_ok() {
                db.reset_world(&self.exercise.world);
                return Ok(std::rc::Rc::clone(kept));
            }
            // Still open somewhere (an instance that outlived its run), or not restorable: never
            // reused, freed when its last connection closes.
            run_dbs.swap_remove(index);
        }
        let db = std::rc::Rc::new(
            source
                .restore()
                .map_err(|e| GradeError::Internal(format!("cannot create a run's database: {e}")))?,
        );
        db.reset_world(&self.exercise.world);
        if run_dbs.len() < crate::limits::RUN_DBS_KEPT_MAX {
            run_dbs.push(std::rc::Rc::clone(&db));
        }
        Ok(db)
    }

    /// `state` without the queries that read what outside services did.
    fn inside(&self, state: &State) -> State {
        let outside: Vec<&str> =
            self.exercise.state_queries.iter().filter(|q| q.outside).map(|q| q.name.as_str()).collect();
        state
            .iter()
            .filter(|(name, _)| !outside.contains(&name.as_str()))
            .map(|(n, r)| (n.clone(), r.clone()))
            .collect()
    }

    /// The state a check reads from `db`: the relay (if the submission has one) runs first over
    /// what was committed since it last ran, then the state is read. Every check reads its states
    /// this way, except where something must happen between the two (a schedule's dead letters
    /// shown to the world, a restart between them).
    fn observed_state(&self, run: &mut Run, db: &RunDb) -> Step<State> {
        self.relay_before_reading(run, db)?;
        Ok(self.state(db)?)
    }

    /// The observable state of the database `db`, read through its observer connection, as it is
    /// (without running the relay first: [`Self::observed_state`] does).
    fn state(&self, db: &RunDb) -> Result<State, GradeError> {
        let mut world = db.world().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let shows_world = !world.config().is_empty();
        db.observe(|conn| {
            if shows_world {
                super::world::show_to_observer(conn, &world)?;
                super::world::log::show_to_observer(conn, &mut world)?;
            }
            let state = read_state_from(conn, &self.exercise.state_queries)?;
            let mut violation = self.violation.borrow_mut();
            if violation.is_none() {
                *violation = crate::consumer::invariants::first_violation(conn, &self.exercise.invariants)?;
            }
            Ok(state)
        })
        .map_err(|e| GradeError::Internal(format!("cannot read the database state: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consumer::rundb::open_flags;

    /// A kept run database is made the template again only when nothing outside the harness has it
    /// open: a connection that outlived its run (an instance not yet dropped) keeps its database
    /// from being reused; once it is closed, the database is reused and reads as the template.
    #[test]
    fn a_run_database_still_open_elsewhere_is_not_reused() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
        let exercise = crate::exercise::Exercise::load_with(&dir, &[crate::consumer::GRADER])
            .expect("exercise 03 loads");
        let consumer = exercise.grader_as::<ConsumerExercise>().expect("a consumer exercise");
        let reference = std::fs::read(dir.join("solutions/reference.wat")).expect("reference");
        let engine = crate::sandbox::engine(crate::grade::Compiler::Winch).expect("engine");
        let compiled = CompiledConsumer::compile(engine, &reference, &exercise.limits, &consumer.entry)
            .expect("compiles");
        let mut harness = Harness::new(consumer, &exercise.limits, &compiled).expect("harness");

        let first = harness.fresh_db().expect("first");
        let template = harness.state(&first).expect("state");
        let kept = first.uri().to_path_buf();
        let outliving = rusqlite::Connection::open_with_flags(&kept, open_flags(false)).expect("open");
        outliving.execute("DELETE FROM punkte", []).expect("a write of the run");
        drop(first);
        let second = harness.fresh_db().expect("second");
        assert_ne!(second.uri(), kept, "a database another connection has open is not reused");
        drop(outliving);
        let reused_name = second.uri().to_path_buf();
        drop(second);
        let third = harness.fresh_db().expect("third");
        assert_eq!(third.uri(), reused_name, "an idle kept database is reused");
        assert_eq!(harness.state(&third).expect("state"), template, "and reads as the template");
    }

    /// A grading leaves its run databases, their observers and spare guest connections to the next
    /// grading of the exercise on its thread, and nothing of what it did shows: after each mutant
    /// (open transactions at a crash, writes without a transaction, failed constraints), the
    /// reference's report on the same thread is byte for byte the one of a thread that graded
    /// nothing before, while the run database it starts on is the one the mutant left.
    #[test]
    fn a_grading_after_another_on_its_thread_reuses_its_databases_and_sees_nothing_of_it() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
        let exercise = crate::exercise::Exercise::load_with(&dir, &[crate::consumer::GRADER])
            .expect("exercise 03 loads");
        let reference = std::fs::read(dir.join("solutions/reference.wat")).expect("reference");
        let grade_json = |bytes: &[u8]| {
            let options = crate::grade::GradeOptions::default();
            let report = crate::grade::grade(
                &exercise,
                &crate::submission::Submission::Module(bytes.to_vec()),
                &options,
            )
            .expect("grades");
            serde_json::to_string(&report).expect("json")
        };
        let alone =
            std::thread::scope(|scope| scope.spawn(|| grade_json(&reference)).join().expect("grades"));
        let kept_run_db = || {
            KEPT_DATABASES.with(|kept| {
                kept.borrow().as_ref().and_then(|k| k.run_dbs.first().map(|db| db.uri().to_path_buf()))
            })
        };
        let mut mutants: Vec<_> = std::fs::read_dir(dir.join("mutants"))
            .expect("mutants")
            .map(|entry| entry.expect("entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "wat"))
            .collect();
        mutants.sort();
        assert!(mutants.len() >= 5, "{mutants:?}");
        for mutant in &mutants {
            grade_json(&std::fs::read(mutant).expect("mutant"));
            let left = kept_run_db().expect("the mutant's grading left its run databases");
            assert_eq!(grade_json(&reference), alone, "after {}", mutant.display());
            assert!(
                KEPT_DATABASES.with(|kept| {
                    kept.borrow().as_ref().is_some_and(|k| k.run_dbs.iter().any(|db| db.uri() == left))
                }),
                "the reference's grading did not start on the run database {} left",
                mutant.display()
            );
        }
    }
}
