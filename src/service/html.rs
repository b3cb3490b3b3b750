//! The student's report page (`/reports/{id}?t=TOKEN&lang=de|en`): plain HTML with inline CSS, no
//! JavaScript, readable on a phone, printable. It shows the verdict, every check with its
//! explanation, and for a failed check the evidence: the trace or simulated timeline, the crash
//! points, the state before, after and expected with the difference, and the replay command.
//! Everything it prints comes from the stored report, escaped.

use std::fmt::Write;

use super::store::{Status, SubmissionRecord};
use crate::report::consumer::{ConsumerDetail, TraceEvent};
use crate::report::prediction::PredictionDetail;
use crate::report::state::State;
use crate::report::{CheckDetail, CheckReport, Report, Verdict};
use crate::text::Lang;

/// Seconds between reloads of a page whose submission is still being graded.
const PENDING_REFRESH_SECONDS: u32 = 3;

const STYLE: &str = r#"
:root { --ok: #17653a; --bad: #a1181b; --muted: #5b616b; --line: #d6d9de; --bg-bad: #fdf1f1; --bg-ok: #eff8f2; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1b1e23; background: #fff; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem; }
header { border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
h1 { font-size: 1.4rem; margin: .2rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
.meta { color: var(--muted); font-size: .9rem; overflow-wrap: anywhere; }
.lang { float: right; font-size: .9rem; }
.verdict { display: inline-block; padding: .15rem .6rem; border-radius: .3rem; font-weight: 700; color: #fff; }
.verdict.passed { background: var(--ok); } .verdict.failed, .verdict.rejected { background: var(--bad); }
.verdict.pending { background: var(--muted); }
.check { border: 1px solid var(--line); border-radius: .4rem; padding: .6rem .8rem; margin: .6rem 0; break-inside: avoid-page; }
.check.failed { border-color: var(--bad); background: var(--bg-bad); }
.check.passed { background: var(--bg-ok); padding: .3rem .8rem; }
.check.not-run { border-style: dashed; color: var(--muted); padding: .3rem .8rem; }
.check .name { color: var(--muted); font-family: ui-monospace, monospace; font-size: .85rem; }
.mark { font-weight: 700; } .failed .mark { color: var(--bad); } .passed .mark { color: var(--ok); }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
pre { background: #f5f6f8; border: 1px solid var(--line); padding: .5rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
ol.trace { padding-left: 2.2rem; margin: .3rem 0; font-family: ui-monospace, monospace; font-size: .85rem; }
ol.trace li { overflow-wrap: anywhere; }
ol.trace li.crash, ol.trace li.fault { color: var(--bad); font-weight: 700; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: .3rem 0 .6rem; font-size: .85rem; }
th, td { border: 1px solid var(--line); padding: .15rem .45rem; text-align: left; font-family: ui-monospace, monospace; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
.diff .missing { color: var(--bad); } .diff .unexpected { color: #7a4d00; }
.states { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .6rem; }
.hint { border-left: 3px solid #c99a00; padding-left: .6rem; }
footer { margin-top: 2rem; border-top: 1px solid var(--line); color: var(--muted); font-size: .85rem; }
a { color: #0b57d0; }
@media (max-width: 30rem) { body { font-size: 15px; } main { padding: .6rem; } .lang { float: none; display: block; } }
@media print {
  body { font-size: 11pt; } main { max-width: none; padding: 0; }
  .lang, .noprint { display: none; }
  a { color: inherit; text-decoration: none; }
  .check { border-color: #888; background: none !important; }
  pre { white-space: pre-wrap; border-color: #888; }
}
"#;

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn page(lang: Lang, title: &str, head_extra: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex\">\n{head_extra}<title>{}</title>\n<style>{STYLE}</style>\n</head>\n\
         <body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        lang.code(),
        escape(title)
    )
}

pub fn not_found_page(lang: Lang) -> String {
    let (title, text) = match lang {
        Lang::De => (
            "Bericht nicht gefunden",
            "Diesen Bericht gibt es nicht, oder der Link ist unvollständig. Bitte den Link aus der Lernplattform vollständig öffnen.",
        ),
        Lang::En => (
            "Report not found",
            "There is no such report, or the link is incomplete. Please open the full link from the learning platform.",
        ),
    };
    page(lang, title, "", &format!("<h1>{title}</h1>\n<p>{text}</p>\n"))
}

pub fn error_page(lang: Lang, de: &str, en: &str) -> String {
    let (title, text) = match lang {
        Lang::De => ("Fehler", de),
        Lang::En => ("Error", en),
    };
    page(lang, title, "", &format!("<h1>{title}</h1>\n<p>{}</p>\n", escape(text)))
}

/// A trace or timeline as a numbered list under its heading (nothing when it is empty), each line
/// with an optional class, and how many lines the report left out.
fn trace_list(
    body: &mut String,
    heading: &str,
    lines: impl ExactSizeIterator<Item = (Option<&'static str>, String)>,
    (omitted, omitted_label): (usize, &str),
) {
    if lines.len() == 0 {
        return;
    }
    let _ = writeln!(body, "<h3>{heading}</h3>\n<ol class=\"trace\">");
    for (class, line) in lines {
        let class = class.map(|c| format!(" class=\"{c}\"")).unwrap_or_default();
        let _ = writeln!(body, "<li{class}>{}</li>", escape(&line));
    }
    let _ = writeln!(body, "</ol>");
    if omitted > 0 {
        let _ = writeln!(body, "<p class=\"meta\">… {omitted} {omitted_label}</p>");
    }
}

fn t<'a>(lang: Lang, de: &'a str, en: &'a str) -> &'a str {
    if lang == Lang::De { de } else { en }
}

/// The report page of a submission.
pub fn report_page(record: &SubmissionRecord, lang: Lang, public_id: &str, token: &str) -> String {
    let mut body = String::new();
    let other = if lang == Lang::De { Lang::En } else { Lang::De };
    let _ = writeln!(
        body,
        "<nav class=\"lang\"><a href=\"?t={}&amp;lang={}\" hreflang=\"{}\">{}</a></nav>",
        escape(token),
        other.code(),
        other.code(),
        t(lang, "English", "Deutsch")
    );
    let report: Option<Report> = record
        .result
        .as_ref()
        .and_then(|r| r.report.as_deref())
        .and_then(|json| serde_json::from_str(json).ok());
    let (verdict_class, verdict_text) = match (record.status, report.as_ref().map(|r| r.verdict)) {
        (_, Some(Verdict::Passed)) => ("passed", t(lang, "BESTANDEN", "PASSED")),
        (_, Some(Verdict::Failed)) => ("failed", t(lang, "NICHT BESTANDEN", "FAILED")),
        (_, Some(Verdict::Rejected)) => ("rejected", t(lang, "ABGEWIESEN", "REJECTED")),
        (Status::Failed, None) => ("failed", t(lang, "NICHT BEWERTBAR", "NOT GRADED")),
        _ => ("pending", t(lang, "WIRD BEWERTET", "BEING GRADED")),
    };
    let _ = writeln!(body, "<header>");
    let _ = writeln!(
        body,
        "<p class=\"meta\">{} · {}</p>",
        t(lang, "Prüfstein – Bericht", "Prüfstein – report"),
        escape(public_id)
    );
    let _ = writeln!(body, "<h1>{}</h1>", escape(&record.exercise));
    let _ = write!(body, "<p><span class=\"verdict {verdict_class}\">{verdict_text}</span>");
    if let Some(report) = &report {
        let _ = write!(
            body,
            " &nbsp;{} <strong>{}/{}</strong>",
            t(lang, "Punkte", "Score"),
            report.score.points,
            report.score.max
        );
    }
    let _ = writeln!(body, "</p>");
    let _ = writeln!(
        body,
        "<p class=\"meta\">{} {} · sha256 <code>{}</code></p>",
        t(lang, "Lernende Person:", "Learner:"),
        escape(&record.learner),
        escape(&record.sha256[..record.sha256.len().min(16)])
    );
    let _ = writeln!(body, "</header>");

    let mut head = String::new();
    match (&report, record.status) {
        (Some(report), _) => render_report(report, lang, &mut body),
        (None, Status::Failed) => {
            let failure = record.result.as_ref().and_then(|r| r.failure.as_deref()).unwrap_or("");
            let _ = writeln!(
                body,
                "<p>{}</p>\n<pre>{}</pre>",
                t(
                    lang,
                    "Diese Abgabe konnte nicht bewertet werden; das liegt nicht an dir. Der Grund (für die Lehrenden):",
                    "This submission could not be graded; that is not your fault. The reason (for the teachers):"
                ),
                escape(failure)
            );
        }
        _ => {
            head = format!("<meta http-equiv=\"refresh\" content=\"{PENDING_REFRESH_SECONDS}\">\n");
            let _ = writeln!(
                body,
                "<p>{}</p>",
                t(
                    lang,
                    "Die Abgabe wird gerade bewertet. Diese Seite lädt sich von selbst neu.",
                    "The submission is being graded. This page reloads by itself."
                )
            );
        }
    }
    let _ = writeln!(
        body,
        "<footer><p>{}</p></footer>",
        t(
            lang,
            "Dieser Bericht hängt nur von der Abgabe ab: dieselbe Abgabe ergibt denselben Bericht.",
            "This report depends on the submission alone: the same submission gives the same report."
        )
    );
    let title = format!("{} – {}", record.exercise, verdict_text);
    page(lang, &title, &head, &body)
}

fn render_report(report: &Report, lang: Lang, body: &mut String) {
    let _ = writeln!(body, "<p>{}</p>", escape(report.summary.get(lang)));
    if let Some(rejection) = &report.rejection {
        let _ = writeln!(
            body,
            "<div class=\"check failed\"><p><span class=\"mark\">✗</span> <strong>{}</strong> <span class=\"name\">{}</span></p><p>{}</p></div>",
            t(lang, "Nicht bewertbar", "Not gradable"),
            escape(&rejection.code),
            escape(rejection.message.get(lang))
        );
    }
    if !report.checks.is_empty() {
        let _ = writeln!(body, "<h2>{}</h2>", t(lang, "Prüfungen", "Checks"));
        // Failed checks first: they are what the student needs to read; then those that passed,
        // then those that did not run (the time limit came first).
        for check in report.failed_checks() {
            render_check(check, lang, body);
        }
        for check in report.checks.iter().filter(|c| c.passed) {
            render_check(check, lang, body);
        }
        for check in report.not_run_checks() {
            render_check(check, lang, body);
        }
    }
    if !report.coverage.is_empty() {
        let _ = writeln!(body, "<h2>{}</h2>\n<ul>", t(lang, "Abdeckung", "Coverage"));
        for c in &report.coverage {
            let _ = match c.total {
                Some(total) => {
                    writeln!(body, "<li>{}: {}/{}</li>", escape(c.label.get(lang)), c.exercised, total)
                }
                None => writeln!(body, "<li>{}: {}</li>", escape(c.label.get(lang)), c.exercised),
            };
        }
        let _ = writeln!(body, "</ul>");
    }
    if let Some(replay) = &report.replay {
        let _ = writeln!(
            body,
            "<h2>{}</h2>\n<p>{}</p>\n<pre class=\"replay\">{}</pre>",
            t(lang, "Lokal nachstellen", "Replay locally"),
            t(
                lang,
                "Mit diesem Befehl bewertest du dieselbe Abgabe auf deinem Rechner genauso:",
                "This command grades the same submission on your machine in the same way:"
            ),
            escape(replay)
        );
    }
}

fn render_check(check: &CheckReport, lang: Lang, body: &mut String) {
    let (class, mark) = match (check.passed, check.not_run) {
        (true, _) => ("passed", "✓"),
        (false, true) => ("not-run", "–"),
        (false, false) => ("failed", "✗"),
    };
    let _ = write!(
        body,
        "<section class=\"check {class}\" id=\"check-{}\">\n<h3><span class=\"mark\">{mark}</span> {} <span class=\"name\">{}</span>",
        escape(&check.name),
        escape(check.title.get(lang)),
        escape(&check.name)
    );
    if let Some(points) = check.points {
        let _ = write!(body, " <span class=\"meta\">{}/{}</span>", points.points, points.max);
    }
    let _ = writeln!(body, "</h3>");
    if check.passed {
        let _ = writeln!(body, "</section>");
        return;
    }
    if check.not_run {
        let _ = writeln!(
            body,
            "<p><strong>{}</strong> {}</p>\n</section>",
            t(lang, "Nicht ausgeführt.", "Not run."),
            check.failure.as_ref().map(|f| escape(f.get(lang))).unwrap_or_default()
        );
        return;
    }
    let _ = writeln!(body, "<p>{}</p>", escape(check.explanation.get(lang)));
    if let Some(failure) = &check.failure {
        let _ = writeln!(
            body,
            "<p><strong>{}</strong> {}</p>",
            t(lang, "Was passiert ist:", "What happened:"),
            escape(failure.get(lang))
        );
    }
    if let Some(hint) = &check.hint {
        let _ = writeln!(
            body,
            "<p class=\"hint\"><strong>{}</strong> {}</p>",
            t(lang, "Tipp:", "Hint:"),
            escape(hint.get(lang))
        );
    }
    match &check.detail {
        CheckDetail::Consumer(detail) => render_consumer(detail, lang, body),
        CheckDetail::Prediction(detail) => render_prediction(detail, lang, body),
    }
    if let Some(replay) = &check.replay {
        let _ = writeln!(
            body,
            "<p>{}</p>\n<pre class=\"replay\">{}</pre>",
            t(
                lang,
                "Genau diesen Lauf nachstellen (mit vollständigem Ablauf):",
                "Replay exactly this run (with its full trace):"
            ),
            escape(replay)
        );
    }
    let _ = writeln!(body, "</section>");
}

fn render_consumer(detail: &ConsumerDetail, lang: Lang, body: &mut String) {
    if let Some(schedule) = &detail.schedule {
        let _ = writeln!(
            body,
            "<p><strong>{}</strong> {} <span class=\"meta\">(seed {})</span></p>",
            t(lang, "Zeitplan:", "Schedule:"),
            escape(schedule.description.get(lang)),
            escape(&schedule.seed)
        );
    }
    let events = detail.trace.iter().map(|event| {
        let class = match event {
            TraceEvent::Crash { .. } => Some("crash"),
            TraceEvent::Fault { .. } => Some("fault"),
            _ => None,
        };
        (class, event.render(lang))
    });
    let omitted =
        (detail.trace_omitted as usize, t(lang, "weitere Ereignisse ausgelassen", "more events left out"));
    trace_list(body, t(lang, "Ablauf", "Trace"), events, omitted);
    if let Some(points) = &detail.crash_points {
        let line = crate::report::consumer::crash_points_line(points, lang);
        let (label, rest) = line.split_once(": ").unwrap_or(("", line.as_str()));
        let _ = writeln!(body, "<p><strong>{}:</strong> {}</p>", escape(label), escape(rest));
    }
    if let Some(state) = &detail.state {
        let _ = writeln!(body, "<h3>{}</h3>", t(lang, "Datenbankzustand", "Database state"));
        let has_diff = state.diff.iter().any(|d| !d.missing.is_empty() || !d.unexpected.is_empty());
        if has_diff {
            let _ = writeln!(body, "<ul class=\"diff\">");
            for table in &state.diff {
                for row in &table.missing {
                    let _ = writeln!(
                        body,
                        "<li class=\"missing\">− {} <code>{}</code>: {}</li>",
                        t(lang, "fehlt in", "missing in"),
                        escape(&table.table),
                        escape(&row_text(row))
                    );
                }
                for row in &table.unexpected {
                    let _ = writeln!(
                        body,
                        "<li class=\"unexpected\">+ {} <code>{}</code>: {}</li>",
                        t(lang, "zu viel in", "unexpected in"),
                        escape(&table.table),
                        escape(&row_text(row))
                    );
                }
            }
            let _ = writeln!(body, "</ul>");
        }
        let _ = writeln!(body, "<div class=\"states\">");
        state_table(&state.before, t(lang, "Vorher", "Before"), body);
        state_table(&state.after, t(lang, "Nachher (deine Lösung)", "After (your solution)"), body);
        state_table(
            &state.expected,
            t(lang, "Erwartet (Referenzlösung)", "Expected (reference solution)"),
            body,
        );
        if let Some(allowed) = &state.also_allowed {
            state_table(allowed, t(lang, "oder: nichts passiert", "or: nothing happened"), body);
        }
        let _ = writeln!(body, "</div>");
    }
    let _ = writeln!(
        body,
        "<p class=\"meta\">{} {}</p>",
        t(lang, "Verbrauchter Treibstoff (fuel):", "Fuel used:"),
        detail.fuel_used
    );
}

fn row_text(row: &[crate::report::state::SqlValue]) -> String {
    format!("({})", row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
}

fn state_table(state: &State, caption: &str, body: &mut String) {
    let _ = writeln!(body, "<div class=\"table-wrap\"><p><strong>{}</strong></p>", escape(caption));
    for (table, rows) in state {
        let _ = writeln!(body, "<table><caption>{}</caption>", escape(table));
        if rows.is_empty() {
            let _ = writeln!(body, "<tr><td>–</td></tr>");
        }
        for row in rows {
            let cells: String = row.iter().map(|v| format!("<td>{}</td>", escape(&v.to_string()))).collect();
            let _ = writeln!(body, "<tr>{cells}</tr>");
        }
        let _ = writeln!(body, "</table>");
    }
    let _ = writeln!(body, "</div>");
}

fn render_prediction(detail: &PredictionDetail, lang: Lang, body: &mut String) {
    let _ = writeln!(
        body,
        "<p>{} <code>{}</code> · {} <code>{}</code></p>",
        t(lang, "Deine Antwort:", "Your answer:"),
        escape(&detail.given_text),
        t(lang, "Die Simulation ergibt:", "The simulation gives:"),
        escape(&detail.expected_text)
    );
    if !detail.parameters.is_empty() {
        let values: Vec<String> =
            detail.parameters.iter().map(|p| format!("{} = {}", p.name, p.value)).collect();
        let _ = writeln!(
            body,
            "<p>{} <code>{}</code></p>",
            t(lang, "Parameter:", "Parameters:"),
            escape(&values.join(", "))
        );
    }
    if let Some(earlier) = &detail.timeline_see {
        let _ = writeln!(
            body,
            "<p class=\"meta\">{} {}</p>",
            t(lang, "Zeitachse der Simulation: wie bei", "Simulated timeline: as for"),
            escape(earlier)
        );
    }
    let lines = detail.timeline.iter().map(|line| (None, line.render(lang)));
    let omitted = (detail.timeline_omitted, t(lang, "weitere Zeilen", "more lines"));
    trace_list(body, t(lang, "Zeitachse der Simulation", "Simulated timeline"), lines, omitted);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{REPORT_FORMAT, Score};
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
            detail: CheckDetail::Consumer(ConsumerDetail {
                trace: Vec::new(),
                trace_omitted: 0,
                state: None,
                fuel_used: 0,
                crash_points: None,
                schedule: None,
            }),
        }
    }

    /// A check that did not run is shown as such, after the failed and the passed ones, with its
    /// reason and without the evidence of a failure.
    #[test]
    fn a_check_that_did_not_run_is_shown_as_not_run_last() {
        let report = Report {
            format: REPORT_FORMAT,
            exercise: "x".into(),
            grader: crate::exercise::GraderKind::Consumer,
            submission_sha256: "00".into(),
            learner: None,
            verdict: Verdict::Failed,
            score: Score { points: 0, max: 1 },
            summary: Text::same("summary"),
            rejection: None,
            checks: vec![check("later", false, true), check("ok", true, false), check("broke", false, false)],
            coverage: Vec::new(),
            replay: None,
        };
        for (lang, label) in [(Lang::De, "Nicht ausgeführt."), (Lang::En, "Not run.")] {
            let mut body = String::new();
            render_report(&report, lang, &mut body);
            let at = |id: &str| body.find(&format!("id=\"check-{id}\"")).expect("check rendered");
            assert!(at("broke") < at("ok") && at("ok") < at("later"), "{body}");
            let not_run = &body[at("later")..];
            assert!(body.contains("<section class=\"check not-run\" id=\"check-later\">"), "{body}");
            assert!(not_run.contains(label) && not_run.contains("Not run: time"), "{body}");
            assert!(!not_run.contains("explanation"), "no failure evidence for a check that did not run");
        }
    }
}
