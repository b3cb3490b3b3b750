//! The evidence a prediction part leaves in the report: the expected and the given value, the
//! learner's parameters and the simulated timeline of a wrong part; and how it is rendered for the
//! terminal.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::sim::TimelineLine;
use crate::text::Lang;

/// The evidence of one part: what was expected, what was given, and the timeline that explains it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictionDetail {
    pub expected: serde_json::Value,
    /// `expected` in the exercise's notation, e.g. `(2, 0)`.
    pub expected_text: String,
    pub given: serde_json::Value,
    /// The student's value in their own notation.
    pub given_text: String,
    /// The learner's parameters (in the first wrong part only, to keep reports short).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
    /// The simulated timeline (for a wrong part).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineLine>,
    /// Lines cut from a long timeline.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub timeline_omitted: usize,
    /// A wrong part whose timeline is the same as this one's (shown there, not repeated here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline_see: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameter {
    pub name: String,
    pub value: i64,
}

/// Renders a part's evidence for the terminal (the failure line already names both values).
pub(crate) fn render_detail_text(detail: &PredictionDetail, lang: Lang, out: &mut String) {
    if !detail.parameters.is_empty() {
        let label = if lang == Lang::De { "Parameter" } else { "Parameters" };
        let values: Vec<String> =
            detail.parameters.iter().map(|p| format!("{} = {}", p.name, p.value)).collect();
        let _ = writeln!(out, "  {label}: {}", values.join(", "));
    }
    if let Some(earlier) = &detail.timeline_see {
        let _ = match lang {
            Lang::De => writeln!(out, "  Zeitachse der Simulation: wie bei {earlier}"),
            Lang::En => writeln!(out, "  Simulated timeline: as for {earlier}"),
        };
    }
    if detail.timeline.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "  {}:",
        if lang == Lang::De { "Zeitachse der Simulation" } else { "Simulated timeline" }
    );
    for line in &detail.timeline {
        let _ = writeln!(out, "    {}", line.render(lang));
    }
    if detail.timeline_omitted > 0 {
        let n = detail.timeline_omitted;
        let _ = match lang {
            Lang::De => writeln!(out, "    … {n} weitere Zeilen"),
            Lang::En => writeln!(out, "    … {n} more lines"),
        };
    }
}
