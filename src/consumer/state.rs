//! The observable state of an exercise's database: the rows of the exercise's state queries, in a
//! canonical order (read within a bound on rows and bytes), and the difference between two states
//! as missing and unexpected rows.

use std::cmp::Ordering;
use std::path::Path;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};
use serde::{Deserialize, Serialize};

use crate::limits::{STATE_BYTES_MAX, STATE_ROWS_MAX};
pub(crate) use crate::report::state::{Row, SqlValue, State, TableDiff};

/// The report's value for a value SQLite returned.
pub(crate) fn value_of(value: ValueRef<'_>) -> SqlValue {
    match value {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(i) => SqlValue::Integer(i),
        ValueRef::Real(r) => SqlValue::Real(r),
        ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => SqlValue::Blob { hex: hex::encode(b) },
    }
}

impl ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            SqlValue::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            SqlValue::Integer(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            SqlValue::Real(r) => ToSqlOutput::Borrowed(ValueRef::Real(*r)),
            SqlValue::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            SqlValue::Blob { hex } => {
                let bytes =
                    hex::decode(hex).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
                ToSqlOutput::Owned(rusqlite::types::Value::Blob(bytes))
            }
        })
    }
}

/// One of the exercise's state queries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateQuery {
    /// Name shown in reports, usually the table's name.
    pub name: String,
    pub sql: String,
    /// What the query shows: the ids remembered (`memory`) or the effect (`effect`); read from the
    /// reference solution when not given (see `report::roles`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<crate::report::roles::Role>,
    /// The query reads what outside services did (the recorded calls of `[consumer.world]`): a
    /// crash does not undo that, so the all-or-nothing comparison right after a crash leaves it
    /// out; the state after the redelivery compares it with the rest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside: bool,
}

/// Sorts `rows` into the canonical order every state keeps (so that [`diff`] can compare).
pub(crate) fn sort_rows(rows: &mut [Row]) {
    rows.sort_by(cmp_rows);
}

fn cmp_rows(a: &Row, b: &Row) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = x.total_cmp(y);
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// A read-only connection for reading a database's state (`path` a file name, or a `file:` URI such
/// as a run's database in memory, [`super::rundb::RunDb::uri`]).
pub(crate) fn open_observer(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let cache_kib = crate::limits::SQL_OBSERVER_CACHE_BYTES_MAX / 1024;
    conn.execute_batch(&format!("PRAGMA cache_size = -{cache_kib}"))?;
    Ok(conn)
}

/// Reads the state with the default bounds, [`STATE_ROWS_MAX`] rows and [`STATE_BYTES_MAX`] bytes
/// over all queries together.
pub(crate) fn read_state_from(conn: &Connection, queries: &[StateQuery]) -> rusqlite::Result<State> {
    read_state_bounded(conn, queries, STATE_ROWS_MAX, STATE_BYTES_MAX)
}

/// Reads the state, at most `max_rows` rows and `max_bytes` bytes of values in all. A query whose
/// rows go past the bound is cut there, and a row holding only [`state_cut_mark`] takes the place
/// of the rest: it matches no row of a real state, so a check comparing a cut state fails, and the
/// evidence says why.
pub(crate) fn read_state_bounded(
    conn: &Connection,
    queries: &[StateQuery],
    max_rows: usize,
    max_bytes: usize,
) -> rusqlite::Result<State> {
    let mut state = State::new();
    let (mut total_rows, mut total_bytes) = (0usize, 0usize);
    for query in queries {
        let mut stmt = conn.prepare_cached(&query.sql)?;
        let columns = stmt.column_count();
        let mut rows: Vec<Row> = Vec::new();
        let mut cut = false;
        let mut query_rows = stmt.query([])?;
        while let Some(row) = query_rows.next()? {
            if total_rows >= max_rows || total_bytes > max_bytes {
                cut = true;
                break;
            }
            let mut values = Vec::with_capacity(columns);
            for i in 0..columns {
                let value = row.get_ref(i)?;
                total_bytes += match value {
                    ValueRef::Text(t) => t.len(),
                    ValueRef::Blob(b) => 2 * b.len(),
                    _ => 8,
                };
                if total_bytes > max_bytes {
                    cut = true;
                    break;
                }
                values.push(value_of(value));
            }
            if cut {
                break;
            }
            total_rows += 1;
            rows.push(values);
        }
        if cut {
            rows.push(vec![SqlValue::Text(state_cut_mark(max_rows, max_bytes))]);
        }
        rows.sort_by(cmp_rows);
        state.insert(query.name.clone(), rows);
    }
    Ok(state)
}

/// The row that stands for the rows of a state beyond its bounds.
pub(crate) fn state_cut_mark(max_rows: usize, max_bytes: usize) -> String {
    format!(
        "… more rows left out: limit \"state size\" ({max_rows} rows, {max_bytes} bytes) / weitere Zeilen \
         ausgelassen: Grenze „Zustandsgröße“"
    )
}

/// Multiset difference of two states; empty when they are equal.
pub(crate) fn diff(actual: &State, expected: &State) -> Vec<TableDiff> {
    let mut out = Vec::new();
    let empty = Vec::new();
    let names: std::collections::BTreeSet<&String> = actual.keys().chain(expected.keys()).collect();
    for name in names {
        let have = actual.get(name).unwrap_or(&empty);
        let want = expected.get(name).unwrap_or(&empty);
        let (mut i, mut j) = (0, 0);
        let (mut missing, mut unexpected) = (Vec::new(), Vec::new());
        while i < have.len() || j < want.len() {
            let order = match (have.get(i), want.get(j)) {
                (Some(a), Some(b)) => cmp_rows(a, b),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => break,
            };
            match order {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                Ordering::Less => {
                    unexpected.push(have[i].clone());
                    i += 1;
                }
                Ordering::Greater => {
                    missing.push(want[j].clone());
                    j += 1;
                }
            }
        }
        if !missing.is_empty() || !unexpected.is_empty() {
            out.push(TableDiff { table: name.clone(), missing, unexpected });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(rows: &[(&str, i64)]) -> State {
        let mut s = State::new();
        let mut r: Vec<Row> =
            rows.iter().map(|(k, v)| vec![SqlValue::Text(k.to_string()), SqlValue::Integer(*v)]).collect();
        r.sort_by(cmp_rows);
        s.insert("punkte".into(), r);
        s
    }

    #[test]
    fn diff_names_missing_and_unexpected_rows() {
        let actual = state(&[("anna", 150), ("bob", 10)]);
        let expected = state(&[("anna", 100), ("bob", 10)]);
        let d = diff(&actual, &expected);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].missing, vec![vec![SqlValue::Text("anna".into()), SqlValue::Integer(100)]]);
        assert_eq!(d[0].unexpected, vec![vec![SqlValue::Text("anna".into()), SqlValue::Integer(150)]]);
        assert!(diff(&expected, &expected).is_empty());
    }

    #[test]
    fn diff_counts_duplicate_rows() {
        let actual = state(&[("anna", 1), ("anna", 1)]);
        let expected = state(&[("anna", 1)]);
        let d = diff(&actual, &expected);
        assert_eq!(d[0].unexpected.len(), 1);
        assert!(d[0].missing.is_empty());
    }
}

#[cfg(test)]
mod bounded_tests {
    use super::*;

    fn database(rows: usize, text_bytes: usize) -> Connection {
        let conn = Connection::open_in_memory().expect("open");
        conn.execute_batch("CREATE TABLE t (k TEXT)").expect("schema");
        let value = "v".repeat(text_bytes);
        for i in 0..rows {
            conn.execute("INSERT INTO t VALUES (?1)", [format!("{i:05}{value}")]).expect("insert");
        }
        conn
    }

    fn queries() -> Vec<StateQuery> {
        vec![StateQuery { name: "t".into(), sql: "SELECT k FROM t".into(), role: None, outside: false }]
    }

    #[test]
    fn a_state_over_its_rows_or_bytes_is_cut_with_a_row_that_says_so() {
        let mark = SqlValue::Text(state_cut_mark(10, 1_000_000));
        let state = read_state_bounded(&database(25, 0), &queries(), 10, 1_000_000).expect("read");
        assert_eq!(state["t"].len(), 11);
        assert!(state["t"].contains(&vec![mark]), "the cut is a visible row");
        let mut sorted = state["t"].clone();
        sorted.sort_by(cmp_rows);
        assert_eq!(sorted, state["t"], "still in canonical order, so diffs work");

        let state = read_state_bounded(&database(25, 1_000), &queries(), 1_000, 5_000).expect("read");
        assert!(state["t"].len() <= 6, "{}", state["t"].len());
        let mark = SqlValue::Text(state_cut_mark(1_000, 5_000));
        assert!(state["t"].contains(&vec![mark]));
    }

    #[test]
    fn a_state_within_its_bounds_is_read_whole() {
        let state = read_state_bounded(&database(25, 10), &queries(), 25, 1_000_000).expect("read");
        assert_eq!(state["t"].len(), 25);
        assert!(
            state["t"]
                .iter()
                .all(|row| row.len() == 1 && matches!(&row[0], SqlValue::Text(t) if t.len() == 15))
        );
    }
}
