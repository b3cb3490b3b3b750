//! The values, rows and states a consumer report shows: what the exercise's state queries read, and
//! how two states differ. Plain data; reading them from a database is the consumer grader's part
//! (`consumer::state`).

use std::cmp::Ordering;
use std::collections::BTreeMap;

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
    pub(crate) fn total_cmp(&self, other: &SqlValue) -> Ordering {
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

pub type Row = Vec<SqlValue>;

/// Observable state: for each state query (by name), its rows sorted canonically.
pub type State = BTreeMap<String, Vec<Row>>;

/// The rows in which `actual` differs from `expected`, per state query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableDiff {
    pub table: String,
    /// Rows the expected state has and the actual one lacks.
    pub missing: Vec<Row>,
    /// Rows the actual state has and the expected one does not.
    pub unexpected: Vec<Row>,
}
