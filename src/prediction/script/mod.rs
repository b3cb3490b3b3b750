//! Scenario scripts: the sandboxed Rhai layer over [`crate::sim`]. A teacher writes each prediction
//! exercise as a short script; its value is the expected answer. The script sees the exercise's
//! parameters as constants and these functions (see `exercises/README.md`):
//!
//! - `Queue(visibility_timeout)` or `Queue(#{visibility_timeout: 3, max_receives: 5})`, with
//!   `q.send(body) -> id`, `q.receive()` / `q.receive("A")` (a map `#{id, body, attempts, versuche}`
//!   or `()`), `q.ack(id) -> bool`, `q.tick(n)`, `q.open()` / `q.offen()`, `q.dead_letters()`,
//!   `q.now()`, `q.note(de, en)`, `q.effect(de, en)` (a note that counts) and `q.effects()`;
//! - `Network(seed)` or `Network(seed, #{loss, duplicate, delay, max_delay})`, with `net.send(body)`
//!   and `net.deliver() -> [bodies]`;
//! - `Log(partitions)`, an event log, with `log.append(partition, body) -> offset` (or
//!   `log.append(body)`: the partition from the body as key), `log.poll(group, consumer)` (a map
//!   `#{partition, offset, body, deliveries, zustellungen}` or `()`), `log.commit(group, partition,
//!   offset) -> bool` (false: refused), `log.committed(group, partition)`, `log.crash(group,
//!   consumer)`, `log.redelivered(group)`, `log.received(group)`, `log.end(partition)`,
//!   `log.note(de, en)`, `log.effect(de, en)` and `log.effects()`;
//! - `explain(part, sim)`: the timeline of `sim` explains that part (by default every simulation
//!   explains every part);
//! - `publish(name, value)`: a value for the statement's `{{name}}` (a number, a text, a list, a map
//!   `#{de, en}`, or a network: its table of rolls).
//!
//! The script is compiled once per exercise and evaluated per variant under the limits of
//! [`crate::limits`] (operations, call depth, sizes); it has no input/output, no clock and no
//! randomness except the seeded network, so a variant always gives the same answer.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use rhai::packages::{
    BasicArrayPackage, BasicMapPackage, CorePackage, LogicPackage, MoreStringPackage, Package,
};
use rhai::{AST, Dynamic, Engine, EvalAltResult, OptimizationLevel, Scope};

use super::answer::Value;
use crate::limits;
use crate::sim::describe::{self, TimelineLine};
use crate::text::Text;

mod host;
mod log;
use host::{
    DEADLINE_CHECK_EVERY, DeadlineGuard, RecordingGuard, SimHandle, deadline_passed, register_network,
    register_queue, register_recording, to_value,
};

/// The values of an exercise's parameters for one variant, in declaration order.
pub(crate) type Params = Vec<(String, i64)>;

/// What is wrong with a scenario script; the message names the file, line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{location}: {message}")]
pub struct ScriptError {
    pub file: String,
    /// `:line:column`, when known.
    pub location: String,
    pub message: String,
}

/// One run of the script for one variant. The simulations' traces are kept as they are; their
/// bilingual timelines are written only when a report first needs one (most answers of a variant
/// are right, and most variants are never explained), then kept.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub answer: Value,
    /// Values for the statement.
    pub published: BTreeMap<String, Text>,
    /// Every simulation the run created, in creation order.
    sims: Vec<SimHandle>,
    /// The simulations the script bound to parts with `explain`.
    bindings: Vec<(String, SimHandle)>,
    timelines: OnceLock<Timelines>,
}

#[derive(Debug, Clone)]
struct Timelines {
    /// Every simulation's timeline, merged by tick.
    all: Vec<TimelineLine>,
    /// The timelines bound to parts, each merged by tick.
    by_part: BTreeMap<String, Vec<TimelineLine>>,
}

impl Outcome {
    fn timelines(&self) -> &Timelines {
        self.timelines.get_or_init(|| {
            let all = describe::merge(self.sims.iter().map(SimHandle::timeline));
            let mut grouped: BTreeMap<String, Vec<Vec<TimelineLine>>> = BTreeMap::new();
            for (part, sim) in &self.bindings {
                grouped.entry(part.clone()).or_default().push(sim.timeline());
            }
            let by_part = grouped.into_iter().map(|(part, lines)| (part, describe::merge(lines))).collect();
            Timelines { all, by_part }
        })
    }

    /// Every simulation's timeline, merged by tick.
    #[cfg(test)]
    pub(crate) fn timeline(&self) -> &[TimelineLine] {
        &self.timelines().all
    }

    /// The timeline that explains `part`: the simulations bound to it with `explain`, else all.
    pub(crate) fn timeline_for(&self, part: &str) -> &[TimelineLine] {
        let timelines = self.timelines();
        timelines.by_part.get(part).map(Vec::as_slice).unwrap_or(&timelines.all)
    }
}

/// A compiled scenario.
pub(crate) struct Scenario {
    file: String,
    engine: Engine,
    ast: AST,
    constraint: Option<AST>,
    /// The wall-clock backstop of one run ([`limits::SCRIPT_WALL_MS_MAX`]).
    wall_limit: Duration,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario").field("file", &self.file).finish_non_exhaustive()
    }
}

impl Scenario {
    /// Compiles `source` (and the optional parameter constraint) once. Unknown variables are
    /// compile errors, so a typo in a parameter name shows up at load time.
    pub(crate) fn compile(
        file: &str,
        source: &str,
        parameter_names: &[&str],
        constraint: Option<&str>,
    ) -> Result<Scenario, ScriptError> {
        if source.len() > limits::SCRIPT_BYTES_MAX {
            return Err(ScriptError {
                file: file.into(),
                location: String::new(),
                message: format!(
                    "the script has {} bytes, more than {}",
                    source.len(),
                    limits::SCRIPT_BYTES_MAX
                ),
            });
        }
        let engine = new_engine();
        let mut scope = Scope::new();
        for name in parameter_names {
            scope.push(name.to_string(), 0_i64);
        }
        let ast = engine.compile_with_scope(&scope, source).map_err(|e| ScriptError {
            file: file.into(),
            location: location(e.position()),
            message: e.err_type().to_string(),
        })?;
        let constraint = constraint
            .map(|c| {
                engine.compile_expression_with_scope(&scope, c).map_err(|e| ScriptError {
                    file: "exercise.toml".into(),
                    location: String::new(),
                    message: format!("[prediction] constraint: {e}"),
                })
            })
            .transpose()?;
        Ok(Scenario {
            file: file.into(),
            engine,
            ast,
            constraint,
            wall_limit: Duration::from_millis(limits::SCRIPT_WALL_MS_MAX),
        })
    }

    /// The same scenario with another wall-clock backstop (tests use zero to prove the backstop).
    #[cfg(test)]
    pub(crate) fn with_wall_limit(mut self, wall_limit: Duration) -> Scenario {
        self.wall_limit = wall_limit;
        self
    }

    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    fn scope(params: &Params) -> Scope<'static> {
        let mut scope = Scope::new();
        for (name, value) in params {
            scope.push_constant(name.clone(), *value);
        }
        scope
    }

    /// Whether the parameters satisfy the exercise's constraint (true without one).
    pub(crate) fn satisfies(&self, params: &Params) -> Result<bool, ScriptError> {
        let Some(constraint) = &self.constraint else { return Ok(true) };
        let _deadline = DeadlineGuard::install(self.wall_limit);
        let mut scope = Self::scope(params);
        self.engine.eval_ast_with_scope::<bool>(&mut scope, constraint).map_err(|e| ScriptError {
            file: "exercise.toml".into(),
            location: String::new(),
            message: format!("[prediction] constraint: {}", describe_eval_error(&e)),
        })
    }

    /// Runs the scenario for one variant.
    pub(crate) fn run(&self, params: &Params) -> Result<Outcome, ScriptError> {
        let guard = RecordingGuard::install();
        let _deadline = DeadlineGuard::install(self.wall_limit);
        let mut scope = Self::scope(params);
        let result = self.engine.eval_ast_with_scope::<Dynamic>(&mut scope, &self.ast);
        let recording = guard.take();
        let value = result.map_err(|e| ScriptError {
            file: self.file.clone(),
            location: location(e.position()),
            message: describe_eval_error(&e),
        })?;
        let answer = to_value(&value, 0).map_err(|message| ScriptError {
            file: self.file.clone(),
            location: String::new(),
            message: format!("the script's value is not a valid answer: {message}"),
        })?;
        Ok(Outcome {
            answer,
            published: recording.published,
            sims: recording.sims,
            bindings: recording.bindings,
            timelines: OnceLock::new(),
        })
    }
}

fn location(position: rhai::Position) -> String {
    match (position.line(), position.position()) {
        (Some(line), Some(column)) => format!(":{line}:{column}"),
        (Some(line), None) => format!(":{line}"),
        _ => String::new(),
    }
}

fn describe_eval_error(error: &EvalAltResult) -> String {
    match error.unwrap_inner() {
        EvalAltResult::ErrorTooManyOperations(_) => format!(
            "the script ran more than {} operations and was stopped (an endless loop?)",
            limits::SCRIPT_OPERATIONS_MAX
        ),
        EvalAltResult::ErrorStackOverflow(_) => format!(
            "the script nests function calls deeper than {} levels (endless recursion?)",
            limits::SCRIPT_CALL_LEVELS_MAX
        ),
        EvalAltResult::ErrorDataTooLarge(what, _) => format!(
            "{what} too large (limits: strings {} bytes, arrays {} items, maps {} entries)",
            limits::SCRIPT_STRING_BYTES_MAX,
            limits::SCRIPT_ARRAY_LEN_MAX,
            limits::SCRIPT_MAP_LEN_MAX
        ),
        EvalAltResult::ErrorTerminated(..) => format!(
            "the script ran longer than the wall-clock backstop of {} ms and was stopped \
             (each of its operations is very expensive: copying large strings or arrays?)",
            limits::SCRIPT_WALL_MS_MAX
        ),
        inner => {
            // Rhai appends the position, which the error's location already gives.
            let text = inner.to_string();
            let position = format!(" ({})", inner.position());
            text.strip_suffix(&position).map(str::to_string).unwrap_or(text)
        }
    }
}

fn new_engine() -> Engine {
    let mut engine = Engine::new_raw();
    // No clock (BasicTimePackage) and no floating-point maths library: answers must not depend on
    // the machine.
    engine.register_global_module(CorePackage::new().as_shared_module());
    engine.register_global_module(LogicPackage::new().as_shared_module());
    engine.register_global_module(BasicArrayPackage::new().as_shared_module());
    engine.register_global_module(BasicMapPackage::new().as_shared_module());
    engine.register_global_module(MoreStringPackage::new().as_shared_module());
    engine.set_optimization_level(OptimizationLevel::None);
    engine.set_strict_variables(true);
    engine.set_max_operations(limits::SCRIPT_OPERATIONS_MAX);
    engine.on_progress(|operations| {
        (operations % DEADLINE_CHECK_EVERY == 0 && deadline_passed()).then_some(Dynamic::UNIT)
    });
    engine.set_max_call_levels(limits::SCRIPT_CALL_LEVELS_MAX);
    engine.set_max_expr_depths(limits::SCRIPT_EXPR_DEPTH_MAX, limits::SCRIPT_FN_EXPR_DEPTH_MAX);
    engine.set_max_string_size(limits::SCRIPT_STRING_BYTES_MAX);
    engine.set_max_array_size(limits::SCRIPT_ARRAY_LEN_MAX);
    engine.set_max_map_size(limits::SCRIPT_MAP_LEN_MAX);
    engine.set_max_modules(0);
    engine.disable_symbol("eval");
    engine.disable_symbol("import");
    register_queue(&mut engine);
    register_network(&mut engine);
    log::register_log(&mut engine);
    register_recording(&mut engine);
    engine
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(source: &str, params: &[(&str, i64)]) -> Result<Outcome, ScriptError> {
        let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
        let scenario = Scenario::compile("test.rhai", source, &names, None)?;
        scenario.run(&params.iter().map(|(n, v)| (n.to_string(), *v)).collect())
    }

    #[test]
    fn the_value_is_the_answer() {
        let outcome =
            run("let q = Queue(t); q.send(\"x\"); let m = q.receive(); [m.versuche, q.offen()]", &[("t", 3)])
                .unwrap();
        assert_eq!(outcome.answer.render(), "[1, 1]");
        assert_eq!(outcome.timeline().len(), 3, "send, receive, offen");
    }

    #[test]
    fn endless_loop_is_stopped() {
        let err = run("loop { }", &[]).unwrap_err();
        assert!(err.message.contains("more than 500000 operations"), "{err}");
        assert!(err.to_string().starts_with("test.rhai:1:"), "{err}");
    }

    #[test]
    fn wall_clock_backstop_stops_expensive_operations() {
        // A script well inside the operation limit, run with a backstop that has already passed:
        // it is stopped at the first look at the clock, with its own message.
        let source = "let s = \"\"; for i in 0..5000 { s = \"x\" + i; } 1";
        let scenario = Scenario::compile("slow.rhai", source, &[], None).unwrap();
        assert!(scenario.run(&vec![]).is_ok(), "within the limits with the default backstop");
        let stopped = Scenario::compile("slow.rhai", source, &[], None)
            .unwrap()
            .with_wall_limit(Duration::ZERO)
            .run(&vec![])
            .unwrap_err();
        assert!(stopped.message.contains("wall-clock backstop of 2000 ms"), "{stopped}");
        assert!(stopped.to_string().starts_with("slow.rhai:1:"), "{stopped}");
    }

    #[test]
    fn endless_recursion_is_stopped() {
        let err = run("fn f(n) { f(n + 1) } f(0)", &[]).unwrap_err();
        assert!(err.message.contains("deeper than"), "{err}");
    }

    #[test]
    fn huge_data_is_stopped() {
        let err = run("let s = \"x\"; loop { s += s; }", &[]).unwrap_err();
        assert!(err.message.contains("too large"), "{err}");
        let err = run("let a = []; loop { a.push(1); }", &[]).unwrap_err();
        assert!(err.message.contains("too large"), "{err}");
    }

    #[test]
    fn unknown_variable_is_a_compile_error() {
        let err =
            Scenario::compile("s.rhai", "visibility_timout + 1", &["visibility_timeout"], None).unwrap_err();
        assert!(err.message.contains("visibility_timout"), "{err}");
        assert_eq!(err.location, ":1:1");
    }

    #[test]
    fn syntax_error_names_the_line() {
        let err = Scenario::compile("s.rhai", "let x = 1;\nlet y = ;", &[], None).unwrap_err();
        assert!(err.location.starts_with(":2:"), "{err}");
    }

    #[test]
    fn no_clock_no_floats_in_answers() {
        assert!(Scenario::compile("s.rhai", "timestamp()", &[], None).unwrap().run(&vec![]).is_err());
        let err = run("1.5", &[]).unwrap_err();
        assert!(err.message.contains("not a valid answer"), "{err}");
        let err = run("#{a: 1}", &[]).unwrap_err();
        assert!(err.message.contains("map"), "{err}");
    }

    #[test]
    fn explain_binds_a_timeline_to_a_part() {
        let outcome = run(
            "let a = Queue(2); let b = Queue(2); explain(\"eins\", a); a.send(\"m\"); b.send(\"n\"); b.send(\"o\"); 1",
            &[],
        )
        .unwrap();
        assert_eq!(outcome.timeline_for("eins").len(), 1);
        assert_eq!(outcome.timeline_for("zwei").len(), 3, "unbound parts get every simulation");
    }

    #[test]
    fn publish_values() {
        let outcome = run(
            "let n = Network(806); n.send(\"a\"); publish(\"tabelle\", n); publish(\"x\", 3); \
             publish(\"t\", #{de: \"ja\", en: \"yes\"}); publish(\"l\", [1, 2]); 0",
            &[],
        )
        .unwrap();
        assert!(outcome.published["tabelle"].de.contains("| a | t=0 | 244 | 204 | 706 | 2 | 181 | 3 |"));
        assert_eq!(outcome.published["x"], Text::same("3"));
        assert_eq!(outcome.published["t"], Text::new("ja", "yes"));
        assert_eq!(outcome.published["l"], Text::same("[1, 2]"));
    }

    #[test]
    fn bad_simulation_arguments_are_errors() {
        assert!(run("Queue(0)", &[]).unwrap_err().message.contains("at least 1"));
        assert!(run("Queue(-1)", &[]).unwrap_err().message.contains("negative"));
        assert!(
            run("Queue(#{visibility_timeout: 2, foo: 1})", &[])
                .unwrap_err()
                .message
                .contains("unknown option")
        );
        assert!(run("Network(1, #{loss: 2000})", &[]).unwrap_err().message.contains("per mille"));
        assert!(run("let q = Queue(1); q.tick(-2)", &[]).unwrap_err().message.contains("negative"));
    }

    #[test]
    fn the_log_resumes_from_the_committed_offset_and_refuses_commits_out_of_range() {
        let script = "let log = Log(1); for i in 0..3 { log.append(0, `b-${i}`); }
            let a = log.poll(\"statistik\", \"S1\"); log.commit(\"statistik\", 0, a.offset + 1);
            log.poll(\"statistik\", \"S1\"); log.crash(\"statistik\", \"S1\");
            let b = log.poll(\"statistik\", \"S1\");
            [log.committed(\"statistik\", 0), b.offset, b.zustellungen, log.redelivered(\"statistik\"),
             log.commit(\"statistik\", 0, 99), log.commit(\"statistik\", 0, -1)]";
        let outcome = run(script, &[]).expect("runs");
        assert_eq!(outcome.answer.render(), "[1, 1, 2, 1, False, False]");
        assert!(outcome.timeline().iter().any(|l| l.text.de.contains("stürzt ab")));
        assert!(run("Log(0)", &[]).unwrap_err().message.contains("partitions of a log"));
        assert!(run("Log(1).append(3, 1)", &[]).unwrap_err().message.contains("does not exist"));
    }

    #[test]
    fn hostile_logs_end_with_a_named_limit() {
        let flood = "let log = Log(1); log.append(0, 1); for i in 0..1000000 { log.commit(\"g\", 0, 1); } 0";
        let err = run(flood, &[]).unwrap_err().message;
        assert!(err.contains("more than 10000 events") || err.contains("operations"), "{err}");
        let huge = "let log = Log(1); let s = \"x\"; for i in 0..20 { s += s; } log.append(0, s)";
        assert!(run(huge, &[]).unwrap_err().message.contains("ength"), "strings are bounded");
        let odd = "let log = Log(2); log.append(1, 1);
            [log.commit(\"g\", 1, 9223372036854775807), log.commit(\"g\", -1, 0), log.commit(\"g\", 1, -9223372036854775808)]";
        assert_eq!(run(odd, &[]).expect("refusals are answers").answer.render(), "[False, False, False]");
        let name = format!("Log(1).poll(\"{}\", \"k\")", "g".repeat(65));
        assert!(run(&name, &[]).unwrap_err().message.contains("length of a group name"));
        assert!(run("Log(65)", &[]).unwrap_err().message.contains("partitions of a log"));
    }

    #[test]
    fn constraint() {
        let s = Scenario::compile("s.rhai", "a", &["a", "b"], Some("a < b")).unwrap();
        assert!(s.satisfies(&vec![("a".into(), 1), ("b".into(), 2)]).unwrap());
        assert!(!s.satisfies(&vec![("a".into(), 3), ("b".into(), 2)]).unwrap());
        assert!(Scenario::compile("s.rhai", "a", &["a"], Some("a <")).is_err());
    }
}
