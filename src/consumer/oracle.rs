//! The oracle: the reference solution's states without faults, which every check compares
//! against, and the record of them the module cache keeps. The harness computes it once per loaded
//! exercise or reads it back (`harness/oracle.rs`); the loaded exercise keeps it.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::process::CompiledConsumer;
use super::state::State;
use crate::limits::REFERENCE_STATES_CACHED_MAX;

/// What the reference solution does without faults: the states every check compares against.
/// The one description of them, kept as it is in the module cache's record.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OracleStates {
    /// For each batch message: the reference reports an error for it (a poison message, which must
    /// end in the dead-letter list).
    pub poison: Vec<bool>,
    /// After the fresh message.
    pub after_fresh: State,
    /// After the fresh message and then the same body under a new id.
    pub after_fresh_same_body: State,
    /// After the message whose effect violates a constraint (equal to the initial state).
    pub after_violation: State,
}

/// The reference solution's states without faults: what every check compares against.
///
/// They depend on the exercise alone, so a grading process with a module cache keeps them there
/// ([`ORACLE_CACHE_KIND`], under the exercise's content hash) and the next process of the same
/// program reads them instead of running the reference again; it compiles the reference only when
/// a schedule asks for an order whose state was not kept.
pub struct Oracle {
    /// The reference solution, compiled on first use: the schedules ask it for the expected state
    /// of the messages they processed.
    pub(crate) reference: OnceLock<Result<CompiledConsumer, String>>,
    /// The limits the reference is compiled with (the exercise's, with an interpreter's stack for
    /// a source reference).
    pub(crate) limits: crate::limits::Limits,
    /// The states without faults.
    pub states: OracleStates,
    /// The reference's state after the batch messages in a given order, shared by every grading.
    pub reference_states: ReferenceStates,
    /// How many reference states the module cache holds for this exercise (as far as this process
    /// knows): more are stored once a grading has added some.
    kept_states: AtomicUsize,
}

/// The kind of the module cache's data entries that hold an exercise's [`Oracle`] states.
/// (Version 2 nests the states as [`OracleStates`]; an entry of version 1 is never read.)
pub const ORACLE_CACHE_KIND: &str = "consumer-oracle-2";

/// An [`Oracle`]'s states as the module cache keeps them.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct OracleRecord {
    /// The exercise's content hash, which the entry's name holds too.
    exercise: String,
    states: OracleStates,
    /// Sorted by order, so that the same states give the same bytes.
    reference_states: Vec<(Vec<usize>, State)>,
}

/// The reference's states after the batch messages in given orders (the schedules' expectations),
/// kept with the loaded exercise: at most [`REFERENCE_STATES_CACHED_MAX`] orders, the first ones
/// asked for. A state depends on the exercise alone (the reference, its schema and messages), never
/// on the submission that asked first, so sharing it changes no report.
#[derive(Default)]
pub struct ReferenceStates(std::sync::Mutex<std::collections::HashMap<Vec<usize>, State>>);

impl ReferenceStates {
    pub(crate) fn get(&self, order: &[usize]) -> Option<State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get(order).cloned()
    }

    /// Keeps `state` for `order` while there is room; false when the cache is full.
    pub(crate) fn insert(&self, order: &[usize], state: &State) -> bool {
        let mut states = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if states.len() >= REFERENCE_STATES_CACHED_MAX && !states.contains_key(order) {
            return false;
        }
        states.insert(order.to_vec(), state.clone());
        true
    }

    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Oracle {
    /// The record the module cache keeps for the exercise whose content hash is `exercise`.
    pub(crate) fn record(&self, exercise: &str) -> OracleRecord {
        let states = self.reference_states.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut reference_states: Vec<(Vec<usize>, State)> =
            states.iter().map(|(order, state)| (order.clone(), state.clone())).collect();
        reference_states.sort_by(|a, b| a.0.cmp(&b.0));
        OracleRecord { exercise: exercise.to_string(), states: self.states.clone(), reference_states }
    }

    /// The oracle a cache entry holds, if it is whole and of this exercise: the one whose content
    /// hash is `exercise`, with `batch` batch messages; its reference compiles under `limits`.
    pub(crate) fn from_record(
        record: OracleRecord,
        exercise: &str,
        batch: usize,
        limits: crate::limits::Limits,
    ) -> Option<Oracle> {
        let fits = record.exercise == exercise
            && record.states.poison.len() == batch
            && record.reference_states.len() <= REFERENCE_STATES_CACHED_MAX
            && record.reference_states.iter().all(|(order, _)| order.iter().all(|&i| i < batch));
        if !fits {
            return None;
        }
        let oracle = Oracle {
            reference: OnceLock::new(),
            limits,
            states: record.states,
            reference_states: ReferenceStates::default(),
            kept_states: AtomicUsize::new(record.reference_states.len()),
        };
        for (order, state) in &record.reference_states {
            oracle.reference_states.insert(order, state);
        }
        Some(oracle)
    }

    /// An oracle just computed, with its compiled reference.
    pub(crate) fn computed(
        reference: CompiledConsumer,
        limits: crate::limits::Limits,
        states: OracleStates,
    ) -> Oracle {
        Oracle {
            reference: OnceLock::from(Ok(reference)),
            limits,
            states,
            reference_states: ReferenceStates::default(),
            kept_states: AtomicUsize::new(usize::MAX),
        }
    }

    /// Whether reference states were added since the module cache last got them (or it never
    /// did); counts them as kept from now on.
    pub(crate) fn take_unkept(&self) -> bool {
        let states = self.reference_states.len();
        self.kept_states.swap(states, Ordering::Relaxed) != states
    }
}

impl std::fmt::Debug for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oracle").field("poison", &self.states.poison).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::consumer::exercise::ConsumerExercise;
    use crate::consumer::harness::oracle::{keep_oracle, oracle_with_cache};
    use crate::exercise::{Exercise, GradeOptions};
    use crate::sandbox::module_cache::ModuleCache;
    use crate::submission::Submission;

    #[test]
    fn reference_states_stop_growing_at_their_limit() {
        let states = ReferenceStates::default();
        let state = State::new();
        for n in 0..REFERENCE_STATES_CACHED_MAX {
            assert!(states.insert(&[n], &state), "room for order {n}");
        }
        assert!(!states.insert(&[REFERENCE_STATES_CACHED_MAX], &state), "full: a new order is not kept");
        assert!(states.insert(&[0], &state), "an order it holds may be written again");
        assert_eq!(states.len(), REFERENCE_STATES_CACHED_MAX);
        assert!(states.get(&[REFERENCE_STATES_CACHED_MAX]).is_none());
        assert_eq!(states.get(&[1]), Some(State::new()));
    }

    /// Exercise 03, loaded afresh (its oracle not yet computed), and its reference module.
    fn exercise_03() -> (Exercise, Vec<u8>) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
        let exercise = crate::exercise::Exercise::load_with(&dir, &[crate::consumer::GRADER])
            .expect("exercise 03 loads");
        let reference = std::fs::read(dir.join("solutions/reference.wat")).expect("reference");
        (exercise, reference)
    }

    fn consumer_of(exercise: &Exercise) -> &ConsumerExercise {
        exercise.grader_as::<ConsumerExercise>().expect("a consumer exercise")
    }

    fn report_json(exercise: &Exercise, module: &[u8]) -> String {
        let submission = Submission::Module(module.to_vec());
        let report = crate::grade::grade(exercise, &submission, &GradeOptions::default()).expect("grades");
        serde_json::to_string(&report).expect("json")
    }

    #[test]
    fn an_oracle_kept_in_the_module_cache_is_read_back_without_running_the_reference() {
        let scratch = tempfile::tempdir().expect("temporary directory");
        let cache = ModuleCache::open(&scratch.path().join("cache"), 1 << 20).expect("cache opens");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/03-idempotenter-konsument");
        let mutant = std::fs::read(dir.join("mutants/commits-id-first.wat")).expect("mutant");

        // A first process: computes the oracle, grades (which adds the schedules' reference
        // states) and keeps it.
        let (first, reference) = exercise_03();
        let computed = oracle_with_cache(&first, consumer_of(&first), Some(&cache)).expect("oracle");
        assert!(computed.reference.get().is_some(), "a computed oracle has compiled the reference");
        let reference_report = report_json(&first, &reference);
        let mutant_report = report_json(&first, &mutant);
        assert!(!computed.reference_states.is_empty(), "the schedules asked for reference states");
        keep_oracle(&first, computed, Some(&cache));

        // The next process reads it: the reference is neither compiled nor run, and the reports
        // are the same, byte for byte.
        let (second, _) = exercise_03();
        let kept = oracle_with_cache(&second, consumer_of(&second), Some(&cache)).expect("oracle");
        assert_eq!(cache.counts().data_hits.load(Ordering::Relaxed), 1);
        assert_eq!(kept.states, computed.states);
        assert_eq!(kept.reference_states.len(), computed.reference_states.len());
        assert_eq!(report_json(&second, &reference), reference_report);
        assert_eq!(report_json(&second, &mutant), mutant_report);
        assert!(kept.reference.get().is_none(), "every state the grades needed was kept: no compile");

        // An entry changed by anyone without the cache's key is removed and the oracle computed.
        let entry = std::fs::read_dir(cache_dir(&scratch))
            .expect("cache directory")
            .map(|e| e.expect("entry").path())
            .find(|p| p.extension().is_some_and(|x| x == "data"))
            .expect("a data entry");
        let mut bytes = std::fs::read(&entry).expect("entry");
        let forged = String::from_utf8_lossy(&bytes).replacen("true", "fals", 1).into_bytes();
        assert_ne!(forged, bytes, "the record names a poison message");
        bytes = forged;
        std::fs::write(&entry, &bytes).expect("forge");
        let (third, _) = exercise_03();
        let recomputed = oracle_with_cache(&third, consumer_of(&third), Some(&cache)).expect("oracle");
        assert!(recomputed.reference.get().is_some(), "a forged entry is not read: computed again");
        assert_eq!(cache.counts().refused.load(Ordering::Relaxed), 1);
        assert!(!entry.exists(), "the forged entry is removed");
        assert_eq!(report_json(&third, &mutant), mutant_report);
    }

    /// A kept oracle must compare equal to the computed one, REAL values included: a value read
    /// back one unit in the last place off would fail a correct consumer. serde_json parses floats
    /// exactly only with its `float_roundtrip` feature; without it some of these come back off.
    #[test]
    fn an_oracle_record_brings_back_every_real_value_exactly() {
        use rand_chacha::rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let mut off = Vec::new();
        for _ in 0..200_000 {
            let value = f64::from_bits(rng.next_u64());
            if !value.is_finite() {
                continue;
            }
            let real = crate::report::state::SqlValue::Real(value);
            let json = serde_json::to_string(&real).expect("json");
            let back: crate::report::state::SqlValue = serde_json::from_str(&json).expect("parses");
            if back != real {
                off.push(json);
            }
        }
        assert!(off.is_empty(), "{} values come back changed, e.g. {:?}", off.len(), off.first());
    }

    /// A Python reference is the oracle as a module is: its states are computed once, kept in the
    /// module cache, and read back by the next process without compiling or running it; the
    /// reports are the same byte for byte.
    #[test]
    fn a_python_oracle_is_kept_in_the_module_cache_as_a_module_oracle_is() {
        let scratch = tempfile::tempdir().expect("temporary directory");
        let cache = ModuleCache::open(&scratch.path().join("cache"), 1 << 24).expect("cache opens");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("exercises/09-ueberweisung");
        let load = || {
            crate::exercise::Exercise::load_with(&dir, &[crate::consumer::GRADER]).expect("exercise 09 loads")
        };
        let mutant = std::fs::read_to_string(dir.join("mutants/zwei-transaktionen.py")).expect("mutant");
        let submission = Submission::Source { language: crate::submission::Language::Python, text: mutant };
        let report = |exercise: &Exercise| {
            let report =
                crate::grade::grade(exercise, &submission, &GradeOptions::default()).expect("grades");
            serde_json::to_string(&report).expect("json")
        };

        let first = load();
        assert_eq!(consumer_of(&first).reference_language, Some(crate::submission::Language::Python));
        let computed = oracle_with_cache(&first, consumer_of(&first), Some(&cache)).expect("oracle");
        assert!(computed.reference.get().is_some(), "computed: the Python reference was compiled");
        let mutant_report = report(&first);
        keep_oracle(&first, computed, Some(&cache));

        let second = load();
        let kept = oracle_with_cache(&second, consumer_of(&second), Some(&cache)).expect("oracle");
        assert_eq!(cache.counts().data_hits.load(Ordering::Relaxed), 1);
        assert_eq!(kept.states, computed.states);
        assert_eq!(report(&second), mutant_report);
        assert!(kept.reference.get().is_none(), "read back: the Python reference was not compiled");
    }

    fn cache_dir(scratch: &tempfile::TempDir) -> std::path::PathBuf {
        scratch.path().join("cache")
    }
}
