//! A consumer submission made ready to run: a module compiled and linked against ABI v1, or a
//! source file loaded once on its language's interpreter (a syntax error or a refused import
//! rejects it before any check runs); and the rejections that are the grader's fault.

use std::path::Path;
use std::sync::Arc;

use wasmtime::{Engine, InstancePre, Module, Store};

use crate::consumer::abi::{self, GuestState};
use crate::consumer::classify::classify;
use crate::consumer::guestdb::GuestDb;
use crate::limits::Limits;
use crate::report::Rejection;
use crate::sandbox::{self, ModuleContract};
use crate::text;
use crate::text::Text;

/// A module compiled and linked, ready to start instances cheaply.
pub struct CompiledConsumer {
    pub engine: Engine,
    pub module: Module,
    pub(super) pre: InstancePre<GuestState>,
    /// The same module linked for interleaved runs (statements wait for their turn).
    pub(super) pre_interleaved: InstancePre<GuestState>,
    pub(super) entry: String,
    /// For a source submission: the student's file, loaded into each instance of the interpreter.
    pub(super) source: Option<crate::consumer::interpreter::SourceFile>,
    /// The same submission with the exercise's relay as its entry ([`CompiledConsumer::with_relay`]).
    pub(super) relay: Option<Box<CompiledConsumer>>,
}

impl CompiledConsumer {
    pub fn compile(engine: &Engine, bytes: &[u8], limits: &Limits, entry: &str) -> Result<Self, Rejection> {
        let contract = ModuleContract { imports: abi::IMPORTS, entry };
        let module = sandbox::load_module(engine, bytes, limits, &contract)?;
        Self::link(engine, module, entry)
    }

    /// [`CompiledConsumer::compile`] for an exercise's reference solution, which Prüfstein trusts:
    /// compiled through the process's module cache where one is enabled.
    pub(crate) fn compile_trusted(
        engine: &Engine,
        bytes: &[u8],
        limits: &Limits,
        entry: &str,
    ) -> Result<Self, Rejection> {
        let contract = ModuleContract { imports: abi::IMPORTS, entry };
        let module = sandbox::load_trusted_module(engine, bytes, limits, &contract)?;
        Self::link(engine, module, entry)
    }

    fn link(engine: &Engine, module: Module, entry: &str) -> Result<Self, Rejection> {
        let link_error = |e: wasmtime::Error| Rejection {
            code: "link-error".into(),
            message: text!(
                "Das Modul lässt sich nicht mit ABI v1 verbinden: {e}",
                "The module cannot be linked against ABI v1: {e}",
                e = e
            ),
        };
        let pre = abi::linker(engine).instantiate_pre(&module).map_err(link_error)?;
        let pre_interleaved =
            abi::interleaving_linker(engine).instantiate_pre(&module).map_err(link_error)?;
        sandbox::image::prepare(&module).map_err(grader_fault)?;
        Ok(CompiledConsumer {
            engine: engine.clone(),
            module,
            pre,
            pre_interleaved,
            entry: entry.to_string(),
            source: None,
            relay: None,
        })
    }

    /// A consumer in an interpreted language: the language's interpreter guest (compiled once per
    /// engine) with `text` as the file it loads, `entry` the function it calls. The file is loaded
    /// once here, so that a syntax error or a refused import rejects the submission before any
    /// check runs.
    pub fn compile_source(
        engine: &Engine,
        language: crate::submission::Language,
        text: &str,
        limits: &Limits,
        entry: &str,
    ) -> Result<Self, Rejection> {
        let world = crate::consumer::world::WorldConfig::default();
        Self::compile_source_in(engine, (language, text), limits, entry, &world)
    }

    /// [`CompiledConsumer::compile_source`] for an exercise that declares outside services: the
    /// file is loaded where they exist (the guest sets up its `mail` module only then).
    pub(crate) fn compile_source_in(
        engine: &Engine,
        (language, text): (crate::submission::Language, &str),
        limits: &Limits,
        entry: &str,
        world: &crate::consumer::world::WorldConfig,
    ) -> Result<Self, Rejection> {
        // A leading byte-order mark is the encoding's signature, not code: CPython and Node drop it.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let submitted = language;
        let stripped;
        let (language, text) = match language {
            crate::submission::Language::TypeScript => {
                crate::consumer::interpreter::check_source(
                    crate::submission::Language::TypeScript,
                    text,
                    entry,
                )?;
                // The stripper runs once per submission: Winch, which compiles it fastest.
                let stripper_engine = crate::sandbox::engine_with_stack(
                    crate::exercise::Compiler::Winch,
                    crate::limits::INTERPRETER_WASM_STACK_BYTES,
                )
                .map_err(interpreter_unavailable(crate::consumer::interpreter::of(language)))?;
                stripped = crate::consumer::typescript::strip_types(stripper_engine, text)?;
                (crate::submission::Language::JavaScript, stripped.as_str())
            }
            other => (other, text),
        };
        let mut source = crate::consumer::interpreter::SourceFile::new(language, text, entry)?;
        source.submitted = submitted;
        let internal = interpreter_unavailable(source.interpreter);
        let module = crate::consumer::interpreter::module(engine, language).map_err(&internal)?;
        let pre = abi::linker(engine).instantiate_pre(&module).map_err(|e| internal(format!("{e:#}")))?;
        let pre_interleaved = abi::interleaving_linker(engine)
            .instantiate_pre(&module)
            .map_err(|e| internal(format!("{e:#}")))?;
        let mut compiled = CompiledConsumer {
            engine: engine.clone(),
            module,
            pre,
            pre_interleaved,
            entry: crate::consumer::interpreter::GUEST_ENTRY.to_string(),
            source: Some(source),
            relay: None,
        };
        if let Some(image) = compiled.trial_load(limits, world)? {
            compiled.source = compiled.source.take().map(|source| source.with_image(image));
        }
        Ok(compiled)
    }

    /// The student's file, for a consumer in an interpreted language.
    pub(crate) fn source(&self) -> Option<&crate::consumer::interpreter::SourceFile> {
        self.source.as_ref()
    }

    /// The same submission with `relay` as its entry, beside this one ([`CompiledConsumer::relay`]):
    /// the module must export it as `() -> i32`, the source file define it; otherwise the
    /// submission is rejected, naming it.
    pub(crate) fn with_relay(
        mut self,
        relay: &str,
        limits: &Limits,
        world: &crate::consumer::world::WorldConfig,
    ) -> Result<Self, Rejection> {
        let source = match &self.source {
            None => {
                let fits = self
                    .module
                    .get_export(relay)
                    .and_then(|e| e.func().cloned())
                    .is_some_and(|f| f.params().len() == 0 && f.results().map(|r| r.is_i32()).eq([true]));
                if !fits {
                    return Err(Rejection {
                        code: "missing-relay".into(),
                        message: text!(
                            "Das Modul exportiert keine Funktion `{relay}` vom Typ () -> i32: das Relay dieser Aufgabe.",
                            "The module exports no function `{relay}` of type () -> i32: this exercise's relay."
                        ),
                    });
                }
                None
            }
            Some(source) => {
                let mut relay_source = crate::consumer::interpreter::SourceFile::new(
                    source.interpreter.language,
                    source.text(),
                    relay,
                )?;
                relay_source.submitted = source.submitted;
                Some(relay_source)
            }
        };
        let mut compiled = CompiledConsumer {
            engine: self.engine.clone(),
            module: self.module.clone(),
            pre: self.pre.clone(),
            pre_interleaved: self.pre_interleaved.clone(),
            entry: if source.is_some() {
                crate::consumer::interpreter::GUEST_ENTRY.to_string()
            } else {
                relay.to_string()
            },
            source,
            relay: None,
        };
        if let Some(image) = compiled.trial_load(limits, world)? {
            compiled.source = compiled.source.take().map(|source| source.with_image(image));
        }
        self.relay = Some(Box::new(compiled));
        Ok(self)
    }

    /// The submission with the exercise's relay as its entry, when the exercise declares one.
    pub(crate) fn relay(&self) -> Option<&CompiledConsumer> {
        self.relay.as_deref()
    }

    /// Loads the student's file once, on an empty database: what fails here fails every instance.
    /// When loading ran no statement and logged nothing, the loaded memory is returned as an image:
    /// every instance can start from it (it does not depend on the database).
    fn trial_load(
        &self,
        limits: &Limits,
        world: &crate::consumer::world::WorldConfig,
    ) -> Result<Option<Arc<sandbox::cow_memory::MemoryImage>>, Rejection> {
        let Some(source) = &self.source else { return Ok(None) };
        let internal = interpreter_unavailable(source.interpreter);
        let db = GuestDb::open(
            Path::new(":memory:"),
            Arc::from(Vec::<String>::new()),
            limits.sql_steps_per_statement,
        )
        .map_err(|e| internal(e.to_string()))?;
        let mut state = GuestState::fresh(db, limits, 0);
        state.world = (!world.is_empty()).then(|| crate::consumer::world::World::shared(world));
        let mut store = Store::new(&self.engine, state);
        store.limiter(|state| &mut state.limiter);
        store.set_epoch_deadline(sandbox::epoch_ticks(limits.wall_ms_per_delivery));
        store.epoch_deadline_trap();
        let image = source.start_image().map_err(&internal)?;
        let instance = sandbox::cow_memory::instantiate_with(&image, || self.pre.instantiate(&mut store))
            .map_err(|e| internal(format!("{e:#}")))?;
        match crate::consumer::interpreter::load(&mut store, &instance, source) {
            Ok(crate::consumer::interpreter::Loaded::Ok) => {
                if store.data().statements > 0 || !store.data().events.is_empty() {
                    return Ok(None);
                }
                let memory =
                    instance.get_memory(&mut store, "memory").ok_or_else(|| internal("no memory".into()))?;
                let image = sandbox::cow_memory::MemoryImage::new(
                    memory.data(&store),
                    crate::consumer::interpreter::SHADOW_STACK_BYTES,
                )
                .map_err(grader_fault)?;
                Ok(Some(image))
            }
            Ok(crate::consumer::interpreter::Loaded::Raised(error)) => {
                Err((source.interpreter.load_rejection)(&error))
            }
            Err(error) => {
                let (code, message) = classify(&error, limits);
                Err(Rejection {
                    code: format!("load-{code}"),
                    message: Text {
                        de: format!("Schon das Laden der Datei scheiterte: {}", message.de),
                        en: format!("Loading the file already failed: {}", message.en),
                    },
                })
            }
        }
    }
}

/// The codes of what [`CompiledConsumer`]'s constructors give as a [`Rejection`] but is the
/// grader's fault, never the student's verdict: the grader reports it as a grading error
/// ([`is_grader_fault`]).
const GRADER_FAULTS: [&str; 2] = ["interpreter-unavailable", "grader-fault"];

/// Whether `rejection` is the grader's fault (see [`GRADER_FAULTS`]).
pub(crate) fn is_grader_fault(rejection: &Rejection) -> bool {
    GRADER_FAULTS.contains(&rejection.code.as_str())
}

fn grader_fault(e: String) -> Rejection {
    Rejection {
        code: "grader-fault".into(),
        message: text!(
            "Der Prüfstand konnte das Modul nicht vorbereiten: {e}",
            "The grader could not prepare the module: {e}"
        ),
    }
}

/// The rejection when an interpreter guest itself does not start (the grader's fault, not the
/// student's: [`is_grader_fault`]).
fn interpreter_unavailable(
    interpreter: &crate::consumer::interpreter::Interpreter,
) -> impl Fn(String) -> Rejection {
    let name = interpreter.name;
    move |e: String| Rejection {
        code: "interpreter-unavailable".into(),
        message: text!(
            "Der {name}-Interpreter von Prüfstein ließ sich nicht starten: {e}",
            "The grader's {name} interpreter could not be started: {e}"
        ),
    }
}

impl CompiledConsumer {
    /// Whose words the report uses: the language of the student's file, ABI v1's for a module.
    pub(crate) fn voice(&self) -> crate::report::voice::Voice {
        use crate::report::voice::Voice;
        match self.source().map(|s| s.submitted) {
            None => Voice::Module,
            Some(crate::submission::Language::Python) => Voice::Python,
            Some(crate::submission::Language::JavaScript | crate::submission::Language::TypeScript) => {
                Voice::JavaScript
            }
        }
    }
}
