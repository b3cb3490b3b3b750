//! What each state query of a consumer exercise shows: the ids the consumer remembered (its dedup
//! table, the lesson's `gesehen`) or its effect (the points credited, the stock taken, a mail sent).
//! An exercise may declare a query's role; otherwise it is read from the reference solution: a
//! query that gains a row holding the fresh message's id remembers ids, any other query that the
//! fresh message changes shows the effect. A report speaks of "the id remembered, the effect
//! missing" only through these roles.

use serde::{Deserialize, Serialize};

use super::state::{SqlValue, State};

/// The role of a state query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The ids of processed messages (a dedup table, an offset).
    Memory,
    /// What processing a message brings about.
    Effect,
}

impl Role {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::Memory => "memory",
            Role::Effect => "effect",
        }
    }
}

/// One state query with its role and the table it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryRole {
    /// The query's name (as the report's states name it).
    pub name: String,
    /// The table the query reads (its first `FROM`), lowercase; empty when none is found.
    pub table: String,
    pub role: Role,
}

/// The roles of an exercise's state queries (queries that the fresh message leaves unchanged and
/// that declare no role have none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roles {
    pub queries: Vec<QueryRole>,
}

impl Roles {
    /// Roles from the queries (`name`, `sql`, declared role), the initial state, the reference's
    /// state after the fresh message, and that message's id.
    pub(crate) fn infer(
        queries: &[(&str, &str, Option<Role>)],
        initial: &State,
        after_fresh: &State,
        fresh_id: &serde_json::Value,
    ) -> Roles {
        let mut roles = Vec::new();
        for &(name, sql, declared) in queries {
            let before = initial.get(name).map(Vec::as_slice).unwrap_or_default();
            let after = after_fresh.get(name).map(Vec::as_slice).unwrap_or_default();
            let role = declared.or_else(|| {
                if before == after {
                    return None;
                }
                let added = after.iter().filter(|row| !before.contains(row));
                let holds_id = |row: &Vec<SqlValue>| row.iter().any(|v| same_id(v, fresh_id));
                Some(if added.clone().any(holds_id) { Role::Memory } else { Role::Effect })
            });
            if let Some(role) = role {
                roles.push(QueryRole { name: name.to_string(), table: read_table(sql), role });
            }
        }
        Roles { queries: roles }
    }

    /// The names of the queries with `role`.
    pub(crate) fn names(&self, role: Role) -> Vec<String> {
        self.queries.iter().filter(|q| q.role == role).map(|q| q.name.clone()).collect()
    }

    /// The role of the table `table` (as a statement names it), if a query reads it.
    pub(crate) fn of_table(&self, table: &str) -> Option<Role> {
        let table = table.to_ascii_lowercase();
        self.queries.iter().find(|q| q.table == table).map(|q| q.role)
    }
}

fn same_id(value: &SqlValue, id: &serde_json::Value) -> bool {
    match (value, id) {
        (SqlValue::Integer(v), serde_json::Value::Number(n)) => n.as_i64() == Some(*v),
        (SqlValue::Text(v), serde_json::Value::String(s)) => v == s,
        (SqlValue::Text(v), serde_json::Value::Number(n)) => *v == n.to_string(),
        _ => false,
    }
}

/// The words of `sql` outside quotes, lowercase (identifiers in double quotes or brackets kept as
/// words without their quotes).
fn words(sql: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in sql.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                if q != '\'' {
                    words.push(std::mem::take(&mut word));
                }
            }
            Some('\'') => {}
            Some(_) => word.push(c.to_ascii_lowercase()),
            None if c == '\'' || c == '"' || c == '`' => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                quote = Some(c);
            }
            None if c == '[' => quote = Some(']'),
            None if c.is_alphanumeric() || c == '_' || c == '.' => word.push(c.to_ascii_lowercase()),
            None => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A table name without its schema (`main.punkte` → `punkte`).
fn bare(name: &str) -> String {
    name.rsplit('.').next().unwrap_or(name).to_string()
}

/// The table a query reads: the word after its first `FROM`.
pub(crate) fn read_table(sql: &str) -> String {
    let words = words(sql);
    words.iter().position(|w| w == "from").and_then(|i| words.get(i + 1)).map(|t| bare(t)).unwrap_or_default()
}

/// The table a statement writes: `INSERT [OR …] INTO t`, `REPLACE INTO t`, `UPDATE [OR …] t`,
/// `DELETE FROM t`; `None` for any other statement.
pub(crate) fn written_table(sql: &str) -> Option<String> {
    let words = words(sql);
    let first = words.first()?.as_str();
    let after = |keyword: &str| words.iter().position(|w| w == keyword).and_then(|i| words.get(i + 1));
    let table = match first {
        "insert" | "replace" => after("into"),
        "delete" => after("from"),
        "update" => {
            let next = words.get(1)?;
            if next == "or" { words.get(3) } else { Some(next) }
        }
        _ => None,
    }?;
    Some(bare(table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_of_statements_and_queries_are_read_outside_quotes() {
        assert_eq!(written_table("INSERT INTO gesehen (msg_id) VALUES (?)").as_deref(), Some("gesehen"));
        assert_eq!(written_table("insert or ignore into \"Gesehen\" VALUES (1)").as_deref(), Some("gesehen"));
        assert_eq!(written_table("UPDATE OR ROLLBACK punkte SET stand = 1").as_deref(), Some("punkte"));
        assert_eq!(written_table("UPDATE main.punkte SET s = 'from x'").as_deref(), Some("punkte"));
        assert_eq!(written_table("DELETE FROM [lager] WHERE 1").as_deref(), Some("lager"));
        assert_eq!(written_table("SELECT 1 FROM gesehen"), None);
        assert_eq!(written_table("COMMIT"), None);
        assert_eq!(read_table("SELECT kunde, stand FROM punkte ORDER BY 1"), "punkte");
    }

    #[test]
    fn a_query_that_gains_the_fresh_id_remembers_and_one_that_changes_otherwise_is_the_effect() {
        let state = |rows: &[(&str, Vec<Vec<SqlValue>>)]| -> State {
            rows.iter().map(|(n, r)| (n.to_string(), r.clone())).collect()
        };
        let initial = state(&[
            ("punkte", vec![vec![SqlValue::Text("anna".into()), SqlValue::Integer(100)]]),
            ("gesehen", vec![]),
            ("log", vec![]),
        ]);
        let after = state(&[
            ("punkte", vec![vec![SqlValue::Text("anna".into()), SqlValue::Integer(150)]]),
            ("gesehen", vec![vec![SqlValue::Integer(7)]]),
            ("log", vec![]),
        ]);
        let queries = [
            ("punkte", "SELECT kunde, stand FROM punkte", None),
            ("gesehen", "SELECT msg_id FROM gesehen", None),
            ("log", "SELECT * FROM log", Some(Role::Effect)),
        ];
        let roles = Roles::infer(&queries, &initial, &after, &serde_json::json!(7));
        assert_eq!(roles.names(Role::Memory), ["gesehen"]);
        assert_eq!(roles.names(Role::Effect), ["punkte", "log"], "a declared role counts unchanged");
        assert_eq!(roles.of_table("PUNKTE"), Some(Role::Effect));
        assert_eq!(roles.of_table("other"), None);
    }
}
