//! A consumer exercise as the teacher wrote it (`[consumer]` in `exercise.toml`, `schema.sql`, the
//! solutions and mutants), loaded and validated, with what every grading of it shares: the database
//! template built from the schema once, and the oracle (the reference solution's states without
//! faults), computed once.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use serde::Deserialize;

use super::invariants::Invariant;
use super::state::{State, StateQuery, read_state_from};
use super::world::WorldConfig;
use crate::exercise::{ExerciseError, FolderFiles, parse_section};
use crate::limits::{
    BATCH_MESSAGES_MAX, Limits, SCHEMA_DB_BYTES_MAX, SCHEMA_SQL_STEPS_MAX, SQL_VALUE_BYTES_MAX,
};
use crate::report::state::SqlValue;

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
    /// The languages whose source this exercise accepts besides modules (default: every language
    /// the grader interprets; `[]` accepts modules only).
    #[serde(default)]
    languages: Option<Vec<String>>,
    /// A file of the exercise's own kinds of mistake, beside the lesson's (`mistakes.toml`).
    #[serde(default)]
    mistakes: Option<String>,
    /// The mistake each kind of mutant makes, in one line per language, by the mutant's file name
    /// without its extension (`never-commits` for `never-commits.js`, `.py`, `.wat`): what the
    /// teachers' analytics call a bucket of submissions that behave like it.
    #[serde(default)]
    mutant_descriptions: std::collections::BTreeMap<String, crate::text::Text>,
    /// States the teacher pins, checked against the oracle by `pruefstein check`.
    #[serde(default)]
    expect: Option<ExpectSection>,
    /// The folder's own texts per check (`[consumer.checks.<check>]`).
    #[serde(default)]
    checks: std::collections::BTreeMap<String, super::folder_texts::CheckTexts>,
    /// The outside services the consumer talks to (`[consumer.world]`).
    #[serde(default)]
    world: WorldConfig,
    /// What must hold in every state, as data (`[[consumer.invariants]]`).
    #[serde(default)]
    invariants: Vec<Invariant>,
    /// A second entry the harness runs as a relay of its own before it reads a state.
    #[serde(default)]
    relay: Option<String>,
}

/// `[consumer.expect]`: what the teacher knows the reference must leave.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectSection {
    /// The state after the fresh message: state query name to its rows (a list of lists).
    after_fresh: toml::Table,
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
    /// The reference's language when it is source (`.py`, `.js`, `.ts`), run on its interpreter;
    /// `None` for a module (`.wat`, `.wasm`).
    pub reference_language: Option<crate::submission::Language>,
    pub solutions_dir: PathBuf,
    pub mutants_dir: PathBuf,
    pub state_queries: Vec<StateQuery>,
    pub messages: Messages,
    /// The languages whose source this exercise accepts (`[consumer] languages`).
    pub languages: Vec<crate::submission::Language>,
    /// The tables of the schema: the only ones a consumer may touch.
    pub tables: Arc<[String]>,
    /// The database file right after `schema.sql`, copied for every run.
    pub template: Vec<u8>,
    /// The observable state of the template.
    pub initial_state: State,
    /// The kinds of mistake its reports name: the lesson's, with the exercise's own.
    pub mistakes: super::diagnose::mistakes::Mistakes,
    /// `[consumer.mutant_descriptions]`: one line per kind of mutant, by file stem.
    pub mutant_descriptions: std::collections::BTreeMap<String, crate::text::Text>,
    pub(crate) oracle: OnceLock<Result<super::oracle::Oracle, String>>,
    /// The folder's own texts per check, by the check's name.
    pub check_texts: std::collections::BTreeMap<String, super::folder_texts::CheckTexts>,
    /// The state after the fresh message as the teacher pinned it (`[consumer.expect] after_fresh`),
    /// only the queries named there; `check` compares the oracle's with it.
    pub expect_after_fresh: Option<State>,
    /// The outside services the consumer talks to.
    pub world: WorldConfig,
    /// What must hold in every state the harness reads.
    pub invariants: Vec<Invariant>,
    /// The relay's entry (`[consumer] relay`), run as an instance of its own before each state read.
    pub relay: Option<String>,
}

impl ConsumerExercise {
    /// The reference compiled under `limits` (the exercise's, with an interpreter's stack for a source
    /// reference): a module through the module cache, or source on its interpreter (whose module the
    /// cache keeps, as it keeps the oracle's states).
    pub(crate) fn compile_reference(
        &self,
        limits: &crate::limits::Limits,
    ) -> Result<super::process::CompiledConsumer, String> {
        let rejected = |r: crate::report::Rejection| {
            format!("the reference solution {} is rejected: {}", self.reference_path.display(), r.message.en)
        };
        let compiler = crate::exercise::Compiler::default();
        match self.reference_language {
            None => {
                let engine = crate::sandbox::engine_for(compiler, limits)?;
                super::process::CompiledConsumer::compile_trusted(
                    engine,
                    &self.reference,
                    limits,
                    &self.entry,
                )
                .map_err(rejected)
            }
            Some(language) => {
                let engine = super::interpreter::engine(limits.wasm_stack_bytes)?;
                let text = std::str::from_utf8(&self.reference).map_err(|_| {
                    format!("the reference solution {} is not UTF-8 text", self.reference_path.display())
                })?;
                super::process::CompiledConsumer::compile_source_in(
                    engine,
                    (language, text),
                    limits,
                    &self.entry,
                    &self.world,
                )
                .map_err(rejected)
            }
        }
        .and_then(|compiled| match &self.relay {
            Some(relay) => compiled.with_relay(relay, limits, &self.world).map_err(rejected),
            None => Ok(compiled),
        })
    }

    /// The compiled reference solution `oracle` keeps, compiled on first use (an oracle read
    /// from the module cache compiles it only when a schedule asks for a state it did not keep).
    pub(crate) fn compiled_reference<'o>(
        &self,
        oracle: &'o super::oracle::Oracle,
    ) -> Result<&'o super::process::CompiledConsumer, String> {
        oracle.reference.get_or_init(|| self.compile_reference(&oracle.limits)).as_ref().map_err(Clone::clone)
    }

    pub(crate) fn load(
        files: FolderFiles<'_>,
        section: toml::Table,
        _limits: &Limits,
    ) -> Result<Self, ExerciseError> {
        let mut section: ConsumerSection = parse_section(&files, section, "consumer")?;
        // Each problem points at the key it is about (or the nearest enclosing one that is written).
        let at = |keys: &[&str], message: String| {
            let mut candidates: Vec<&[&str]> = (1..=keys.len()).rev().map(|n| &keys[..n]).collect();
            candidates.push(&["consumer"]);
            files.error_at_key(&candidates, message)
        };
        if section.state.is_empty() {
            return Err(at(
                &["consumer", "state"],
                "[consumer] needs at least one [[consumer.state]] query".into(),
            ));
        }
        super::folder_texts::no_placeholders(&files)?;
        let relay = super::folder_texts::read_relay(section.relay.as_deref(), &section.entry, &at)?;
        let check_texts = super::folder_texts::read_check_texts(&section.checks, &at)?;
        check_world_and_invariants(&section, &at)?;
        let messages = read_messages(&section.messages, section.world.log.as_mut(), &at)?;
        if let Some(problem) = section.world.queue.as_ref().and_then(|q| q.unknown_id(&messages.batch)) {
            return Err(at(&["consumer", "world", "queue", "transient"], problem));
        }
        let expect_after_fresh = match &section.expect {
            None => None,
            Some(expect) => Some(
                pinned_state(&expect.after_fresh, &section.state)
                    .map_err(|(query, m)| at(&["consumer", "expect", "after_fresh", query.as_str()], m))?,
            ),
        };
        let schema_path = files.path(&section.schema);
        let schema = files.text(&section.schema).map_err(|e| {
            at(&["consumer", "schema"], format!("the schema {:?} cannot be read: {e}", section.schema))
        })?;
        let (template, tables, initial_state) = build_template(
            schema,
            &section.state,
            (&section.world, &section.invariants),
        )
        .map_err(|problem| match problem {
            TemplateProblem::Schema { line, column, message } => {
                ExerciseError::At { path: schema_path.clone(), line, column, message }
            }
            TemplateProblem::State(message) => at(&["consumer", "state"], message),
            TemplateProblem::Other(message) => ExerciseError::Invalid { path: schema_path.clone(), message },
        })?;
        let languages = match &section.languages {
            None => crate::submission::Language::ALL.to_vec(),
            Some(names) => names
                .iter()
                .map(|name| name.parse::<crate::submission::Language>())
                .collect::<Result<Vec<_>, String>>()
                .map_err(|e| at(&["consumer", "languages"], format!("[consumer] languages: {e}")))?,
        };
        let invariant_names: Vec<&str> = section.invariants.iter().map(|i| i.name.as_str()).collect();
        let mistakes = load_mistakes(&files, (section.mistakes.as_deref(), &invariant_names), &at)?;
        let reference_path = files.path(&section.reference);
        let reference = files.bytes(&section.reference).map(<[u8]>::to_vec).map_err(|e| {
            at(
                &["consumer", "reference"],
                format!("the reference solution {:?} cannot be read: {e}", section.reference),
            )
        })?;
        Ok(ConsumerExercise {
            entry: section.entry,
            reference_language: reference_path
                .extension()
                .and_then(|e| e.to_str())
                .and_then(crate::submission::Language::from_extension),
            reference_path,
            reference,
            solutions_dir: files.path(&section.solutions),
            mutants_dir: files.path(&section.mutants),
            state_queries: section.state,
            messages,
            languages,
            tables: tables.into(),
            template,
            initial_state,
            mistakes,
            mutant_descriptions: section.mutant_descriptions,
            oracle: OnceLock::new(),
            expect_after_fresh,
            check_texts,
            world: section.world,
            invariants: section.invariants,
            relay,
        })
    }
}

/// The kinds of mistake the exercise's reports name: the lesson's, with the folder's own file
/// (`mistakes`) beside them.
fn load_mistakes(
    files: &FolderFiles<'_>,
    (file, invariants): (Option<&str>, &[&str]),
    at: &dyn Fn(&[&str], String) -> ExerciseError,
) -> Result<super::diagnose::mistakes::Mistakes, ExerciseError> {
    let Some(file) = file else {
        return Ok(super::diagnose::mistakes::Mistakes::lesson().clone());
    };
    let path = files.path(file);
    let text = files.text(file).map_err(|e| {
        at(&["consumer", "mistakes"], format!("the kinds of mistake {file:?} cannot be read: {e}"))
    })?;
    let own = super::diagnose::mistakes::Mistakes::parse(text, invariants)
        .map_err(|message| ExerciseError::Invalid { path, message })?;
    Ok(super::diagnose::mistakes::Mistakes::with_exercise(own))
}

impl ConsumerExercise {
    /// The limits the reference runs under: `limits`, with an interpreter's stack for a source
    /// reference (its frames are larger than a compiled module's).
    pub(crate) fn reference_limits(&self, limits: &Limits) -> Limits {
        match self.reference_language {
            None => limits.clone(),
            Some(_) => Limits {
                wasm_stack_bytes: limits.wasm_stack_bytes.max(crate::limits::INTERPRETER_WASM_STACK_BYTES),
                ..limits.clone()
            },
        }
    }

    /// What each state query shows (declared, or read from the reference's state after the fresh
    /// message, `after_fresh`).
    pub(crate) fn roles(&self, after_fresh: &State) -> crate::report::roles::Roles {
        let queries: Vec<(&str, &str, Option<crate::report::roles::Role>)> =
            self.state_queries.iter().map(|q| (q.name.as_str(), q.sql.as_str(), q.role)).collect();
        let fresh_id = self.messages.fresh.get("id").cloned().unwrap_or_default();
        crate::report::roles::Roles::infer(&queries, &self.initial_state, after_fresh, &fresh_id)
    }
}

/// `[consumer.world]` and `[[consumer.invariants]]`, checked: a world the harness can simulate, at
/// most [`crate::limits::INVARIANTS_MAX`] invariants, each well-formed.
fn check_world_and_invariants(
    section: &ConsumerSection,
    at: &dyn Fn(&[&str], String) -> ExerciseError,
) -> Result<(), ExerciseError> {
    if let Some(problem) = section.world.problem() {
        return Err(at(&["consumer", "world"], problem));
    }
    if section.invariants.len() > crate::limits::INVARIANTS_MAX {
        return Err(at(
            &["consumer", "invariants"],
            format!(
                "at most {} [[consumer.invariants]] (limit \"invariants\")",
                crate::limits::INVARIANTS_MAX
            ),
        ));
    }
    if let Some(problem) = section.invariants.iter().find_map(Invariant::problem) {
        return Err(at(&["consumer", "invariants"], problem));
    }
    Ok(())
}

/// The messages of `[consumer.messages]`, checked: each a table with an id and a body, ids unique,
/// `same_body` the body of `fresh` under another id, at most [`BATCH_MESSAGES_MAX`] in all.
fn read_messages(
    section: &MessagesSection,
    log: Option<&mut super::world::log::LogConfig>,
    at: &impl Fn(&[&str], String) -> ExerciseError,
) -> Result<Messages, ExerciseError> {
    let message = |value: &serde_json::Value, name: &str| {
        check_message(value, name).map_err(|m| at(&["consumer", "messages", name], m))
    };
    let mut messages = Messages {
        fresh: Arc::new(message(&section.fresh, "fresh")?),
        same_body: Arc::new(message(&section.same_body, "same_body")?),
        violation: Arc::new(message(&section.violation, "violation")?),
        batch: Vec::new(),
    };
    messages.batch =
        vec![Arc::clone(&messages.fresh), Arc::clone(&messages.same_body), Arc::clone(&messages.violation)];
    for (index, extra) in section.batch.iter().enumerate() {
        let batch = ["consumer", "messages", "batch"];
        let extra = check_message(extra, &format!("batch[{index}]")).map_err(|m| at(&batch, m))?;
        if messages.batch.iter().any(|m| m.get("id") == extra.get("id")) {
            return Err(at(
                &batch,
                format!("[consumer.messages] batch[{index}] repeats the id {}", extra["id"]),
            ));
        }
        messages.batch.push(Arc::new(extra));
    }
    if messages.batch.len() > BATCH_MESSAGES_MAX {
        return Err(at(
            &["consumer", "messages", "batch"],
            format!("[consumer.messages] at most {BATCH_MESSAGES_MAX} messages in all"),
        ));
    }
    if messages.fresh.get("id") == messages.same_body.get("id") {
        return Err(at(
            &["consumer", "messages", "same_body"],
            "[consumer.messages] same_body must have another id than fresh".into(),
        ));
    }
    if messages.fresh.get("body") != messages.same_body.get("body") {
        return Err(at(
            &["consumer", "messages", "same_body"],
            "[consumer.messages] same_body must have the same body as fresh".into(),
        ));
    }
    let m = &mut messages; // on a log, each message is the record of a partition of its own
    super::world::log::place(log, &mut m.batch, [&mut m.fresh, &mut m.same_body, &mut m.violation])
        .map_err(|e| at(&["consumer", "world", "log"], e))?;
    Ok(messages)
}

/// A pinned state: for each named state query, its rows (a list of lists of numbers, texts and
/// booleans). A problem names the query it is about.
fn pinned_state(table: &toml::Table, queries: &[StateQuery]) -> Result<State, (String, String)> {
    let mut state = State::new();
    for (name, rows) in table {
        let problem = |message: String| (name.clone(), message);
        if !queries.iter().any(|q| &q.name == name) {
            let known: Vec<&str> = queries.iter().map(|q| q.name.as_str()).collect();
            return Err(problem(format!(
                "[consumer.expect] after_fresh names the state query {name:?}, which [[consumer.state]] does not declare (declared: {})",
                known.join(", ")
            )));
        }
        let shape = || {
            problem(format!(
                "[consumer.expect] after_fresh.{name} must be a list of rows, each a list of numbers and texts, like [[\"anna\", 150]]"
            ))
        };
        let rows = rows.as_array().ok_or_else(shape)?;
        let mut read = Vec::with_capacity(rows.len());
        for row in rows {
            let cells = row.as_array().ok_or_else(shape)?;
            let row: Option<Vec<SqlValue>> = cells
                .iter()
                .map(|cell| match cell {
                    toml::Value::Integer(i) => Some(SqlValue::Integer(*i)),
                    toml::Value::Float(f) => Some(SqlValue::Real(*f)),
                    toml::Value::String(t) => Some(SqlValue::Text(t.clone())),
                    toml::Value::Boolean(b) => Some(SqlValue::Integer(i64::from(*b))),
                    _ => None,
                })
                .collect();
            read.push(row.ok_or_else(shape)?);
        }
        super::state::sort_rows(&mut read);
        state.insert(name.clone(), read);
    }
    Ok(state)
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

/// Why the database template could not be built.
enum TemplateProblem {
    /// A statement of the schema fails at `line` and `column`.
    Schema {
        line: usize,
        column: usize,
        message: String,
    },
    /// A `[[consumer.state]]` query fails, or the schema creates no table.
    State(String),
    Other(String),
}

impl From<rusqlite::Error> for TemplateProblem {
    fn from(e: rusqlite::Error) -> Self {
        TemplateProblem::Other(e.to_string())
    }
}

/// Runs the schema statement by statement, so that a failing one is named with its line. Chunks end
/// at a `;` outside quotes and comments; a chunk SQLite calls incomplete (a trigger body) is joined
/// with the next.
fn apply_schema(conn: &rusqlite::Connection, schema: &str) -> Result<(), TemplateProblem> {
    let mut start = 0;
    let mut pending_start: Option<usize> = None;
    for end in statement_ends(schema) {
        let from = pending_start.unwrap_or(start);
        let chunk = &schema[from..end];
        start = end;
        if chunk.trim().trim_end_matches(';').trim().is_empty() || only_comments(chunk) {
            continue;
        }
        match conn.execute_batch(chunk) {
            Ok(()) => pending_start = None,
            Err(e) if e.to_string().contains("incomplete input") => pending_start = Some(from),
            Err(rusqlite::Error::SqlInputError { msg, offset, .. }) if offset >= 0 => {
                let (line, column) = crate::exercise::line_column(schema, from + offset as usize);
                return Err(TemplateProblem::Schema {
                    line,
                    column,
                    message: format!("the schema does not apply: {msg}"),
                });
            }
            Err(e) => {
                let (line, column) = crate::exercise::line_column(schema, from + code_start(chunk));
                return Err(TemplateProblem::Schema {
                    line,
                    column,
                    message: format!("the schema does not apply: {e}"),
                });
            }
        }
    }
    if let Some(from) = pending_start {
        let (line, _) = crate::exercise::line_column(schema, from + code_start(&schema[from..]));
        return Err(TemplateProblem::Schema {
            line,
            column: 1,
            message: "the schema ends inside a statement".into(),
        });
    }
    Ok(())
}

/// Byte offsets just after each `;` outside quotes and comments, and the end of the text.
fn statement_ends(sql: &str) -> Vec<usize> {
    let bytes = sql.as_bytes();
    let mut ends = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += 1;
                }
            }
            b'[' => {
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b';' => ends.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    ends.push(sql.len());
    ends
}

/// The offset of the first byte of a chunk that is neither whitespace nor in a `--` comment line.
fn code_start(chunk: &str) -> usize {
    let mut offset = 0;
    for line in chunk.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if !trimmed.is_empty() && !trimmed.starts_with("--") {
            return offset + (line.len() - trimmed.len());
        }
        offset += line.len();
    }
    0
}

/// True if a chunk holds nothing but whitespace and comments.
fn only_comments(chunk: &str) -> bool {
    chunk.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with("--") || l == ";"
    })
}

/// Applies the schema to a new in-memory database and returns its bytes (a database file image), its
/// tables and its state.
fn build_template(
    schema: &str,
    queries: &[StateQuery],
    (world, invariants): (&WorldConfig, &[Invariant]),
) -> Result<(Vec<u8>, Vec<String>, State), TemplateProblem> {
    // In memory: the template is a throwaway whose bytes are all that is kept (a file here cost an
    // fsync per schema statement, most of an exercise's load).
    let mut conn = rusqlite::Connection::open_in_memory()?;
    let stopped = bound_template(&mut conn)?;
    apply_schema(&conn, schema).map_err(|problem| name_template_limit(problem, &stopped))?;
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .and_then(|mut stmt| stmt.query_map([], |row| row.get(0))?.collect())?;
    if tables.is_empty() {
        return Err(TemplateProblem::Schema {
            line: 1,
            column: 1,
            message: "the schema creates no table".into(),
        });
    }
    if !world.is_empty() {
        super::world::create_observer_tables(&conn)?;
        // A log that keeps the offsets itself shows its initial ones (every partition at its first
        // offset) before anything ran, as it shows them to every later state.
        if world.log.as_ref().is_some_and(|l| l.offsets == super::world::log::OffsetStore::Broker) {
            super::world::log::show_to_observer(&conn, &mut super::world::World::new(world.clone()))?;
        }
    }
    let state = read_state_from(&conn, queries)
        .map_err(|e| TemplateProblem::State(format!("a [[consumer.state]] query fails: {e}")))
        .map_err(|problem| name_template_limit(problem, &stopped))?;
    if let Err(e) = super::invariants::first_violation(&conn, invariants) {
        let problem = TemplateProblem::State(format!("a [[consumer.invariants]] query fails: {e}"));
        return Err(name_template_limit(problem, &stopped));
    }
    let bytes = conn.serialize(rusqlite::MAIN_DB)?.to_vec();
    conn.close().map_err(|(_, e)| TemplateProblem::Other(e.to_string()))?;
    Ok((bytes, tables, state))
}

/// Bounds the template's connection: [`SCHEMA_SQL_STEPS_MAX`] VM steps in all, a file of at most
/// [`SCHEMA_DB_BYTES_MAX`], values of at most [`SQL_VALUE_BYTES_MAX`]. The flag says whether the
/// step limit stopped a statement.
fn bound_template(conn: &mut rusqlite::Connection) -> Result<Arc<AtomicBool>, TemplateProblem> {
    const GRANULARITY: i32 = 1_000;
    let page_size: i64 = conn.query_row("PRAGMA page_size", [], |row| row.get(0))?;
    let pages = SCHEMA_DB_BYTES_MAX / page_size.max(1) as u64;
    conn.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))?;
    let value_max = i32::try_from(SQL_VALUE_BYTES_MAX).unwrap_or(i32::MAX);
    conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, value_max)?;
    let stopped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stopped);
    let calls = AtomicU64::new(0);
    let max_calls = SCHEMA_SQL_STEPS_MAX.div_ceil(GRANULARITY as u64);
    conn.progress_handler(
        GRANULARITY,
        Some(move || {
            if calls.fetch_add(1, Ordering::Relaxed) + 1 > max_calls {
                flag.store(true, Ordering::Relaxed);
                return true;
            }
            false
        }),
    )?;
    Ok(stopped)
}

/// A template problem caused by one of the template's limits, said with the limit's name.
fn name_template_limit(problem: TemplateProblem, stopped: &AtomicBool) -> TemplateProblem {
    let limit = if stopped.load(Ordering::Relaxed) {
        format!(
            "building the database takes more than {SCHEMA_SQL_STEPS_MAX} SQLite steps (limit \
             SCHEMA_SQL_STEPS_MAX): a recursive query that never ends, or too many seed rows?"
        )
    } else {
        let message = match &problem {
            TemplateProblem::Schema { message, .. }
            | TemplateProblem::State(message)
            | TemplateProblem::Other(message) => message,
        };
        if message.contains("database or disk is full") {
            format!("the database grows beyond {SCHEMA_DB_BYTES_MAX} bytes (limit SCHEMA_DB_BYTES_MAX)")
        } else if message.contains("string or blob too big") {
            format!("a value is longer than {SQL_VALUE_BYTES_MAX} bytes (limit SQL_VALUE_BYTES_MAX)")
        } else {
            return problem;
        }
    };
    match problem {
        TemplateProblem::Schema { line, column, .. } => {
            TemplateProblem::Schema { line, column, message: limit }
        }
        TemplateProblem::State(_) => {
            TemplateProblem::State(format!("a [[consumer.state]] query fails: {limit}"))
        }
        TemplateProblem::Other(_) => TemplateProblem::Other(limit),
    }
}
