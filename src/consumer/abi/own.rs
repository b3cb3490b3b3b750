//! The host functions only Prüfstein's own interpreter guests import, beside ABI v1.

use wasmtime::{Caller, Linker};

use super::{GuestState, HostResult, charge};
use crate::consumer::world::log::OffsetStore;

/// What Prüfstein's own interpreter guests import beyond ABI v1 (a submitted module that imports
/// them is rejected, as for any import outside [`IMPORTS`]): `env.pf_last_error_code`, the extended
/// result code of the last failed statement, which the JavaScript guest's `node:sqlite` names in
/// an error's `code` and `errcode`; `env.pf_statement_line`, the line of the student's source that
/// issues the next statement, which the trace records with it; `env.pf_return_line`, the line whose
/// `return` ended the student's entry function, which the trace records with the return;
/// `env.pf_world`, the outside services the exercise declares (bit 1: a mail provider, bit 2: a
/// broker, bit 3: a log that keeps the offsets), so that the guest sets up its `mail`, `broker`
/// and `log` modules only where they exist.
pub(super) fn define_own_guest_imports(linker: &mut Linker<GuestState>) -> wasmtime::Result<()> {
    linker.func_wrap(
        "env",
        "pf_last_error_code",
        |mut caller: Caller<'_, GuestState>| -> HostResult<i32> {
            charge(&mut caller, 0)?;
            Ok(caller.data().db.last_error_code())
        },
    )?;
    linker.func_wrap(
        "env",
        "pf_statement_line",
        |mut caller: Caller<'_, GuestState>, line: i32| -> HostResult<()> {
            charge(&mut caller, 0)?;
            caller.data_mut().statement_line = u32::try_from(line).ok().filter(|l| *l > 0);
            Ok(())
        },
    )?;
    linker.func_wrap("env", "pf_world", |mut caller: Caller<'_, GuestState>| -> HostResult<i32> {
        charge(&mut caller, 0)?;
        let world = caller.data().world.clone();
        let Some(world) = world else { return Ok(0) };
        let world = world.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let config = world.config();
        let log_offsets = config.log.as_ref().is_some_and(|l| l.offsets == OffsetStore::Broker);
        Ok(i32::from(config.mail.is_some())
            | (i32::from(config.broker.is_some()) << 1)
            | (i32::from(log_offsets) << 2))
    })?;
    linker.func_wrap(
        "env",
        "pf_return_line",
        |mut caller: Caller<'_, GuestState>, line: i32| -> HostResult<()> {
            charge(&mut caller, 0)?;
            caller.data_mut().return_line = u32::try_from(line).ok().filter(|l| *l > 0);
            Ok(())
        },
    )?;
    Ok(())
}
