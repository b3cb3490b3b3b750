//! What a scenario script sees: the `Queue` and `Network` handles (the `Log` is in `log.rs`) over [`crate::sim`], `explain`,
//! `publish`, and the per-run bookkeeping behind them (the simulations a run created, its events
//! counted against [`limits::SCRIPT_SIM_EVENTS_MAX`], its wall-clock backstop). Registered on the
//! engine by [`super::Scenario`].

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rhai::{Array, Dynamic, Engine, ImmutableString, Map};

use crate::limits;
use crate::prediction::answer::{Brackets, Value};
use crate::sim::describe::{self, TimelineLine};
use crate::sim::{Network, NetworkConfig, Queue, QueueConfig};
use crate::text::Text;

/// What a host function returns to the script engine.
pub(super) type RhaiResult<T> = Result<T, Box<rhai::EvalAltResult>>;

/// A queue as the script sees it: shared (a script variable is a handle), with a counter of effects.
#[derive(Clone)]
pub(super) struct QueueHandle(Arc<Mutex<ScriptQueue>>);

pub(super) struct ScriptQueue {
    queue: Queue<String>,
    effects: i64,
}

/// A log as the script sees it (its functions are in `log.rs`): shared (a script variable is a
/// handle), with a counter of effects.
#[derive(Clone)]
pub(crate) struct LogHandle(pub(super) Arc<Mutex<ScriptLog>>);

pub(crate) struct ScriptLog {
    pub(super) log: crate::sim::EventLog<String>,
    pub(super) effects: i64,
}

impl LogHandle {
    pub(super) fn lock(&self) -> MutexGuard<'_, ScriptLog> {
        lock(&self.0)
    }
}

#[derive(Clone)]
pub(super) struct NetworkHandle(Arc<Mutex<Network<String>>>);

#[derive(Clone)]
pub(super) enum SimHandle {
    Queue(QueueHandle),
    Network(NetworkHandle),
    Log(LogHandle),
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl QueueHandle {
    pub(super) fn lock(&self) -> MutexGuard<'_, ScriptQueue> {
        lock(&self.0)
    }
}

impl std::fmt::Debug for SimHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimHandle::Queue(q) => write!(f, "Queue({} events)", q.lock().queue.trace().len()),
            SimHandle::Network(n) => write!(f, "Network(seed {})", lock(&n.0).seed()),
            SimHandle::Log(l) => write!(f, "Log({} events)", l.lock().log.trace().len()),
        }
    }
}

impl SimHandle {
    pub(super) fn timeline(&self) -> Vec<TimelineLine> {
        match self {
            SimHandle::Queue(q) => describe::queue_timeline(&q.lock().queue, String::clone),
            SimHandle::Network(n) => describe::network_timeline(&lock(&n.0), String::clone),
            SimHandle::Log(l) => describe::log_timeline(&l.lock().log, String::clone),
        }
    }
}

/// What one run records besides its value.
#[derive(Default)]
pub(super) struct Recording {
    pub(super) sims: Vec<SimHandle>,
    pub(super) bindings: Vec<(String, SimHandle)>,
    pub(super) published: BTreeMap<String, Text>,
    events: usize,
}

thread_local! {
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
    /// When the run on this thread must stop (see [`limits::SCRIPT_WALL_MS_MAX`]).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Operations between two looks at the clock (reading it costs more than an operation).
pub(super) const DEADLINE_CHECK_EVERY: u64 = 1_024;

pub(super) fn deadline_passed() -> bool {
    DEADLINE.with(|d| d.get().is_some_and(|deadline| Instant::now() >= deadline))
}

/// Sets the wall-clock deadline of one run on this thread and clears it again, even on error.
pub(super) struct DeadlineGuard;

impl DeadlineGuard {
    pub(super) fn install(limit: Duration) -> DeadlineGuard {
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
pub(super) struct RecordingGuard;

impl RecordingGuard {
    pub(super) fn install() -> RecordingGuard {
        RECORDING.with(|r| *r.borrow_mut() = Some(Recording::default()));
        RecordingGuard
    }

    pub(super) fn take(self) -> Recording {
        RECORDING.with(|r| r.borrow_mut().take()).unwrap_or_default()
    }
}

impl Drop for RecordingGuard {
    fn drop(&mut self) {
        RECORDING.with(|r| r.borrow_mut().take());
    }
}

pub(super) fn with_recording<T>(f: impl FnOnce(&mut Recording) -> RhaiResult<T>) -> RhaiResult<T> {
    RECORDING.with(|r| match r.borrow_mut().as_mut() {
        Some(recording) => f(recording),
        None => Err("simulations can only be used in the scenario, not in the constraint".into()),
    })
}

/// Counts simulation events against [`limits::SCRIPT_SIM_EVENTS_MAX`].
pub(super) fn charge(events: usize) -> RhaiResult<()> {
    with_recording(|r| {
        r.events += events;
        if r.events > limits::SCRIPT_SIM_EVENTS_MAX {
            Err(format!("the simulations recorded more than {} events", limits::SCRIPT_SIM_EVENTS_MAX).into())
        } else {
            Ok(())
        }
    })
}

pub(super) fn non_negative(name: &str, n: i64) -> RhaiResult<u64> {
    u64::try_from(n).map_err(|_| format!("{name} must not be negative (got {n})").into())
}

pub(super) fn int_option(options: &Map, key: &str) -> RhaiResult<Option<i64>> {
    match options.get(key) {
        None => Ok(None),
        Some(v) => v.as_int().map(Some).map_err(|t| format!("{key} must be an integer, not {t}").into()),
    }
}

pub(super) fn check_keys(options: &Map, allowed: &[&str]) -> RhaiResult<()> {
    match options.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown option {k:?} (allowed: {})", allowed.join(", ")).into()),
        None => Ok(()),
    }
}

pub(super) fn new_queue(config: QueueConfig) -> RhaiResult<QueueHandle> {
    let queue = Queue::new(config).map_err(|e| e.to_string())?;
    let handle = QueueHandle(Arc::new(Mutex::new(ScriptQueue { queue, effects: 0 })));
    with_recording(|r| {
        r.sims.push(SimHandle::Queue(handle.clone()));
        Ok(())
    })?;
    Ok(handle)
}

pub(super) fn delivery_map(d: crate::sim::Delivery<String>) -> Dynamic {
    let mut map = Map::new();
    map.insert("id".into(), Dynamic::from_int(d.id as i64));
    map.insert("body".into(), Dynamic::from(d.body));
    map.insert("attempts".into(), Dynamic::from_int(i64::from(d.attempts)));
    map.insert("versuche".into(), Dynamic::from_int(i64::from(d.attempts)));
    Dynamic::from_map(map)
}

pub(super) fn receive(q: &mut QueueHandle, consumer: Option<String>) -> RhaiResult<Dynamic> {
    charge(1)?;
    let mut s = q.lock();
    let delivery = match consumer {
        Some(name) => s.queue.receive_for(name),
        None => s.queue.receive(),
    };
    Ok(delivery.map(delivery_map).unwrap_or(Dynamic::UNIT))
}

pub(super) fn open(q: &mut QueueHandle) -> RhaiResult<i64> {
    charge(1)?;
    Ok(q.lock().queue.open() as i64)
}

pub(super) fn register_queue(engine: &mut Engine) {
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

pub(super) fn per_mille(options: &Map, key: &str, default: u32) -> RhaiResult<u32> {
    match int_option(options, key)? {
        None => Ok(default),
        Some(n) => u32::try_from(n).map_err(|_| format!("{key} = {n} is not per mille (0..=1000)").into()),
    }
}

pub(super) fn new_network(seed: i64, config: NetworkConfig) -> RhaiResult<NetworkHandle> {
    let seed = non_negative("seed", seed)?;
    let network = Network::new(seed, config).map_err(|e| e.to_string())?;
    let handle = NetworkHandle(Arc::new(Mutex::new(network)));
    with_recording(|r| {
        r.sims.push(SimHandle::Network(handle.clone()));
        Ok(())
    })?;
    Ok(handle)
}

pub(super) fn register_network(engine: &mut Engine) {
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

pub(super) fn register_recording(engine: &mut Engine) {
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

pub(super) fn published_text(value: &Dynamic) -> RhaiResult<Text> {
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
pub(super) fn fates_table(network: &Network<String>) -> Text {
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
pub(super) fn to_value(value: &Dynamic, depth: usize) -> Result<Value, String> {
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
