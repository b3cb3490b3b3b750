//! Renders a [`Report`] for the terminal. By default it fits one screen: the verdict and the
//! points with their reason, the main problem (what broke, where, the decisive line, the state
//! difference that proves it, the failing delivery's trace and the states), one line per other
//! failed check, and the checks that passed. [`render_text_full`] (`pruefstein grade --trace`)
//! adds every check with its explanation and full trace (a trace another check already showed is
//! named, not repeated), the coverage and the replay commands with their seeds and hashes.

use std::fmt::Write;

use super::consumer::ConsumerDetail;
use super::diagnosis::Finding;
use super::trace_text::{render_detail_text, render_states_text, render_trace};
use super::voice::Voice;
use super::{CheckDetail, CheckReport, Report, Verdict};
use crate::text::Lang;

/// The report as one screen of text.
pub fn render_text(report: &Report, lang: Lang) -> String {
    render(report, lang, false)
}

/// The report with every check's full trace.
pub fn render_text_full(report: &Report, lang: Lang) -> String {
    render(report, lang, true)
}

fn pick(lang: Lang, de: &'static str, en: &'static str) -> &'static str {
    if lang == Lang::De { de } else { en }
}

/// Whose words the report speaks, and the student's source.
fn speech(report: &Report) -> (Voice, Option<&str>) {
    match &report.source {
        Some(source) => (Voice::of_file(&source.file), Some(source.text.as_str())),
        None => (Voice::Module, None),
    }
}

fn render(report: &Report, lang: Lang, full: bool) -> String {
    let mut out = String::new();
    let verdict = match report.verdict {
        Verdict::Passed => pick(lang, "BESTANDEN", "PASSED"),
        Verdict::Failed => pick(lang, "NICHT BESTANDEN", "FAILED"),
        Verdict::Rejected => pick(lang, "ABGEWIESEN", "REJECTED"),
    };
    let _ = writeln!(out, "{}: {verdict}", report.exercise);
    let _ = write!(out, "{} {}/{}", pick(lang, "Punkte", "Score"), report.score.points, report.score.max);
    if full {
        let sha = &report.submission_sha256;
        let _ = write!(out, "  ·  sha256 {}", &sha[..sha.len().min(16)]);
    }
    out.push('\n');
    if let Some(learner) = &report.learner {
        let _ = writeln!(out, "{} {learner}", pick(lang, "Variante für", "Variant for"));
    }
    let _ = writeln!(out, "{}", report.summary.get(lang));
    if let Some(rejection) = &report.rejection {
        let _ = writeln!(out, "\n{}", rejection.message.get(lang));
        if full {
            let _ = writeln!(out, "({})", rejection.code);
        }
    }
    match &report.diagnosis {
        Some(diagnosis) => {
            main_problem(report, &diagnosis.main, lang, &mut out);
            if !diagnosis.others.is_empty() {
                let _ = writeln!(
                    out,
                    "\n{}",
                    pick(lang, "Weitere gescheiterte Prüfungen:", "Other failed checks:")
                );
                for finding in &diagnosis.others {
                    other_line(report, finding, lang, &mut out);
                }
            }
            check_lists(report, lang, &mut out);
        }
        None if !full => {
            for check in &report.checks {
                check_text(report, check, lang, &mut out, None);
            }
        }
        None => {}
    }
    if full {
        full_checks(report, lang, &mut out);
    } else if report.failed_checks().next().is_some()
        && let Some(replay) = &report.replay
    {
        let command = replay.split("   #").next().unwrap_or(replay);
        let _ = writeln!(out, "\n{} {command} --trace", pick(lang, "Alle Abläufe:", "Every trace:"));
    }
    out
}

fn title_of<'r>(report: &'r Report, check: &'r str, lang: Lang) -> &'r str {
    report.checks.iter().find(|c| c.name == check).map(|c| c.title.get(lang)).unwrap_or(check)
}

/// The main problem: what broke, where, the decisive line, the proof, why, what to do, the failing
/// delivery's trace and the states.
fn main_problem(report: &Report, main: &Finding, lang: Lang, out: &mut String) {
    let _ = writeln!(out, "\n{} {}", pick(lang, "Hauptproblem:", "Main problem:"), main.title.get(lang));
    let check = report.checks.iter().find(|c| c.name == main.check);
    let title = title_of(report, &main.check, lang);
    let quoted = if lang == Lang::De { format!("„{title}“") } else { format!("\"{title}\"") };
    match &main.place {
        Some(place) => {
            let _ = writeln!(
                out,
                "  {} {} {quoted}, {}",
                pick(lang, "Wo:", "Where:"),
                pick(lang, "Prüfung", "check"),
                place.get(lang)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  {} {} {quoted}",
                pick(lang, "Wo:", "Where:"),
                pick(lang, "Prüfung", "check")
            );
        }
    }
    if let Some(evidence) = &main.evidence {
        let _ = writeln!(out, "  {} {}", pick(lang, "Beleg:", "Evidence:"), evidence.get(lang));
    }
    decisive_line(report, main, lang, out);
    let _ = writeln!(out, "  {}", main.explanation.get(lang));
    if let Some(hint) = &main.hint {
        let _ = writeln!(out, "  {} {}", pick(lang, "Tipp:", "Hint:"), hint.get(lang));
    }
    let Some(CheckDetail::Consumer(detail)) = check.map(|c| &c.detail) else { return };
    delivery_trace(report, detail, main, lang, out);
    if let Some(state) = &detail.state {
        render_states_text(state, lang, out, "  ");
    }
}

/// "Entscheidende Zeile 11: con.commit()" for a source, "Entscheidende Anweisung: COMMIT" for a
/// module.
fn decisive_line(report: &Report, finding: &Finding, lang: Lang, out: &mut String) {
    let code = finding.line.and_then(|n| {
        let source = report.source.as_ref()?;
        source.text.lines().nth((n as usize).checked_sub(1)?).map(|l| (n, l.trim()))
    });
    match (code, &finding.statement) {
        (Some((n, text)), _) => {
            let _ = writeln!(out, "  {} {n}: {text}", pick(lang, "Entscheidende Zeile", "Decisive line"));
        }
        (None, Some(statement)) => {
            let _ = writeln!(
                out,
                "  {} {statement}",
                pick(lang, "Entscheidende Anweisung:", "Decisive statement:")
            );
        }
        (None, None) => {}
    }
}

/// The failing delivery's events, in the student's words.
fn delivery_trace(report: &Report, detail: &ConsumerDetail, finding: &Finding, lang: Lang, out: &mut String) {
    let events: Vec<_> =
        finding.events.iter().filter_map(|&i| detail.trace.get(i as usize)).cloned().collect();
    if events.is_empty() {
        return;
    }
    let (voice, source) = speech(report);
    let _ = writeln!(out, "  {}", pick(lang, "Diese Zustellung:", "This delivery:"));
    let lines = render_trace(&events, lang, voice, source);
    let (head, tail) = (DELIVERY_LINES_SHOWN / 2, DELIVERY_LINES_SHOWN - DELIVERY_LINES_SHOWN / 2);
    for (index, line) in lines.iter().enumerate() {
        if lines.len() > DELIVERY_LINES_SHOWN && index >= head && index < lines.len() - tail {
            if index == head {
                let more = lines.len() - DELIVERY_LINES_SHOWN;
                let _ = writeln!(
                    out,
                    "    … {more} {}",
                    pick(lang, "weitere Zeilen (alle mit `--trace`)", "more lines (all with `--trace`)")
                );
            }
            continue;
        }
        let _ = writeln!(out, "    {line}");
    }
}

/// The most lines of the failing delivery the one-screen report shows (its first and last half).
const DELIVERY_LINES_SHOWN: usize = 14;

fn other_line(report: &Report, finding: &Finding, lang: Lang, out: &mut String) {
    let title = title_of(report, &finding.check, lang);
    let same = if finding.same_cause { pick(lang, " (gleiche Ursache)", " (same cause)") } else { "" };
    let _ = writeln!(out, "  ✗ {title}: {}{same}", finding.title.get(lang));
}

/// The checks that passed and those that did not run, one line each.
fn check_lists(report: &Report, lang: Lang, out: &mut String) {
    let passed: Vec<&str> = report.checks.iter().filter(|c| c.passed).map(|c| c.title.get(lang)).collect();
    if !passed.is_empty() {
        let _ = writeln!(out, "\n✓ {} {}", pick(lang, "Bestanden:", "Passed:"), passed.join(", "));
    }
    let not_run: Vec<&CheckReport> = report.not_run_checks().collect();
    if let Some(first) = not_run.first() {
        let names: Vec<&str> = not_run.iter().map(|c| c.title.get(lang)).collect();
        let why = first.failure.as_ref().map(|f| format!(" ({})", f.get(lang))).unwrap_or_default();
        let _ = writeln!(out, "– {} {}{why}", pick(lang, "Nicht ausgeführt:", "Not run:"), names.join(", "));
    }
}

/// Every check in full, each trace once, then the coverage and the replay command.
fn full_checks(report: &Report, lang: Lang, out: &mut String) {
    if report.diagnosis.is_some() {
        let _ = writeln!(out, "\n{}", pick(lang, "Alle Prüfungen im Einzelnen:", "Every check in detail:"));
    }
    let mut shown: Vec<(&ConsumerDetail, &str)> = Vec::new();
    for check in &report.checks {
        let same_as = match &check.detail {
            CheckDetail::Consumer(detail) if !check.passed && !check.not_run => {
                let earlier = shown.iter().find(|(d, _)| d.trace == detail.trace && !d.trace.is_empty());
                let same = earlier.map(|(_, title)| *title);
                if same.is_none() {
                    shown.push((detail, check.title.get(lang)));
                }
                same
            }
            _ => None,
        };
        check_text(report, check, lang, out, same_as);
        if !check.passed
            && !check.not_run
            && let Some(replay) = &check.replay
        {
            let _ = writeln!(out, "  {} {replay}", pick(lang, "Nachstellen:", "Replay:"));
        }
    }
    if !report.coverage.is_empty() {
        let items: Vec<String> = report
            .coverage
            .iter()
            .map(|c| match c.total {
                Some(total) => format!("{} {}/{}", c.label.get(lang), c.exercised, total),
                None => format!("{} {}", c.label.get(lang), c.exercised),
            })
            .collect();
        let _ = writeln!(out, "\n{}: {}", pick(lang, "Abdeckung", "Coverage"), items.join(", "));
    }
    if let Some(replay) = &report.replay {
        let _ = writeln!(out, "{}: {replay}", pick(lang, "Nachstellen", "Replay"));
    }
}

/// One check: its mark and title, and for a failed one its explanation, failure, hint and
/// evidence (a trace another check showed is named by `same_as`).
fn check_text(report: &Report, check: &CheckReport, lang: Lang, out: &mut String, same_as: Option<&str>) {
    let mark = match (check.passed, check.not_run) {
        (true, _) => "✓",
        (false, true) => "–",
        (false, false) => "✗",
    };
    let _ = write!(out, "\n{mark} {}", check.title.get(lang));
    if let Some(points) = check.points {
        let _ = write!(out, "  {}/{}", points.points, points.max);
    }
    out.push('\n');
    if check.passed {
        return;
    }
    if check.not_run {
        let label = pick(lang, "nicht ausgeführt", "not run");
        match &check.failure {
            Some(failure) => {
                let _ = writeln!(out, "  [{label}] {}", failure.get(lang));
            }
            None => {
                let _ = writeln!(out, "  [{label}]");
            }
        }
        return;
    }
    let _ = writeln!(out, "  {}", check.explanation.get(lang));
    if let Some(failure) = &check.failure {
        let _ = writeln!(out, "  → {}", failure.get(lang));
    }
    if let Some(hint) = &check.hint {
        let _ = writeln!(out, "  {} {}", pick(lang, "Tipp:", "Hint:"), hint.get(lang));
    }
    match &check.detail {
        CheckDetail::Consumer(detail) => render_detail_text(detail, lang, out, speech(report), same_as),
        CheckDetail::Prediction(detail) => super::prediction::render_detail_text(detail, lang, out),
    }
}
