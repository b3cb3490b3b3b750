//! The facts of a failed check, read from its evidence alone: the failing delivery in the trace
//! (what it wrote first, whether outside a transaction, what it returned), and the state after the
//! check against the expected state and the state before the message took effect (was the effect
//! missing, doubled, further than expected; is an id missing or extra).

use std::collections::BTreeMap;

use crate::consumer::checks::texts::Prose;
use crate::report::consumer::{ConsumerDetail, TraceEvent, status};
use crate::report::diagnosis::{Effect, Facts, Memory};
use crate::report::roles::{Role, Roles, written_table};
use crate::report::state::{Row, SqlValue, State};

/// The failing delivery: the indices of the trace events that belong to it (its
/// `Deliver` first).
#[derive(Debug, Clone, Default)]
pub(crate) struct Segment {
    pub events: Vec<usize>,
}

fn instance_of(event: &TraceEvent) -> Option<u32> {
    match event {
        TraceEvent::Start { instance }
        | TraceEvent::Relay { instance }
        | TraceEvent::Deliver { instance, .. }
        | TraceEvent::Statement { instance, .. }
        | TraceEvent::Wait { instance, .. }
        | TraceEvent::Log { instance, .. }
        | TraceEvent::Crash { instance, .. }
        | TraceEvent::Return { instance, .. }
        | TraceEvent::Fault { instance, .. }
        | TraceEvent::RolledBack { instance, .. }
        | TraceEvent::Outside { instance, .. } => Some(*instance),
        TraceEvent::Queue { .. } => None,
    }
}

/// The failing delivery of a trace: with `at_crash`, the delivery that was killed last; otherwise
/// the last delivery.
pub(crate) fn failing_segment(trace: &[TraceEvent], at_crash: bool) -> Option<Segment> {
    let crash = at_crash.then(|| trace.iter().rposition(|e| matches!(e, TraceEvent::Crash { .. }))).flatten();
    let (instance, end) = match crash {
        Some(c) => (instance_of(&trace[c])?, c + 1),
        None => {
            let d = trace.iter().rposition(|e| matches!(e, TraceEvent::Deliver { .. }))?;
            (instance_of(&trace[d])?, trace.len())
        }
    };
    let start = trace[..end]
        .iter()
        .rposition(|e| matches!(e, TraceEvent::Deliver { instance: i, .. } if *i == instance))?;
    let events =
        (start..end).filter(|&i| instance_of(&trace[i]).is_none_or(|owner| owner == instance)).collect();
    Some(Segment { events })
}

/// Whether `sql` opens a transaction (`BEGIN`, a `SAVEPOINT`) or ends one (`COMMIT`, `END`,
/// `ROLLBACK` without `TO`, `RELEASE`).
pub(crate) fn transaction_control(sql: &str) -> Option<bool> {
    let words: Vec<String> = sql.split_whitespace().take(2).map(|w| w.to_ascii_uppercase()).collect();
    match words.first().map(|w| w.trim_end_matches(';')) {
        Some("BEGIN" | "SAVEPOINT") => Some(true),
        Some("COMMIT" | "END" | "RELEASE") => Some(false),
        Some("ROLLBACK") if words.get(1).is_none_or(|w| w != "TO") => Some(false),
        _ => None,
    }
}

/// The facts of the delivery `segment` of `trace`: whose table it wrote first, whether that write
/// was outside a transaction, what it returned, whether a statement failed, whether it called an
/// outside service.
fn delivery_facts(trace: &[TraceEvent], segment: &Segment, roles: &Roles, facts: &mut Facts) {
    let mut open = false;
    for &i in &segment.events {
        match &trace[i] {
            TraceEvent::Statement { sql, status: code, write, .. } => {
                if *code != status::OK && *code != status::NO_ROW {
                    facts.failed_statement = true;
                }
                if written_table(sql).and_then(|t| roles.of_table(&t)) == Some(Role::Memory) {
                    facts.memory_attempted = true;
                }
                if *code == status::OK {
                    if let Some(opens) = transaction_control(sql) {
                        open = opens;
                    } else if write.is_some() && facts.written_first.is_none() {
                        facts.written_first = written_table(sql).and_then(|t| roles.of_table(&t));
                        facts.autocommit = facts.written_first.is_some() && !open;
                    }
                }
            }
            TraceEvent::Return { value, .. } => facts.returned = Some(*value),
            TraceEvent::Outside { .. } => facts.called_outside = true,
            _ => {}
        }
    }
}

/// Every fact of a failed check whose failure text has the key `problem`.
pub(crate) fn facts(problem: &str, detail: &ConsumerDetail, roles: &Roles) -> (Facts, Option<Segment>) {
    let crashed = detail.trace.iter().any(|e| matches!(e, TraceEvent::Crash { .. }));
    let mut facts = Facts {
        problem: problem.to_string(),
        effect: Effect::Unknown,
        times: None,
        memory: Memory::Unknown,
        effect_tables: roles.names(Role::Effect),
        memory_tables: roles.names(Role::Memory),
        written_first: None,
        autocommit: false,
        crashed,
        returned: None,
        failed_statement: false,
        memory_attempted: false,
        called_outside: false,
        invariant: detail.invariant.clone(),
    };
    // A failure of the state after a crash is about the delivery that was killed; any other (a
    // return, a lost message) about the last delivery.
    // An invariant a crash check found broken is about the delivery that was killed as well.
    let about_crash = problem.starts_with("crash-")
        || problem == Prose::ScheduleStateWrong.key()
        || problem == crate::consumer::checks::texts::Problem::INVARIANT;
    let segment = failing_segment(&detail.trace, crashed && about_crash);
    if let Some(segment) = &segment {
        delivery_facts(&detail.trace, segment, roles, &mut facts);
    }
    if let Some(state) = &detail.state {
        let baseline = state.baseline.as_ref().unwrap_or(&state.before);
        if !facts.effect_tables.is_empty() {
            let (effect, times) = effect(&facts.effect_tables, baseline, &state.after, &state.expected);
            facts.effect = effect;
            facts.times = times;
        }
        if !facts.memory_tables.is_empty() {
            facts.memory = memory(&facts.memory_tables, &state.after, &state.expected);
        }
    }
    (facts, segment)
}

/// The rows of the queries `names` in `state`, by query.
fn rows<'s>(names: &[String], state: &'s State) -> Vec<&'s [Row]> {
    names.iter().map(|n| state.get(n).map(Vec::as_slice).unwrap_or_default()).collect()
}

/// Rows of `a` that `b` lacks, counted as a multiset.
fn minus(a: &[Row], b: &[Row]) -> Vec<Row> {
    let mut rest: Vec<&Row> = b.iter().collect();
    let mut out = Vec::new();
    for row in a {
        match rest.iter().position(|r| *r == row) {
            Some(p) => {
                rest.swap_remove(p);
            }
            None => out.push(row.clone()),
        }
    }
    out
}

fn memory(names: &[String], after: &State, expected: &State) -> Memory {
    let (mut missing, mut extra) = (false, false);
    for (a, e) in rows(names, after).into_iter().zip(rows(names, expected)) {
        missing |= !minus(e, a).is_empty();
        extra |= !minus(a, e).is_empty();
    }
    match (missing, extra) {
        (false, false) => Memory::Right,
        (true, false) => Memory::Missing,
        (false, true) => Memory::Extra,
        (true, true) => Memory::Differs,
    }
}

fn number(value: &SqlValue) -> Option<f64> {
    match value {
        SqlValue::Integer(i) => Some(*i as f64),
        SqlValue::Real(r) => Some(*r),
        _ => None,
    }
}

/// A row's key (its values that are not numbers) and its numbers.
fn split(row: &Row) -> (Vec<String>, Vec<f64>) {
    let mut key = Vec::new();
    let mut numbers = Vec::new();
    for value in row {
        match number(value) {
            Some(n) => numbers.push(n),
            None => key.push(value.to_string()),
        }
    }
    (key, numbers)
}

/// Rows by their key, if every key is unique and the rows have the same shape.
fn keyed(rows: &[Row]) -> Option<BTreeMap<Vec<String>, Vec<f64>>> {
    let mut map = BTreeMap::new();
    for row in rows {
        let (key, numbers) = split(row);
        if map.insert(key, numbers).is_some() {
            return None;
        }
    }
    Some(map)
}

/// How far the effect went, as a ratio per changed number: 1 is the expected change, 2 twice it.
/// `None` when the tables cannot be compared number by number (then rows are compared whole).
fn ratios(b: &[Row], a: &[Row], e: &[Row]) -> Option<Result<Vec<f64>, ()>> {
    let (b, a, e) = (keyed(b)?, keyed(a)?, keyed(e)?);
    if b.keys().ne(a.keys()) || b.keys().ne(e.keys()) {
        return None;
    }
    let mut out = Vec::new();
    for (key, before) in &b {
        let (after, expected) = (&a[key], &e[key]);
        if after.len() != before.len() || expected.len() != before.len() {
            return None;
        }
        for ((x, y), z) in before.iter().zip(after).zip(expected) {
            let (unit, done) = (z - x, y - x);
            match (unit == 0.0, done == 0.0) {
                (true, true) => {}
                // Changed where the effect changes nothing.
                (true, false) => return Some(Err(())),
                (false, _) => out.push(done / unit),
            }
        }
    }
    Some(Ok(out))
}

/// The rows added (multiset) as a whole multiple of the expected rows, or further, or part.
fn added_rows(b: &[Row], a: &[Row], e: &[Row]) -> Option<f64> {
    if !minus(b, a).is_empty() || !minus(b, e).is_empty() {
        return None;
    }
    let (added, unit) = (minus(a, b), minus(e, b));
    if unit.is_empty() {
        return None;
    }
    let mut rest = added.clone();
    let mut copies = 0.0;
    while minus(&unit, &rest).is_empty() {
        rest = minus(&rest, &unit);
        copies += 1.0;
    }
    if rest.is_empty() {
        return Some(copies);
    }
    // Extra rows that are all copies of expected ones: further than expected.
    let further = copies >= 1.0 && rest.iter().all(|r| unit.contains(r));
    let part = copies == 0.0 && minus(&added, &unit).is_empty();
    match (further, part) {
        (true, _) => Some(copies + 0.5),
        (_, true) => Some(0.5),
        _ => None,
    }
}

/// The effect tables `names` after a check, against the expected state and the baseline (the state
/// before the message took effect): with the number of times, when whole.
pub(crate) fn effect(
    names: &[String],
    baseline: &State,
    after: &State,
    expected: &State,
) -> (Effect, Option<u32>) {
    let (b, a, e) = (rows(names, baseline), rows(names, after), rows(names, expected));
    if a == e {
        return (Effect::Right, None);
    }
    if b == e {
        return (Effect::Changed, None);
    }
    if a == b {
        return (Effect::Missing, None);
    }
    let mut all = Vec::new();
    for ((b, a), e) in b.iter().zip(&a).zip(&e) {
        match ratios(b, a, e) {
            Some(Ok(r)) => all.extend(r),
            Some(Err(())) => return (Effect::Differs, None),
            None => match added_rows(b, a, e) {
                Some(r) => all.push(r),
                None if minus(a, b).is_empty() && minus(e, b).is_empty() => {}
                None => return (Effect::Differs, None),
            },
        }
    }
    let whole = |r: f64| (r - r.round()).abs() < 1e-9;
    let first = all.first().copied().unwrap_or(1.0);
    if all.iter().all(|r| (r - first).abs() < 1e-9) && whole(first) {
        return match first.round() as i64 {
            0 => (Effect::Missing, None),
            1 => (Effect::Differs, None),
            2 => (Effect::Doubled, Some(2)),
            k if k > 2 => (Effect::Multiplied, u32::try_from(k).ok()),
            _ => (Effect::Differs, None),
        };
    }
    if all.iter().all(|r| *r >= 1.0) && all.iter().any(|r| *r > 1.0) {
        return (Effect::Beyond, None);
    }
    if all.iter().all(|r| *r >= 0.0 && *r <= 1.0) {
        return (Effect::Partial, None);
    }
    (Effect::Differs, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(tables: &[(&str, &[(&str, i64)])]) -> State {
        tables
            .iter()
            .map(|(name, rows)| {
                let rows =
                    rows.iter().map(|(k, v)| vec![SqlValue::Text(k.to_string()), SqlValue::Integer(*v)]);
                (name.to_string(), rows.collect())
            })
            .collect()
    }

    fn ids(ids: &[i64]) -> Vec<Row> {
        ids.iter().map(|i| vec![SqlValue::Integer(*i)]).collect()
    }

    #[test]
    fn an_effect_is_told_by_how_far_it_went_from_the_baseline() {
        let names = ["punkte".to_string()];
        let before = state(&[("punkte", &[("anna", 100), ("ben", 400)])]);
        let expected = state(&[("punkte", &[("anna", 150), ("ben", 400)])]);
        let at = |anna: i64| state(&[("punkte", &[("anna", anna), ("ben", 400)])]);
        assert_eq!(effect(&names, &before, &at(150), &expected), (Effect::Right, None));
        assert_eq!(effect(&names, &before, &at(100), &expected), (Effect::Missing, None));
        assert_eq!(effect(&names, &before, &at(200), &expected), (Effect::Doubled, Some(2)));
        assert_eq!(effect(&names, &before, &at(250), &expected), (Effect::Multiplied, Some(3)));
        assert_eq!(effect(&names, &before, &at(175), &expected), (Effect::Beyond, None));
        assert_eq!(effect(&names, &before, &at(120), &expected), (Effect::Partial, None));
        assert_eq!(effect(&names, &before, &at(50), &expected), (Effect::Differs, None));
        assert_eq!(effect(&names, &before, &at(200), &before), (Effect::Changed, None));
        let ben = state(&[("punkte", &[("anna", 150), ("ben", 401)])]);
        assert_eq!(
            effect(&names, &before, &ben, &expected),
            (Effect::Differs, None),
            "a row the effect leaves"
        );
        // Stock taken: the direction does not matter.
        let names = ["lager".to_string()];
        let before = state(&[("lager", &[("schraube", 200)])]);
        let expected = state(&[("lager", &[("schraube", 170)])]);
        let doubled = state(&[("lager", &[("schraube", 140)])]);
        assert_eq!(effect(&names, &before, &doubled, &expected), (Effect::Doubled, Some(2)));
    }

    #[test]
    fn an_effect_of_added_rows_is_counted_in_copies() {
        let names = ["mails".to_string()];
        let before: State = [("mails".to_string(), ids(&[1]))].into();
        let expected: State = [("mails".to_string(), ids(&[1, 7]))].into();
        let twice: State = [("mails".to_string(), ids(&[1, 7, 7]))].into();
        let none = before.clone();
        assert_eq!(effect(&names, &before, &twice, &expected), (Effect::Doubled, Some(2)));
        assert_eq!(effect(&names, &before, &none, &expected), (Effect::Missing, None));
        let other: State = [("mails".to_string(), ids(&[1, 8]))].into();
        assert_eq!(effect(&names, &before, &other, &expected), (Effect::Differs, None));
    }

    #[test]
    fn remembered_ids_are_missing_extra_or_both() {
        let names = ["gesehen".to_string()];
        let with = |rows: &[i64]| -> State { [("gesehen".to_string(), ids(rows))].into() };
        assert_eq!(memory(&names, &with(&[7]), &with(&[7])), Memory::Right);
        assert_eq!(memory(&names, &with(&[]), &with(&[7])), Memory::Missing);
        assert_eq!(memory(&names, &with(&[9]), &with(&[])), Memory::Extra);
        assert_eq!(memory(&names, &with(&[9]), &with(&[7])), Memory::Differs);
    }

    #[test]
    fn transaction_control_is_read_from_the_first_words() {
        assert_eq!(transaction_control("BEGIN IMMEDIATE"), Some(true));
        assert_eq!(transaction_control("savepoint a"), Some(true));
        assert_eq!(transaction_control("COMMIT;"), Some(false));
        assert_eq!(transaction_control("ROLLBACK TO a"), None);
        assert_eq!(transaction_control("ROLLBACK"), Some(false));
        assert_eq!(transaction_control("INSERT INTO t VALUES (1)"), None);
    }
}
