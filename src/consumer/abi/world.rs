//! ABI v1.1's optional host functions for the outside services an exercise declares:
//! `world.send_mail(key, to, body) -> status`, `world.publish(topic, key, payload) -> status` and
//! `world.commit_offset(partition, offset) -> status`. The call goes to the run's shared
//! [`crate::consumer::world::World`] (its effect survives a crash of the instance), is recorded in
//! the trace, and is a crash point of its own: the harness kills the consumer right after it, as
//! after a write or a COMMIT. In an interleaved run the call is a turn of its own: while it is in
//! flight the other instance may go on, and a call with the same key is refused (409).

use wasmtime::Caller;

use super::{
    GuestState, HostFault, HostResult, charge, crash_if_due, name_next_after_crash_point, push_crash_point,
    read_bytes,
};
use crate::consumer::gate::Arrival;
use crate::consumer::world::broker::PublishRequest;
use crate::consumer::world::{MailAnswer, MailRequest, SharedWorld};
use crate::limits::GUEST_TEXT_BYTES_MAX;
use crate::report::consumer::{Boundary, TraceEvent};

/// The call's name in the trace, the crash point and the report.
pub(crate) const SEND_MAIL: &str = "send_mail";
/// The broker's call's name.
pub(crate) const PUBLISH: &str = "publish";
/// The event log's call's name (`offsets = "broker"`).
pub(crate) const COMMIT_OFFSET: &str = "commit_offset";

/// What one `world.send_mail` call asks, read from the guest's memory.
struct MailArgs {
    key: Vec<u8>,
    to: Vec<u8>,
    body: Vec<u8>,
}

#[allow(clippy::too_many_arguments)]
fn read_args(
    caller: &mut Caller<'_, GuestState>,
    (key_ptr, key_len): (i32, i32),
    (to_ptr, to_len): (i32, i32),
    (body_ptr, body_len): (i32, i32),
) -> HostResult<MailArgs> {
    let bytes = [key_len, to_len, body_len].iter().map(|n| n.max(&0).unsigned_abs() as usize).sum();
    charge(caller, bytes)?;
    let call = "world.send_mail";
    Ok(MailArgs {
        key: read_bytes(caller, call, key_ptr, key_len)?,
        to: read_bytes(caller, call, to_ptr, to_len)?,
        body: read_bytes(caller, call, body_ptr, body_len)?,
    })
}

/// The run's world, the instance and the id of the message it works on; `missing` when the
/// exercise declares no world.
fn caller_world(state: &GuestState, missing: HostFault) -> HostResult<(SharedWorld, u32, String)> {
    let Some(world) = state.world.clone() else {
        return Err(wasmtime::Error::new(missing));
    };
    let msg_id =
        state.message.as_ref().and_then(|m| m.get("id").map(ToString::to_string)).unwrap_or_default();
    Ok((world, state.instance, msg_id))
}

/// Records a call to an outside service in the trace, its guest bytes clipped as they enter it.
fn record_outside(state: &mut GuestState, call: &str, (key, to, body): (&[u8], &[u8], &[u8]), answer: &str) {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let event = TraceEvent::Outside {
        instance: state.instance,
        line: state.statement_line.take(),
        call: call.to_string(),
        key: text(key),
        to: text(to),
        body: text(body),
        answer: answer.to_string(),
    };
    state.events.push(event.clipped(GUEST_TEXT_BYTES_MAX));
}

/// Asks the run's provider, records the call in the trace; the answer.
fn ask(caller: &mut Caller<'_, GuestState>, args: &MailArgs) -> HostResult<MailAnswer> {
    let state = caller.data_mut();
    let (world, instance, msg_id) = caller_world(state, HostFault::NoProvider)?;
    let answer = {
        let mut world = world.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if world.config().mail.is_none() {
            return Err(wasmtime::Error::new(HostFault::NoProvider));
        }
        let request = MailRequest { instance, msg_id, key: &args.key, recipient: &args.to, body: &args.body };
        world.send_mail(request).map_err(|_| {
            wasmtime::Error::new(HostFault::OutsideCallLimit {
                limit: crate::limits::OUTSIDE_CALLS_PER_RUN_MAX,
            })
        })?
    };
    record_outside(state, SEND_MAIL, (&args.key, &args.to, &args.body), answer.name());
    Ok(answer)
}

/// Marks the crash point right after the call, and injects the crash if it is the one to crash at.
fn crash_point_after_call(caller: &mut Caller<'_, GuestState>, answer: MailAnswer) -> HostResult<i32> {
    crash_point_after(caller, SEND_MAIL, answer.status())
}

/// Marks the crash point right after the call `name` (which answered `status`), and injects the
/// crash if it is the one to crash at.
fn crash_point_after(
    caller: &mut Caller<'_, GuestState>,
    name: &'static str,
    status: i32,
) -> HostResult<i32> {
    let state = caller.data_mut();
    state.calls += 1;
    let in_transaction = state.db.in_transaction();
    let after = Boundary::Call { call: state.calls, name, in_transaction };
    let statement = format!("{name}(…)");
    name_next_after_crash_point(state, statement.clone());
    let number = push_crash_point(state, after, statement);
    let line = state.events.iter().rev().find_map(|e| match e {
        TraceEvent::Outside { line, .. } => Some(*line),
        _ => None,
    });
    let crash = TraceEvent::Crash {
        instance: state.instance,
        point: number,
        after_write: None,
        after_commit: None,
        after_call: Some(name.to_string()),
        before_commit: in_transaction,
        line: line.flatten(),
    };
    crash_if_due(state, number, after, crash)?;
    Ok(status)
}

/// `world.publish(topic_ptr, topic_len, key_ptr, key_len, payload_ptr, payload_len) -> status`:
/// 0 published, 3 refused as malformed. Every publication is recorded, duplicates included.
pub(super) fn world_publish(
    mut caller: Caller<'_, GuestState>,
    topic_ptr: i32,
    topic_len: i32,
    key_ptr: i32,
    key_len: i32,
    payload_ptr: i32,
    payload_len: i32,
) -> HostResult<i32> {
    // The same three ranges as a mail: (topic, key, payload) read in the places of (key, to, body).
    let args =
        read_args(&mut caller, (topic_ptr, topic_len), (key_ptr, key_len), (payload_ptr, payload_len))?;
    let (topic, key, payload) = (args.key, args.to, args.body);
    let state = caller.data_mut();
    let (world, instance, msg_id) = caller_world(state, HostFault::NoBroker)?;
    let accepted = {
        let mut world = world.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if world.config().broker.is_none() {
            return Err(wasmtime::Error::new(HostFault::NoBroker));
        }
        let request = PublishRequest { instance, msg_id, topic: &topic, key: &key, payload: &payload };
        world.publish(request).map_err(|_| {
            wasmtime::Error::new(HostFault::OutsideCallLimit {
                limit: crate::limits::OUTSIDE_CALLS_PER_RUN_MAX,
            })
        })?
    };
    record_outside(
        state,
        PUBLISH,
        (&key, &topic, &payload),
        if accepted { "published" } else { "400 invalid" },
    );
    let status = if accepted { MailAnswer::Sent.status() } else { MailAnswer::Invalid.status() };
    crash_point_after(&mut caller, PUBLISH, status)
}

/// `world.commit_offset(partition, offset) -> status`: 0 the log holds `offset` as the group's
/// committed offset of `partition`, 3 refused (no such partition, below the log's first offset,
/// beyond the partition's end, or a partition whose record the run has not delivered). The commit
/// is recorded in the run's [`crate::sim::EventLog`] (refusals too) and is a crash point of its own.
pub(super) fn world_commit_offset(
    mut caller: Caller<'_, GuestState>,
    partition: i64,
    offset: i64,
) -> HostResult<i32> {
    charge(&mut caller, 0)?;
    let state = caller.data_mut();
    let (world, _, _) = caller_world(state, HostFault::NoLog)?;
    let answer = {
        let mut world = world.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match world.commit_offset(partition, offset) {
            None => return Err(wasmtime::Error::new(HostFault::NoLog)),
            Some(Err(_)) => {
                return Err(wasmtime::Error::new(HostFault::OutsideCallLimit {
                    limit: crate::limits::OUTSIDE_CALLS_PER_RUN_MAX,
                }));
            }
            Some(Ok(answer)) => answer,
        }
    };
    let (partition, offset) = (partition.to_string(), offset.to_string());
    record_outside(state, COMMIT_OFFSET, (partition.as_bytes(), b"", offset.as_bytes()), &answer.name());
    crash_point_after(&mut caller, COMMIT_OFFSET, answer.status())
}

/// `world.send_mail(key_ptr, key_len, to_ptr, to_len, body_ptr, body_len) -> status`.
pub(super) fn world_send_mail(
    mut caller: Caller<'_, GuestState>,
    key_ptr: i32,
    key_len: i32,
    to_ptr: i32,
    to_len: i32,
    body_ptr: i32,
    body_len: i32,
) -> HostResult<i32> {
    let args = read_args(&mut caller, (key_ptr, key_len), (to_ptr, to_len), (body_ptr, body_len))?;
    let answer = ask(&mut caller, &args)?;
    crash_point_after_call(&mut caller, answer)
}

/// The interleaved variant: a first call with a key stays in flight while the other instance takes
/// a turn; a call with the same key meanwhile is refused (409).
pub(super) async fn world_send_mail_interleaved(
    mut caller: Caller<'_, GuestState>,
    (key_ptr, key_len, to_ptr, to_len, body_ptr, body_len): (i32, i32, i32, i32, i32, i32),
) -> HostResult<i32> {
    let args = read_args(&mut caller, (key_ptr, key_len), (to_ptr, to_len), (body_ptr, body_len))?;
    let answer = ask(&mut caller, &args)?;
    let state = caller.data_mut();
    if let (Some(gate), Some(world), MailAnswer::Sent) = (state.gate.clone(), state.world.clone(), answer) {
        let instance = state.instance;
        let in_transaction = state.db.in_transaction();
        world.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).start_in_flight(instance);
        let events = std::mem::take(&mut state.events);
        gate.wait(Arrival::Ready { in_transaction }, events).await;
        world.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).finish_in_flight(instance);
    }
    crash_point_after_call(&mut caller, answer)
}
