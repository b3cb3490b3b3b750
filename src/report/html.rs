//! A report as HTML (maud templates): the summary, the main problem at the top (what broke, where,
//! the decisive line, the evidence, the failing delivery) and one line per other failed check, the
//! student's source with the decisive line marked, then every check folded: its explanation and,
//! for a failed check, the evidence: the trace (a diagram, the list folded under it; a trace that
//! another check showed is named, not repeated) or simulated timeline, the crash points, the state
//! before, after and expected with the difference, and the replay command. The service's report
//! page wraps this in its header and page; it needs to know nothing of the graders' details.
//! Everything taken from the report is escaped.

use maud::{Markup, html};

use super::consumer::{ConsumerDetail, TraceEvent, crash_points_line, row_text};
use super::diagnosis::{Diagnosis, Finding};
use super::diagram::{consumer_diagram_in, timeline_diagram};
use super::prediction::PredictionDetail;
use super::state::State;
use super::trace_text::render_trace;
use super::voice::Voice;
use super::{CheckDetail, CheckReport, Report};
use crate::text::Lang;

/// The German or the English text.
pub(crate) fn t<'a>(lang: Lang, de: &'a str, en: &'a str) -> &'a str {
    if lang == Lang::De { de } else { en }
}

/// The body of a report: summary, rejection, checks (failed first, then passed, then those that
/// did not run), coverage and the replay command.
pub fn render_report(report: &Report, lang: Lang) -> Markup {
    let voice = report.source.as_ref().map_or(Voice::Module, |s| Voice::of_file(&s.file));
    html! {
        p { (report.summary.get(lang)) }
        @if let Some(rejection) = &report.rejection {
            div class="check failed" {
                p {
                    span class="mark" { "✗" } " "
                    strong { (t(lang, "Nicht bewertbar", "Not gradable")) }
                }
                p { (rejection.message.get(lang)) }
            }
        }
        @if let Some(diagnosis) = &report.diagnosis {
            (render_diagnosis(report, diagnosis, lang, voice))
        }
        @if let Some(source) = &report.source {
            (render_source(source, lang))
        }
        @if !report.checks.is_empty() {
            @if report.diagnosis.is_some() {
                details class="all-checks" {
                    summary { (t(lang, "Alle Prüfungen im Einzelnen", "Every check in detail")) }
                    (render_checks(report, lang, voice))
                }
            } @else {
                h2 { (t(lang, "Prüfungen", "Checks")) }
                (render_checks(report, lang, voice))
            }
        }
        @if !report.coverage.is_empty() {
            h2 { (t(lang, "Abdeckung", "Coverage")) }
            ul {
                @for c in &report.coverage {
                    li {
                        (c.label.get(lang)) ": " (c.exercised)
                        @if let Some(total) = c.total { "/" (total) }
                    }
                }
            }
        }
        @if let Some(replay) = &report.replay {
            h2 { (t(lang, "Lokal nachstellen", "Replay locally")) }
            p {
                (t(
                    lang,
                    "Mit diesem Befehl bewertest du dieselbe Abgabe auf deinem Rechner genauso:",
                    "This command grades the same submission on your machine in the same way:"
                ))
            }
            pre class="replay" { (replay) }
        }
    }
}

/// The checks: failed first (they are what the student needs to read), then those that passed,
/// then those that did not run (the time limit came first). A failed check whose trace an earlier
/// one showed names that check instead of repeating it.
fn render_checks(report: &Report, lang: Lang, voice: Voice) -> Markup {
    let mut shown: Vec<(&ConsumerDetail, &CheckReport)> = Vec::new();
    let mut same_as = Vec::new();
    for check in report.failed_checks() {
        let earlier = match &check.detail {
            CheckDetail::Consumer(detail) if !detail.trace.is_empty() => {
                let earlier = shown.iter().find(|(d, _)| d.trace == detail.trace).map(|(_, c)| *c);
                if earlier.is_none() {
                    shown.push((detail, check));
                }
                earlier
            }
            _ => None,
        };
        same_as.push(earlier);
    }
    let source = report.source.as_ref().map(|s| s.text.as_str());
    html! {
        @for (check, earlier) in report.failed_checks().zip(same_as) {
            (render_check(check, lang, (voice, source), earlier))
        }
        @for check in report.checks.iter().filter(|c| c.passed) { (render_check(check, lang, (voice, source), None)) }
        @for check in report.not_run_checks() { (render_check(check, lang, (voice, source), None)) }
    }
}

/// The main problem, then one line per other failed check (linked to its section).
fn render_diagnosis(report: &Report, diagnosis: &Diagnosis, lang: Lang, voice: Voice) -> Markup {
    let main = &diagnosis.main;
    let title = |name: &str| {
        report
            .checks
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.title.get(lang).to_string())
            .unwrap_or_default()
    };
    let code = main.line.and_then(|n| {
        let text = report.source.as_ref()?.text.lines().nth((n as usize).checked_sub(1)?)?;
        Some((n, text.trim().to_string()))
    });
    let events: Vec<TraceEvent> = match report.checks.iter().find(|c| c.name == main.check).map(|c| &c.detail)
    {
        Some(CheckDetail::Consumer(detail)) => {
            main.events.iter().filter_map(|&i| detail.trace.get(i as usize)).cloned().collect()
        }
        _ => Vec::new(),
    };
    let source = report.source.as_ref().map(|s| s.text.as_str());
    html! {
        section class="main-problem" id="main-problem" {
            h2 { (t(lang, "Hauptproblem", "Main problem")) }
            p class="title" { strong { (main.title.get(lang)) } }
            p {
                (t(lang, "Prüfung", "Check")) " "
                a href={ "#check-" (&main.check) } { (title(&main.check)) }
                @if let Some(place) = &main.place { ": " (place.get(lang)) }
            }
            @if let Some(evidence) = &main.evidence {
                p { strong { (t(lang, "Beleg:", "Evidence:")) } " " (evidence.get(lang)) }
            }
            @if let Some((n, text)) = &code {
                p {
                    strong { (t(lang, "Entscheidende Zeile", "Decisive line")) " " a href={ "#line-" (n) } { (n) } ":" }
                    " " code { (text) }
                }
            } @else if let Some(statement) = &main.statement {
                p { strong { (t(lang, "Entscheidende Anweisung:", "Decisive statement:")) } " " code { (statement) } }
            }
            p { (main.explanation.get(lang)) }
            @if let Some(hint) = &main.hint {
                p class="hint" { strong { (t(lang, "Tipp:", "Hint:")) } " " (hint.get(lang)) }
            }
            @if !events.is_empty() {
                p { strong { (t(lang, "Diese Zustellung:", "This delivery:")) } }
                ol class="trace" {
                    @for line in render_trace(&events, lang, voice, source) { li { (line) } }
                }
            }
        }
        @if !diagnosis.others.is_empty() {
            h2 { (t(lang, "Weitere gescheiterte Prüfungen", "Other failed checks")) }
            ul class="others" {
                @for other in &diagnosis.others {
                    (other_item(other, &title(&other.check), lang))
                }
            }
        }
    }
}

fn other_item(finding: &Finding, title: &str, lang: Lang) -> Markup {
    html! {
        li {
            a href={ "#check-" (&finding.check) } { (title) } ": " (finding.title.get(lang))
            @if finding.same_cause { " " span class="meta" { (t(lang, "(gleiche Ursache)", "(same cause)")) } }
        }
    }
}

fn render_check(
    check: &CheckReport,
    lang: Lang,
    speech: (Voice, Option<&str>),
    same_as: Option<&CheckReport>,
) -> Markup {
    let (class, mark) = match (check.passed, check.not_run) {
        (true, _) => ("passed", "✓"),
        (false, true) => ("not-run", "–"),
        (false, false) => ("failed", "✗"),
    };
    html! {
        section class={ "check " (class) } id={ "check-" (&check.name) } {
            h3 {
                span class="mark" { (mark) } " " (check.title.get(lang))
                @if let Some(points) = check.points {
                    " " span class="meta" { (points.points) "/" (points.max) }
                }
            }
            @if check.passed {
            } @else if check.not_run {
                p {
                    strong { (t(lang, "Nicht ausgeführt.", "Not run.")) } " "
                    @if let Some(failure) = &check.failure { (failure.get(lang)) }
                }
            } @else {
                p { (check.explanation.get(lang)) }
                @if let Some(failure) = &check.failure {
                    p { strong { (t(lang, "Was passiert ist:", "What happened:")) } " " (failure.get(lang)) }
                }
                @if let Some(hint) = &check.hint {
                    p class="hint" { strong { (t(lang, "Tipp:", "Hint:")) } " " (hint.get(lang)) }
                }
                @let diagram_id = format!("diagram-{}", check.name);
                @match &check.detail {
                    CheckDetail::Consumer(detail) => (render_consumer(detail, lang, &diagram_id, speech, same_as)),
                    CheckDetail::Prediction(detail) => (render_prediction(detail, lang, &diagram_id)),
                }
                @if let Some(replay) = &check.replay {
                    p {
                        (t(
                            lang,
                            "Genau diesen Lauf nachstellen (mit vollständigem Ablauf):",
                            "Replay exactly this run (with its full trace):"
                        ))
                    }
                    pre class="replay" { (replay) }
                }
            }
        }
    }
}

/// A trace or timeline under its heading (nothing when it is empty): its diagram, then the numbered
/// list (each line with an optional class), and how many lines the report left out.
fn trace_list(
    heading: &str,
    lines: Vec<(Option<&'static str>, String)>,
    (omitted, omitted_label): (usize, &str),
    diagram: Markup,
) -> Markup {
    html! {
        @if !lines.is_empty() {
            h3 { (heading) }
            (diagram)
            details class="trace-list" {
                summary { (heading) }
                ol class="trace" {
                    @for (class, line) in &lines {
                        li class=[class] { (line) }
                    }
                }
            }
            @if omitted > 0 {
                p class="meta" { "… " (omitted) " " (omitted_label) }
            }
        }
    }
}

/// The student's source with the lines the checks speak of marked: ▸ a statement was issued there,
/// ✗ a process was killed right after one, ! an error was raised and not caught.
fn render_source(source: &crate::report::SourceView, lang: Lang) -> Markup {
    let mark_of = |n: usize| source.marks.iter().find(|m| m.line as usize == n);
    html! {
        h2 { (t(lang, "Dein Quelltext", "Your source")) " · " code { (&source.file) } }
        @if let Some(note) = &source.note {
            p class="meta" { (note.get(lang)) }
        }
        p class="meta" {
            (t(
                lang,
                "▸ eine Anweisung kam aus dieser Zeile · ✗ ein Absturzpunkt direkt danach · ! hier flog in einer gescheiterten Prüfung eine Ausnahme aus verarbeite heraus · ➜ die entscheidende Zeile des Hauptproblems",
                "▸ a statement came from this line · ✗ a crash point right after it · ! an exception left verarbeite here in a failed check · ➜ the decisive line of the main problem"
            ))
        }
        pre class="source" {
            @for (index, text) in source.text.lines().enumerate() {
                @let n = index + 1;
                @if let Some(mark) = mark_of(n) {
                    @let class = format!(
                        "marked{}{}{}",
                        if mark.decisive { " decisive" } else { "" },
                        if mark.error { " error" } else { "" },
                        if mark.crash { " crash" } else { "" }
                    );
                    @let signs = format!(
                        "{}{}{}{}",
                        if mark.statement { "▸" } else { " " },
                        if mark.crash { "✗" } else { " " },
                        if mark.error { "!" } else { " " },
                        if mark.decisive { "➜" } else { " " }
                    );
                    span class=(class) id={ "line-" (n) } { span class="ln" { (n) } (signs) " " (text) } "\n"
                } @else {
                    span class="ln" id={ "line-" (n) } { (n) } "     " (text) "\n"
                }
            }
        }
    }
}

fn render_consumer(
    detail: &ConsumerDetail,
    lang: Lang,
    diagram_id: &str,
    (voice, source): (Voice, Option<&str>),
    same_as: Option<&CheckReport>,
) -> Markup {
    let events = match same_as {
        Some(_) => Vec::new(),
        None => super::trace_text::render_trace_classed(&detail.trace, lang, voice, source),
    };
    let omitted =
        (detail.trace_omitted as usize, t(lang, "weitere Ereignisse ausgelassen", "more events left out"));
    let crash_points = detail.crash_points.as_ref().map(|points| crash_points_line(points, lang));
    html! {
        @if let Some(schedule) = &detail.schedule {
            p {
                strong { (t(lang, "Zeitplan:", "Schedule:")) } " " (schedule.description.get(lang)) " "
                span class="meta" { "(seed " (&schedule.seed) ")" }
            }
        }
        @if let Some(earlier) = same_as {
            p {
                strong { (t(lang, "Ablauf:", "Trace:")) } " " (t(lang, "wie bei", "as for")) " "
                a href={ "#check-" (&earlier.name) } { (earlier.title.get(lang)) }
            }
        } @else {
            (trace_list(
                t(lang, "Ablauf", "Trace"),
                events,
                omitted,
                consumer_diagram_in(detail, lang, voice, diagram_id),
            ))
        }
        @if let Some(line) = &crash_points {
            @let (label, rest) = line.split_once(": ").unwrap_or(("", line.as_str()));
            p { strong { (label) ":" } " " (rest) }
        }
        @if let Some(state) = &detail.state {
            h3 { (t(lang, "Datenbankzustand", "Database state")) }
            @if state.diff.iter().any(|d| !d.missing.is_empty() || !d.unexpected.is_empty()) {
                ul class="diff" {
                    @for table in &state.diff {
                        @for row in &table.missing {
                            li class="missing" {
                                "− " (t(lang, "fehlt in", "missing in")) " " code { (&table.table) }
                                ": " (&row_text(row))
                            }
                        }
                        @for row in &table.unexpected {
                            li class="unexpected" {
                                "+ " (t(lang, "zu viel in", "unexpected in")) " " code { (&table.table) }
                                ": " (&row_text(row))
                            }
                        }
                    }
                }
            }
            div class="states" {
                (state_table(&state.before, t(lang, "Vorher", "Before")))
                (state_table(&state.after, t(lang, "Nachher (deine Lösung)", "After (your solution)")))
                (state_table(
                    &state.expected,
                    t(lang, "Erwartet (Referenzlösung)", "Expected (reference solution)"),
                ))
                @if let Some(allowed) = &state.also_allowed {
                    (state_table(allowed, t(lang, "oder: nichts passiert", "or: nothing happened")))
                }
            }
        }
        @if voice == Voice::Module {
            p class="meta" { (t(lang, "Verbrauchter Treibstoff (fuel):", "Fuel used:")) " " (detail.fuel_used) }
        }
    }
}

fn state_table(state: &State, caption: &str) -> Markup {
    html! {
        div class="table-wrap" {
            p { strong { (caption) } }
            @for (table, rows) in state {
                table {
                    caption { (table) }
                    @if rows.is_empty() {
                        tr { td { "–" } }
                    }
                    @for row in rows {
                        tr { @for value in row { td { (&value.to_string()) } } }
                    }
                }
            }
        }
    }
}

fn render_prediction(detail: &PredictionDetail, lang: Lang, diagram_id: &str) -> Markup {
    let lines = detail.timeline.iter().map(|line| (None, line.render(lang))).collect();
    let omitted = (detail.timeline_omitted, t(lang, "weitere Zeilen", "more lines"));
    let parameters: Vec<String> =
        detail.parameters.iter().map(|p| format!("{} = {}", p.name, p.value)).collect();
    html! {
        p {
            (t(lang, "Deine Antwort:", "Your answer:")) " " code { (&detail.given_text) }
            " · " (t(lang, "Die Simulation ergibt:", "The simulation gives:")) " "
            code { (&detail.expected_text) }
        }
        @if !parameters.is_empty() {
            p { (t(lang, "Parameter:", "Parameters:")) " " code { (&parameters.join(", ")) } }
        }
        @if let Some(earlier) = &detail.timeline_see {
            p class="meta" {
                (t(lang, "Zeitachse der Simulation: wie bei", "Simulated timeline: as for")) " " (earlier)
            }
        }
        (trace_list(
            t(lang, "Zeitachse der Simulation", "Simulated timeline"),
            lines,
            omitted,
            timeline_diagram(detail, lang, diagram_id),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{REPORT_FORMAT, Score, Verdict};
    use crate::text::Text;

    fn check(name: &str, passed: bool, not_run: bool) -> CheckReport {
        CheckReport {
            name: name.into(),
            title: Text::same(name),
            passed,
            not_run,
            explanation: Text::same("explanation"),
            failure: (!passed).then(|| Text::same(if not_run { "Not run: time" } else { "it broke" })),
            hint: None,
            points: None,
            replay: None,
            detail: CheckDetail::Consumer(ConsumerDetail::default()),
        }
    }

    /// A check that did not run is shown as such, after the failed and the passed ones, with its
    /// reason and without the evidence of a failure.
    #[test]
    fn a_check_that_did_not_run_is_shown_as_not_run_last() {
        let report = Report {
            format: REPORT_FORMAT,
            exercise: "x".into(),
            grader: crate::report::GraderKind::Consumer,
            submission_sha256: "00".into(),
            learner: None,
            verdict: Verdict::Failed,
            score: Score { points: 0, max: 1 },
            summary: Text::same("summary"),
            rejection: None,
            checks: vec![check("later", false, true), check("ok", true, false), check("broke", false, false)],
            coverage: Vec::new(),
            replay: None,
            source: None,
            diagnosis: None,
        };
        for (lang, label) in [(Lang::De, "Nicht ausgeführt."), (Lang::En, "Not run.")] {
            let body = render_report(&report, lang).into_string();
            let at = |id: &str| body.find(&format!("id=\"check-{id}\"")).expect("check rendered");
            assert!(at("broke") < at("ok") && at("ok") < at("later"), "{body}");
            let not_run = &body[at("later")..];
            assert!(body.contains("<section class=\"check not-run\" id=\"check-later\">"), "{body}");
            assert!(not_run.contains(label) && not_run.contains("Not run: time"), "{body}");
            assert!(!not_run.contains("explanation"), "no failure evidence for a check that did not run");
        }
    }

    /// Text from a guest or a teacher cannot open a tag or leave an attribute, quoted either way.
    #[test]
    fn report_text_is_escaped() {
        let text = "<script>alert('x') & \"y\"</script>";
        let markup = html! { p title=(text) { (text) } };
        assert_eq!(
            markup.into_string(),
            "<p title=\"&lt;script&gt;alert('x') &amp; &quot;y&quot;&lt;/script&gt;\">\
             &lt;script&gt;alert('x') &amp; &quot;y&quot;&lt;/script&gt;</p>"
        );
    }
}
