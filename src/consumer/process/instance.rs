//! A consumer instance: one `Store` (a process with its own memory) and its own database connection.
//! The harness starts instances, delivers messages to them, and kills them; dropping an instance
//! closes its connection as a killed process would, so SQLite discards any uncommitted transaction.
//! An instance that dies on its own (a trap, a limit) has its open transaction rolled back at once,
//! so a lock it held is released as a dead process's would be.
//!
//! Every instance obeys the submission's [`Deadline`]: the epoch deadline of its start and of each
//! delivery is capped to the time left, and a trap at that cap names the submission's limit.

use std::sync::Arc;

use wasmtime::{Store, Trap, TypedFunc};

use super::CompiledConsumer;
use crate::consumer::abi::{GuestState, HostFault};
use crate::consumer::classify::{cause, classify_at, epoch_ticks};
use crate::consumer::exception::{
    hide_guest_module_frames, hide_interpreter_frames, javascript_exception_note, python_exception_note,
};
use crate::consumer::fault::FaultCode;
use crate::consumer::gate::GateHandle;
use crate::consumer::guestdb::GuestDb;
use crate::deadline::Deadline;
use crate::limits::{Limits, POOL_INSTANCES_PER_GRADING};
use crate::report::consumer::{Boundary, CrashPoint, TraceEvent};
use crate::sandbox;
use crate::text;
use crate::text::Text;

/// How a delivery ended.
#[derive(Debug, Clone, PartialEq)]
pub enum DeliveryEnd {
    /// The entry function returned this value.
    Returned(i32),
    /// The harness killed the instance at this crash point of the delivery.
    Crashed { point: u32, after: Boundary },
    /// The instance died on its own: a trap, a limit, a bad host call.
    Faulted { code: FaultCode, message: Text },
}

#[derive(Debug, Clone)]
pub struct DeliveryOutcome {
    pub end: DeliveryEnd,
    /// The consumer returned with a transaction still open (the harness rolled it back).
    pub transaction_left_open: bool,
    pub writes: u32,
    /// The crash points the delivery passed, in order: after each write and each COMMIT.
    pub crash_points: Vec<CrashPoint>,
    pub fuel_used: u64,
    pub notes: Vec<Text>,
}

impl DeliveryOutcome {
    pub fn returned(&self) -> Option<i32> {
        match self.end {
            DeliveryEnd::Returned(value) => Some(value),
            _ => None,
        }
    }
}

pub struct ConsumerProcess {
    store: Store<GuestState>,
    entry: TypedFunc<(), i32>,
    pub instance: u32,
    limits: Limits,
    deadline: Deadline,
    /// The current delivery's epoch deadline is the submission's deadline (it left less time than
    /// the delivery's own budget).
    capped: bool,
    alive: bool,
    /// The language of a consumer on an interpreter guest: an exception it raised is told in its
    /// words ([`python_exception_note`], [`javascript_exception_note`]).
    language: Option<crate::submission::Language>,
    /// The instance's linear memory (none for a module that has none).
    memory: Option<wasmtime::Memory>,
    /// Counts this instance among the thread's live ones (after `store`: dropped after it).
    _live: LiveInstance,
}

/// One live instance of the grading on this thread. A grading holds at most
/// [`POOL_INSTANCES_PER_GRADING`] at once (a pooled engine of a worker process has slots for no
/// more); debug builds assert it whenever an instance starts.
struct LiveInstance;

thread_local! {
    static LIVE_INSTANCES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

impl LiveInstance {
    fn new() -> LiveInstance {
        let live = LIVE_INSTANCES.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        debug_assert!(
            live <= POOL_INSTANCES_PER_GRADING,
            "a grading holds {live} instances at once; pool_instances_per_grading is {POOL_INSTANCES_PER_GRADING}"
        );
        LiveInstance
    }
}

impl Drop for LiveInstance {
    fn drop(&mut self) {
        LIVE_INSTANCES.with(|n| n.set(n.get().saturating_sub(1)));
    }
}

/// Why an instance could not start: the student's fault (a trap in the start function, a limit) or
/// the exercise's (its database cannot be opened).
pub enum StartError {
    Fault { code: FaultCode, message: Text, events: Vec<TraceEvent>, fuel_used: u64 },
    Internal(String),
}

/// What every instance of one module in one grading starts from: the compiled module, the
/// exercise's tables, the limits and the submission's deadline.
pub struct Launch<'a> {
    pub compiled: &'a CompiledConsumer,
    pub tables: Arc<[String]>,
    pub limits: &'a Limits,
    pub deadline: &'a Deadline,
}

impl ConsumerProcess {
    /// Starts instance number `instance` on the run's database `db` (with a connection an earlier
    /// instance on it left, where there is one: [`GuestDb::open_reusing`]).
    ///
    /// With a `gate`, the instance waits at it before every statement of its deliveries (an
    /// interleaved run). Its start function runs before the gate is attached: a process starts up
    /// alone, before the interleaving of its first delivery begins, so a start function that runs
    /// statements cannot wait for a turn that nobody grants.
    pub fn start(
        launch: &Launch<'_>,
        db: &crate::consumer::rundb::RunDb,
        instance: u32,
        gate: Option<GateHandle>,
    ) -> Result<ConsumerProcess, StartError> {
        let Launch { compiled, tables, limits, deadline } = launch;
        let (compiled, limits, deadline) = (*compiled, *limits, *deadline);
        let tables = Arc::clone(tables);
        let pre = if gate.is_some() { &compiled.pre_interleaved } else { &compiled.pre };
        let run_db = db;
        let mut db = GuestDb::open_reusing(db.spares(), db.uri(), tables, limits.sql_steps_per_statement)
            .map_err(|e| StartError::Internal(format!("cannot open the exercise database: {e}")))?;
        db.set_deadline(*deadline);
        let interleaved = gate.is_some();
        let mut state = GuestState::fresh(db, limits, instance);
        state.world = Some(Arc::clone(run_db.world()));
        let live = LiveInstance::new();
        let mut store = Store::new(&compiled.engine, state);
        store.limiter(|state| &mut state.limiter);
        let internal = |e: wasmtime::Error| StartError::Internal(format!("{e:#}"));
        store.set_fuel(limits.fuel_per_delivery).map_err(internal)?;
        let (ticks, capped) = epoch_ticks(limits, deadline);
        store.set_epoch_deadline(ticks);
        store.epoch_deadline_trap();
        // An instance that will run interleaved must be created the same way (the linker's
        // statements are async). Without a gate nothing in it waits, so one poll finishes it; the
        // loop only guards that invariant, and ends with the deadline.
        let instantiate = |store: &mut Store<GuestState>| {
            if interleaved {
                poll_to_end(pre.instantiate_async(store), deadline)
            } else {
                Some(pre.instantiate(store))
            }
        };
        // A source consumer's instance starts from its file's loaded memory (or the interpreter's).
        let instantiated = match &compiled.source {
            Some(source) => {
                let image = source.start_image().map_err(StartError::Internal)?;
                sandbox::cow_memory::instantiate_with(&image, || instantiate(&mut store))
            }
            None => instantiate(&mut store),
        };
        let fuel_used = limits.fuel_per_delivery - store.get_fuel().unwrap_or(0);
        let instance_handle = match instantiated {
            Some(Ok(handle)) => handle,
            Some(Err(error)) => {
                let (code, message) = classify_at(&error, limits, deadline, capped);
                let events = std::mem::take(&mut store.data_mut().events);
                return Err(StartError::Fault { code, message, events, fuel_used });
            }
            None => {
                let events = std::mem::take(&mut store.data_mut().events);
                return Err(StartError::Fault {
                    code: FaultCode::StartPending,
                    message: text!(
                        "Die Startfunktion des Moduls wurde nicht fertig: sie wartete auf etwas, das nie kam.",
                        "The module's start function did not finish: it waited for something that never came."
                    ),
                    events,
                    fuel_used,
                });
            }
        };
        if let Some(source) = &compiled.source {
            load_source(&mut store, &instance_handle, source, interleaved, limits, deadline, capped)?;
        }
        let entry =
            instance_handle.get_typed_func::<(), i32>(&mut store, &compiled.entry).map_err(internal)?;
        let memory = instance_handle.get_memory(&mut store, "memory");
        store.data_mut().gate = gate;
        Ok(ConsumerProcess {
            store,
            entry,
            memory,
            instance,
            limits: limits.clone(),
            deadline: *deadline,
            capped: false,
            alive: true,
            language: compiled.source.as_ref().map(|s| s.submitted),
            _live: live,
        })
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.alive
    }

    /// A copy of the instance's linear memory as the host sees it (empty without one): what the
    /// isolation tests compare with a clean image.
    pub fn linear_memory(&self) -> Vec<u8> {
        self.memory.map(|memory| memory.data(&self.store).to_vec()).unwrap_or_default()
    }

    /// Delivers `message`; with `crash_after = Some(k)` the instance is killed right after its k-th
    /// crash point (a successful write, or a statement that committed a transaction). A dead instance (crashed or faulted) must not be used again.
    pub fn deliver(&mut self, message: &Arc<serde_json::Value>, crash_after: Option<u32>) -> DeliveryOutcome {
        self.begin_delivery(message, crash_after);
        let result = self.entry.call(&mut self.store, ());
        self.finish_delivery(result)
    }

    /// Delivers `message` to an instance started with a gate ([`start`](Self::start)): the
    /// returned future stops (is pending) before every statement until the controller grants the
    /// turn. Yields the outcome and the trace events since the last turn.
    pub(crate) async fn deliver_interleaved(
        &mut self,
        message: Arc<serde_json::Value>,
    ) -> (DeliveryOutcome, Vec<TraceEvent>) {
        self.begin_delivery(&message, None);
        let result = self.entry.call_async(&mut self.store, ()).await;
        let outcome = self.finish_delivery(result);
        (outcome, self.take_events())
    }

    fn begin_delivery(&mut self, message: &Arc<serde_json::Value>, crash_after: Option<u32>) {
        assert!(self.alive, "a dead consumer instance received a delivery");
        let state = self.store.data_mut();
        state.message = Some(Arc::clone(message));
        state.writes = 0;
        state.commits = 0;
        state.calls = 0;
        if let Some(world) = &state.world {
            let mut world = world.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            world.begin_delivery(self.instance);
            world.delivering(message);
        }
        state.crash_points.clear();
        state.statements = 0;
        state.crash_after = crash_after;
        state.notes.clear();
        state.return_line = None;
        // A fresh budget for each delivery; setting fuel cannot fail with fuel enabled.
        let _ = self.store.set_fuel(self.limits.fuel_per_delivery);
        let (ticks, capped) = epoch_ticks(&self.limits, &self.deadline);
        self.capped = capped;
        self.store.set_epoch_deadline(ticks);
    }

    fn finish_delivery(&mut self, result: wasmtime::Result<i32>) -> DeliveryOutcome {
        let limits = &self.limits;
        let fuel_used = limits.fuel_per_delivery - self.store.get_fuel().unwrap_or(0);
        let instance = self.instance;
        let mut transaction_left_open = false;
        let end = match result {
            Ok(value) => {
                let state = self.store.data_mut();
                state.events.push(TraceEvent::Return { instance, value, line: state.return_line.take() });
                if state.db.in_transaction() {
                    transaction_left_open = true;
                    state.db.rollback();
                    state.events.push(TraceEvent::RolledBack {
                        instance,
                        reason: text!(
                            "Die Transaktion war beim Zurückkehren noch offen; die Prüfung rollt sie zurück.",
                            "The transaction was still open on return; the harness rolls it back."
                        ),
                    });
                }
                match self.language {
                    Some(crate::submission::Language::Python) => {
                        hide_interpreter_frames(&mut state.events, instance);
                        if value != 0
                            && value != 1
                            && let Some(note) = python_exception_note(&state.events, instance)
                        {
                            state.notes.push(note);
                        }
                    }
                    Some(
                        language @ (crate::submission::Language::JavaScript
                        | crate::submission::Language::TypeScript),
                    ) => {
                        hide_guest_module_frames(&mut state.events, instance);
                        let stripped = language == crate::submission::Language::TypeScript;
                        if value != 0
                            && value != 1
                            && let Some(note) = javascript_exception_note(&state.events, instance, stripped)
                        {
                            state.notes.push(note);
                        }
                    }
                    None => {}
                }
                DeliveryEnd::Returned(value)
            }
            Err(error) => {
                self.alive = false;
                // The process is dead: SQLite discards what it had not committed, and its locks go
                // with it (another instance waiting for them may go on).
                self.store.data_mut().db.rollback();
                if let (Some(HostFault::InjectedCrash { .. }), Some(world)) =
                    (cause::<HostFault>(&error), &self.store.data().world)
                {
                    world.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).crashed(self.instance);
                }
                match cause::<HostFault>(&error) {
                    Some(HostFault::InjectedCrash { point, after }) => {
                        DeliveryEnd::Crashed { point: *point, after: *after }
                    }
                    _ => {
                        let (code, message) = classify_at(&error, limits, &self.deadline, self.capped);
                        self.store.data_mut().events.push(TraceEvent::Fault {
                            instance,
                            code: code.to_string(),
                            message: message.clone(),
                        });
                        DeliveryEnd::Faulted { code, message }
                    }
                }
            }
        };
        let state = self.store.data_mut();
        state.message = None;
        DeliveryOutcome {
            end,
            transaction_left_open,
            writes: state.writes,
            crash_points: std::mem::take(&mut state.crash_points),
            fuel_used,
            notes: std::mem::take(&mut state.notes),
        }
    }

    /// Takes the trace events recorded since the last call.
    pub(crate) fn take_events(&mut self) -> Vec<TraceEvent> {
        std::mem::take(&mut self.store.data_mut().events)
    }
}

/// Polls `future` until it is ready or `deadline` passes. Without a gate nothing in an instance
/// waits, so one poll finishes it; the loop only guards that invariant, and ends with the deadline.
fn poll_to_end<F: std::future::Future>(future: F, deadline: &Deadline) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(result) = future.as_mut().poll(&mut cx) {
            return Some(result);
        }
        if deadline.expired() {
            return None;
        }
    }
}

/// Loads a source consumer's file into its interpreter instance: an exception while loading, a
/// trap or a limit is the instance's fault at start.
fn load_source(
    store: &mut Store<GuestState>,
    instance: &wasmtime::Instance,
    source: &crate::consumer::interpreter::SourceFile,
    interleaved: bool,
    limits: &Limits,
    deadline: &Deadline,
    capped: bool,
) -> Result<(), StartError> {
    let loaded = if interleaved {
        poll_to_end(crate::consumer::interpreter::load_async(&mut *store, instance, source), deadline)
            .unwrap_or_else(|| Err(wasmtime::Error::new(Trap::Interrupt)))
    } else {
        crate::consumer::interpreter::load(&mut *store, instance, source)
    };
    let fuel_used = source.interpreter.fuel_to_load.saturating_sub(store.get_fuel().unwrap_or(0));
    let fault = match loaded {
        Ok(crate::consumer::interpreter::Loaded::Ok) => None,
        Ok(crate::consumer::interpreter::Loaded::Raised(traceback)) => Some((
            FaultCode::Abort,
            text!(
                "Das Laden der Datei löste eine Ausnahme aus: {traceback}",
                "Loading the file raised an exception: {traceback}"
            ),
        )),
        Err(error) => Some(classify_at(&error, limits, deadline, capped)),
    };
    match fault {
        Some((code, message)) => {
            let events = std::mem::take(&mut store.data_mut().events);
            Err(StartError::Fault { code, message, events, fuel_used })
        }
        None => Ok(()),
    }
}
