//! Consumers written in an interpreted language: an interpreter compiled to one wasm core module
//! (built reproducibly by the `build.sh` beside it under `graders/consumer/interpreters/`) runs a
//! student's source inside the same sandbox and under the same ABI v1 as a compiled module. Every
//! interpreter guest has the same exports: `pf_init` (started once per process, then kept as a
//! snapshot), `pf_source`/`pf_load` (the student's file into an instance), `verarbeite` (one
//! delivery, as a compiled module's), `pf_error_ptr`/`pf_error_len`. The languages differ in their
//! [`Interpreter`] only: [`python`], [`javascript`].

pub(crate) mod javascript;
pub(crate) mod python;

use std::sync::{Arc, Mutex, OnceLock};

use wasmtime::{Engine, Instance, Module, Store};

use super::abi::GuestState;
use crate::limits::{INTERPRETER_ENTRY_BYTES_MAX, INTERPRETER_INIT_WALL_MS, INTERPRETER_WASM_STACK_BYTES};
use crate::report::Rejection;
use crate::sandbox::cow_memory::MemoryImage;
use crate::submission::Language;
use crate::text;

/// One language's interpreter guest and its limits.
pub(crate) struct Interpreter {
    pub language: Language,
    /// The language's name as students read it (`Python`, `JavaScript`).
    pub name: &'static str,
    /// The file name reports give a student's source (`consumer.py`).
    pub file: &'static str,
    /// The guest as its `build.sh` built it.
    pub wasm: &'static [u8],
    /// Fuel to load the student's file into an instance (compile it and run its top level).
    pub fuel_to_load: u64,
    /// Fuel to start the interpreter once per process (the snapshot).
    pub fuel_to_init: u64,
    /// The rejection for a file that raised while loading, from the error the guest printed.
    pub load_rejection: fn(&str) -> Rejection,
}

/// The interpreter of `language` (TypeScript runs on JavaScript's, once its types are stripped:
/// [`super::typescript`]).
pub(crate) fn of(language: Language) -> &'static Interpreter {
    match language {
        Language::Python => &python::INTERPRETER,
        Language::JavaScript | Language::TypeScript => &javascript::INTERPRETER,
    }
}

/// The compiler of the interpreter guests, whatever compiles submitted modules (`--compiler`): an
/// interpreter is Prüfstein's own module, compiled once per process or read from the module cache,
/// and then runs every delivery of every source submission, so the speed of its code counts, not the
/// time to compile it. Cranelift's code runs a Python grading about a fifth faster than Winch's
/// (BENCHMARKS.md); fuel is counted the same under both, so reports do not change
/// (decision 0136).
pub const COMPILER: crate::exercise::Compiler = crate::exercise::Compiler::Cranelift;

/// The engine that runs interpreter guests with a wasm stack of `stack_bytes` (at least
/// [`INTERPRETER_WASM_STACK_BYTES`]): compiled by [`COMPILER`], each instance mapped from a memory
/// image.
pub fn engine(stack_bytes: usize) -> Result<&'static Engine, String> {
    crate::sandbox::engine_with_stack(COMPILER, stack_bytes.max(INTERPRETER_WASM_STACK_BYTES))
}

/// The interpreter of `language` compiled for [`engine`] with a wasm stack of `stack_bytes`: what a
/// source submission runs on, made (or read from the module cache) on first use.
pub(crate) fn ready(language: Language, stack_bytes: usize) -> Result<Module, String> {
    module(engine(stack_bytes)?, language)
}

/// Compiles every interpreter guest (its snapshot, and the snapshot for [`engine`]) through this
/// process's module cache, as a grading would; the errors, one per language that failed.
pub(crate) fn compile_all() -> Vec<String> {
    let mut errors = Vec::new();
    for language in Language::ALL {
        let made = crate::sandbox::with_stack(INTERPRETER_WASM_STACK_BYTES, || {
            ready(language, INTERPRETER_WASM_STACK_BYTES).map(drop)
        })
        .and_then(|made| made);
        if let Err(error) = made {
            errors.push(format!("{}: {error}", language.name()));
        }
    }
    errors
}

/// The guest's export the harness calls; it calls the student's function named by the exercise's
/// `entry`.
pub(crate) const GUEST_ENTRY: &str = "verarbeite";

/// The interpreter of `language` compiled for `engine`, from its snapshot ([`snapshot`]); compiled
/// on first use (or read from the module cache) and kept for the life of the process.
pub fn module(engine: &Engine, language: Language) -> Result<Module, String> {
    static MODULES: Mutex<Vec<(Language, Engine, Module)>> = Mutex::new(Vec::new());
    let interpreter = of(language);
    let language = interpreter.language;
    let snapshot = snapshot(language)?;
    let mut modules = MODULES.lock().unwrap_or_else(|p| p.into_inner());
    let module = match modules.iter().find(|(l, e, _)| *l == language && Engine::same(e, engine)) {
        Some((_, _, module)) => module.clone(),
        None => {
            let module = crate::sandbox::module_cache::compile_trusted(engine, snapshot)
                .map_err(|e| format!("the {} interpreter guest does not compile: {e:#}", interpreter.name))?;
            modules.push((language, engine.clone(), module.clone()));
            module
        }
    };
    drop(modules);
    // Its memory image, made here where a refusal is the grader's fault (free once made).
    crate::sandbox::image::prepare(&module)?;
    Ok(module)
}

/// The interpreter after `pf_init` (heap set up, its database module compiled), as a module without
/// data segments whose memory starts from [`base_image`]: an instance starts where `pf_init` ended,
/// with nothing to run. Made once per process and language on a Winch engine.
pub fn snapshot(language: Language) -> Result<&'static [u8], String> {
    made_snapshot(language).map(|(module, _)| module.as_slice())
}

/// The interpreter's memory after `pf_init` (its shadow stack left out, dead between calls): what an
/// instance of [`snapshot`] starts from, mapped copy-on-write ([`crate::sandbox::cow_memory`]).
pub(crate) fn base_image(language: Language) -> Result<Arc<MemoryImage>, String> {
    made_snapshot(language).map(|(_, image)| Arc::clone(image))
}

type Snapshot = (Vec<u8>, Arc<MemoryImage>);

fn made_snapshot(language: Language) -> Result<&'static Snapshot, String> {
    static SNAPSHOTS: [OnceLock<Snapshot>; Language::ALL.len()] =
        [const { OnceLock::new() }; Language::ALL.len()];
    // One snapshot per guest: a language that runs on another's guest shares its snapshot.
    let language = of(language).language;
    let index = Language::ALL.iter().position(|l| *l == language).unwrap_or(0);
    if let Some(made) = SNAPSHOTS[index].get() {
        return Ok(made);
    }
    // Only a snapshot that was made is kept: a failure (the grading process's, such as a refused
    // memory image) is tried again by the next grading instead of failing every later one.
    let made = crate::sandbox::with_stack(INTERPRETER_WASM_STACK_BYTES, || make_snapshot(of(language)))
        .and_then(|result| result)?;
    Ok(SNAPSHOTS[index].get_or_init(|| made))
}

fn make_snapshot(interpreter: &Interpreter) -> Result<Snapshot, String> {
    let engine =
        crate::sandbox::engine_with_stack(crate::exercise::Compiler::Winch, INTERPRETER_WASM_STACK_BYTES)?;
    let module = crate::sandbox::module_cache::compile_trusted(engine, interpreter.wasm)
        .map_err(|e| format!("{e:#}"))?;
    crate::sandbox::image::prepare(&module)?;
    let limits = crate::limits::Limits::default();
    let db = super::guestdb::GuestDb::open(
        std::path::Path::new(":memory:"),
        std::sync::Arc::from(Vec::<String>::new()),
        limits.sql_steps_per_statement,
    )
    .map_err(|e| e.to_string())?;
    let mut store = Store::new(engine, super::abi::GuestState::fresh(db, &limits, 0));
    store.limiter(|state| &mut state.limiter);
    store.set_fuel(interpreter.fuel_to_init).map_err(|e| format!("{e:#}"))?;
    store.set_epoch_deadline(crate::sandbox::epoch_ticks(INTERPRETER_INIT_WALL_MS));
    store.epoch_deadline_trap();
    let instance =
        super::abi::linker(engine).instantiate(&mut store, &module).map_err(|e| format!("{e:#}"))?;
    let init = instance.get_typed_func::<(), i32>(&mut store, "pf_init").map_err(|e| format!("{e:#}"))?;
    match init.call(&mut store, ()) {
        Ok(0) => {}
        Ok(_) => {
            return Err(format!(
                "the interpreter did not start: {}",
                error_text(&mut store, &instance).unwrap_or_default()
            ));
        }
        Err(e) => return Err(format!("the interpreter did not start: {e:#}")),
    }
    let memory = instance.get_memory(&mut store, "memory").ok_or("the interpreter guest has no memory")?;
    let image = memory.data(&store);
    Ok((rewrite_memory(interpreter.wasm, image.len())?, MemoryImage::new(image, STACK_TOP)?))
}

/// Everything below this address is the shadow stack (`--stack-first`), dead when no call runs:
/// left out of every memory image.
pub(crate) const SHADOW_STACK_BYTES: usize = 1024 * 1024;
const STACK_TOP: usize = SHADOW_STACK_BYTES;

/// `wasm` with its memory section's minimum set to `memory_bytes` and no data segments: its memory
/// comes from an image.
fn rewrite_memory(wasm: &[u8], memory_bytes: usize) -> Result<Vec<u8>, String> {
    let mut out = wasm[..8].to_vec();
    let mut at = 8;
    while at < wasm.len() {
        let id = wasm[at];
        let (size, body) = read_leb(wasm, at + 1)?;
        let end = body + size as usize;
        if end > wasm.len() {
            return Err("the interpreter guest is truncated".into());
        }
        match id {
            // memory: one memory, its minimum now the image's pages (no maximum)
            5 => {
                let mut content = vec![1, 0];
                write_leb(&mut content, (memory_bytes / 65_536) as u64);
                push_section(&mut out, 5, &content);
            }
            // data: none
            11 => push_section(&mut out, 11, &[0]),
            12 => return Err("the interpreter guest uses bulk memory (a data count section)".into()),
            _ => out.extend_from_slice(&wasm[at..end]),
        }
        at = end;
    }
    Ok(out)
}

fn push_section(out: &mut Vec<u8>, id: u8, content: &[u8]) {
    out.push(id);
    write_leb(out, content.len() as u64);
    out.extend_from_slice(content);
}

fn read_leb(bytes: &[u8], mut at: usize) -> Result<(u64, usize), String> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(at).ok_or("the interpreter guest is truncated")?;
        at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok((value, at));
        }
        shift += 7;
        if shift > 63 {
            return Err("the interpreter guest has a malformed number".into());
        }
    }
}

fn write_leb(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A student's source, checked and laid out as the guest takes it: the entry's name, then the text.
#[derive(Clone)]
pub(crate) struct SourceFile {
    pub interpreter: &'static Interpreter,
    /// The language the student wrote in (TypeScript, where the interpreter runs JavaScript).
    pub submitted: Language,
    buffer: Vec<u8>,
    entry_len: i32,
    source_len: i32,
    /// The memory of an instance that loaded this file, once a trial load has made it: later
    /// instances start from it instead of compiling the file again.
    image: Option<Arc<MemoryImage>>,
}

/// Checks a student's source before anything runs it: its size, that it is text, the entry's name.
pub(crate) fn check_source(language: Language, text: &str, entry: &str) -> Result<(), Rejection> {
    let name = match language {
        Language::TypeScript => "TypeScript",
        other => of(other).name,
    };
    if text.len() > language.source_bytes_max() {
        return Err(Rejection {
            code: "source-too-large".into(),
            message: text!(
                "Die Datei ist {size} Bytes groß; erlaubt sind höchstens {max} Bytes (Grenze „Quelltextgröße“).",
                "The file is {size} bytes; at most {max} bytes are allowed (limit \"source size\").",
                size = text.len(),
                max = language.source_bytes_max()
            ),
        });
    }
    if text.contains('\0') {
        return Err(Rejection {
            code: format!("not-{}", language.name()),
            message: text!(
                "Die Datei enthält ein NUL-Byte; eine {name}-Datei ist Text.",
                "The file contains a NUL byte; a {name} file is text."
            ),
        });
    }
    if entry.is_empty() || entry.len() > INTERPRETER_ENTRY_BYTES_MAX {
        return Err(Rejection {
            code: "entry-name".into(),
            message: text!(
                "Der Name der Einstiegsfunktion „{entry}“ passt nicht.",
                "The entry function's name \"{entry}\" does not fit."
            ),
        });
    }
    Ok(())
}

impl SourceFile {
    pub(crate) fn new(language: Language, text: &str, entry: &str) -> Result<SourceFile, Rejection> {
        check_source(language, text, entry)?;
        let interpreter = of(language);
        let mut buffer = Vec::with_capacity(entry.len() + text.len());
        buffer.extend_from_slice(entry.as_bytes());
        buffer.extend_from_slice(text.as_bytes());
        Ok(SourceFile {
            interpreter,
            submitted: language,
            buffer,
            entry_len: entry.len() as i32,
            source_len: text.len() as i32,
            image: None,
        })
    }

    /// The text the interpreter runs (for TypeScript, the JavaScript its types were stripped to).
    pub(crate) fn text(&self) -> &str {
        std::str::from_utf8(&self.buffer[self.entry_len as usize..]).unwrap_or("")
    }

    /// The same source, loaded by starting each new instance from `image` (its memory after loading).
    pub(crate) fn with_image(self, image: Arc<MemoryImage>) -> SourceFile {
        SourceFile { image: Some(image), ..self }
    }

    /// The image an instance of this file starts from: its memory after loading where a trial load
    /// made one, else the interpreter's (and the instance loads the file itself).
    pub(crate) fn start_image(&self) -> Result<Arc<MemoryImage>, String> {
        match &self.image {
            Some(image) => Ok(Arc::clone(image)),
            None => base_image(self.interpreter.language),
        }
    }
}

/// How loading a student's file ended.
pub(crate) enum Loaded {
    Ok,
    /// The file raised while loading (a syntax error, a refused import, no entry function): the
    /// error as the interpreter printed it.
    Raised(String),
}

/// Loads `source` into a fresh instance of its interpreter, under the interpreter's fuel to load.
/// Err is a trap (a limit, the deadline).
pub(crate) fn load(
    store: &mut Store<GuestState>,
    instance: &Instance,
    source: &SourceFile,
) -> wasmtime::Result<Loaded> {
    store.set_fuel(source.interpreter.fuel_to_load)?;
    if source.image.is_some() {
        // The instance started from the loaded memory.
        return Ok(Loaded::Ok);
    }
    let buffer = instance.get_typed_func::<i32, i32>(&mut *store, "pf_source")?;
    let ptr = buffer.call(&mut *store, source.buffer.len() as i32)?;
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| wasmtime::Error::msg("the interpreter guest has no memory"))?;
    memory.write(&mut *store, ptr as u32 as usize, &source.buffer)?;
    let load = instance.get_typed_func::<(i32, i32), i32>(&mut *store, "pf_load")?;
    if load.call(&mut *store, (source.entry_len, source.source_len))? != 0 {
        return Ok(Loaded::Raised(error_text(store, instance)?));
    }
    Ok(Loaded::Ok)
}

/// [`load`] for an instance created for interleaved runs (its trampolines are asynchronous).
pub(crate) async fn load_async(
    store: &mut Store<GuestState>,
    instance: &Instance,
    source: &SourceFile,
) -> wasmtime::Result<Loaded> {
    store.set_fuel(source.interpreter.fuel_to_load)?;
    if source.image.is_some() {
        // The instance started from the loaded memory.
        return Ok(Loaded::Ok);
    }
    let buffer = instance.get_typed_func::<i32, i32>(&mut *store, "pf_source")?;
    let ptr = buffer.call_async(&mut *store, source.buffer.len() as i32).await?;
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| wasmtime::Error::msg("the interpreter guest has no memory"))?;
    memory.write(&mut *store, ptr as u32 as usize, &source.buffer)?;
    let load = instance.get_typed_func::<(i32, i32), i32>(&mut *store, "pf_load")?;
    if load.call_async(&mut *store, (source.entry_len, source.source_len)).await? != 0 {
        return Ok(Loaded::Raised(error_text(store, instance)?));
    }
    Ok(Loaded::Ok)
}

fn error_text(store: &mut Store<GuestState>, instance: &Instance) -> wasmtime::Result<String> {
    let ptr = instance.get_typed_func::<(), i32>(&mut *store, "pf_error_ptr")?.call(&mut *store, ())?;
    let len = instance.get_typed_func::<(), i32>(&mut *store, "pf_error_len")?.call(&mut *store, ())?;
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| wasmtime::Error::msg("the interpreter guest has no memory"))?;
    let mut bytes = vec![0u8; len.max(0) as usize];
    memory.read(&*store, ptr as u32 as usize, &mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).trim_end().to_string())
}

/// The student's file with the lines its checks speak of: statements and crash points of every
/// check, the uncaught errors of the checks that failed (in a check that passed, an error that
/// reached the queue was right), and the decisive line of the main problem.
pub(crate) fn source_view(
    file: &str,
    note: Option<crate::text::Text>,
    text: &str,
    checks: &[crate::report::CheckReport],
    decisive: Option<u32>,
) -> crate::report::SourceView {
    use crate::report::consumer::TraceEvent;
    use crate::report::{CheckDetail, SourceMark};
    let mut marks: std::collections::BTreeMap<u32, SourceMark> = std::collections::BTreeMap::new();
    let mut mark = |line: u32, set: &dyn Fn(&mut SourceMark)| {
        set(marks.entry(line).or_insert(SourceMark {
            line,
            statement: false,
            crash: false,
            error: false,
            decisive: false,
        }))
    };
    for check in checks {
        let CheckDetail::Consumer(detail) = &check.detail else { continue };
        for event in &detail.trace {
            match event {
                TraceEvent::Statement { line: Some(line), .. } => mark(*line, &|m| m.statement = true),
                TraceEvent::Crash { line: Some(line), .. } => mark(*line, &|m| m.crash = true),
                _ => {}
            }
        }
        if !check.passed {
            for line in crate::report::trace_text::uncaught_error_lines(file, &detail.trace) {
                mark(line, &|m| m.error = true);
            }
        }
    }
    if let Some(line) = decisive {
        mark(line, &|m| m.decisive = true);
    }
    let lines = text.lines().count() as u32;
    crate::report::SourceView {
        file: file.to_string(),
        note,
        text: text.to_string(),
        marks: marks.into_values().filter(|m| m.line >= 1 && m.line <= lines.max(1)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_committed_guest_is_the_one_its_hash_file_records() {
        for (language, recorded) in [
            (Language::Python, include_str!("../../graders/consumer/interpreters/python/python.wasm.sha256")),
            (
                Language::JavaScript,
                include_str!("../../graders/consumer/interpreters/javascript/javascript.wasm.sha256"),
            ),
        ] {
            assert_eq!(crate::submission::sha256_hex(of(language).wasm), recorded.trim(), "{language:?}");
        }
    }

    #[test]
    fn numbers_are_encoded_as_wasm_reads_them() {
        for value in [0u64, 1, 127, 128, 1_048_576, u32::MAX as u64] {
            let mut out = Vec::new();
            write_leb(&mut out, value);
            assert_eq!(read_leb(&out, 0), Ok((value, out.len())));
        }
        assert!(read_leb(&[0x80], 0).is_err(), "a truncated number is an error");
    }

    #[test]
    fn each_snapshot_keeps_only_live_memory_and_compiles() {
        for language in Language::ALL {
            let interpreter = of(language);
            let snapshot = snapshot(language).expect("the interpreter starts");
            assert!(
                snapshot.len() < interpreter.wasm.len() + 2 * 1024 * 1024,
                "{language:?}: {} bytes",
                snapshot.len()
            );
            let engine = crate::sandbox::engine_with_stack(
                crate::exercise::Compiler::Winch,
                INTERPRETER_WASM_STACK_BYTES,
            )
            .expect("engine");
            let module = module(engine, language).expect("the snapshot compiles");
            assert!(module.get_export("verarbeite").is_some());
            // Compiled once per engine: the second call returns the same module.
            assert!(Module::same(&module, &super::module(engine, language).expect("cached")));
        }
    }
}
