//! Consumers in TypeScript: the types are stripped in the sandbox, then the JavaScript guest runs
//! the result ([`super::javascript`]). The stripper is OXC's TypeScript transform compiled to
//! WebAssembly (`graders/consumer/interpreters/typescript/strip.wasm`, taken from the PyPI package
//! quickjs-rs 0.2.6 by `fetch.sh` there, with its checksum verified): Prüfstein runs it on its own
//! engine under a fuel, memory and time limit, with a WASI of its own that has no clock, no files
//! and fixed "random" bytes, so that a student's file can neither hang nor exhaust the host while
//! its types are taken away, and the same file always gives the same JavaScript.
//!
//! The stripper prints the module anew: lines move where declarations go (`interface`, `type`), so
//! the line of an error is a line of the JavaScript that runs, which a report says.

use std::sync::Mutex;

use wasmtime::{Caller, Engine, Linker, Memory, Module, Store, Trap};

use crate::limits::{
    TYPESCRIPT_STRIP_FUEL, TYPESCRIPT_STRIP_MEMORY_BYTES, TYPESCRIPT_STRIP_OUTPUT_BYTES_MAX,
    TYPESCRIPT_STRIP_STDIO_BYTES_MAX, TYPESCRIPT_STRIP_WALL_MS,
};
use crate::report::Rejection;
use crate::sandbox::limiter::{GuestLimiter, LimitHit};
use crate::text;

/// The stripper, as `fetch.sh` takes it from quickjs-rs 0.2.6 (`quickjs_rs/_transform.wasm`).
pub(crate) const STRIP_WASM: &[u8] =
    include_bytes!("../../graders/consumer/interpreters/typescript/strip.wasm");

/// The stripper's status codes (`qjst_transform`).
const STATUS_OK: i32 = 0;
const STATUS_UNCHANGED: i32 = 1;
const STATUS_PARSE_ERROR: i32 = 3;
/// The stripper's flags: the source is TypeScript; strip its types.
const FLAG_SOURCE_TS: i32 = 1;
const FLAG_STRIP_TYPESCRIPT: i32 = 1 << 8;

struct StripState {
    limiter: GuestLimiter,
    written: u64,
}

/// The stripper compiled for `engine` and linked with its WASI, once per engine and process.
fn stripper(engine: &Engine) -> Result<(Module, Linker<StripState>), String> {
    type Compiled = (Engine, Module, Linker<StripState>);
    static COMPILED: Mutex<Vec<Compiled>> = Mutex::new(Vec::new());
    let mut compiled = COMPILED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, module, linker)) = compiled.iter().find(|(e, _, _)| Engine::same(e, engine)) {
        return Ok((module.clone(), linker.clone()));
    }
    let module = crate::sandbox::module_cache::compile_trusted(engine, STRIP_WASM)
        .map_err(|e| format!("the TypeScript stripper does not compile: {e:#}"))?;
    let linker = wasi(engine).map_err(|e| format!("the TypeScript stripper cannot be linked: {e:#}"))?;
    compiled.push((engine.clone(), module.clone(), linker.clone()));
    Ok((module, linker))
}

fn memory(caller: &mut Caller<'_, StripState>) -> wasmtime::Result<Memory> {
    caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::Error::msg("the stripper has no memory"))
}

/// The WASI the stripper imports, without a clock, files or the host's randomness: `random_get`
/// gives fixed bytes (the stripper seeds hash tables with them), the environment is empty, output
/// is dropped, `proc_exit` ends the run.
fn wasi(engine: &Engine) -> wasmtime::Result<Linker<StripState>> {
    const WASI: &str = "wasi_snapshot_preview1";
    let mut linker = Linker::new(engine);
    linker.func_wrap(WASI, "random_get", |mut caller: Caller<'_, StripState>, ptr: i32, len: i32| {
        let memory = memory(&mut caller)?;
        let (start, len) = (ptr as u32 as usize, len as u32 as usize);
        let data = memory.data_mut(&mut caller);
        let bytes = data
            .get_mut(start..start.saturating_add(len))
            .ok_or_else(|| wasmtime::Error::new(Trap::MemoryOutOfBounds))?;
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = (i as u8).wrapping_mul(31).wrapping_add(7);
        }
        Ok(0)
    })?;
    linker.func_wrap(
        WASI,
        "environ_sizes_get",
        |mut caller: Caller<'_, StripState>, count: i32, size: i32| {
            let memory = memory(&mut caller)?;
            memory.write(&mut caller, count as u32 as usize, &0u32.to_le_bytes())?;
            memory.write(&mut caller, size as u32 as usize, &0u32.to_le_bytes())?;
            Ok(0)
        },
    )?;
    linker.func_wrap(WASI, "environ_get", |_: Caller<'_, StripState>, _: i32, _: i32| Ok(0))?;
    linker.func_wrap(
        WASI,
        "fd_write",
        |mut caller: Caller<'_, StripState>, _fd: i32, iovs: i32, count: i32, written: i32| {
            let memory = memory(&mut caller)?;
            let mut total = 0u32;
            for i in 0..count.max(0) as usize {
                let mut entry = [0u8; 8];
                memory.read(&caller, iovs as u32 as usize + 8 * i, &mut entry)?;
                total = total.saturating_add(u32::from_le_bytes([entry[4], entry[5], entry[6], entry[7]]));
            }
            caller.data_mut().written += u64::from(total);
            if caller.data().written > TYPESCRIPT_STRIP_STDIO_BYTES_MAX {
                return Err(wasmtime::Error::msg("the stripper wrote too much output"));
            }
            memory.write(&mut caller, written as u32 as usize, &total.to_le_bytes())?;
            Ok(0)
        },
    )?;
    linker.func_wrap(WASI, "proc_exit", |_: Caller<'_, StripState>, code: i32| -> wasmtime::Result<()> {
        Err(wasmtime::Error::msg(format!("the stripper exited with {code}")))
    })?;
    Ok(linker)
}

fn rejection(code: &str, de: String, en: String) -> Rejection {
    Rejection { code: code.into(), message: crate::text::Text { de, en } }
}

/// The JavaScript of a TypeScript `text`: its types stripped, in the sandbox. A file that is not
/// TypeScript, or that makes the stripper run into one of its limits, is a rejection naming why.
pub(crate) fn strip_types(engine: &Engine, text: &str) -> Result<String, Rejection> {
    let internal = |e: String| Rejection {
        code: "interpreter-unavailable".into(),
        message: text!(
            "Der TypeScript-Übersetzer von Prüfstein ließ sich nicht starten: {e}",
            "The grader's TypeScript stripper could not be started: {e}"
        ),
    };
    let (module, linker) = stripper(engine).map_err(internal)?;
    let mut store = Store::new(
        engine,
        StripState { limiter: GuestLimiter::new(TYPESCRIPT_STRIP_MEMORY_BYTES, 10_000), written: 0 },
    );
    store.limiter(|state| &mut state.limiter);
    store.set_fuel(TYPESCRIPT_STRIP_FUEL).map_err(|e| internal(format!("{e:#}")))?;
    store.set_epoch_deadline(crate::sandbox::epoch_ticks(TYPESCRIPT_STRIP_WALL_MS));
    store.epoch_deadline_trap();
    match run(&mut store, &linker, &module, text) {
        Ok(Stripped::Done(javascript)) => Ok(javascript),
        Ok(Stripped::ParseError(message)) => Err(rejection(
            "typescript-syntax-error",
            format!("Die Datei ist kein gültiges TypeScript: {message}"),
            format!("The file is not valid TypeScript: {message}"),
        )),
        Ok(Stripped::Failed(status, message)) => Err(rejection(
            "typescript-error",
            format!("Die Typen ließen sich nicht entfernen (Status {status}): {message}"),
            format!("The types could not be stripped (status {status}): {message}"),
        )),
        Err(error) => Err(limit_rejection(&error, store.data().limiter.hit.as_ref())),
    }
}

enum Stripped {
    Done(String),
    ParseError(String),
    Failed(i32, String),
}

fn run(
    store: &mut Store<StripState>,
    linker: &Linker<StripState>,
    module: &Module,
    text: &str,
) -> wasmtime::Result<Stripped> {
    let instance = linker.instantiate(&mut *store, module)?;
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| wasmtime::Error::msg("the stripper has no memory"))?;
    let alloc = instance.get_typed_func::<i32, i32>(&mut *store, "qjst_alloc")?;
    let put = |store: &mut Store<StripState>, bytes: &[u8]| -> wasmtime::Result<i32> {
        let ptr = alloc.call(&mut *store, bytes.len() as i32)?;
        if ptr == 0 && !bytes.is_empty() {
            return Err(wasmtime::Error::msg("the stripper could not allocate"));
        }
        memory.write(&mut *store, ptr as u32 as usize, bytes)?;
        Ok(ptr)
    };
    let name = b"consumer.ts";
    let name_ptr = put(store, name)?;
    let source_ptr = put(store, text.as_bytes())?;
    let transform =
        instance.get_typed_func::<(i32, i32, i32, i32, i32), i32>(&mut *store, "qjst_transform")?;
    let status = transform.call(
        &mut *store,
        (name_ptr, name.len() as i32, source_ptr, text.len() as i32, FLAG_SOURCE_TS | FLAG_STRIP_TYPESCRIPT),
    )?;
    let read = |store: &mut Store<StripState>, ptr: &str, len: &str| -> wasmtime::Result<String> {
        let len = instance.get_typed_func::<(), i32>(&mut *store, len)?.call(&mut *store, ())?;
        let ptr = instance.get_typed_func::<(), i32>(&mut *store, ptr)?.call(&mut *store, ())?;
        let len = len.max(0) as usize;
        if len > TYPESCRIPT_STRIP_OUTPUT_BYTES_MAX {
            return Err(wasmtime::Error::msg(format!(
                "the stripped file is larger than {TYPESCRIPT_STRIP_OUTPUT_BYTES_MAX} bytes"
            )));
        }
        let mut bytes = vec![0u8; len];
        memory.read(&*store, ptr as u32 as usize, &mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    Ok(match status {
        STATUS_OK => Stripped::Done(read(store, "qjst_result_ptr", "qjst_result_len")?),
        STATUS_UNCHANGED => Stripped::Done(text.to_string()),
        STATUS_PARSE_ERROR => Stripped::ParseError(read(store, "qjst_error_ptr", "qjst_error_len")?),
        other => Stripped::Failed(other, read(store, "qjst_error_ptr", "qjst_error_len")?),
    })
}

/// The rejection for a stripper that stopped: the limit it ran into, named.
fn limit_rejection(error: &wasmtime::Error, hit: Option<&LimitHit>) -> Rejection {
    if let Some(LimitHit::Memory { max, .. }) = hit {
        let mib = max / (1024 * 1024);
        return rejection(
            "typescript-memory",
            format!(
                "Beim Entfernen der Typen brauchte die Datei mehr als {mib} MiB (Grenze „Speicher beim Typen-Entfernen“)."
            ),
            format!(
                "Stripping the types of the file needed more than {mib} MiB (limit \"type stripping memory\")."
            ),
        );
    }
    match error.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => rejection(
            "typescript-fuel-exhausted",
            format!(
                "Das Entfernen der Typen brauchte mehr als {TYPESCRIPT_STRIP_FUEL} Einheiten Treibstoff (Grenze „Treibstoff beim Typen-Entfernen“)."
            ),
            format!(
                "Stripping the types took more than {TYPESCRIPT_STRIP_FUEL} units of fuel (limit \"type stripping fuel\")."
            ),
        ),
        // The stripper's stack lies below its data (Rust's `--stack-first`): running out of it is an
        // access below address 0, or the engine's own stack guard.
        Some(Trap::StackOverflow | Trap::MemoryOutOfBounds) => rejection(
            "typescript-too-deep",
            "Die Datei ist zu tief verschachtelt, um ihre Typen zu entfernen (Grenze „Stapel beim Typen-Entfernen“).".into(),
            "The file is nested too deeply to strip its types (limit \"type stripping stack\").".into(),
        ),
        Some(Trap::Interrupt) => rejection(
            "typescript-time",
            format!("Das Entfernen der Typen dauerte länger als {TYPESCRIPT_STRIP_WALL_MS} ms (Grenze „Zeit beim Typen-Entfernen“)."),
            format!("Stripping the types took longer than {TYPESCRIPT_STRIP_WALL_MS} ms (limit \"type stripping time\")."),
        ),
        _ => rejection(
            "typescript-error",
            format!("Die Typen ließen sich nicht entfernen: {}", error.root_cause()),
            format!("The types could not be stripped: {}", error.root_cause()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> &'static Engine {
        crate::sandbox::engine_with_stack(
            crate::exercise::Compiler::Winch,
            crate::limits::INTERPRETER_WASM_STACK_BYTES,
        )
        .expect("engine")
    }

    fn strip(text: &str) -> Result<String, Rejection> {
        crate::sandbox::with_stack(crate::limits::INTERPRETER_WASM_STACK_BYTES, || {
            strip_types(engine(), text)
        })
        .expect("a thread")
    }

    #[test]
    fn the_committed_stripper_is_the_one_its_hash_file_records() {
        let recorded = include_str!("../../graders/consumer/interpreters/typescript/strip.wasm.sha256");
        assert_eq!(crate::submission::sha256_hex(STRIP_WASM), recorded.trim());
    }

    #[test]
    fn types_are_stripped_and_the_same_file_gives_the_same_javascript() {
        let typed = "import type { DatabaseSync } from \"node:sqlite\";\n\ninterface Nachricht { id: number; body: { kunde: string } }\n\nexport function verarbeite(db: DatabaseSync, msg: Nachricht): boolean {\n    const n: number = msg.id as number;\n    return n > 0;\n}\n";
        let javascript = strip(typed).expect("strips");
        assert!(javascript.contains("export function verarbeite(db, msg) {"), "{javascript}");
        assert!(!javascript.contains("interface") && !javascript.contains(": number"), "{javascript}");
        assert_eq!(strip(typed).expect("strips"), javascript);
        // Plain JavaScript is TypeScript too.
        assert!(strip("export function verarbeite(db, msg) { return true; }\n").is_ok());
    }

    #[test]
    fn nesting_deeper_than_the_strippers_stack_is_refused_naming_the_limit() {
        let deep = format!("type A = {}number{};\n", "Array<".repeat(9_000), ">".repeat(9_000));
        let rejection = strip(&deep).expect_err("refused");
        assert_eq!(rejection.code, "typescript-too-deep", "{}", rejection.message.en);
        assert!(rejection.message.en.contains("limit \"type stripping stack\""), "{}", rejection.message.en);
        let parens = format!("export const x = {}1{};\n", "(".repeat(30_000), ")".repeat(30_000));
        assert_eq!(strip(&parens).expect_err("refused").code, "typescript-too-deep");
    }

    #[test]
    fn a_file_that_is_not_typescript_is_refused_with_the_strippers_message() {
        let rejection = strip("export function verarbeite(db: , msg) {\n").expect_err("refused");
        assert_eq!(rejection.code, "typescript-syntax-error", "{}", rejection.message.en);
        assert!(
            rejection.message.en.starts_with("The file is not valid TypeScript: "),
            "{}",
            rejection.message.en
        );
    }
}
