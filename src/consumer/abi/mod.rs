//! Consumer ABI v1: the host functions a student's module may import (`msg.*`, `db.*`, `env.log`,
//! `env.abort`) and the state behind them. The contract itself is documented for students in
//! `graders/consumer/ABI.md`; this file is its implementation. One table (`abi_v1!`) lists every
//! import with its types and host function; [`IMPORTS`] (what the sandbox allows; it rejects every
//! other import by name) and the linker's registrations are generated from it.
//!
//! Every host call charges fuel ([`crate::limits::FUEL_PER_HOST_CALL`] plus a charge per byte
//! copied), checks every pointer and length against the guest's memory, and records what it did in
//! the trace. The crash harness injects its crash here: right after the k-th crash point (a successful
//! write, or a statement that committed a transaction), the call returns a
//! [`HostFault::InjectedCrash`] that kills the instance.

use std::sync::{Arc, OnceLock};

use wasmtime::{Caller, Engine, Extern, Linker, Trap};

pub use self::host_fault::HostFault;
use super::gate::{Arrival, GateHandle, Signal};
use super::guestdb::LOCKED_PREFIX;
use super::guestdb::{GuestDb, StatementResult, status};
use super::state::SqlValue;
use crate::limits::{ABORT_MESSAGE_UNITS_MAX, FUEL_PER_HOST_BYTE, FUEL_PER_HOST_CALL, GUEST_TEXT_BYTES_MAX};
use crate::report::consumer::{Boundary, CrashPoint, TraceEvent, clip, quote_sql};
use crate::sandbox::limiter::GuestLimiter;
use crate::sandbox::{ImportSpec, ValKind::*};
use crate::text;
use crate::text::Text;

/// The one table of ABI v1: each line is an import (module, name, parameter and result types) and
/// the host function behind it. It yields [`IMPORTS`] (what the validator allows) and the linker's
/// registrations, so adding a host function is one line here (and its row in `ABI.md`, which a
/// test compares with this table).
macro_rules! abi_v1 {
    ($($module:literal . $name:literal ($($param:ident),*) -> ($($result:ident),*) => $host:path;)*) => {
        /// Every import ABI v1 provides.
        pub const IMPORTS: &[ImportSpec] = &[
            $(ImportSpec { module: $module, name: $name, params: &[$($param),*], results: &[$($result),*] },)*
        ];

        /// Defines every import of the table on `linker`.
        fn define_imports(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
            $(linker.func_wrap($module, $name, $host)?;)*
            Ok(())
        }
    };
}

abi_v1! {
    "msg"."int"(I32, I32) -> (I64) => msg_int;
    "msg"."text"(I32, I32, I32, I32) -> (I32) => msg_text;
    "db"."bind_int"(I32, I64) -> () => db_bind_int;
    "db"."bind_text"(I32, I32, I32) -> () => db_bind_text;
    "db"."exec"(I32, I32) -> (I32) => db_exec;
    "db"."query_int"(I32, I32, I32) -> (I32) => db_query_int;
    "db"."changes"() -> (I64) => db_changes;
    "db"."last_error"(I32, I32) -> (I32) => db_last_error;
    "env"."log"(I32, I32) -> () => env_log;
    "env"."abort"(I32, I32, I32, I32) -> () => env_abort;
    "world"."send_mail"(I32, I32, I32, I32, I32, I32) -> (I32) => world::world_send_mail;
    "world"."publish"(I32, I32, I32, I32, I32, I32) -> (I32) => world::world_publish;
    "world"."commit_offset"(I64, I64) -> (I32) => world::world_commit_offset;
}

/// The store data of one consumer instance.
pub(crate) struct GuestState {
    pub limiter: GuestLimiter,
    pub db: GuestDb,
    pub instance: u32,
    /// The message being delivered.
    pub message: Option<Arc<serde_json::Value>>,
    /// Trace events of the current delivery.
    pub events: Vec<TraceEvent>,
    /// Successful write statements in the current delivery.
    pub writes: u32,
    /// Statements in the current delivery that committed a transaction they did not open themselves
    /// (`COMMIT`, `END`, `RELEASE` of the outermost savepoint).
    pub commits: u32,
    /// Calls to outside services in the current delivery.
    pub calls: u32,
    /// The outside services of the run this instance belongs to (none outside a run).
    pub world: Option<crate::consumer::world::SharedWorld>,
    /// The crash points of the current delivery so far, in order.
    pub crash_points: Vec<CrashPoint>,
    /// Kill the instance right after this crash point (crash injection).
    pub crash_after: Option<u32>,
    pub statements: u32,
    pub statement_limit: u32,
    pub log_bytes: usize,
    pub log_limit: usize,
    /// Notes on limits met without a trap (a statement stopped by the SQL step limit, log cut).
    pub notes: Vec<Text>,
    /// Set when this instance runs interleaved with another: it waits for its turn before every
    /// statement.
    pub gate: Option<GateHandle>,
    /// The line of the student's source that issues the next statement, as an interpreter guest
    /// announces it (`env.pf_statement_line`); taken by that statement's trace event.
    pub statement_line: Option<u32>,
    /// The line of the student's source whose `return` ended the entry function, as an
    /// interpreter guest announces it (`env.pf_return_line`); taken by the delivery's return event.
    pub return_line: Option<u32>,
    /// An interpreter guest's function table, looked up at its first `invoke_*` ([`sjlj`]).
    pub function_table: Option<wasmtime::Table>,
}

impl GuestState {
    /// The store data of a fresh instance on `db`.
    pub(crate) fn fresh(db: GuestDb, limits: &crate::limits::Limits, instance: u32) -> GuestState {
        GuestState {
            statement_line: None,
            return_line: None,
            function_table: None,
            limiter: GuestLimiter::new(limits.memory_bytes, limits.table_elements),
            db,
            instance,
            message: None,
            events: Vec::new(),
            writes: 0,
            commits: 0,
            crash_points: Vec::new(),
            crash_after: None,
            calls: 0,
            world: None,
            statements: 0,
            statement_limit: limits.sql_statements_per_delivery,
            log_bytes: 0,
            log_limit: limits.log_bytes_per_run,
            notes: Vec::new(),
            // Attached after the start function ran (see `start`).
            gate: None,
        }
    }
}

/// The linker with every ABI v1 function, built once per engine.
pub(crate) fn linker(engine: &Engine) -> &'static Linker<GuestState> {
    type Registry = std::sync::Mutex<Vec<(Engine, &'static Linker<GuestState>)>>;
    static LINKERS: OnceLock<Registry> = OnceLock::new();
    let linkers = LINKERS.get_or_init(Default::default);
    let mut linkers = linkers.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, linker)) = linkers.iter().find(|(e, _)| Engine::same(e, engine)) {
        return linker;
    }
    let linker: &'static Linker<GuestState> = Box::leak(Box::new(build_linker(engine)));
    linkers.push((engine.clone(), linker));
    linker
}

/// The linker for interleaved runs: like [`linker`], but `db.exec` and `db.query_int` wait for
/// their turn (they are async host functions; the instance runs on a fiber).
pub(crate) fn interleaving_linker(engine: &Engine) -> &'static Linker<GuestState> {
    type Registry = std::sync::Mutex<Vec<(Engine, &'static Linker<GuestState>)>>;
    static LINKERS: OnceLock<Registry> = OnceLock::new();
    let linkers = LINKERS.get_or_init(Default::default);
    let mut linkers = linkers.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, linker)) = linkers.iter().find(|(e, _)| Engine::same(e, engine)) {
        return linker;
    }
    let linker: &'static Linker<GuestState> = Box::leak(Box::new(build_interleaving_linker(engine)));
    linkers.push((engine.clone(), linker));
    linker
}

fn build_interleaving_linker(engine: &Engine) -> Linker<GuestState> {
    let mut linker = build_linker(engine);
    linker.allow_shadowing(true);
    let defined: wasmtime::Result<()> = (|| {
        linker.func_wrap_async("db", "exec", |caller: Caller<'_, GuestState>, (ptr, len): (i32, i32)| {
            Box::new(db_statement_interleaved(caller, "db.exec", ptr, len, None))
        })?;
        linker.func_wrap_async(
            "db",
            "query_int",
            |caller: Caller<'_, GuestState>, (ptr, len, out): (i32, i32, i32)| {
                Box::new(db_statement_interleaved(caller, "db.query_int", ptr, len, Some(out)))
            },
        )?;
        linker.func_wrap_async(
            "world",
            "send_mail",
            |caller: Caller<'_, GuestState>, args: (i32, i32, i32, i32, i32, i32)| {
                Box::new(world::world_send_mail_interleaved(caller, args))
            },
        )?;
        sjlj::define_async(&mut linker)?;
        Ok(())
    })();
    if let Err(error) = defined {
        panic!("the interleaving linker could not be built: {error}");
    }
    linker
}

type HostResult<T> = wasmtime::Result<T>;

fn build_linker(engine: &Engine) -> Linker<GuestState> {
    let mut linker = Linker::new(engine);
    // Defining functions on a fresh linker only fails on duplicate names, which a test rules out.
    if let Err(error) = define_imports(&mut linker)
        .and_then(|()| sjlj::define(&mut linker))
        .and_then(|()| own::define_own_guest_imports(&mut linker))
    {
        panic!("the ABI v1 linker could not be built: {error}");
    }
    linker
}

/// Charges a host call's fuel: a fixed cost plus a cost per byte copied.
fn charge(caller: &mut Caller<'_, GuestState>, bytes: usize) -> HostResult<()> {
    let cost = FUEL_PER_HOST_CALL + bytes as u64 * FUEL_PER_HOST_BYTE;
    let fuel = caller.get_fuel()?;
    if fuel < cost {
        caller.set_fuel(0)?;
        return Err(wasmtime::Error::new(Trap::OutOfFuel));
    }
    caller.set_fuel(fuel - cost)
}

fn memory(caller: &mut Caller<'_, GuestState>) -> HostResult<wasmtime::Memory> {
    match caller.get_export("memory") {
        Some(Extern::Memory(memory)) => Ok(memory),
        _ => Err(wasmtime::Error::new(HostFault::NoMemory)),
    }
}

/// The byte range `ptr..ptr+len` of guest memory, checked.
fn range(call: &'static str, ptr: i32, len: i32, memory_len: usize) -> HostResult<std::ops::Range<usize>> {
    let (start, count) = (ptr as u32, len as u32);
    let end = start as u64 + count as u64;
    if end > memory_len as u64 {
        return Err(wasmtime::Error::new(HostFault::OutOfBounds {
            call,
            ptr: start,
            len: count,
            memory: memory_len,
        }));
    }
    Ok(start as usize..end as usize)
}

fn read_bytes(
    caller: &mut Caller<'_, GuestState>,
    call: &'static str,
    ptr: i32,
    len: i32,
) -> HostResult<Vec<u8>> {
    let memory = memory(caller)?;
    let data = memory.data(&*caller);
    let range = range(call, ptr, len, data.len())?;
    Ok(data[range].to_vec())
}

fn read_string(
    caller: &mut Caller<'_, GuestState>,
    call: &'static str,
    what: &'static str,
    ptr: i32,
    len: i32,
) -> HostResult<String> {
    let bytes = read_bytes(caller, call, ptr, len)?;
    String::from_utf8(bytes).map_err(|_| wasmtime::Error::new(HostFault::NotUtf8 { call, what }))
}

/// Writes `bytes` to `buf_ptr` if they fit in `buf_cap`; returns the full length either way.
fn write_if_fits(
    caller: &mut Caller<'_, GuestState>,
    call: &'static str,
    bytes: &[u8],
    buf_ptr: i32,
    buf_cap: i32,
) -> HostResult<i32> {
    let memory = memory(caller)?;
    let data = memory.data_mut(&mut *caller);
    let range = range(call, buf_ptr, buf_cap, data.len())?;
    if bytes.len() <= range.len() {
        data[range.start..range.start + bytes.len()].copy_from_slice(bytes);
    }
    Ok(i32::try_from(bytes.len()).unwrap_or(i32::MAX))
}

/// Looks up a dotted path ("body.kunde", "items.0.sku") in the current message.
fn lookup(caller: &Caller<'_, GuestState>, call: &'static str, path: &str) -> HostResult<serde_json::Value> {
    // The path is the guest's text: it is clipped where it is copied into the fault (and from there
    // into the trace and the failure text).
    let fault = |problem: String| {
        wasmtime::Error::new(HostFault::MessagePath { call, path: clip(path, GUEST_TEXT_BYTES_MAX), problem })
    };
    let Some(message) = caller.data().message.clone() else {
        return Err(fault("message (no delivery is in progress)".into()));
    };
    // The empty path names the whole message (its JSON text, through msg.text).
    if path.is_empty() {
        return Ok((*message).clone());
    }
    let mut value: &serde_json::Value = &message;
    for segment in path.split('.') {
        let next = match value {
            serde_json::Value::Object(map) => map.get(segment),
            serde_json::Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        value = next.ok_or_else(|| {
            let fields = match &*message {
                serde_json::Value::Object(map) => map.keys().cloned().collect::<Vec<_>>().join(", "),
                _ => String::new(),
            };
            let segment = clip(segment, GUEST_TEXT_BYTES_MAX / 4);
            fault(format!("field \"{segment}\" in this message (its top-level fields: {fields})"))
        })?;
    }
    Ok(value.clone())
}

fn msg_int(mut caller: Caller<'_, GuestState>, path_ptr: i32, path_len: i32) -> HostResult<i64> {
    charge(&mut caller, path_len.max(0) as usize)?;
    let path = read_string(&mut caller, "msg.int", "path", path_ptr, path_len)?;
    let value = lookup(&caller, "msg.int", &path)?;
    value.as_i64().ok_or_else(|| {
        wasmtime::Error::new(HostFault::MessagePath {
            call: "msg.int",
            path: clip(&path, GUEST_TEXT_BYTES_MAX),
            problem: format!("integer there; the field holds {value} (use msg.text for text)"),
        })
    })
}

fn msg_text(
    mut caller: Caller<'_, GuestState>,
    path_ptr: i32,
    path_len: i32,
    buf_ptr: i32,
    buf_cap: i32,
) -> HostResult<i32> {
    let path = read_string(&mut caller, "msg.text", "path", path_ptr, path_len)?;
    let value = lookup(&caller, "msg.text", &path)?;
    let text = match value {
        serde_json::Value::String(s) => s,
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    };
    charge(&mut caller, path.len() + text.len())?;
    write_if_fits(&mut caller, "msg.text", text.as_bytes(), buf_ptr, buf_cap)
}

fn db_bind_int(mut caller: Caller<'_, GuestState>, index: i32, value: i64) -> HostResult<()> {
    charge(&mut caller, 0)?;
    caller.data_mut().db.bind(index, SqlValue::Integer(value));
    Ok(())
}

fn db_bind_text(mut caller: Caller<'_, GuestState>, index: i32, ptr: i32, len: i32) -> HostResult<()> {
    charge(&mut caller, len.max(0) as usize)?;
    let bytes = read_bytes(&mut caller, "db.bind_text", ptr, len)?;
    match String::from_utf8(bytes) {
        Ok(text) => caller.data_mut().db.bind(index, SqlValue::Text(text)),
        Err(_) => {
            caller.data_mut().db.bind_error(format!("db.bind_text({index}): the text is not valid UTF-8"))
        }
    }
    Ok(())
}

/// A statement the guest asked for, checked and ready to run.
struct StatementCall {
    call: &'static str,
    sql: String,
    out_ptr: Option<i32>,
    params: std::collections::BTreeMap<i32, SqlValue>,
}

/// Charges, reads and checks a `db.exec`/`db.query_int` call, and takes its bound parameters.
fn statement_call(
    caller: &mut Caller<'_, GuestState>,
    call: &'static str,
    ptr: i32,
    len: i32,
    out_ptr: Option<i32>,
) -> HostResult<StatementCall> {
    charge(caller, len.max(0) as usize)?;
    let sql = read_string(caller, call, "SQL text", ptr, len)?;
    if let Some(out) = out_ptr {
        // Check the output slot before running anything, so a bad pointer cannot leave a write done.
        let memory = memory(caller)?;
        range(call, out, 8, memory.data(&*caller).len())?;
    }
    let state = caller.data_mut();
    state.statements += 1;
    if state.statements > state.statement_limit {
        return Err(wasmtime::Error::new(HostFault::StatementLimit { limit: state.statement_limit }));
    }
    let params = state.db.take_params();
    Ok(StatementCall { call, sql, out_ptr, params })
}

fn run_statement(caller: &mut Caller<'_, GuestState>, call: &StatementCall) -> StatementResult {
    caller.data_mut().db.run_with_params(&call.sql, call.out_ptr.is_some(), call.params.clone())
}

/// Counts the write, records the statement, stores the row, marks a crash point after a write or a
/// commit, and injects the crash if this is the crash point to crash at.
fn finish_statement(
    caller: &mut Caller<'_, GuestState>,
    call: StatementCall,
    result: StatementResult,
) -> HostResult<i32> {
    let state = caller.data_mut();
    let instance = state.instance;
    let ok_write = result.is_write && result.status == status::OK;
    let write = if ok_write {
        state.writes += 1;
        Some(state.writes)
    } else {
        None
    };
    // The durable boundaries: after every write (inside a transaction a crash there is harmless,
    // which is what the check shows), and after every statement that made a transaction durable.
    let boundary = match write {
        Some(write) => Some(Boundary::Write { write, autocommit: result.committed }),
        None if result.committed => {
            state.commits += 1;
            Some(Boundary::Commit { transaction: state.commits })
        }
        None => None,
    };
    // What comes next after a crash point: the next statement that does something (a `BEGIN`
    // only opens the transaction the next one works in).
    if !result.opened_transaction {
        name_next_after_crash_point(state, quote_sql(&call.sql));
    }
    let point = boundary.map(|after| (push_crash_point(state, after, quote_sql(&call.sql)), after));
    note_limits_hit(state, &result);
    // SQL text, bound values and the error are the guest's: clipped as they enter the trace.
    let line = state.statement_line.take();
    let event = TraceEvent::Statement {
        line,
        instance,
        call: call.call.to_string(),
        sql: call.sql,
        params: call.params.into_values().collect(),
        status: result.status,
        changes: ok_write.then_some(result.changes),
        row: result.row,
        write,
        error: result.error.clone(),
    };
    state.events.push(event.clipped(GUEST_TEXT_BYTES_MAX));
    if let (Some(out), Some(row)) = (call.out_ptr, result.row) {
        let memory = memory(caller)?;
        let data = memory.data_mut(&mut *caller);
        let slot = range(call.call, out, 8, data.len())?;
        data[slot].copy_from_slice(&row.to_le_bytes());
    }
    if let Some((number, after)) = point {
        let (after_write, after_commit) = match after {
            Boundary::Write { write, .. } => (Some(write), None),
            Boundary::Commit { transaction } => (None, Some(transaction)),
            Boundary::Call { .. } => (None, None),
        };
        let crash = TraceEvent::Crash {
            instance,
            point: number,
            after_write,
            after_commit,
            after_call: None,
            before_commit: false,
            line,
        };
        crash_if_due(caller.data_mut(), number, after, crash)?;
    }
    Ok(result.status)
}

/// Names `statement` as what came after the last crash point, unless something already is.
fn name_next_after_crash_point(state: &mut GuestState, statement: String) {
    if let Some(last) = state.crash_points.last_mut()
        && last.next.is_none()
    {
        last.next = Some(statement);
    }
}

/// Records the crash point right after `after`, reached by `statement`; its number.
fn push_crash_point(state: &mut GuestState, after: Boundary, statement: String) -> u32 {
    let number = state.crash_points.len() as u32 + 1;
    state.crash_points.push(CrashPoint { number, after, statement, next: None });
    number
}

/// Ends the instance at crash point `number` when it is the one this run crashes at, with `crash`
/// in the trace.
fn crash_if_due(state: &mut GuestState, number: u32, after: Boundary, crash: TraceEvent) -> HostResult<()> {
    if state.crash_after != Some(number) {
        return Ok(());
    }
    state.events.push(crash);
    Err(wasmtime::Error::new(HostFault::InjectedCrash { point: number, after }))
}

/// Notes for the report when `result` was stopped by a limit of SQL steps or time.
fn note_limits_hit(state: &mut GuestState, result: &StatementResult) {
    if result.step_limit_hit {
        state.notes.push(text!(
            "Eine Anweisung wurde nach zu vielen SQL-Schritten gestoppt (Grenze „SQL-Schritte pro Anweisung“).",
            "A statement was stopped after too many SQL steps (limit \"SQL steps per statement\")."
        ));
    }
    match result.wall_limit_hit {
        Some(false) => state.notes.push(text!(
            "Eine Anweisung wurde nach {ms} gestoppt (Grenze „SQL-Zeit pro Anweisung“).",
            "A statement was stopped after {ms} (limit \"SQL time per statement\").",
            ms = crate::deadline::format_ms(crate::limits::SQL_WALL_MS_PER_STATEMENT)
        )),
        Some(true) => state.notes.push(text!(
            "Eine Anweisung wurde gestoppt: die Zeit für die ganze Abgabe war abgelaufen (Grenze „Zeit pro Abgabe“).",
            "A statement was stopped: the time for the whole submission had run out (limit \"time per submission\")."
        )),
        None => {}
    }
}

fn db_exec(caller: Caller<'_, GuestState>, ptr: i32, len: i32) -> HostResult<i32> {
    db_statement(caller, "db.exec", ptr, len, None)
}

fn db_query_int(caller: Caller<'_, GuestState>, ptr: i32, len: i32, out: i32) -> HostResult<i32> {
    db_statement(caller, "db.query_int", ptr, len, Some(out))
}

fn db_statement(
    mut caller: Caller<'_, GuestState>,
    call: &'static str,
    ptr: i32,
    len: i32,
    out_ptr: Option<i32>,
) -> HostResult<i32> {
    let call = statement_call(&mut caller, call, ptr, len, out_ptr)?;
    let result = run_statement(&mut caller, &call);
    finish_statement(&mut caller, call, result)
}

/// `BEGIN`, `BEGIN DEFERRED`, `BEGIN TRANSACTION`, `BEGIN DEFERRED TRANSACTION` (any case, `;`).
fn is_deferred_begin(sql: &str) -> bool {
    let words: Vec<String> =
        sql.trim().trim_end_matches(';').split_whitespace().map(|w| w.to_ascii_uppercase()).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    matches!(
        words.as_slice(),
        ["BEGIN"] | ["BEGIN", "DEFERRED"] | ["BEGIN", "TRANSACTION"] | ["BEGIN", "DEFERRED", "TRANSACTION"]
    )
}

/// The interleaved variant: waits for its turn before the statement, and waits again (as
/// `busy_timeout` would) while the other instance's transaction holds the lock.
async fn db_statement_interleaved(
    mut caller: Caller<'_, GuestState>,
    call: &'static str,
    ptr: i32,
    len: i32,
    out_ptr: Option<i32>,
) -> HostResult<i32> {
    let call = statement_call(&mut caller, call, ptr, len, out_ptr)?;
    let Some(gate) = caller.data().gate.clone() else {
        let result = run_statement(&mut caller, &call);
        return finish_statement(&mut caller, call, result);
    };
    // A deferred BEGIN takes no lock and touches no data: where it runs relative to the other
    // instance cannot matter, so it is not a point at which the two may interleave.
    if !is_deferred_begin(&call.sql) {
        let in_transaction = caller.data().db.in_transaction();
        let events = std::mem::take(&mut caller.data_mut().events);
        gate.wait(Arrival::Ready { in_transaction }, events).await;
    }
    let mut waited = false;
    let result = loop {
        let mut result = run_statement(&mut caller, &call);
        if !result.busy {
            break result;
        }
        let state = caller.data_mut();
        let instance = state.instance;
        // One wait per statement in the trace, however often the retry finds the lock taken.
        if !waited {
            state.events.push(TraceEvent::Wait { instance, sql: clip(&call.sql, GUEST_TEXT_BYTES_MAX) });
            waited = true;
        }
        let has_written = state.writes > 0;
        let events = std::mem::take(&mut state.events);
        if let Signal::GiveUp(why) = gate.wait(Arrival::Blocked { has_written }, events).await {
            if let Some(reason) = why.reason() {
                result.error = Some(format!("{LOCKED_PREFIX}: {reason}"));
                caller.data_mut().db.set_last_error(result.error.clone().unwrap_or_default());
            }
            break result;
        }
    };
    finish_statement(&mut caller, call, result)
}

fn db_changes(mut caller: Caller<'_, GuestState>) -> HostResult<i64> {
    charge(&mut caller, 0)?;
    Ok(caller.data().db.changes() as i64)
}

fn db_last_error(mut caller: Caller<'_, GuestState>, buf_ptr: i32, buf_cap: i32) -> HostResult<i32> {
    let message = caller.data().db.last_error().to_string();
    charge(&mut caller, message.len())?;
    write_if_fits(&mut caller, "db.last_error", message.as_bytes(), buf_ptr, buf_cap)
}

fn env_log(mut caller: Caller<'_, GuestState>, ptr: i32, len: i32) -> HostResult<()> {
    charge(&mut caller, len.max(0) as usize)?;
    let bytes = read_bytes(&mut caller, "env.log", ptr, len)?;
    let state = caller.data_mut();
    let room = state.log_limit.saturating_sub(state.log_bytes);
    if room == 0 {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if text.len() > room {
        let mut cut = room;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        state.notes.push(text!(
            "Die Log-Ausgabe wurde nach {limit} Bytes abgeschnitten (Grenze „Log pro Lauf“).",
            "Log output was cut after {limit} bytes (limit \"log per run\").",
            limit = state.log_limit
        ));
    }
    state.log_bytes += text.len().max(1);
    let instance = state.instance;
    state.events.push(TraceEvent::Log { instance, text });
    Ok(())
}

/// AssemblyScript's `abort(message, file, line, column)`: message and file are pointers to
/// AssemblyScript strings (UTF-16, byte length stored in the 4 bytes before the pointer).
fn env_abort(
    mut caller: Caller<'_, GuestState>,
    message: i32,
    file: i32,
    line: i32,
    column: i32,
) -> HostResult<()> {
    let message = read_assemblyscript_string(&mut caller, message);
    let file = read_assemblyscript_string(&mut caller, file);
    Err(wasmtime::Error::new(HostFault::Abort { message, file, line: line as u32, column: column as u32 }))
}

fn read_assemblyscript_string(caller: &mut Caller<'_, GuestState>, ptr: i32) -> String {
    let Ok(memory) = memory(caller) else { return String::new() };
    let data = memory.data(&*caller);
    let ptr = ptr as u32 as usize;
    if ptr < 4 || ptr > data.len() {
        return String::new();
    }
    let byte_len = u32::from_le_bytes([data[ptr - 4], data[ptr - 3], data[ptr - 2], data[ptr - 1]]) as usize;
    let end = ptr.saturating_add(byte_len.min(ABORT_MESSAGE_UNITS_MAX * 2)).min(data.len());
    let units: Vec<u16> = data[ptr..end].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    String::from_utf16_lossy(&units)
}

mod host_fault;
mod own;
pub(crate) mod sjlj;
pub(crate) mod world;

#[cfg(test)]
mod tests;
