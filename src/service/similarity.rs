//! Similarity hints for teachers: the closest pairs of consumer submissions of different learners
//! by their modules' fingerprints (function bodies without names and constants, see
//! `Grader::fingerprint`), compared as sets (Jaccard). They are hints for a teacher to look at two
//! submissions, never verdicts: equal fingerprints also come from a common starter kit or a short
//! exercise with one natural solution. Bounded: the latest submission of at most
//! [`SIMILARITY_SUBMISSIONS_MAX`] learners is compared, pairwise.

use serde::Serialize;
use utoipa::ToSchema;

use crate::exercise::Exercise;
use crate::limits::{SIMILARITY_PAIRS_MAX, SIMILARITY_SUBMISSIONS_MAX, SIMILARITY_THRESHOLD_PER_MILLE};
use crate::service::store::SubmissionRecord;
use crate::submission::Submission;

/// Two submissions of different learners whose modules are alike.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct SimilarPair {
    pub submission_a: String,
    pub learner_a: String,
    pub submission_b: String,
    pub learner_b: String,
    /// Jaccard similarity of the fingerprints, in per mille (1000: the same function bodies).
    pub similarity_per_mille: u32,
}

/// The similarity hints of an exercise.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub(crate) struct Similarity {
    /// What these are: hints, never verdicts.
    pub note: String,
    /// Submissions compared (the latest of each learner that has a fingerprint).
    pub compared: usize,
    /// True if more learners had submissions than are compared.
    pub truncated: bool,
    /// Pairs are listed from this similarity on (per mille).
    pub threshold_per_mille: u32,
    /// The closest pairs, most similar first.
    pub pairs: Vec<SimilarPair>,
}

pub(crate) const NOTE: &str = "Hints, never verdicts: alike modules may come from a shared starter kit or a short \
                        exercise with one natural solution. Look at both before drawing any conclusion.";

/// Jaccard similarity of two sorted sets, in per mille: shared / distinct (0 for two empty sets).
pub(crate) fn jaccard_per_mille(a: &[u64], b: &[u64]) -> u32 {
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let all = a.len() + b.len() - shared;
    (shared * 1000).checked_div(all).unwrap_or(0) as u32
}

/// The closest pairs among `latest` (the latest submission of each learner, oldest first, with its
/// bytes): the most recent [`SIMILARITY_SUBMISSIONS_MAX`] are fingerprinted and compared.
pub(crate) fn closest_pairs(exercise: &Exercise, latest: &[(SubmissionRecord, Submission)]) -> Similarity {
    let truncated = latest.len() > SIMILARITY_SUBMISSIONS_MAX;
    let taken = &latest[latest.len().saturating_sub(SIMILARITY_SUBMISSIONS_MAX)..];
    let prints: Vec<(&SubmissionRecord, Vec<u64>)> = taken
        .iter()
        .filter_map(|(record, submission)| Some((record, exercise.grader.fingerprint(submission)?)))
        .filter(|(_, print)| !print.is_empty())
        .collect();
    let mut pairs = Vec::new();
    for (i, (a, print_a)) in prints.iter().enumerate() {
        for (b, print_b) in &prints[i + 1..] {
            if (a.client_id, &a.learner) == (b.client_id, &b.learner) {
                continue;
            }
            let similarity = jaccard_per_mille(print_a, print_b);
            if similarity >= SIMILARITY_THRESHOLD_PER_MILLE {
                pairs.push(SimilarPair {
                    submission_a: crate::service::public_id::of(a.id),
                    learner_a: a.learner.clone(),
                    submission_b: crate::service::public_id::of(b.id),
                    learner_b: b.learner.clone(),
                    similarity_per_mille: similarity,
                });
            }
        }
    }
    pairs.sort_by(|x, y| {
        y.similarity_per_mille
            .cmp(&x.similarity_per_mille)
            .then_with(|| (&x.submission_a, &x.submission_b).cmp(&(&y.submission_a, &y.submission_b)))
    });
    pairs.truncate(SIMILARITY_PAIRS_MAX);
    Similarity {
        note: NOTE.to_string(),
        compared: prints.len(),
        truncated,
        threshold_per_mille: SIMILARITY_THRESHOLD_PER_MILLE,
        pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::jaccard_per_mille;

    #[test]
    fn jaccard_is_shared_over_distinct() {
        assert_eq!(jaccard_per_mille(&[1, 2, 3], &[2, 3, 4]), 500);
        assert_eq!(jaccard_per_mille(&[1, 2], &[1, 2]), 1000);
        assert_eq!(jaccard_per_mille(&[1], &[2]), 0);
        assert_eq!(jaccard_per_mille(&[], &[]), 0);
    }
}
