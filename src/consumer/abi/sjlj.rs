//! setjmp/longjmp for interpreter guests (Prüfstein's own modules, never a student's: validation
//! rejects these imports in a submitted module). C interpreters such as MicroPython need
//! setjmp/longjmp for their exceptions; clang's Emscripten lowering turns every call that might
//! longjmp into a call of `env.invoke_<sig>(function index, args…)`, and a longjmp into
//! `env.pf_throw_longjmp` after the guest recorded its target. The host calls the function from the
//! guest's table; when the callee longjmps, the trap unwinds the wasm frames up to here and the
//! call returns normally (the guest then sees its recorded target and resumes at its setjmp).
//! Any other trap (fuel, a limit, a crash the harness injected) passes through unchanged.
//!
//! These trampolines are the interpreters' hottest host calls: MicroPython's bytecode loop sets a
//! jump target in every Python call, so each call it makes from there passes through one. They
//! are typed (no boxed values), and the guest's table is looked up once per instance.

use wasmtime::{Caller, Extern, Linker, Ref, Table, WasmParams, WasmResults};

use super::GuestState;

/// The marker trap of a longjmp; only `invoke_*` catches it.
#[derive(Debug, thiserror::Error)]
#[error("longjmp outside of any setjmp in the interpreter guest")]
pub(crate) struct LongJmp;

/// The guest's function table, looked up by name at an instance's first trampoline and kept in
/// its state.
fn table(caller: &mut Caller<'_, GuestState>) -> wasmtime::Result<Table> {
    if let Some(table) = caller.data().function_table {
        return Ok(table);
    }
    let Some(Extern::Table(table)) = caller.get_export("__indirect_function_table") else {
        return Err(wasmtime::Error::msg("the interpreter guest exports no function table"));
    };
    caller.data_mut().function_table = Some(table);
    Ok(table)
}

fn table_func(caller: &mut Caller<'_, GuestState>, index: i32) -> wasmtime::Result<wasmtime::Func> {
    let table = table(caller)?;
    match table.get(&mut *caller, index as u32 as u64) {
        Some(Ref::Func(Some(func))) => Ok(func),
        _ => Err(wasmtime::Error::new(wasmtime::Trap::IndirectCallToNull)),
    }
}

/// What a call through a trampoline ends with: its value, or 0 after a longjmp.
fn settle<R: Default>(result: wasmtime::Result<R>) -> wasmtime::Result<R> {
    match result {
        Err(error) if error.is::<LongJmp>() => Ok(R::default()),
        other => other,
    }
}

/// Calls table entry `index` with `params`; a callee of another type is a trap, as a mismatched
/// `call_indirect` is.
fn invoke<P: WasmParams, R: WasmResults + Default>(
    mut caller: Caller<'_, GuestState>,
    index: i32,
    params: P,
) -> wasmtime::Result<R> {
    let func = table_func(&mut caller, index)?.typed::<P, R>(&caller)?;
    settle(func.call(&mut caller, params))
}

/// The same for an interleaved run: the callee may wait for its turn at a statement.
async fn invoke_async<P: WasmParams + Sync, R: WasmResults + Default + Sync>(
    mut caller: Caller<'_, GuestState>,
    index: i32,
    params: P,
) -> wasmtime::Result<R> {
    let func = table_func(&mut caller, index)?.typed::<P, R>(&caller)?;
    settle(func.call_async(&mut caller, params).await)
}

/// Each trampoline: `invoke_` + `v` or `i` (the result) + one `i` per argument, up to eight
/// arguments besides the function index (part of the interface with the interpreter guests, not
/// a limit).
macro_rules! trampolines {
    ($define:ident, $($void:literal, $int:literal: ($($arg:ident),*);)*) => {
        $(
            $define!($void, (), ($($arg),*));
            $define!($int, i32, ($($arg),*));
        )*
    };
}

/// `i32`, once per argument.
macro_rules! i32_of {
    ($arg:ident) => {
        i32
    };
}

macro_rules! each_trampoline {
    ($define:ident) => {
        trampolines!($define,
            "invoke_v", "invoke_i": ();
            "invoke_vi", "invoke_ii": (a);
            "invoke_vii", "invoke_iii": (a, b);
            "invoke_viii", "invoke_iiii": (a, b, c);
            "invoke_viiii", "invoke_iiiii": (a, b, c, d);
            "invoke_viiiii", "invoke_iiiiii": (a, b, c, d, e);
            "invoke_viiiiii", "invoke_iiiiiii": (a, b, c, d, e, f);
            "invoke_viiiiiii", "invoke_iiiiiiii": (a, b, c, d, e, f, g);
            "invoke_viiiiiiii", "invoke_iiiiiiiii": (a, b, c, d, e, f, g, h);
        )
    };
}

/// Defines the trampolines and `env.pf_throw_longjmp` for synchronous calls.
pub(super) fn define(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap("env", "pf_throw_longjmp", || -> wasmtime::Result<()> {
        Err(wasmtime::Error::new(LongJmp))
    })?;
    macro_rules! define_sync {
        ($name:literal, $result:ty, ($($arg:ident),*)) => {
            linker.func_wrap(
                "env",
                $name,
                |caller: Caller<'_, GuestState>, index: i32, $($arg: i32),*| -> wasmtime::Result<$result> {
                    invoke::<_, $result>(caller, index, ($($arg,)*))
                },
            )?;
        };
    }
    each_trampoline!(define_sync);
    Ok(())
}

/// The same trampolines for interleaved runs: the callee may wait for its turn at a statement, so
/// the call is asynchronous.
pub(super) fn define_async(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    macro_rules! define_async {
        ($name:literal, $result:ty, ($($arg:ident),*)) => {
            linker.func_wrap_async(
                "env",
                $name,
                |caller: Caller<'_, GuestState>, (index, $($arg,)*): (i32, $(i32_of!($arg),)*)| {
                    Box::new(invoke_async::<_, $result>(caller, index, ($($arg,)*)))
                },
            )?;
        };
    }
    each_trampoline!(define_async);
    Ok(())
}
