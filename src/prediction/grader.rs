//! The prediction grader behind the [`Grader`] interface: an answer checked against the queue
//! simulation, with a statement per learner.

use super::PredictionExercise;
use crate::exercise::{Exercise, GradeError, GradeOptions, Grader, GraderEntry, Soundness, StatementError};
use crate::report::{GraderKind, Report};
use crate::submission::{Submission, SubmissionKind};
use crate::text::Lang;

/// The prediction kind, for the list in `crate::graders`.
pub(crate) const GRADER: GraderEntry = GraderEntry {
    kind: GraderKind::Prediction,
    load: |section| {
        Ok(Box::new(PredictionExercise::load(section.files, section.table, section.limits, section.points)?))
    },
};

impl Grader for PredictionExercise {
    fn kind(&self) -> GraderKind {
        GraderKind::Prediction
    }

    fn submission_kind(&self) -> SubmissionKind {
        SubmissionKind::Answer
    }

    fn grade(
        &self,
        exercise: &Exercise,
        submission: &Submission,
        options: &GradeOptions,
    ) -> Result<Report, GradeError> {
        super::grade(exercise, self, submission, options)
    }

    fn check(&self, exercise: &Exercise) -> Soundness {
        super::check(exercise, self)
    }

    /// The statement of the learner's variant (the lesson's without a learner).
    fn statement(
        &self,
        exercise: &Exercise,
        learner: Option<&str>,
        course_secret: &str,
        lang: Lang,
    ) -> Result<String, StatementError> {
        let variant = self
            .variant(&exercise.slug, learner, course_secret)
            .map_err(|e| StatementError(e.to_string()))?;
        self.render_statement(&variant, lang)
            .map_err(|e| StatementError(format!("statement.{}.md: {e}", lang.code())))
    }

    fn answer_example(&self) -> Option<&str> {
        Some(&self.example_text)
    }

    fn variant_parameters(
        &self,
        exercise: &Exercise,
        learner: &str,
        course_secret: &str,
    ) -> Vec<(String, i64)> {
        let Ok(variant) = self.variant(&exercise.slug, Some(learner), course_secret) else {
            return Vec::new();
        };
        let varies = |name: &str| self.parameters.iter().any(|p| p.name == name && p.varies());
        variant.params.iter().filter(|(name, _)| varies(name)).cloned().collect()
    }
}
