//! Invariants an exercise declares as data (`[[consumer.invariants]]`): a name, an SQL query that
//! returns the rows violating it (none: it holds) over the run's tables and the outside services'
//! recorded calls ([`super::world::MAILS_TABLE`]), and a sentence in German and English. The
//! harness evaluates every invariant on every state it reads; the check during which one is first
//! violated fails with the invariant's sentence and the rows that violate it.

use serde::Deserialize;

use crate::limits::{GUEST_TEXT_BYTES_MAX, INVARIANT_ROWS_SHOWN};
use crate::report::consumer::clip;
use crate::text::Text;

/// `[[consumer.invariants]]`: one invariant.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invariant {
    /// Its name in the report, in lower case words joined by `-` (`mail-at-most-once`).
    pub name: String,
    /// A query returning the rows that violate it; it holds when there is none.
    pub violations: String,
    /// What must hold, said to a student.
    pub text: Text,
}

/// An invariant found violated, with the first rows that violate it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    pub name: String,
    pub text: Text,
    /// The violating rows, each as its values joined by `, ` (at most [`INVARIANT_ROWS_SHOWN`]).
    pub rows: Vec<String>,
}

impl Invariant {
    /// The problem with the declaration, if it has one (the query is checked when the template is
    /// built).
    pub(crate) fn problem(&self) -> Option<String> {
        let well_named = !self.name.is_empty()
            && self.name.len() <= 64
            && self.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !well_named {
            return Some(format!(
                "[[consumer.invariants]] name {:?}: lower case letters, digits and '-', at most 64",
                self.name
            ));
        }
        (self.text.de.trim().is_empty() || self.text.en.trim().is_empty())
            .then(|| format!("[[consumer.invariants]] {}: text needs de and en", self.name))
    }
}

/// Runs every invariant on `conn`; the first violated one, if any.
pub(crate) fn first_violation(
    conn: &rusqlite::Connection,
    invariants: &[Invariant],
) -> rusqlite::Result<Option<Violation>> {
    for invariant in invariants {
        let mut stmt = conn.prepare_cached(&invariant.violations)?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([])?;
        let mut shown = Vec::new();
        while let Some(row) = rows.next()? {
            if shown.len() == INVARIANT_ROWS_SHOWN {
                break;
            }
            let values: Vec<String> = (0..columns)
                .map(|i| match row.get_ref(i) {
                    Ok(rusqlite::types::ValueRef::Null) | Err(_) => "NULL".to_string(),
                    Ok(rusqlite::types::ValueRef::Integer(n)) => n.to_string(),
                    Ok(rusqlite::types::ValueRef::Real(x)) => x.to_string(),
                    Ok(rusqlite::types::ValueRef::Text(t)) => {
                        format!("'{}'", clip(&String::from_utf8_lossy(t), GUEST_TEXT_BYTES_MAX / 8))
                    }
                    Ok(rusqlite::types::ValueRef::Blob(b)) => format!("<{} bytes>", b.len()),
                })
                .collect();
            shown.push(values.join(", "));
        }
        if !shown.is_empty() {
            return Ok(Some(Violation {
                name: invariant.name.clone(),
                text: invariant.text.clone(),
                rows: shown,
            }));
        }
    }
    Ok(None)
}

impl Violation {
    /// The failure text: which invariant, what it says, the rows that break it.
    pub(crate) fn describe(&self) -> Text {
        let rows = self.rows.iter().map(|r| format!("({r})")).collect::<Vec<_>>().join(", ");
        let name = &self.name;
        Text {
            de: format!("Die Invariante „{name}“ gilt nicht: {} Verletzt von: {rows}.", self.text.de.trim()),
            en: format!(
                "The invariant \"{name}\" does not hold: {} Violated by: {rows}.",
                self.text.en.trim()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_violated_invariant_is_found_with_its_rows() {
        let conn = rusqlite::Connection::open_in_memory().expect("open");
        conn.execute_batch("CREATE TABLE b (id INTEGER); INSERT INTO b VALUES (1), (2), (2);")
            .expect("schema");
        let holds = Invariant {
            name: "positive".into(),
            violations: "SELECT id FROM b WHERE id <= 0".into(),
            text: Text { de: "Ids sind positiv.".into(), en: "Ids are positive.".into() },
        };
        let broken = Invariant {
            name: "unique".into(),
            violations: "SELECT id, count(*) FROM b GROUP BY id HAVING count(*) > 1".into(),
            text: Text { de: "Jede Id einmal.".into(), en: "Each id once.".into() },
        };
        assert_eq!(first_violation(&conn, std::slice::from_ref(&holds)).expect("runs"), None);
        let found = first_violation(&conn, &[holds, broken]).expect("runs").expect("violated");
        assert_eq!(found.rows, vec!["2, 2".to_string()]);
        assert!(found.describe().en.contains("\"unique\" does not hold: Each id once. Violated by: (2, 2)."));
        let bad = Invariant { name: "Groß".into(), ..found_invariant() };
        assert!(bad.problem().is_some());
    }

    fn found_invariant() -> Invariant {
        Invariant {
            name: "x".into(),
            violations: "SELECT 1".into(),
            text: Text { de: "a".into(), en: "b".into() },
        }
    }
}
