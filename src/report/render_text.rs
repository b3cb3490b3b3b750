//! Renders a [`Report`] for the terminal: the verdict, then each check with its explanation and, for
//! a failed check, the evidence (the grader renders its own detail). A check that did not run (the
//! submission's time limit came first) is marked `–` and says so.

use std::fmt::Write;

use super::{CheckDetail, Report, Verdict};
use crate::text::Lang;

pub fn render_text(report: &Report, lang: Lang) -> String {
    let mut out = String::new();
    let verdict = match (report.verdict, lang) {
        (Verdict::Passed, Lang::De) => "BESTANDEN",
        (Verdict::Passed, Lang::En) => "PASSED",
        (Verdict::Failed, Lang::De) => "NICHT BESTANDEN",
        (Verdict::Failed, Lang::En) => "FAILED",
        (Verdict::Rejected, Lang::De) => "ABGEWIESEN",
        (Verdict::Rejected, Lang::En) => "REJECTED",
    };
    let _ = writeln!(out, "{}: {verdict}", report.exercise);
    let _ = writeln!(
        out,
        "{} {}/{}  ·  sha256 {}",
        if lang == Lang::De { "Punkte" } else { "Score" },
        report.score.points,
        report.score.max,
        &report.submission_sha256[..report.submission_sha256.len().min(16)],
    );
    if let Some(learner) = &report.learner {
        let _ = writeln!(out, "{} {learner}", if lang == Lang::De { "Variante für" } else { "Variant for" });
    }
    let _ = writeln!(out, "{}", report.summary.get(lang));
    if let Some(rejection) = &report.rejection {
        let _ = writeln!(out, "\n[{}] {}", rejection.code, rejection.message.get(lang));
    }
    for check in &report.checks {
        let mark = match (check.passed, check.not_run) {
            (true, _) => "✓",
            (false, true) => "–",
            (false, false) => "✗",
        };
        let _ = write!(out, "\n{mark} {} ({})", check.title.get(lang), check.name);
        if let Some(points) = check.points {
            let _ = write!(out, "  {}/{}", points.points, points.max);
        }
        out.push('\n');
        if check.passed {
            continue;
        }
        if check.not_run {
            let label = if lang == Lang::De { "nicht ausgeführt" } else { "not run" };
            match &check.failure {
                Some(failure) => {
                    let _ = writeln!(out, "  [{label}] {}", failure.get(lang));
                }
                None => {
                    let _ = writeln!(out, "  [{label}]");
                }
            }
            continue;
        }
        let _ = writeln!(out, "  {}", check.explanation.get(lang));
        if let Some(failure) = &check.failure {
            let _ = writeln!(out, "  → {}", failure.get(lang));
        }
        if let Some(hint) = &check.hint {
            let label = if lang == Lang::De { "Tipp" } else { "Hint" };
            let _ = writeln!(out, "  {label}: {}", hint.get(lang));
        }
        if let Some(replay) = &check.replay {
            let label = if lang == Lang::De { "Nachstellen" } else { "Replay" };
            let _ = writeln!(out, "  {label}: {replay}");
        }
        match &check.detail {
            CheckDetail::Consumer(detail) => super::consumer::render_detail_text(detail, lang, &mut out),
            CheckDetail::Prediction(detail) => super::prediction::render_detail_text(detail, lang, &mut out),
        }
    }
    if !report.coverage.is_empty() {
        let label = if lang == Lang::De { "Abdeckung" } else { "Coverage" };
        let items: Vec<String> = report
            .coverage
            .iter()
            .map(|c| match c.total {
                Some(total) => format!("{} {}/{}", c.label.get(lang), c.exercised, total),
                None => format!("{} {}", c.label.get(lang), c.exercised),
            })
            .collect();
        let _ = writeln!(out, "\n{label}: {}", items.join(", "));
    }
    if let Some(replay) = &report.replay {
        let label = if lang == Lang::De { "Nachstellen" } else { "Replay" };
        let _ = writeln!(out, "{label}: {replay}");
    }
    out
}
