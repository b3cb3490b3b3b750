//! The consumer grader (placeholder: to be implemented).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::check::Soundness;
use crate::exercise::{Exercise, ExerciseError};
use crate::grade::{GradeError, GradeOptions};
use crate::limits::Limits;
use crate::report::Report;
use crate::submission::Submission;
use crate::text::Lang;

#[derive(Debug)]
pub struct ConsumerExercise {}

impl ConsumerExercise {
    pub fn load(_dir: &Path, _section: toml::Table, _limits: &Limits) -> Result<Self, ExerciseError> {
        todo!()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsumerDetail {}

pub fn render_detail_text(_detail: &ConsumerDetail, _lang: Lang, _out: &mut String) {
    todo!()
}

pub fn grade(
    _exercise: &Exercise,
    _consumer: &ConsumerExercise,
    _submission: &Submission,
    _options: &GradeOptions,
) -> Result<Report, GradeError> {
    todo!()
}

pub fn check(_exercise: &Exercise, _consumer: &ConsumerExercise) -> Soundness {
    todo!()
}

pub fn render_statement(
    _exercise: &Exercise,
    _learner: Option<&str>,
    _course_secret: &str,
    _lang: Lang,
) -> anyhow::Result<String> {
    todo!()
}
