//! A consumer exercise as the teacher wrote it (`[consumer]` in `exercise.toml`, `schema.sql`, the
//! solutions and mutants), loaded and validated, with what every grading of it shares: the database
//! template built from the schema once, and the oracle (the reference solution's states without
//! faults), computed once.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde::Deserialize;

use super::state::{State, StateQuery, read_state_from};
use crate::exercise::{ExerciseError, parse_section, read_file};
use crate::limits::Limits;

/// `[consumer]` in `exercise.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConsumerSection {
    /// The exported function the harness calls.
    #[serde(default = "default_entry")]
    entry: String,
    /// The schema with its seed rows.
    #[serde(default = "default_schema")]
    schema: String,
    /// The reference solution: the oracle.
    reference: String,
    /// A folder of further solutions that must pass (the reference may live there too).
    #[serde(default = "default_solutions")]
    solutions: String,
    /// A folder of wrong solutions; each declares the check it must fail.
    #[serde(default = "default_mutants")]
    mutants: String,
    /// The observable state: named SQL queries.
    state: Vec<StateQuery>,
    messages: MessagesSection,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MessagesSection {
    /// A message the consumer has never seen.
    fresh: serde_json::Value,
    /// The same body as `fresh` under a new id: a real second effect.
    same_body: serde_json::Value,
    /// A message whose effect violates a constraint of the schema.
    violation: serde_json::Value,
    /// Further messages for the at-least-once schedules (besides fresh, same_body and violation).
    #[serde(default)]
    batch: Vec<serde_json::Value>,
}

fn default_entry() -> String {
    "verarbeite".into()
}
fn default_schema() -> String {
    "schema.sql".into()
}
fn default_solutions() -> String {
    "solutions".into()
}
fn default_mutants() -> String {
    "mutants".into()
}

/// The most messages a schedule batch may have (each schedule delivers every one, some repeatedly).
pub const BATCH_MESSAGES_MAX: usize = 12;

/// The messages the checks deliver.
#[derive(Debug, Clone)]
pub struct Messages {
    pub fresh: Arc<serde_json::Value>,
    pub same_body: Arc<serde_json::Value>,
    pub violation: Arc<serde_json::Value>,
    /// The batch the at-least-once schedules send: fresh, same_body, violation and `batch`, each id
    /// once.
    pub batch: Vec<Arc<serde_json::Value>>,
}

#[derive(Debug)]
pub struct ConsumerExercise {
    pub entry: String,
    pub reference_path: PathBuf,
    pub reference: Vec<u8>,
    pub solutions_dir: PathBuf,
    pub mutants_dir: PathBuf,
    pub state_queries: Vec<StateQuery>,
    pub messages: Messages,
    /// The tables of the schema: the only ones a consumer may touch.
    pub tables: Arc<[String]>,
    /// The database file right after `schema.sql`, copied for every run.
    pub template: Vec<u8>,
    /// The observable state of the template.
    pub initial_state: State,
    pub(crate) oracle: OnceLock<Result<super::Oracle, String>>,
}

impl ConsumerExercise {
    pub fn load(dir: &Path, section: toml::Table, _limits: &Limits) -> Result<Self, ExerciseError> {
        let section: ConsumerSection = parse_section(dir, section, "consumer")?;
        let toml_path = dir.join(crate::exercise::EXERCISE_FILE);
        let invalid = |message: String| ExerciseError::Invalid { path: toml_path.clone(), message };
        if section.state.is_empty() {
            return Err(invalid("[consumer] needs at least one [[consumer.state]] query".into()));
        }
        let messages = Messages {
            fresh: Arc::new(check_message(&section.messages.fresh, "fresh").map_err(invalid)?),
            same_body: Arc::new(check_message(&section.messages.same_body, "same_body").map_err(invalid)?),
            violation: Arc::new(check_message(&section.messages.violation, "violation").map_err(invalid)?),
            batch: Vec::new(),
        };
        let mut messages = messages;
        messages.batch = vec![
            Arc::clone(&messages.fresh),
            Arc::clone(&messages.same_body),
            Arc::clone(&messages.violation),
        ];
        for (index, extra) in section.messages.batch.iter().enumerate() {
            let extra = check_message(extra, &format!("batch[{index}]")).map_err(invalid)?;
            if messages.batch.iter().any(|m| m.get("id") == extra.get("id")) {
                return Err(invalid(format!(
                    "[consumer.messages] batch[{index}] repeats the id {}",
                    extra["id"]
                )));
            }
            messages.batch.push(Arc::new(extra));
        }
        if messages.batch.len() > BATCH_MESSAGES_MAX {
            return Err(invalid(format!("[consumer.messages] at most {BATCH_MESSAGES_MAX} messages in all")));
        }
        if messages.fresh.get("id") == messages.same_body.get("id") {
            return Err(invalid("[consumer.messages] same_body must have another id than fresh".into()));
        }
        if messages.fresh.get("body") != messages.same_body.get("body") {
            return Err(invalid("[consumer.messages] same_body must have the same body as fresh".into()));
        }
        let schema_path = dir.join(&section.schema);
        let schema = read_file(&schema_path)?;
        let (template, tables, initial_state) = build_template(&schema, &section.state)
            .map_err(|message| ExerciseError::Invalid { path: schema_path.clone(), message })?;
        let reference_path = dir.join(&section.reference);
        let reference = std::fs::read(&reference_path)
            .map_err(|source| ExerciseError::Io { path: reference_path.clone(), source })?;
        Ok(ConsumerExercise {
            entry: section.entry,
            reference_path,
            reference,
            solutions_dir: dir.join(section.solutions),
            mutants_dir: dir.join(section.mutants),
            state_queries: section.state,
            messages,
            tables: tables.into(),
            template,
            initial_state,
            oracle: OnceLock::new(),
        })
    }
}

fn check_message(value: &serde_json::Value, name: &str) -> Result<serde_json::Value, String> {
    let ok = value.as_object().is_some_and(|m| m.contains_key("id") && m.contains_key("body"));
    if ok {
        Ok(value.clone())
    } else {
        Err(format!(
            "[consumer.messages] {name} must be a table with \"id\" and \"body\", like {{ id = 7, body = {{ ... }} }}"
        ))
    }
}

/// Applies the schema to a new database file and returns its bytes, its tables and its state.
fn build_template(schema: &str, queries: &[StateQuery]) -> Result<(Vec<u8>, Vec<String>, State), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let path = dir.path().join("template.db");
    let conn = rusqlite::Connection::open(&path).map_err(|e| e.to_string())?;
    conn.execute_batch("PRAGMA journal_mode = DELETE;").map_err(|e| e.to_string())?;
    conn.execute_batch(schema).map_err(|e| format!("the schema does not apply: {e}"))?;
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .and_then(|mut stmt| stmt.query_map([], |row| row.get(0))?.collect())
        .map_err(|e| e.to_string())?;
    if tables.is_empty() {
        return Err("the schema creates no table".into());
    }
    let state =
        read_state_from(&conn, queries).map_err(|e| format!("a [[consumer.state]] query fails: {e}"))?;
    conn.close().map_err(|(_, e)| e.to_string())?;
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    Ok((bytes, tables, state))
}
