//! Learner variants: an exercise's parameters may have ranges, and each learner gets values drawn
//! from them, the same values every time.
//!
//! The derivation is fixed (so a variant never changes under a learner's feet):
//! 1. seed = SHA-256 over `"pruefstein-variant-v1"`, then the exercise slug, the learner id and the
//!    course secret, each preceded by its length in bytes as a little-endian `u64`;
//! 2. the seed keys a ChaCha8 generator;
//! 3. parameters are drawn in declaration order; a parameter with a range takes one `next_u64`
//!    draw `x` and becomes `min + floor(x * (max - min + 1) / 2^64)`; a fixed parameter takes none;
//! 4. if the exercise has a constraint and the values break it, the whole set is drawn again from
//!    the same generator, up to [`VARIANT_DRAWS_MAX`](crate::limits::VARIANT_DRAWS_MAX) times.
//!
//! Without a learner id, every parameter has the lesson's value.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::script::{Params, ScriptError};
use crate::limits::VARIANT_DRAWS_MAX;

/// A parameter as `exercise.toml` declares it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterSpec {
    pub name: String,
    /// The lesson's own value (used without a learner id).
    pub lesson: i64,
    /// The range learner variants draw from (both or neither).
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
}

impl ParameterSpec {
    pub(crate) fn validate(&self) -> Result<(), String> {
        if !is_identifier(&self.name) {
            return Err(format!(
                "parameter name {:?} must be a lowercase identifier (a-z, 0-9, _)",
                self.name
            ));
        }
        match (self.min, self.max) {
            (None, None) => Ok(()),
            (Some(min), Some(max)) if min <= max => Ok(()),
            (Some(min), Some(max)) => Err(format!("parameter {}: min {min} > max {max}", self.name)),
            _ => Err(format!("parameter {}: give both min and max, or neither", self.name)),
        }
    }

    pub(crate) fn varies(&self) -> bool {
        matches!((self.min, self.max), (Some(min), Some(max)) if min < max)
    }
}

pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && s.len() <= 64
}

/// The lesson's values.
pub(crate) fn lesson(specs: &[ParameterSpec]) -> Params {
    specs.iter().map(|p| (p.name.clone(), p.lesson)).collect()
}

/// The 32-byte seed of a learner's variant.
pub(crate) fn learner_seed(slug: &str, learner: &str, course_secret: &str) -> [u8; 32] {
    let mut hash = Sha256::new();
    for field in ["pruefstein-variant-v1", slug, learner, course_secret] {
        hash.update((field.len() as u64).to_le_bytes());
        hash.update(field.as_bytes());
    }
    hash.finalize().into()
}

fn draw(specs: &[ParameterSpec], rng: &mut ChaCha8Rng) -> Params {
    specs
        .iter()
        .map(|p| {
            let value = match (p.min, p.max) {
                (Some(min), Some(max)) => {
                    let span = (i128::from(max) - i128::from(min) + 1) as u128;
                    let offset = (u128::from(rng.next_u64()) * span) >> 64;
                    (i128::from(min) + offset as i128) as i64
                }
                _ => p.lesson,
            };
            (p.name.clone(), value)
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    #[error("no parameters satisfying the constraint after {VARIANT_DRAWS_MAX} draws")]
    Unsatisfiable,
    #[error(transparent)]
    Constraint(#[from] ScriptError),
}

/// A learner's parameters; `satisfies` is the exercise's constraint.
pub(crate) fn derive(
    specs: &[ParameterSpec],
    seed: [u8; 32],
    satisfies: impl Fn(&Params) -> Result<bool, ScriptError>,
) -> Result<Params, VariantError> {
    let mut rng = ChaCha8Rng::from_seed(seed);
    for _ in 0..VARIANT_DRAWS_MAX {
        let params = draw(specs, &mut rng);
        if satisfies(&params)? {
            return Ok(params);
        }
    }
    Err(VariantError::Unsatisfiable)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, lesson: i64, range: Option<(i64, i64)>) -> ParameterSpec {
        ParameterSpec { name: name.into(), lesson, min: range.map(|r| r.0), max: range.map(|r| r.1) }
    }

    #[test]
    fn seeds_differ_by_every_field_and_are_unambiguous() {
        let base = learner_seed("ex", "anna", "s");
        assert_ne!(base, learner_seed("ex", "bert", "s"));
        assert_ne!(base, learner_seed("ex", "anna", "t"));
        assert_ne!(base, learner_seed("ex2", "anna", "s"));
        assert_ne!(learner_seed("ab", "c", ""), learner_seed("a", "bc", ""));
    }

    #[test]
    fn draws_stay_in_range_and_fixed_values_stay() {
        let specs = [spec("a", 3, Some((2, 5))), spec("fixed", 7, None), spec("b", 0, Some((-1, 1)))];
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..200 {
            let p = derive(&specs, learner_seed("x", &i.to_string(), ""), |_| Ok(true)).unwrap();
            assert!((2..=5).contains(&p[0].1));
            assert_eq!(p[1], ("fixed".into(), 7));
            assert!((-1..=1).contains(&p[2].1));
            seen.insert(p[0].1);
        }
        assert_eq!(seen.len(), 4, "every value of a small range shows up");
    }

    #[test]
    fn constraint_redraws_and_can_fail() {
        let specs = [spec("a", 0, Some((0, 9))), spec("b", 0, Some((0, 9)))];
        for i in 0..50 {
            let p = derive(&specs, learner_seed("x", &i.to_string(), ""), |p| Ok(p[0].1 > p[1].1)).unwrap();
            assert!(p[0].1 > p[1].1);
        }
        assert_eq!(derive(&specs, [0; 32], |_| Ok(false)), Err(VariantError::Unsatisfiable));
    }

    #[test]
    fn golden_variant() {
        let specs = [spec("a", 0, Some((0, 999_999)))];
        let p =
            derive(&specs, learner_seed("01-visibility-timeout", "anna", "geheim"), |_| Ok(true)).unwrap();
        assert_eq!(p[0].1, GOLDEN_ANNA);
    }

    /// Pinned: a change here would give learners new variants.
    const GOLDEN_ANNA: i64 = 910_854;

    #[test]
    fn validation() {
        assert!(spec("x", 1, Some((3, 2))).validate().is_err());
        assert!(ParameterSpec { name: "x".into(), lesson: 1, min: Some(1), max: None }.validate().is_err());
        assert!(spec("Bad-Name", 1, None).validate().is_err());
        assert!(spec("tick_1", 1, Some((1, 4))).validate().is_ok());
    }
}
