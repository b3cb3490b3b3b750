//! The WebAssembly sandbox: the engines (Winch or Cranelift), and turning untrusted bytes into a
//! validated module with a clear rejection when they are not one.
//!
//! Policy (decision records 0001 and 0004 in `docs/decisions/`): core modules only, no WASI, no
//! threads, no SIMD, no multi-memory; fuel is the deterministic budget, an epoch deadline the
//! wall-clock backstop, a [`limiter::GuestLimiter`] caps memory and tables and says which limit was
//! hit, and the wasm stack is bounded. Nothing here knows about consumers; the ABI lives in `consumer::abi`.

pub mod budget;
pub(crate) mod cow_memory;
pub(crate) mod fiber_stacks;
pub(crate) mod fingerprint;
pub(crate) mod image;
pub(crate) mod limiter;
pub(crate) mod module_cache;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use wasmtime::{
    Config, Engine, ExternType, InstanceAllocationStrategy, Module, OptLevel, PoolingAllocationConfig,
    Strategy, ValType,
};

use crate::exercise::Compiler;
use crate::limits::{
    Limits, MEMORY_BYTES_MAX, POOL_KEEP_RESIDENT_BYTES, POOL_SLOTS_SHARED, POOL_SLOTS_WORKER,
    POOLED_ENGINES_MAX, POOLED_ENGINES_MAX_WORKER, TABLE_ELEMENTS_MAX, WASM_FUNCTIONS_MAX, WASM_GLOBALS_MAX,
    WASM_STACK_BYTES_MAX, WASM_STACK_ENGINES_MAX, WASM_TABLES_MAX,
};
use crate::report::Rejection;
use crate::text;

/// How often the engine's epoch advances; deadlines are counted in these ticks.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The engine for `compiler` with the default wasm stack ([`WASM_STACK_BYTES_MAX`]) and pooled
/// instances, created once per process with the epoch ticker running.
pub fn engine(compiler: Compiler) -> Result<&'static Engine, String> {
    engine_of(compiler, WASM_STACK_BYTES_MAX, Allocation::Pooled)
}

/// The engine for `compiler` whose wasm stack is `stack_bytes` (an interpreter guest's). Pooled only
/// at the default stack: an interpreter's setjmp trampolines take a fiber stack per nesting in
/// interleaved runs, more than a pool's fixed stacks hold, so a deeper stack maps each instance,
/// from the memory image its instantiation names ([`cow_memory`]).
pub fn engine_with_stack(compiler: Compiler, stack_bytes: usize) -> Result<&'static Engine, String> {
    let allocation =
        if stack_bytes == WASM_STACK_BYTES_MAX { Allocation::Pooled } else { Allocation::Images };
    engine_of(compiler, stack_bytes, allocation)
}

/// The engine that runs guests under `limits` with `compiler`: its wasm stack is the exercise's,
/// and its instances come from a pool when the exercise's memory, tables and instance size fit a
/// pool slot ([`Allocation::for_limits`]), else they are allocated one by one.
pub(crate) fn engine_for(compiler: Compiler, limits: &Limits) -> Result<&'static Engine, String> {
    engine_of(compiler, limits.wasm_stack_bytes, Allocation::for_limits(limits))
}

/// How an engine allocates the memories, tables and fiber stacks of its instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Allocation {
    /// From slots reserved when the engine is made (wasmtime's pooling allocator): starting an
    /// instance maps nothing new, and a slot used by the same module before keeps its memory image.
    /// The slots bound what an instance may have: [`MEMORY_BYTES_MAX`] of memory,
    /// [`WASM_TABLES_MAX`] tables of [`TABLE_ELEMENTS_MAX`] elements.
    Pooled,
    /// Mapped for each instance: for exercises that allow more than a pool slot holds.
    OnDemand,
    /// Mapped for each instance from the memory image its instantiation names, copy-on-write
    /// ([`cow_memory::instantiate_with`]), or zeroed and filled from the module's data: for
    /// interpreter guests, whose memory never grows beyond the default reservation.
    Images,
}

impl Allocation {
    /// Pooled when every instance an exercise allows fits a pool slot.
    pub(crate) fn for_limits(limits: &Limits) -> Allocation {
        let fits = limits.memory_bytes <= MEMORY_BYTES_MAX
            && limits.table_elements <= TABLE_ELEMENTS_MAX
            && limits.wasm_tables <= WASM_TABLES_MAX
            && limits.wasm_globals <= WASM_GLOBALS_MAX
            && limits.wasm_functions <= WASM_FUNCTIONS_MAX;
        if fits { Allocation::Pooled } else { Allocation::OnDemand }
    }
}

/// The engine for `compiler`, `stack_bytes` and `allocation`. wasmtime fixes the stack and the
/// allocator per engine, so each combination has an engine of its own, created on first use and
/// kept for the life of the process; at most [`WASM_STACK_ENGINES_MAX`] besides the two defaults
/// (exercises use one or two stack sizes, not dozens).
fn engine_of(
    compiler: Compiler,
    stack_bytes: usize,
    allocation: Allocation,
) -> Result<&'static Engine, String> {
    static WINCH: OnceLock<Result<Engine, String>> = OnceLock::new();
    static CRANELIFT: OnceLock<Result<Engine, String>> = OnceLock::new();
    type Made = (Compiler, usize, Allocation, &'static Engine);
    static OTHERS: Mutex<Vec<Made>> = Mutex::new(Vec::new());
    if stack_bytes == WASM_STACK_BYTES_MAX && allocation == Allocation::Pooled {
        let cell = match compiler {
            Compiler::Winch => &WINCH,
            Compiler::Cranelift => &CRANELIFT,
        };
        return cell
            .get_or_init(|| new_engine(compiler, stack_bytes, allocation))
            .as_ref()
            .map_err(Clone::clone);
    }
    let mut others = OTHERS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((.., engine)) =
        others.iter().find(|(c, s, a, _)| *c == compiler && *s == stack_bytes && *a == allocation)
    {
        return Ok(engine);
    }
    if others.len() >= WASM_STACK_ENGINES_MAX {
        return Err(format!(
            "exercises ask for more than {WASM_STACK_ENGINES_MAX} different wasm stack sizes and memory \
             shapes (wasm_stack_engines_max); a wasm stack of {stack_bytes} bytes needs an engine of its own"
        ));
    }
    let engine: &'static Engine = Box::leak(Box::new(new_engine(compiler, stack_bytes, allocation)?));
    others.push((compiler, stack_bytes, allocation, engine));
    Ok(engine)
}

fn new_engine(compiler: Compiler, stack_bytes: usize, allocation: Allocation) -> Result<Engine, String> {
    /// Pooled engines made so far in this process (at most [`POOLED_ENGINES_MAX`]).
    static POOLED: AtomicUsize = AtomicUsize::new(0);
    let allocation = match allocation {
        Allocation::Pooled
            if POOLED
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                    (n < pooled_engines_max()).then_some(n + 1)
                })
                .is_err() =>
        {
            Allocation::OnDemand
        }
        other => other,
    };
    let engine =
        Engine::new(&engine_config(compiler, stack_bytes, allocation)).map_err(|e| format!("{e:#}"))?;
    start_epoch_ticker(engine.clone());
    Ok(engine)
}

/// Instance slots of a pooled engine in this process: [`POOL_SLOTS_WORKER`] in a grading worker
/// process (one grading at a time, under an address-space limit), [`POOL_SLOTS_SHARED`] in any
/// other process (gradings on many threads at once; the slots are address space, not memory).
pub(crate) fn pool_slots() -> u32 {
    if grading_process_limited() { POOL_SLOTS_WORKER } else { POOL_SLOTS_SHARED }
}

/// Pooled engines this process may make: [`POOLED_ENGINES_MAX_WORKER`] in a grading worker process,
/// [`POOLED_ENGINES_MAX`] in any other.
fn pooled_engines_max() -> usize {
    if grading_process_limited() { POOLED_ENGINES_MAX_WORKER } else { POOLED_ENGINES_MAX }
}

/// Host stack a thread needs beside the wasm stack: the harness, SQLite and wasmtime's own frames.
pub(crate) const HOST_STACK_BYTES: usize = 1536 * 1024;

/// Runs `f` where a wasm stack of `stack_bytes` fits: on this thread when it is the default (every
/// thread that grades has room for it) or this thread was made for it, otherwise on a thread of its
/// own with room for that stack and [`HOST_STACK_BYTES`] (a synchronous wasm call runs on the
/// calling thread's stack). Err only when no thread can be started.
pub fn with_stack<T: Send>(stack_bytes: usize, f: impl FnOnce() -> T + Send) -> Result<T, String> {
    thread_local! {
        /// The wasm stack this thread was started for (0: an ordinary thread).
        static ROOM: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
    if stack_bytes <= WASM_STACK_BYTES_MAX || ROOM.with(|room| room.get()) >= stack_bytes {
        return Ok(f());
    }
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("wasm-deep-stack".into())
            .stack_size(stack_bytes + HOST_STACK_BYTES)
            .spawn_scoped(scope, move || {
                ROOM.with(|room| room.set(stack_bytes));
                f()
            })
            .map_err(|e| format!("cannot start a thread for a wasm stack of {stack_bytes} bytes: {e}"))?;
        match handle.join() {
            Ok(value) => Ok(value),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

fn engine_config(compiler: Compiler, stack_bytes: usize, allocation: Allocation) -> Config {
    let mut config = Config::new();
    config.strategy(match compiler {
        Compiler::Winch => Strategy::Winch,
        Compiler::Cranelift => Strategy::Cranelift,
    });
    config.cranelift_opt_level(match compiler {
        // Winch compiles the module's functions; Cranelift only the trampolines between host and
        // wasm, a few instructions each, where optimising costs more than it saves: most of a
        // small module's compile was optimising its trampolines.
        Compiler::Winch => OptLevel::None,
        Compiler::Cranelift => OptLevel::Speed,
    });
    config.consume_fuel(true);
    config.epoch_interruption(true);
    // No report shows wasm frames, and every longjmp of an interpreter guest is a trap: capturing
    // and symbolising a backtrace for each was a tenth of a Python submission's grading time.
    config.wasm_backtrace_max_frames(None);
    config.max_wasm_stack(stack_bytes);
    // Interleaved instances run on fibers: their stacks hold the wasm stack and the host's frames.
    config.async_stack_size(stack_bytes + HOST_STACK_BYTES);
    config.wasm_simd(false);
    config.wasm_relaxed_simd(false);
    config.wasm_multi_memory(false);
    config.wasm_memory64(false);
    config.wasm_tail_call(false);
    config.wasm_gc(false);
    config.wasm_wide_arithmetic(false);
    // Student modules are tiny: compiling them on one thread avoids handing work to a thread
    // pool that other gradings also use. An engine of mapped images runs interpreter guests only,
    // large modules of Prüfstein's own compiled once per process (or read from the module cache):
    // every core helps there.
    config.parallel_compilation(allocation == Allocation::Images);
    // A linear memory is reserved at the largest size a guest may have by default
    // (`MEMORY_BYTES_MAX`), not at wasmtime's 4 GiB plus guard regions: a worker process runs under
    // an address-space limit (`WORKER_ADDRESS_SPACE_BYTES`) and two instances live at once. Bounds
    // are then checked by the generated code; an exercise allowing more memory gets a memory that
    // moves when it grows. Measured in BENCHMARKS.md.
    config.memory_reservation(crate::limits::MEMORY_BYTES_MAX);
    config.memory_guard_size(MEMORY_GUARD_BYTES);
    config.memory_reservation_for_growth(MEMORY_GUARD_BYTES);
    config.guard_before_linear_memory(false);
    config.memory_may_move(true);
    if allocation == Allocation::Images {
        config.memory_init_cow(false);
        config.with_host_memory(std::sync::Arc::new(cow_memory::ImageMemoryCreator));
        config.with_host_stack(std::sync::Arc::new(fiber_stacks::KeptStackCreator::default()));
    }
    if allocation == Allocation::Pooled {
        let slots = pool_slots();
        let mut pool = PoolingAllocationConfig::new();
        pool.total_core_instances(slots)
            .total_memories(slots)
            .total_tables(slots * WASM_TABLES_MAX)
            .total_stacks(slots)
            .max_memories_per_module(1)
            .max_tables_per_module(WASM_TABLES_MAX)
            .max_memory_size(MEMORY_BYTES_MAX as usize)
            .table_elements(TABLE_ELEMENTS_MAX)
            // A guest of the course touches a page or two: zeroing them is cheaper than giving
            // them back to the kernel and faulting them in again at the next start.
            .linear_memory_keep_resident(POOL_KEEP_RESIDENT_BYTES)
            .table_keep_resident(POOL_KEEP_RESIDENT_BYTES);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

/// The guard region after a linear memory (bounds are checked explicitly, so it only needs to be
/// small).
const MEMORY_GUARD_BYTES: u64 = 64 * 1024;

/// Advances the engine's epoch every [`EPOCH_TICK`] for the life of the process. A store's epoch
/// deadline is the wall-clock backstop behind fuel; it never decides a verdict a student sees
/// unless the machine is so loaded that fuel could not run out in time.
fn start_epoch_ticker(engine: Engine) {
    let spawned = std::thread::Builder::new().name("wasm-epoch".into()).spawn(move || {
        loop {
            std::thread::sleep(EPOCH_TICK);
            engine.increment_epoch();
        }
    });
    // Without the ticker, fuel still bounds every run; only the backstop is missing.
    if let Err(error) = spawned {
        eprintln!("pruefstein: cannot start the wasm epoch ticker: {error}");
    }
}

/// Epoch ticks for a wall-clock budget in milliseconds (at least one).
pub(crate) fn epoch_ticks(ms: u64) -> u64 {
    (ms / EPOCH_TICK.as_millis() as u64).max(1)
}

/// One import a module may ask for: module, name and function type.
#[derive(Debug, Clone, Copy)]
pub struct ImportSpec {
    pub module: &'static str,
    pub name: &'static str,
    pub params: &'static [ValKind],
    pub results: &'static [ValKind],
}

/// The value types an ABI uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValKind {
    I32,
    I64,
}

impl ValKind {
    fn matches(self, ty: &ValType) -> bool {
        matches!((self, ty), (ValKind::I32, ValType::I32) | (ValKind::I64, ValType::I64))
    }
    fn name(self) -> &'static str {
        match self {
            ValKind::I32 => "i32",
            ValKind::I64 => "i64",
        }
    }
}

impl ImportSpec {
    pub(crate) fn signature(&self) -> String {
        let params: Vec<_> = self.params.iter().map(|p| p.name()).collect();
        let results: Vec<_> = self.results.iter().map(|p| p.name()).collect();
        format!(
            "{}.{}({}){}",
            self.module,
            self.name,
            params.join(", "),
            if results.is_empty() { String::new() } else { format!(" -> {}", results.join(", ")) }
        )
    }
}

/// What a module must provide and may use.
#[derive(Debug, Clone)]
pub(crate) struct ModuleContract<'a> {
    pub imports: &'a [ImportSpec],
    /// The exported function the harness calls: no parameters, returns i32.
    pub entry: &'a str,
}

/// The first bytes of a WebAssembly binary.
const WASM_MAGIC: &[u8; 4] = b"\0asm";
/// The first bytes of an ELF file, as a precompiled `.cwasm` starts.
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// Compiles and validates untrusted bytes (binary wasm or WAT text) against `contract`.
pub(crate) fn load_module(
    engine: &Engine,
    bytes: &[u8],
    limits: &Limits,
    contract: &ModuleContract<'_>,
) -> Result<Module, Rejection> {
    load_module_by(engine, bytes, limits, contract, Module::from_binary)
}

/// [`load_module`] for a module Prüfstein trusts (an exercise's reference solution): the same
/// checks, and compiled through the process's module cache ([`module_cache`]) where one is enabled.
pub(crate) fn load_trusted_module(
    engine: &Engine,
    bytes: &[u8],
    limits: &Limits,
    contract: &ModuleContract<'_>,
) -> Result<Module, Rejection> {
    load_module_by(engine, bytes, limits, contract, module_cache::compile_trusted)
}

fn load_module_by(
    engine: &Engine,
    bytes: &[u8],
    limits: &Limits,
    contract: &ModuleContract<'_>,
    compile: fn(&Engine, &[u8]) -> wasmtime::Result<Module>,
) -> Result<Module, Rejection> {
    if bytes.len() > limits.module_bytes {
        return Err(reject(
            "module-too-large",
            text!(
                "Das Modul ist {size} Bytes groß; erlaubt sind höchstens {max} Bytes (Grenze „Modulgröße“). \
                 Baue es mit Optimierung (z. B. -O2) und ohne Debug-Informationen.",
                "The module is {size} bytes; at most {max} bytes are allowed (limit \"module size\"). \
                 Build it with optimisation (e.g. -O2) and without debug info.",
                size = bytes.len(),
                max = limits.module_bytes
            ),
        ));
    }
    if bytes.starts_with(ELF_MAGIC) {
        return Err(reject(
            "precompiled-module",
            text!(
                "Das ist ein vorkompiliertes Artefakt (.cwasm), kein WebAssembly-Modul. Reiche die .wasm- \
                 oder .wat-Datei ein; Prüfstein kompiliert selbst.",
                "This is a precompiled artefact (.cwasm), not a WebAssembly module. Submit the .wasm or \
                 .wat file; Prüfstein compiles it itself."
            ),
        ));
    }
    if bytes.starts_with(WASM_MAGIC) {
        // Byte 4..8 is the version/layer: 01 00 00 00 for core modules; components use layer 1.
        if bytes.len() >= 8 && bytes[6..8] == [1, 0] {
            return Err(reject(
                "component-not-supported",
                text!(
                    "Das ist eine WebAssembly-Komponente. ABI v1 nimmt nur Kernmodule (core modules) an.",
                    "This is a WebAssembly component. ABI v1 accepts core modules only."
                ),
            ));
        }
    } else if std::str::from_utf8(bytes).is_err() || !looks_like_wat(bytes) {
        return Err(reject(
            "not-wasm",
            text!(
                "Das ist kein WebAssembly-Modul: eine .wasm-Datei beginnt mit den Bytes \\0asm, eine \
                 .wat-Datei ist Text und beginnt mit „(module“.",
                "This is not a WebAssembly module: a .wasm file starts with the bytes \\0asm, a .wat file \
                 is text starting with \"(module\"."
            ),
        ));
    }
    let invalid = |e: &str| {
        reject(
            "invalid-module",
            text!(
                "Das Modul ist ungültig und lässt sich nicht übersetzen: {e}",
                "The module is invalid and cannot be compiled: {e}",
                e = e
            ),
        )
    };
    // WAT text becomes a binary first, so that the compile budget counts what will be compiled.
    let binary = wat::parse_bytes(bytes).map_err(|e| invalid(&one_line(&e.to_string())))?;
    match budget::check(&binary, limits) {
        Err(budget::Malformed(message)) => return Err(invalid(&one_line(&message))),
        Ok(Err(over)) => return Err(over.rejection()),
        Ok(Ok(())) => {}
    }
    check_initial_sizes(&binary, limits)?;
    let module = compile(engine, &binary).map_err(|e| invalid(&first_line_chain(&e)))?;
    check_imports(&module, contract)?;
    check_exports(&module, contract)?;
    Ok(module)
}

fn looks_like_wat(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let mut rest = text.trim_start();
    // Skip leading line comments.
    while let Some(stripped) = rest.strip_prefix(";;") {
        rest = stripped.split_once('\n').map(|(_, r)| r).unwrap_or("").trim_start();
    }
    rest.starts_with('(')
}

/// The error chain on one line, without wasmtime's backtraces.
fn first_line_chain(error: &wasmtime::Error) -> String {
    one_line(&format!("{error:#}"))
}

fn one_line(text: &str) -> String {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Refuses a module whose memory or tables are larger at start than the limits allow, before it is
/// compiled (a pooled engine could not even compile it, and the student should read the limit, not
/// an engine's words). Growing past a limit later is the limiter's business.
fn check_initial_sizes(binary: &[u8], limits: &Limits) -> Result<(), Rejection> {
    for payload in wasmparser::Parser::new(0).parse_all(binary) {
        // The compile budget has parsed these bytes already; what cannot be read is left to the
        // compiler, which names the problem.
        let Ok(payload) = payload else { return Ok(()) };
        match payload {
            wasmparser::Payload::MemorySection(memories) => {
                for memory in memories.into_iter().flatten() {
                    let initial_bytes = memory.initial.saturating_mul(65_536);
                    if initial_bytes > limits.memory_bytes {
                        return Err(reject(
                            "memory-limit",
                            text!(
                                "Das Modul verlangt schon zu Beginn {have} MiB Speicher; erlaubt sind {max} MiB \
                                 (Grenze „Speicher“).",
                                "The module asks for {have} MiB of memory at start; {max} MiB are allowed \
                                 (limit \"memory\").",
                                have = initial_bytes / (1024 * 1024),
                                max = limits.memory_bytes / (1024 * 1024)
                            ),
                        ));
                    }
                }
            }
            wasmparser::Payload::TableSection(tables) => {
                for table in tables.into_iter().flatten() {
                    if table.ty.initial > limits.table_elements as u64 {
                        return Err(reject(
                            "table-limit",
                            text!(
                                "Das Modul verlangt schon zu Beginn eine Tabelle mit {have} Einträgen; erlaubt \
                                 sind {max} (Grenze „Tabelleneinträge“).",
                                "The module asks for a table of {have} elements at start; {max} are allowed \
                                 (limit \"table elements\").",
                                have = table.ty.initial,
                                max = limits.table_elements
                            ),
                        ));
                    }
                }
            }
            wasmparser::Payload::CodeSectionStart { .. } => return Ok(()),
            _ => {}
        }
    }
    Ok(())
}

fn check_imports(module: &Module, contract: &ModuleContract<'_>) -> Result<(), Rejection> {
    let allowed = || contract.imports.iter().map(|s| s.signature()).collect::<Vec<_>>().join(", ");
    for import in module.imports() {
        let spec = contract.imports.iter().find(|s| s.module == import.module() && s.name == import.name());
        let Some(spec) = spec else {
            return Err(reject(
                "unknown-import",
                text!(
                    "Das Modul importiert „{m}.{n}“, das gibt es in ABI v1 nicht. Erlaubt sind: {allowed}.",
                    "The module imports \"{m}.{n}\", which ABI v1 does not provide. Allowed are: {allowed}.",
                    m = import.module(),
                    n = import.name(),
                    allowed = allowed()
                ),
            ));
        };
        let ExternType::Func(ty) = import.ty() else {
            return Err(reject(
                "import-not-a-function",
                text!(
                    "„{m}.{n}“ muss als Funktion importiert werden: {sig}.",
                    "\"{m}.{n}\" must be imported as a function: {sig}.",
                    m = import.module(),
                    n = import.name(),
                    sig = spec.signature()
                ),
            ));
        };
        let params: Vec<ValType> = ty.params().collect();
        let results: Vec<ValType> = ty.results().collect();
        let same = params.len() == spec.params.len()
            && results.len() == spec.results.len()
            && spec.params.iter().zip(&params).all(|(k, t)| k.matches(t))
            && spec.results.iter().zip(&results).all(|(k, t)| k.matches(t));
        if !same {
            return Err(reject(
                "import-signature",
                text!(
                    "„{m}.{n}“ ist mit der falschen Signatur importiert: ({p}) -> ({r}); erwartet ist {sig}.",
                    "\"{m}.{n}\" is imported with the wrong signature: ({p}) -> ({r}); expected {sig}.",
                    m = import.module(),
                    n = import.name(),
                    p = params.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "),
                    r = results.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "),
                    sig = spec.signature()
                ),
            ));
        }
    }
    Ok(())
}

fn check_exports(module: &Module, contract: &ModuleContract<'_>) -> Result<(), Rejection> {
    let entry = contract.entry;
    match module.get_export(entry) {
        Some(ExternType::Func(ty)) => {
            let params: Vec<ValType> = ty.params().collect();
            let results: Vec<ValType> = ty.results().collect();
            if !params.is_empty() || results.len() != 1 || !matches!(results[0], ValType::I32) {
                return Err(reject(
                    "entry-signature",
                    text!(
                        "Die exportierte Funktion „{entry}“ muss so aussehen: keine Parameter, Rückgabe i32.",
                        "The exported function \"{entry}\" must take no parameters and return an i32."
                    ),
                ));
            }
        }
        _ => {
            return Err(reject(
                "missing-entry",
                text!(
                    "Das Modul exportiert keine Funktion „{entry}“. Exportiere sie (keine Parameter, \
                     Rückgabe i32: 1 = verarbeitet, 0 = Duplikat).",
                    "The module exports no function \"{entry}\". Export it (no parameters, returns i32: \
                     1 = processed, 0 = duplicate)."
                ),
            ));
        }
    }
    match module.get_export("memory") {
        Some(ExternType::Memory(_)) => {}
        _ => {
            return Err(reject(
                "missing-memory",
                text!(
                    "Das Modul exportiert keinen Speicher namens „memory“; über ihn tauschen Modul und \
                     Prüfstein Texte aus.",
                    "The module exports no memory named \"memory\"; module and Prüfstein exchange texts \
                     through it."
                ),
            ));
        }
    }
    Ok(())
}

fn reject(code: &str, message: text::Text) -> Rejection {
    Rejection { code: code.to_string(), message }
}

static GRADING_PROCESS_LIMITED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True once [`limit_grading_process`] has run in this process: SQLite's heap is capped, so guest
/// connections keep their temporary tables (sorts, `DISTINCT`, `UNION`) in memory, where the cap
/// bounds them, rather than in temporary files, where nothing does.
pub fn grading_process_limited() -> bool {
    GRADING_PROCESS_LIMITED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Limits for a process that does nothing but grade: SQLite's heap in the whole process (every
/// connection, page cache, sorter and temporary table together) is capped at
/// [`crate::limits::GRADING_PROCESS_SQL_HEAP_BYTES_MAX`], so that a statement that would build a
/// huge temporary result fails with "out of memory" instead of taking the machine's, and guest
/// connections opened afterwards keep their temporary tables in memory under that cap (see
/// [`grading_process_limited`]). Returns the limit in force afterwards.
///
/// Call it only in a dedicated grading worker process, never in the service process: the cap is
/// process-wide and would also bind the service's own store.
#[allow(unsafe_code)] // SQLite's C API: the heap limit has no safe wrapper.
pub(crate) fn limit_grading_process() -> u64 {
    GRADING_PROCESS_LIMITED.store(true, std::sync::atomic::Ordering::Relaxed);
    let max = crate::limits::GRADING_PROCESS_SQL_HEAP_BYTES_MAX;
    // SAFETY: sets a process-wide SQLite setting; SQLite synchronises it internally.
    unsafe {
        rusqlite::ffi::sqlite3_hard_heap_limit64(max as i64);
    }
    // SAFETY: a negative argument only reads the limit.
    let now = unsafe { rusqlite::ffi::sqlite3_hard_heap_limit64(-1) };
    now.max(0) as u64
}
