//! The event log as a scenario script sees it: `Log(partitions)` over [`crate::sim::EventLog`],
//! with `append`, `poll`, `commit`, `committed`, `crash`, `redelivered`, `note` and `effect`.
//! Every operation counts against [`crate::limits::SCRIPT_SIM_EVENTS_MAX`]; a refused operation
//! (a limit of the log) stops the script with the limit named.

use std::sync::{Arc, Mutex};

use rhai::{Dynamic, Engine, ImmutableString, Map};

use super::host::{LogHandle, RhaiResult, ScriptLog, SimHandle, charge, with_recording};
use crate::sim::EventLog;
use crate::text::Text;

fn new_log(partitions: i64) -> RhaiResult<LogHandle> {
    let log = EventLog::new(partitions).map_err(|e| e.to_string())?;
    let handle = LogHandle(Arc::new(Mutex::new(ScriptLog { log, effects: 0 })));
    with_recording(|r| {
        r.sims.push(SimHandle::Log(handle.clone()));
        Ok(())
    })?;
    Ok(handle)
}

fn record_map(r: crate::sim::Record<String>) -> Dynamic {
    let mut map = Map::new();
    map.insert("partition".into(), Dynamic::from_int(i64::from(r.partition)));
    map.insert("offset".into(), Dynamic::from_int(r.offset as i64));
    map.insert("body".into(), Dynamic::from(r.body));
    map.insert("deliveries".into(), Dynamic::from_int(i64::from(r.deliveries)));
    map.insert("zustellungen".into(), Dynamic::from_int(i64::from(r.deliveries)));
    Dynamic::from_map(map)
}

fn append(l: &mut LogHandle, partition: i64, body: Dynamic) -> RhaiResult<i64> {
    charge(1)?;
    let offset = l.lock().log.append(partition, body.to_string()).map_err(|e| e.to_string())?;
    Ok(offset as i64)
}

fn poll(l: &mut LogHandle, group: ImmutableString, consumer: ImmutableString) -> RhaiResult<Dynamic> {
    charge(1)?;
    let record = l.lock().log.poll(&group, &consumer).map_err(|e| e.to_string())?;
    Ok(record.map(record_map).unwrap_or(Dynamic::UNIT))
}

fn commit(l: &mut LogHandle, group: ImmutableString, partition: i64, offset: i64) -> RhaiResult<bool> {
    charge(1)?;
    let refused = l.lock().log.commit(&group, partition, offset).map_err(|e| e.to_string())?;
    Ok(refused.is_none())
}

fn committed(l: &mut LogHandle, group: ImmutableString, partition: i64) -> RhaiResult<i64> {
    let p = u32::try_from(partition).map_err(|_| format!("partition {partition} does not exist"))?;
    Ok(l.lock().log.committed(&group, p) as i64)
}

fn crash(l: &mut LogHandle, group: ImmutableString, consumer: ImmutableString) -> RhaiResult<()> {
    charge(1)?;
    l.lock().log.crash(&group, &consumer).map_err(|e| e.to_string().into())
}

fn note(l: &mut LogHandle, de: ImmutableString, en: ImmutableString) -> RhaiResult<()> {
    charge(1)?;
    l.lock().log.note(Text::new(de.as_str(), en.as_str()));
    Ok(())
}

fn effect(l: &mut LogHandle, de: ImmutableString, en: ImmutableString) -> RhaiResult<()> {
    charge(1)?;
    let mut s = l.lock();
    s.effects += 1;
    s.log.note(Text::new(de.as_str(), en.as_str()));
    Ok(())
}

pub(super) fn register_log(engine: &mut Engine) {
    engine.register_type_with_name::<LogHandle>("Log");
    engine.register_fn("Log", new_log);
    engine.register_fn("append", append);
    engine.register_fn("append", |l: &mut LogHandle, body: Dynamic| -> RhaiResult<i64> {
        let partition = l.lock().log.partition_of(&body.to_string());
        append(l, i64::from(partition), body)
    });
    engine.register_fn("poll", poll);
    engine.register_fn("commit", commit);
    engine.register_fn("committed", committed);
    engine.register_fn("crash", crash);
    engine.register_fn("redelivered", |l: &mut LogHandle, group: ImmutableString| {
        l.lock().log.redelivered(&group) as i64
    });
    engine.register_fn("received", |l: &mut LogHandle, group: ImmutableString| {
        l.lock().log.received(&group) as i64
    });
    engine.register_fn("end", |l: &mut LogHandle, partition: i64| -> RhaiResult<i64> {
        let p = u32::try_from(partition).map_err(|_| format!("partition {partition} does not exist"))?;
        Ok(l.lock().log.end(p) as i64)
    });
    engine.register_fn("note", note);
    engine.register_fn("effect", effect);
    engine.register_fn("effects", |l: &mut LogHandle| l.lock().effects);
    engine.register_fn("explain", |part: ImmutableString, l: LogHandle| {
        with_recording(|r| {
            r.bindings.push((part.to_string(), SimHandle::Log(l)));
            Ok(())
        })
    });
}
