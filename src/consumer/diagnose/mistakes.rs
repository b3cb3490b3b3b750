//! The catalogue of kinds of mistake (`graders/consumer/mistakes.toml`, the lesson's defaults,
//! compiled into the binary; an exercise folder may add kinds or replace one by name): what each
//! kind requires of a failed check's facts, its rank, where its decisive line is, and its texts as
//! templates. Loading is strict: an unknown condition value, place or placeholder is an error, so a
//! kind cannot silently never match.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::consumer::checks::check::Check;
use crate::consumer::checks::texts::{Problem, Prose, Template, TemplateError, Templates};
use crate::report::diagnosis::{Effect, Facts, Memory};
use crate::text::Text;

const LESSON_TOML: &str = include_str!("../../../graders/consumer/mistakes.toml");

/// The placeholders every text of a kind may name.
pub(crate) const PLACEHOLDERS: [&str; 10] = [
    "times",
    "effect",
    "memory",
    "ended",
    "processed",
    "duplicate",
    "raise",
    "transaction",
    "close",
    "failure",
];

/// Where a kind's decisive line is, in the order to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decisive {
    Crash,
    EffectWrite,
    MemoryWrite,
    FirstWrite,
    FirstStatement,
    FailedStatement,
    Commit,
    Return,
    Error,
    LastStatement,
    OutsideCall,
}

impl Decisive {
    const ALL: [(&'static str, Decisive); 11] = [
        ("crash", Decisive::Crash),
        ("effect-write", Decisive::EffectWrite),
        ("memory-write", Decisive::MemoryWrite),
        ("first-write", Decisive::FirstWrite),
        ("first-statement", Decisive::FirstStatement),
        ("failed-statement", Decisive::FailedStatement),
        ("commit", Decisive::Commit),
        ("return", Decisive::Return),
        ("error", Decisive::Error),
        ("last-statement", Decisive::LastStatement),
        ("outside-call", Decisive::OutsideCall),
    ];

    fn parse(name: &str) -> Option<Decisive> {
        Decisive::ALL.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
    }
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct When {
    check: Option<Vec<String>>,
    problem: Option<Vec<String>>,
    effect: Option<Vec<String>>,
    memory: Option<Vec<String>>,
    written_first: Option<Vec<String>>,
    returned: Option<Vec<String>>,
    crashed: Option<Vec<bool>>,
    autocommit: Option<Vec<bool>>,
    failed_statement: Option<Vec<bool>>,
    memory_attempted: Option<Vec<bool>>,
    called_outside: Option<Vec<bool>>,
    /// The exercise's invariants (`[[consumer.invariants]]` names), one of which a state the
    /// check read must have broken.
    invariant: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    rank: u32,
    #[serde(default)]
    when: When,
    #[serde(default)]
    decisive: Vec<String>,
    title: Text,
    explanation: Text,
    #[serde(default)]
    hint: Option<Text>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    mistake: Vec<Entry>,
}

/// One kind of mistake, parsed.
#[derive(Debug, Clone)]
pub(crate) struct Mistake {
    pub name: String,
    pub rank: u32,
    when: When,
    pub decisive: Vec<Decisive>,
    pub title: Templates,
    pub explanation: Templates,
    pub hint: Option<Templates>,
}

/// What a failed check showed, as the conditions of a kind read it.
pub(crate) struct Observed<'a> {
    pub check: &'a str,
    pub facts: &'a Facts,
}

fn allows<T: PartialEq>(allowed: &Option<Vec<T>>, value: &T) -> bool {
    allowed.as_ref().is_none_or(|values| values.contains(value))
}

fn allows_name(allowed: &Option<Vec<String>>, value: &str) -> bool {
    allowed.as_ref().is_none_or(|values| values.iter().any(|v| v == value))
}

impl Mistake {
    /// Whether every condition of the kind holds for `observed`.
    pub(crate) fn matches(&self, observed: &Observed<'_>) -> bool {
        let when = &self.when;
        let facts = observed.facts;
        allows_name(&when.check, observed.check)
            && allows_name(&when.problem, &facts.problem)
            && allows_name(&when.effect, facts.effect.name())
            && allows_name(&when.memory, facts.memory.name())
            && allows_name(&when.written_first, facts.written_first.map_or("none", |r| r.name()))
            && allows_name(&when.returned, facts.returned_name())
            && allows(&when.crashed, &facts.crashed)
            && allows(&when.autocommit, &facts.autocommit)
            && allows(&when.failed_statement, &facts.failed_statement)
            && allows(&when.memory_attempted, &facts.memory_attempted)
            && allows(&when.called_outside, &facts.called_outside)
            && when
                .invariant
                .as_ref()
                .is_none_or(|names| facts.invariant.as_ref().is_some_and(|i| names.contains(i)))
    }
}

/// The kinds an exercise's reports use, by rank (an exercise's own before the lesson's of the
/// same rank).
#[derive(Debug, Clone)]
pub struct Mistakes {
    kinds: Vec<Mistake>,
}

impl Mistakes {
    /// Parses a catalogue of kinds (the lesson's file, or an exercise's whose invariants are
    /// `invariants`).
    pub(crate) fn parse(source: &str, invariants: &[&str]) -> Result<Vec<Mistake>, String> {
        let file: File = toml::from_str(source).map_err(|e| e.to_string())?;
        let mut kinds: Vec<Mistake> = Vec::new();
        for entry in file.mistake {
            let name = entry.name.clone();
            if kinds.iter().any(|k| k.name == name) {
                return Err(format!("the kind of mistake \"{name}\" is described twice"));
            }
            kinds.push(
                parse_entry(entry, invariants).map_err(|e| format!("kind of mistake \"{name}\": {e}"))?,
            );
        }
        Ok(kinds)
    }

    /// The lesson's kinds, compiled into the binary.
    pub(crate) fn lesson() -> &'static Mistakes {
        static LESSON: OnceLock<Mistakes> = OnceLock::new();
        LESSON.get_or_init(|| match Mistakes::parse(LESSON_TOML, &[]) {
            Ok(kinds) => Mistakes::ordered(kinds),
            // The file is part of the source; a test loads it, so this cannot ship broken.
            Err(error) => panic!("graders/consumer/mistakes.toml: {error}"),
        })
    }

    /// The lesson's kinds with an exercise's `own` kinds: one of the same name replaces the
    /// lesson's, the others are added.
    pub(crate) fn with_exercise(own: Vec<Mistake>) -> Mistakes {
        let mut kinds = own;
        let lesson = Mistakes::lesson();
        for kind in &lesson.kinds {
            if !kinds.iter().any(|k| k.name == kind.name) {
                kinds.push(kind.clone());
            }
        }
        Mistakes::ordered(kinds)
    }

    fn ordered(mut kinds: Vec<Mistake>) -> Mistakes {
        // A stable sort keeps an exercise's kinds before the lesson's of the same rank.
        kinds.sort_by_key(|k| k.rank);
        Mistakes { kinds }
    }

    /// The first kind, by rank, whose conditions hold.
    pub(crate) fn find(&self, observed: &Observed<'_>) -> Option<&Mistake> {
        self.kinds.iter().find(|kind| kind.matches(observed))
    }

    #[cfg(test)]
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.kinds.iter().map(|k| k.name.as_str())
    }
}

/// The keys a `problem` condition may name: every failure text's, and the three without a text
/// (a fault, the time running out, an invariant found broken).
fn known_problems() -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Prose::ALL.iter().map(|p| p.key()).collect();
    keys.extend([Problem::FAULT, Problem::OUT_OF_TIME, Problem::INVARIANT]);
    keys
}

fn check_values(what: &str, given: &Option<Vec<String>>, known: &[&str]) -> Result<(), String> {
    for value in given.iter().flatten() {
        if !known.contains(&value.as_str()) {
            return Err(format!("when.{what} names \"{value}\", which is none of {}", known.join(", ")));
        }
    }
    Ok(())
}

fn parse_entry(entry: Entry, invariants: &[&str]) -> Result<Mistake, String> {
    let when = entry.when;
    if when.invariant.is_some() && invariants.is_empty() {
        return Err("when.invariant names an invariant, but the exercise declares none".into());
    }
    check_values("invariant", &when.invariant, invariants)?;
    let checks: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
    check_values("check", &when.check, &checks)?;
    check_values("problem", &when.problem, &known_problems())?;
    let effects: Vec<&str> = Effect::ALL.iter().map(|e| e.name()).collect();
    check_values("effect", &when.effect, &effects)?;
    let memories: Vec<&str> = Memory::ALL.iter().map(|m| m.name()).collect();
    check_values("memory", &when.memory, &memories)?;
    check_values("written_first", &when.written_first, &["effect", "memory", "none"])?;
    check_values("returned", &when.returned, &["processed", "duplicate", "error", "none"])?;
    let decisive = entry
        .decisive
        .iter()
        .map(|name| {
            Decisive::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Decisive::ALL.iter().map(|(n, _)| *n).collect();
                format!("decisive names \"{name}\", which is none of {}", known.join(", "))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let templates = |what: &str, text: &Text| -> Result<Templates, String> {
        if text.de.trim().is_empty() || text.en.trim().is_empty() {
            return Err(format!("the {what} is empty in German or English"));
        }
        let parse = |source: &str, lang: &str| {
            Template::parse(source, &PLACEHOLDERS).map_err(|e| match e {
                TemplateError::UnknownPlaceholder(p) => format!(
                    "the {what} ({lang}) names the placeholder {{{p}}}, which is none of {}",
                    PLACEHOLDERS.join(", ")
                ),
                TemplateError::Unbalanced => {
                    format!("the {what} ({lang}) has a brace that opens or closes no placeholder")
                }
            })
        };
        Ok(Templates { de: parse(&text.de, "de")?, en: parse(&text.en, "en")? })
    };
    Ok(Mistake {
        name: entry.name,
        rank: entry.rank,
        when,
        decisive,
        title: templates("title", &entry.title)?,
        explanation: templates("explanation", &entry.explanation)?,
        hint: entry.hint.as_ref().map(|hint| templates("hint", hint)).transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lesson_catalogue_loads_and_ends_with_a_kind_for_any_failure() {
        let kinds = Mistakes::parse(LESSON_TOML, &[]).expect("mistakes.toml loads");
        let last = Mistakes::ordered(kinds).kinds.pop().expect("kinds");
        assert_eq!(last.name, "generic");
        assert!(last.when.check.is_none() && last.when.problem.is_none() && last.when.effect.is_none());
    }

    #[test]
    fn a_kind_with_an_unknown_value_or_placeholder_is_refused_with_its_name() {
        let kind = |when: &str, title: &str| {
            format!(
                "[[mistake]]\nname = \"k\"\nrank = 1\nwhen = {{ {when} }}\ntitle.de = \"{title}\"\n\
                 title.en = \"T\"\nexplanation.de = \"E\"\nexplanation.en = \"E\"\n"
            )
        };
        assert!(Mistakes::parse(&kind("effect = [\"doubled\"]", "T"), &[]).is_ok());
        let error = Mistakes::parse(&kind("effect = [\"twice\"]", "T"), &[]).unwrap_err();
        assert!(error.contains("\"k\"") && error.contains("twice"), "{error}");
        let error = Mistakes::parse(&kind("problem = [\"crash-partiall\"]", "T"), &[]).unwrap_err();
        assert!(error.contains("crash-partiall"), "{error}");
        let error = Mistakes::parse(&kind("", "{count}"), &[]).unwrap_err();
        assert!(error.contains("{count}"), "{error}");
        let error = Mistakes::parse(&kind("colour = [1]", "T"), &[]).unwrap_err();
        assert!(error.contains("colour"), "{error}");
        // An invariant condition names one the exercise declares.
        let invariant = kind("invariant = [\"mail-einmal\"]", "T");
        assert!(Mistakes::parse(&invariant, &["mail-einmal"]).is_ok());
        let error = Mistakes::parse(&invariant, &["mail-hoechstens-einmal"]).unwrap_err();
        assert!(error.contains("\"mail-einmal\"") && error.contains("mail-hoechstens-einmal"), "{error}");
        let error = Mistakes::parse(&invariant, &[]).unwrap_err();
        assert!(error.contains("declares none"), "{error}");
    }

    #[test]
    fn an_invariant_condition_holds_only_for_a_check_that_found_that_invariant_broken() {
        let kinds = Mistakes::parse(
            "[[mistake]]\nname = \"k\"\nrank = 1\nwhen = { invariant = [\"a\", \"b\"] }\n\
              title.de = \"T\"\ntitle.en = \"T\"\nexplanation.de = \"E\"\nexplanation.en = \"E\"\n",
            &["a", "b", "c"],
        )
        .expect("parses");
        let facts = |invariant: Option<&str>| Facts {
            problem: "invariant".into(),
            effect: Effect::Unknown,
            times: None,
            memory: Memory::Unknown,
            effect_tables: vec![],
            memory_tables: vec![],
            written_first: None,
            autocommit: false,
            crashed: false,
            returned: None,
            failed_statement: false,
            memory_attempted: false,
            called_outside: false,
            invariant: invariant.map(str::to_string),
        };
        let holds =
            |invariant| kinds[0].matches(&Observed { check: "crash-points", facts: &facts(invariant) });
        assert!(holds(Some("a")) && holds(Some("b")));
        assert!(!holds(Some("c")) && !holds(None));
    }

    #[test]
    fn an_exercise_kind_replaces_the_lessons_of_its_name_and_comes_first_in_its_rank() {
        let own = Mistakes::parse(
            "[[mistake]]\nname = \"error-swallowed\"\nrank = 10\ntitle.de = \"Mail verschluckt\"\n\
             title.en = \"Mail swallowed\"\nexplanation.de = \"E\"\nexplanation.en = \"E\"\n\
             [[mistake]]\nname = \"mail-twice\"\nrank = 10\nwhen = { effect = [\"doubled\"] }\n\
             title.de = \"Zwei Mails\"\ntitle.en = \"Two mails\"\nexplanation.de = \"E\"\nexplanation.en = \"E\"\n",
            &[],
        )
        .expect("parses");
        let merged = Mistakes::with_exercise(own);
        let names: Vec<&str> = merged.names().collect();
        assert_eq!(names.iter().filter(|n| **n == "error-swallowed").count(), 1);
        let position = |name: &str| names.iter().position(|n| *n == name).expect(name);
        assert!(position("error-swallowed") < position("duplicate-not-detected"), "{names:?}");
        assert!(position("mail-twice") < position("duplicate-not-detected"), "{names:?}");
        assert_eq!(*names.last().expect("kinds"), "generic");
    }
}
