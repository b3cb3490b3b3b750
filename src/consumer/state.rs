//! The observable state of an exercise's database: the rows of the exercise's state queries, in a
//! canonical order, and the difference between two states as missing and unexpected rows.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};
use serde::{Deserialize, Serialize};

/// One SQL value, as it appears in a state row or a bound parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SqlValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob { hex: String },
}

impl SqlValue {
    fn rank(&self) -> u8 {
        match self {
            SqlValue::Null => 0,
            SqlValue::Integer(_) | SqlValue::Real(_) => 1,
            SqlValue::Text(_) => 2,
            SqlValue::Blob { .. } => 3,
        }
    }

    /// SQLite's own ordering of values (NULL, numbers, text, blobs), total for sorting.
    pub fn total_cmp(&self, other: &SqlValue) -> Ordering {
        match (self, other) {
            (SqlValue::Integer(a), SqlValue::Integer(b)) => a.cmp(b),
            (SqlValue::Integer(a), SqlValue::Real(b)) => (*a as f64).total_cmp(b),
            (SqlValue::Real(a), SqlValue::Integer(b)) => a.total_cmp(&(*b as f64)),
            (SqlValue::Real(a), SqlValue::Real(b)) => a.total_cmp(b),
            (SqlValue::Text(a), SqlValue::Text(b)) => a.cmp(b),
            (SqlValue::Blob { hex: a }, SqlValue::Blob { hex: b }) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    fn from_ref(value: ValueRef<'_>) -> SqlValue {
        match value {
            ValueRef::Null => SqlValue::Null,
            ValueRef::Integer(i) => SqlValue::Integer(i),
            ValueRef::Real(r) => SqlValue::Real(r),
            ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => SqlValue::Blob { hex: hex::encode(b) },
        }
    }
}

impl std::fmt::Display for SqlValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SqlValue::Null => write!(f, "NULL"),
            SqlValue::Integer(i) => write!(f, "{i}"),
            SqlValue::Real(r) => write!(f, "{r}"),
            SqlValue::Text(t) => write!(f, "'{}'", t.replace('\'', "''")),
            SqlValue::Blob { hex } => write!(f, "x'{hex}'"),
        }
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

pub type Row = Vec<SqlValue>;

/// Observable state: for each state query (by name), its rows sorted canonically.
pub type State = BTreeMap<String, Vec<Row>>;

/// One of the exercise's state queries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateQuery {
    /// Name shown in reports, usually the table's name.
    pub name: String,
    pub sql: String,
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

/// Reads the observable state of the database at `path` (read-only, unhardened: these queries are
/// the teacher's).
pub fn read_state(path: &Path, queries: &[StateQuery]) -> rusqlite::Result<State> {
    read_state_from(&open_observer(path)?, queries)
}

/// A read-only connection for reading a database's state.
pub fn open_observer(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
}

pub fn read_state_from(conn: &Connection, queries: &[StateQuery]) -> rusqlite::Result<State> {
    let mut state = State::new();
    for query in queries {
        let mut stmt = conn.prepare_cached(&query.sql)?;
        let columns = stmt.column_count();
        let mut rows: Vec<Row> = stmt
            .query_map([], |row| (0..columns).map(|i| row.get_ref(i).map(SqlValue::from_ref)).collect())?
            .collect::<rusqlite::Result<_>>()?;
        rows.sort_by(cmp_rows);
        state.insert(query.name.clone(), rows);
    }
    Ok(state)
}

/// The rows in which `actual` differs from `expected`, per state query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableDiff {
    pub table: String,
    /// Rows the expected state has and the actual one lacks.
    pub missing: Vec<Row>,
    /// Rows the actual state has and the expected one does not.
    pub unexpected: Vec<Row>,
}

/// Multiset difference of two states; empty when they are equal.
pub fn diff(actual: &State, expected: &State) -> Vec<TableDiff> {
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
