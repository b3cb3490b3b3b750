//! Scenario scripts: the sandboxed Rhai layer over [`crate::sim`]. A teacher writes each prediction
//! exercise as a short script; its value is the expected answer. The script sees the exercise's
//! parameters as constants and these functions (see `exercises/README.md`):
//!
//! - `Queue(visibility_timeout)` or `Queue(#{visibility_timeout: 3, max_receives: 5})`, with
//!   `q.send(body) -> id`, `q.receive()` / `q.receive("A")` (a map `#{id, body, attempts, versuche}`
//!   or `()`), `q.ack(id) -> bool`, `q.tick(n)`, `q.open()` / `q.offen()`, `q.dead_letters()`,
//!   `q.now()`, `q.note(de, en)`, `q.effect(de, en)` (a note that counts) and `q.effects()`;
//! - `Network(seed)` or `Network(seed, #{loss, duplicate, delay, max_delay})`, with `net.send(body)`
//!   and `net.deliver() -> [bodies]`;
//! - `explain(part, sim)`: the timeline of `sim` explains that part (by default every simulation
//!   explains every part);
//! - `publish(name, value)`: a value for the statement's `{{name}}` (a number, a text, a list, a map
//!   `#{de, en}`, or a network: its table of rolls).
//!
//! The script is compiled once per exercise and evaluated per variant under the limits of
//! [`crate::limits`] (operations, call depth, sizes); it has no input/output, no clock and no
//! randomness except the seeded network, so a variant always gives the same answer.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use rhai::packages::{
    BasicArrayPackage, BasicMapPackage, CorePackage, LogicPackage, MoreStringPackage, Package,
};
use rhai::{AST, Array, Dynamic, Engine, EvalAltResult, ImmutableString, Map, OptimizationLevel, Scope};

use super::answer::{Brackets, Value};
use crate::limits;
use crate::sim::describe::{self, TimelineLine};
use crate::sim::{Network, NetworkConfig, Queue, QueueConfig};
use crate::text::Text;

/// The values of an exercise's parameters for one variant, in declaration order.
pub type Params = Vec<(String, i64)>;

/// What is wrong with a scenario script; the message names the file, line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{location}: {message}")]
pub struct ScriptError {
    pub file: String,
    /// `:line:column`, when known.
    pub location: String,
    pub message: String,
}

/// One run of the script for one variant. The simulations' traces are kept as they are; their
/// bilingual timelines are written only when a report first needs one (most answers of a variant
/// are right, and most variants are never explained), then kept.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub answer: Value,
    /// Values for the statement.
    pub published: BTreeMap<String, Text>,
    /// Every simulation the run created, in creation order.
    sims: Vec<SimHandle>,
    /// The simulations the script bound to parts with `explain`.
    bindings: Vec<(String, SimHandle)>,
    timelines: OnceLock<Timelines>,
}

#[derive(Debug, Clone)]
struct Timelines {
    /// Every simulation's timeline, merged by tick.
    all: Vec<TimelineLine>,
    /// The timelines bound to parts, each merged by tick.
    by_part: BTreeMap<String, Vec<TimelineLine>>,
}

impl Outcome {
    fn timelines(&self) -> &Timelines {
        self.timelines.get_or_init(|| {
            let all = describe::merge(self.sims.iter().map(SimHandle::timeline));
            let mut grouped: BTreeMap<String, Vec<Vec<TimelineLine>>> = BTreeMap::new();
            for (part, sim) in &self.bindings {
                grouped.entry(part.clone()).or_default().push(sim.timeline());
            }
            let by_part = grouped.into_iter().map(|(part, lines)| (part, describe::merge(lines))).collect();
            Timelines { all, by_part }
        })
    }

    /// Every simulation's timeline, merged by tick.
    pub fn timeline(&self) -> &[TimelineLine] {
        &self.timelines().all
    }

    /// The timeline that explains `part`: the simulations bound to it with `explain`, else all.
    pub fn timeline_for(&self, part: &str) -> &[TimelineLine] {
        let timelines = self.timelines();
        timelines.by_part.get(part).map(Vec::as_slice).unwrap_or(&timelines.all)
    }
}

/// A compiled scenario.
pub struct Scenario {
    file: String,
    engine: Engine,
    ast: AST,
    constraint: Option<AST>,
    /// The wall-clock backstop of one run ([`limits::SCRIPT_WALL_MS_MAX`]).
    wall_limit: Duration,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario").field("file", &self.file).finish_non_exhaustive()
    }
}

impl Scenario {
    /// Compiles `source` (and the optional parameter constraint) once. Unknown variables are
    /// compile errors, so a typo in a parameter name shows up at load time.
    pub fn compile(
        file: &str,
        source: &str,
        parameter_names: &[&str],
        constraint: Option<&str>,
    ) -> Result<Scenario, ScriptError> {
        if source.len() > limits::SCRIPT_BYTES_MAX {
            return Err(ScriptError {
                file: file.into(),
                location: String::new(),
                message: format!(
                    "the script has {} bytes, more than {}",
                    source.len(),
                    limits::SCRIPT_BYTES_MAX
                ),
            });
        }
        let engine = new_engine();
        let mut scope = Scope::new();
        for name in parameter_names {
            scope.push(name.to_string(), 0_i64);
        }
        let ast = engine.compile_with_scope(&scope, source).map_err(|e| ScriptError {
            file: file.into(),
            location: location(e.position()),
            message: e.err_type().to_string(),
        })?;
        let constraint = constraint
            .map(|c| {
                engine.compile_expression_with_scope(&scope, c).map_err(|e| ScriptError {
                    file: "exercise.toml".into(),
                    location: String::new(),
                    message: format!("[prediction] constraint: {e}"),
                })
            })
            .transpose()?;
        Ok(Scenario {
            file: file.into(),
            engine,
            ast,
            constraint,
            wall_limit: Duration::from_millis(limits::SCRIPT_WALL_MS_MAX),
        })
    }

    /// The same scenario with another wall-clock backstop (tests use zero to prove the backstop).
    pub fn with_wall_limit(mut self, wall_limit: Duration) -> Scenario {
        self.wall_limit = wall_limit;
        self
    }

    pub fn file(&self) -> &str {
        &self.file
    }

    fn scope(params: &Params) -> Scope<'static> {
        let mut scope = Scope::new();
        for (name, value) in params {
            scope.push_constant(name.clone(), *value);
        }
        scope
    }

    /// Whether the parameters satisfy the exercise's constraint (true without one).
    pub fn satisfies(&self, params: &Params) -> Result<bool, ScriptError> {
        let Some(constraint) = &self.constraint else { return Ok(true) };
        let _deadline = DeadlineGuard::install(self.wall_limit);
        let mut scope = Self::scope(params);
        self.engine.eval_ast_with_scope::<bool>(&mut scope, constraint).map_err(|e| ScriptError {
            file: "exercise.toml".into(),
            location: String::new(),
            message: format!("[prediction] constraint: {}", describe_eval_error(&e)),
        })
    }

    /// Runs the scenario for one variant.
    pub fn run(&self, params: &Params) -> Result<Outcome, ScriptError> {
        let guard = RecordingGuard::install();
        let _deadline = DeadlineGuard::install(self.wall_limit);
        let mut scope = Self::scope(params);
        let result = self.engine.eval_ast_with_scope::<Dynamic>(&mut scope, &self.ast);
        let recording = guard.take();
        let value = result.map_err(|e| ScriptError {
            file: self.file.clone(),
            location: location(e.position()),
            message: describe_eval_error(&e),
        })?;
        let answer = to_value(&value, 0).map_err(|message| ScriptError {
            file: self.file.clone(),
            location: String::new(),
            message: format!("the script's value is not a valid answer: {message}"),
        })?;
        Ok(Outcome {
            answer,
            published: recording.published,
            sims: recording.sims,
            bindings: recording.bindings,
            timelines: OnceLock::new(),
        })
    }
}

fn location(position: rhai::Position) -> String {
    match (position.line(), position.position()) {
        (Some(line), Some(column)) => format!(":{line}:{column}"),
        (Some(line), None) => format!(":{line}"),
        _ => String::new(),
    }
}

fn describe_eval_error(error: &EvalAltResult) -> String {
    match error.unwrap_inner() {
        EvalAltResult::ErrorTooManyOperations(_) => format!(
            "the script ran more than {} operations and was stopped (an endless loop?)",
            limits::SCRIPT_OPERATIONS_MAX
        ),
        EvalAltResult::ErrorStackOverflow(_) => format!(
            "the script nests function calls deeper than {} levels (endless recursion?)",
            limits::SCRIPT_CALL_LEVELS_MAX
        ),
        EvalAltResult::ErrorDataTooLarge(what, _) => format!(
            "{what} too large (limits: strings {} bytes, arrays {} items, maps {} entries)",
            limits::SCRIPT_STRING_BYTES_MAX,
            limits::SCRIPT_ARRAY_LEN_MAX,
            limits::SCRIPT_MAP_LEN_MAX
        ),
        EvalAltResult::ErrorTerminated(..) => format!(
            "the script ran longer than the wall-clock backstop of {} ms and was stopped \
             (each of its operations is very expensive: copying large strings or arrays?)",
            limits::SCRIPT_WALL_MS_MAX
        ),
        inner => {
            // Rhai appends the position, which the error's location already gives.
            let text = inner.to_string();
            let position = format!(" ({})", inner.position());
            text.strip_suffix(&position).map(str::to_string).unwrap_or(text)
        }
    }
}

fn new_engine() -> Engine {
    let mut engine = Engine::new_raw();
    // No clock (BasicTimePackage) and no floating-point maths library: answers must not depend on
    // the machine.
    engine.register_global_module(CorePackage::new().as_shared_module());
    engine.register_global_module(LogicPackage::new().as_shared_module());
    engine.register_global_module(BasicArrayPackage::new().as_shared_module());
    engine.register_global_module(BasicMapPackage::new().as_shared_module());
    engine.register_global_module(MoreStringPackage::new().as_shared_module());
    engine.set_optimization_level(OptimizationLevel::None);
    engine.set_strict_variables(true);
    engine.set_max_operations(limits::SCRIPT_OPERATIONS_MAX);
    engine.on_progress(|operations| {
        (operations % DEADLINE_CHECK_EVERY == 0 && deadline_passed()).then_some(Dynamic::UNIT)
    });
    engine.set_max_call_levels(limits::SCRIPT_CALL_LEVELS_MAX);
    engine.set_max_expr_depths(limits::SCRIPT_EXPR_DEPTH_MAX, limits::SCRIPT_FN_EXPR_DEPTH_MAX);
    engine.set_max_string_size(limits::SCRIPT_STRING_BYTES_MAX);
    engine.set_max_array_size(limits::SCRIPT_ARRAY_LEN_MAX);
    engine.set_max_map_size(limits::SCRIPT_MAP_LEN_MAX);
    engine.set_max_modules(0);
    engine.disable_symbol("eval");
    engine.disable_symbol("import");
    register_queue(&mut engine);
    register_network(&mut engine);
    register_recording(&mut engine);
    engine
}

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// A queue as the script sees it: shared (a script variable is a handle), with a counter of effects.
#[derive(Clone)]
pub struct QueueHandle(Arc<Mutex<ScriptQueue>>);

pub struct ScriptQueue {
    queue: Queue<String>,
    effects: i64,
}

#[derive(Clone)]
pub struct NetworkHandle(Arc<Mutex<Network<String>>>);

#[derive(Clone)]
enum SimHandle {
    Queue(QueueHandle),
    Network(NetworkHandle),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl QueueHandle {
    fn lock(&self) -> MutexGuard<'_, ScriptQueue> {
        lock(&self.0)
    }
}

impl std::fmt::Debug for SimHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimHandle::Queue(q) => write!(f, "Queue({} events)", q.lock().queue.trace().len()),
            SimHandle::Network(n) => write!(f, "Network(seed {})", lock(&n.0).seed()),
        }
    }
}

impl SimHandle {
    fn timeline(&self) -> Vec<TimelineLine> {
        match self {
            SimHandle::Queue(q) => describe::queue_timeline(&q.lock().queue, String::clone),
            SimHandle::Network(n) => describe::network_timeline(&lock(&n.0), String::clone),
        }
    }
}

/// What one run records besides its value.
#[derive(Default)]
struct Recording {
    sims: Vec<SimHandle>,
    bindings: Vec<(String, SimHandle)>,
    published: BTreeMap<String, Text>,
    events: usize,
}

thread_local! {
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
    /// When the run on this thread must stop (see [`limits::SCRIPT_WALL_MS_MAX`]).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Operations between two looks at the clock (reading it costs more than an operation).
const DEADLINE_CHECK_EVERY: u64 = 1_024;

fn deadline_passed() -> bool {
    DEADLINE.with(|d| d.get().is_some_and(|deadline| Instant::now() >= deadline))
}

/// Sets the wall-clock deadline of one run on this thread and clears it again, even on error.
struct DeadlineGuard;

impl DeadlineGuard {
    fn install(limit: Duration) -> DeadlineGuard {
        DEADLINE.with(|d| d.set(Some(Instant::now() + limit)));
        DeadlineGuard
    }
}

impl Drop for DeadlineGuard {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(None));
    }
}

/// Installs a fresh recording for one run on this thread and removes it again, even on error.
struct RecordingGuard;

impl RecordingGuard {
    fn install() -> RecordingGuard {
        RECORDING.with(|r| *r.borrow_mut() = Some(Recording::default()));
        RecordingGuard
    }

    fn take(self) -> Recording {
        RECORDING.with(|r| r.borrow_mut().take()).unwrap_or_default()
    }
}

impl Drop for RecordingGuard {
    fn drop(&mut self) {
        RECORDING.with(|r| r.borrow_mut().take());
    }
}

fn with_recording<T>(f: impl FnOnce(&mut Recording) -> RhaiResult<T>) -> RhaiResult<T> {
    RECORDING.with(|r| match r.borrow_mut().as_mut() {
        Some(recording) => f(recording),
        None => Err("simulations can only be used in the scenario, not in the constraint".into()),
    })
}

/// Counts simulation events against [`limits::SCRIPT_SIM_EVENTS_MAX`].
fn charge(events: usize) -> RhaiResult<()> {
    with_recording(|r| {
        r.events += events;
        if r.events > limits::SCRIPT_SIM_EVENTS_MAX {
            Err(format!("the simulations recorded more than {} events", limits::SCRIPT_SIM_EVENTS_MAX).into())
        } else {
            Ok(())
        }
    })
}

fn non_negative(name: &str, n: i64) -> RhaiResult<u64> {
    u64::try_from(n).map_err(|_| format!("{name} must not be negative (got {n})").into())
}

fn int_option(options: &Map, key: &str) -> RhaiResult<Option<i64>> {
    match options.get(key) {
        None => Ok(None),
        Some(v) => v.as_int().map(Some).map_err(|t| format!("{key} must be an integer, not {t}").into()),
    }
}

fn check_keys(options: &Map, allowed: &[&str]) -> RhaiResult<()> {
    match options.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown option {k:?} (allowed: {})", allowed.join(", ")).into()),
        None => Ok(()),
    }
}

fn new_queue(config: QueueConfig) -> RhaiResult<QueueHandle> {
    let queue = Queue::new(config).map_err(|e| e.to_string())?;
    let handle = QueueHandle(Arc::new(Mutex::new(ScriptQueue { queue, effects: 0 })));
    with_recording(|r| {
        r.sims.push(SimHandle::Queue(handle.clone()));
        Ok(())
    })?;
    Ok(handle)
}

fn delivery_map(d: crate::sim::Delivery<String>) -> Dynamic {
    let mut map = Map::new();
    map.insert("id".into(), Dynamic::from_int(d.id as i64));
    map.insert("body".into(), Dynamic::from(d.body));
    map.insert("attempts".into(), Dynamic::from_int(i64::from(d.attempts)));
    map.insert("versuche".into(), Dynamic::from_int(i64::from(d.attempts)));
    Dynamic::from_map(map)
}

fn receive(q: &mut QueueHandle, consumer: Option<String>) -> RhaiResult<Dynamic> {
    charge(1)?;
    let mut s = q.lock();
    let delivery = match consumer {
        Some(name) => s.queue.receive_for(name),
        None => s.queue.receive(),
    };
    Ok(delivery.map(delivery_map).unwrap_or(Dynamic::UNIT))
}

fn open(q: &mut QueueHandle) -> RhaiResult<i64> {
    charge(1)?;
    Ok(q.lock().queue.open() as i64)
}

fn register_queue(engine: &mut Engine) {
    engine.register_type_with_name::<QueueHandle>("Queue");
    engine.register_fn("Queue", |timeout: i64| -> RhaiResult<QueueHandle> {
        new_queue(QueueConfig::new(non_negative("visibility_timeout", timeout)?))
    });
    engine.register_fn("Queue", |options: Map| -> RhaiResult<QueueHandle> {
        check_keys(&options, &["visibility_timeout", "max_receives"])?;
        let timeout = int_option(&options, "visibility_timeout")?.ok_or("visibility_timeout is required")?;
        let max_receives = int_option(&options, "max_receives")?
            .map(|n| u32::try_from(n).map_err(|_| format!("max_receives = {n} is out of range")))
            .transpose()?;
        new_queue(QueueConfig {
            visibility_timeout: non_negative("visibility_timeout", timeout)?,
            max_receives,
        })
    });
    engine.register_fn("send", |q: &mut QueueHandle, body: Dynamic| -> RhaiResult<i64> {
        charge(1)?;
        Ok(q.lock().queue.send(body.to_string()) as i64)
    });
    engine.register_fn("receive", |q: &mut QueueHandle| receive(q, None));
    engine.register_fn("receive", |q: &mut QueueHandle, consumer: ImmutableString| {
        receive(q, Some(consumer.to_string()))
    });
    engine.register_fn("ack", |q: &mut QueueHandle, id: i64| -> RhaiResult<bool> {
        charge(1)?;
        let id = u64::try_from(id).unwrap_or(0);
        Ok(q.lock().queue.ack(id) == crate::sim::AckOutcome::Deleted)
    });
    engine.register_fn("tick", |q: &mut QueueHandle, n: i64| -> RhaiResult<()> {
        let n = non_negative("tick", n)?;
        let mut s = q.lock();
        let before = s.queue.trace().len();
        s.queue.tick(n).map_err(|e| e.to_string())?;
        let added = s.queue.trace().len() - before;
        drop(s);
        charge(added)
    });
    engine.register_fn("open", open);
    engine.register_fn("offen", open);
    engine.register_fn("now", |q: &mut QueueHandle| q.lock().queue.now() as i64);
    engine.register_fn("dead_letters", |q: &mut QueueHandle| -> Array {
        q.lock().queue.dead_letters().into_iter().map(|d| Dynamic::from(d.body)).collect()
    });
    engine.register_fn(
        "note",
        |q: &mut QueueHandle, de: ImmutableString, en: ImmutableString| -> RhaiResult<()> {
            charge(1)?;
            q.lock().queue.note(Text::new(de.as_str(), en.as_str()));
            Ok(())
        },
    );
    engine.register_fn("note", |q: &mut QueueHandle, both: ImmutableString| -> RhaiResult<()> {
        charge(1)?;
        q.lock().queue.note(Text::same(both.as_str()));
        Ok(())
    });
    engine.register_fn(
        "effect",
        |q: &mut QueueHandle, de: ImmutableString, en: ImmutableString| -> RhaiResult<()> {
            charge(1)?;
            let mut s = q.lock();
            s.effects += 1;
            s.queue.note(Text::new(de.as_str(), en.as_str()));
            Ok(())
        },
    );
    engine.register_fn("effects", |q: &mut QueueHandle| q.lock().effects);
}

fn per_mille(options: &Map, key: &str, default: u32) -> RhaiResult<u32> {
    match int_option(options, key)? {
        None => Ok(default),
        Some(n) => u32::try_from(n).map_err(|_| format!("{key} = {n} is not per mille (0..=1000)").into()),
    }
}

fn new_network(seed: i64, config: NetworkConfig) -> RhaiResult<NetworkHandle> {
    let seed = non_negative("seed", seed)?;
    let network = Network::new(seed, config).map_err(|e| e.to_string())?;
    let handle = NetworkHandle(Arc::new(Mutex::new(network)));
    with_recording(|r| {
        r.sims.push(SimHandle::Network(handle.clone()));
        Ok(())
    })?;
    Ok(handle)
}

fn register_network(engine: &mut Engine) {
    engine.register_type_with_name::<NetworkHandle>("Network");
    engine.register_fn("Network", |seed: i64| new_network(seed, NetworkConfig::default()));
    engine.register_fn("Network", |seed: i64, options: Map| -> RhaiResult<NetworkHandle> {
        check_keys(&options, &["loss", "duplicate", "delay", "max_delay"])?;
        let d = NetworkConfig::default();
        let config = NetworkConfig {
            loss_per_mille: per_mille(&options, "loss", d.loss_per_mille)?,
            duplicate_per_mille: per_mille(&options, "duplicate", d.duplicate_per_mille)?,
            delay_per_mille: per_mille(&options, "delay", d.delay_per_mille)?,
            max_delay: per_mille(&options, "max_delay", d.max_delay)?,
        };
        new_network(seed, config)
    });
    engine.register_fn("send", |n: &mut NetworkHandle, body: Dynamic| -> RhaiResult<()> {
        charge(4)?;
        lock(&n.0).send(body.to_string());
        Ok(())
    });
    engine.register_fn("deliver", |n: &mut NetworkHandle| -> RhaiResult<Array> {
        let arrivals = lock(&n.0).deliver();
        charge(arrivals.len())?;
        Ok(arrivals.into_iter().map(|a| Dynamic::from(a.body)).collect())
    });
}

fn register_recording(engine: &mut Engine) {
    engine.register_fn("explain", |part: ImmutableString, q: QueueHandle| {
        with_recording(|r| {
            r.bindings.push((part.to_string(), SimHandle::Queue(q)));
            Ok(())
        })
    });
    engine.register_fn("explain", |part: ImmutableString, n: NetworkHandle| {
        with_recording(|r| {
            r.bindings.push((part.to_string(), SimHandle::Network(n)));
            Ok(())
        })
    });
    engine.register_fn("publish", |name: ImmutableString, value: Dynamic| -> RhaiResult<()> {
        let text = published_text(&value)?;
        with_recording(|r| {
            r.published.insert(name.to_string(), text);
            Ok(())
        })
    });
}

fn published_text(value: &Dynamic) -> RhaiResult<Text> {
    if let Some(network) = value.clone().try_cast::<NetworkHandle>() {
        return Ok(fates_table(&lock(&network.0)));
    }
    if let Some(map) = value.clone().try_cast::<Map>() {
        let get = |k: &str| map.get(k).map(|v| v.to_string());
        return match (get("de"), get("en")) {
            (Some(de), Some(en)) if map.len() == 2 => Ok(Text { de, en }),
            _ => Err("publish a map only as #{de: \"...\", en: \"...\"}".into()),
        };
    }
    if let Some(s) = value.clone().try_cast::<ImmutableString>() {
        return Ok(Text::same(s.as_str()));
    }
    match to_value(value, 0) {
        Ok(v) => Ok(Text::same(v.render())),
        Err(message) => Err(format!("cannot publish this value: {message}").into()),
    }
}

/// The network's rolls as a Markdown table, one row per message (for statements).
pub fn fates_table(network: &Network<String>) -> Text {
    let mut de = String::from(
        "| Nachricht | gesendet | Verlust | Doppelt | Verzögerung 1 | Dauer 1 | Verzögerung 2 | Dauer 2 |\n",
    );
    let mut en =
        String::from("| message | sent | loss | duplicate | delay 1 | duration 1 | delay 2 | duration 2 |\n");
    let rule = "|---|---|---|---|---|---|---|---|\n";
    de.push_str(rule);
    en.push_str(rule);
    for fate in network.fates() {
        let r = fate.rolls;
        let body = network.body(fate.sent).map(String::as_str).unwrap_or("?");
        let row = format!(
            "| {body} | t={} | {} | {} | {} | {} | {} | {} |\n",
            fate.sent, r.loss, r.duplicate, r.delay[0], r.duration[0], r.delay[1], r.duration[1]
        );
        de.push_str(&row);
        en.push_str(&row);
    }
    Text { de, en }
}

/// Converts the script's value into an answer: integers, strings, booleans, `()` (None) and arrays.
fn to_value(value: &Dynamic, depth: usize) -> Result<Value, String> {
    if depth >= limits::ANSWER_DEPTH_MAX {
        return Err(format!("nested deeper than {} levels", limits::ANSWER_DEPTH_MAX));
    }
    if value.is_unit() {
        return Ok(Value::None);
    }
    if let Ok(n) = value.as_int() {
        return Ok(Value::Int(n));
    }
    if let Ok(b) = value.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Ok(c) = value.as_char() {
        return Ok(Value::Str(c.to_string()));
    }
    if let Some(s) = value.clone().try_cast::<ImmutableString>() {
        return Ok(Value::Str(s.to_string()));
    }
    if let Some(items) = value.clone().try_cast::<Array>() {
        let items = items.iter().map(|v| to_value(v, depth + 1)).collect::<Result<_, _>>()?;
        return Ok(Value::Seq(items, Brackets::Square));
    }
    Err(format!(
        "a value of type {} (answers are made of integers, strings, booleans, () and arrays)",
        value.type_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(source: &str, params: &[(&str, i64)]) -> Result<Outcome, ScriptError> {
        let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
        let scenario = Scenario::compile("test.rhai", source, &names, None)?;
        scenario.run(&params.iter().map(|(n, v)| (n.to_string(), *v)).collect())
    }

    #[test]
    fn the_value_is_the_answer() {
        let outcome =
            run("let q = Queue(t); q.send(\"x\"); let m = q.receive(); [m.versuche, q.offen()]", &[("t", 3)])
                .unwrap();
        assert_eq!(outcome.answer.render(), "[1, 1]");
        assert_eq!(outcome.timeline().len(), 3, "send, receive, offen");
    }

    #[test]
    fn endless_loop_is_stopped() {
        let err = run("loop { }", &[]).unwrap_err();
        assert!(err.message.contains("more than 500000 operations"), "{err}");
        assert!(err.to_string().starts_with("test.rhai:1:"), "{err}");
    }

    #[test]
    fn wall_clock_backstop_stops_expensive_operations() {
        // A script well inside the operation limit, run with a backstop that has already passed:
        // it is stopped at the first look at the clock, with its own message.
        let source = "let s = \"\"; for i in 0..5000 { s = \"x\" + i; } 1";
        let scenario = Scenario::compile("slow.rhai", source, &[], None).unwrap();
        assert!(scenario.run(&vec![]).is_ok(), "within the limits with the default backstop");
        let stopped = Scenario::compile("slow.rhai", source, &[], None)
            .unwrap()
            .with_wall_limit(Duration::ZERO)
            .run(&vec![])
            .unwrap_err();
        assert!(stopped.message.contains("wall-clock backstop of 2000 ms"), "{stopped}");
        assert!(stopped.to_string().starts_with("slow.rhai:1:"), "{stopped}");
    }

    #[test]
    fn endless_recursion_is_stopped() {
        let err = run("fn f(n) { f(n + 1) } f(0)", &[]).unwrap_err();
        assert!(err.message.contains("deeper than"), "{err}");
    }

    #[test]
    fn huge_data_is_stopped() {
        let err = run("let s = \"x\"; loop { s += s; }", &[]).unwrap_err();
        assert!(err.message.contains("too large"), "{err}");
        let err = run("let a = []; loop { a.push(1); }", &[]).unwrap_err();
        assert!(err.message.contains("too large"), "{err}");
    }

    #[test]
    fn unknown_variable_is_a_compile_error() {
        let err =
            Scenario::compile("s.rhai", "visibility_timout + 1", &["visibility_timeout"], None).unwrap_err();
        assert!(err.message.contains("visibility_timout"), "{err}");
        assert_eq!(err.location, ":1:1");
    }

    #[test]
    fn syntax_error_names_the_line() {
        let err = Scenario::compile("s.rhai", "let x = 1;\nlet y = ;", &[], None).unwrap_err();
        assert!(err.location.starts_with(":2:"), "{err}");
    }

    #[test]
    fn no_clock_no_floats_in_answers() {
        assert!(Scenario::compile("s.rhai", "timestamp()", &[], None).unwrap().run(&vec![]).is_err());
        let err = run("1.5", &[]).unwrap_err();
        assert!(err.message.contains("not a valid answer"), "{err}");
        let err = run("#{a: 1}", &[]).unwrap_err();
        assert!(err.message.contains("map"), "{err}");
    }

    #[test]
    fn explain_binds_a_timeline_to_a_part() {
        let outcome = run(
            "let a = Queue(2); let b = Queue(2); explain(\"eins\", a); a.send(\"m\"); b.send(\"n\"); b.send(\"o\"); 1",
            &[],
        )
        .unwrap();
        assert_eq!(outcome.timeline_for("eins").len(), 1);
        assert_eq!(outcome.timeline_for("zwei").len(), 3, "unbound parts get every simulation");
    }

    #[test]
    fn publish_values() {
        let outcome = run(
            "let n = Network(806); n.send(\"a\"); publish(\"tabelle\", n); publish(\"x\", 3); \
             publish(\"t\", #{de: \"ja\", en: \"yes\"}); publish(\"l\", [1, 2]); 0",
            &[],
        )
        .unwrap();
        assert!(outcome.published["tabelle"].de.contains("| a | t=0 | 244 | 204 | 706 | 2 | 181 | 3 |"));
        assert_eq!(outcome.published["x"], Text::same("3"));
        assert_eq!(outcome.published["t"], Text::new("ja", "yes"));
        assert_eq!(outcome.published["l"], Text::same("[1, 2]"));
    }

    #[test]
    fn bad_simulation_arguments_are_errors() {
        assert!(run("Queue(0)", &[]).unwrap_err().message.contains("at least 1"));
        assert!(run("Queue(-1)", &[]).unwrap_err().message.contains("negative"));
        assert!(
            run("Queue(#{visibility_timeout: 2, foo: 1})", &[])
                .unwrap_err()
                .message
                .contains("unknown option")
        );
        assert!(run("Network(1, #{loss: 2000})", &[]).unwrap_err().message.contains("per mille"));
        assert!(run("let q = Queue(1); q.tick(-2)", &[]).unwrap_err().message.contains("negative"));
    }

    #[test]
    fn constraint() {
        let s = Scenario::compile("s.rhai", "a", &["a", "b"], Some("a < b")).unwrap();
        assert!(s.satisfies(&vec![("a".into(), 1), ("b".into(), 2)]).unwrap());
        assert!(!s.satisfies(&vec![("a".into(), 3), ("b".into(), 2)]).unwrap());
        assert!(Scenario::compile("s.rhai", "a", &["a"], Some("a <")).is_err());
    }
}
