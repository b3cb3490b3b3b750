//! setjmp/longjmp for interpreter guests (Prüfstein's own modules, never a student's: validation
//! rejects these imports in a submitted module). C interpreters such as MicroPython need
//! setjmp/longjmp for their exceptions; clang's Emscripten lowering turns every call that might
//! longjmp into a call of `env.invoke_<sig>(function index, args…)`, and a longjmp into
//! `env.pf_throw_longjmp` after the guest recorded its target. The host calls the function from the
//! guest's table; when the callee longjmps, the trap unwinds the wasm frames up to here and the
//! call returns normally (the guest then sees its recorded target and resumes at its setjmp).
//! Any other trap (fuel, a limit, a crash the harness injected) passes through unchanged.

use wasmtime::{Caller, Extern, FuncType, Linker, Ref, Val, ValType};

use super::GuestState;

/// The marker trap of a longjmp; only `invoke_*` catches it.
#[derive(Debug, thiserror::Error)]
#[error("longjmp outside of any setjmp in the interpreter guest")]
pub(crate) struct LongJmp;

/// The widest `invoke_*` trampoline generated: how many arguments (besides the function index) it
/// takes. Part of the interface with the interpreter guests, not a limit.
const INVOKE_WIDEST_ARITY: usize = 8;

/// Each trampoline's name and type: `invoke_` + `v` or `i` (the result) + one `i` per argument.
fn trampolines(engine: &wasmtime::Engine) -> Vec<(String, FuncType, bool)> {
    let mut all = Vec::new();
    for returns in [false, true] {
        for args in 0..=INVOKE_WIDEST_ARITY {
            let name = format!("invoke_{}{}", if returns { "i" } else { "v" }, "i".repeat(args));
            let params = std::iter::repeat_n(ValType::I32, args + 1);
            let results: Vec<ValType> = if returns { vec![ValType::I32] } else { Vec::new() };
            all.push((name, FuncType::new(engine, params, results), returns));
        }
    }
    all
}

fn table_func(caller: &mut Caller<'_, GuestState>, index: &Val) -> wasmtime::Result<wasmtime::Func> {
    let Some(Extern::Table(table)) = caller.get_export("__indirect_function_table") else {
        return Err(wasmtime::Error::msg("the interpreter guest exports no function table"));
    };
    let index = index.i32().unwrap_or(-1) as u32 as u64;
    match table.get(&mut *caller, index) {
        Some(Ref::Func(Some(func))) => Ok(func),
        _ => Err(wasmtime::Error::new(wasmtime::Trap::IndirectCallToNull)),
    }
}

/// What a call through a trampoline ends with: its value, or 0 after a longjmp.
fn settle(result: wasmtime::Result<()>, results: &mut [Val]) -> wasmtime::Result<()> {
    match result {
        Ok(()) => Ok(()),
        Err(error) if error.is::<LongJmp>() => {
            if let Some(slot) = results.first_mut() {
                *slot = Val::I32(0);
            }
            Ok(())
        }
        Err(error) => Err(error),
    }
}

/// Defines the trampolines and `env.pf_throw_longjmp` for synchronous calls.
pub(super) fn define(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    let engine = linker.engine().clone();
    linker.func_wrap("env", "pf_throw_longjmp", || -> wasmtime::Result<()> {
        Err(wasmtime::Error::new(LongJmp))
    })?;
    for (name, ty, _) in trampolines(&engine) {
        linker.func_new("env", &name, ty, |mut caller, params, results| {
            let func = table_func(&mut caller, &params[0])?;
            let result = func.call(&mut caller, &params[1..], results);
            settle(result, results)
        })?;
    }
    Ok(())
}

/// The same trampolines for interleaved runs: the callee may wait for its turn at a statement, so
/// the call is asynchronous.
pub(super) fn define_async(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    let engine = linker.engine().clone();
    for (name, ty, _) in trampolines(&engine) {
        linker.func_new_async("env", &name, ty, |mut caller, params, results| {
            Box::new(async move {
                let func = table_func(&mut caller, &params[0])?;
                let result = func.call_async(&mut caller, &params[1..], results).await;
                settle(result, results)
            })
        })?;
    }
    Ok(())
}
