//! The consumer grader behind the [`Grader`] interface: a WebAssembly module under the crash
//! harness.

use super::exercise::ConsumerExercise;
use crate::exercise::{Exercise, GradeError, GradeOptions, Grader, GraderEntry, Soundness};
use crate::report::{GraderKind, Report};
use crate::submission::{Submission, SubmissionKind};

/// The consumer kind, for the list in `crate::graders`.
pub const GRADER: GraderEntry = GraderEntry {
    kind: GraderKind::Consumer,
    load: |section| Ok(Box::new(ConsumerExercise::load(section.files, section.table, section.limits)?)),
};

impl Grader for ConsumerExercise {
    fn kind(&self) -> GraderKind {
        GraderKind::Consumer
    }

    fn submission_kind(&self) -> SubmissionKind {
        SubmissionKind::Module
    }

    fn languages(&self) -> Vec<crate::submission::Language> {
        self.languages.clone()
    }

    fn mutant_descriptions(&self) -> std::collections::BTreeMap<String, crate::text::Text> {
        self.mutant_descriptions.clone()
    }

    fn prepare(&self, exercise: &Exercise, submission: &Submission) {
        super::grading::prepare(exercise, self, submission);
    }

    fn grade(
        &self,
        exercise: &Exercise,
        submission: &Submission,
        options: &GradeOptions,
    ) -> Result<Report, GradeError> {
        super::grading::grade(exercise, self, submission, options)
    }

    fn check(&self, exercise: &Exercise) -> Soundness {
        super::soundness::check(exercise, self)
    }

    fn fingerprint(&self, submission: &Submission) -> Option<Vec<u64>> {
        match submission {
            Submission::Module(bytes) => crate::sandbox::fingerprint::fingerprint(bytes),
            // Source is compared by its tokens; a module and a source share no hash.
            Submission::Source { text, .. } => Some(crate::sandbox::fingerprint::source_fingerprint(text)),
            Submission::Answer(_) => None,
        }
    }
}
