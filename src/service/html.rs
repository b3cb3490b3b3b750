//! The service's pages: the student's report page (`/reports/{id}?t=TOKEN&lang=de|en`), the error
//! page and the not-found page, as maud templates. Plain HTML with inline CSS, no JavaScript,
//! readable on a phone, printable. The report page shows the submission's header and wraps the
//! report's own HTML ([`crate::report::html`]); everything it prints is escaped.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::store::{Status, SubmissionRecord};
use crate::report::html::{render_report, t};
use crate::report::{Report, Verdict};
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
svg.sequence { display: block; width: 100%; max-width: 34rem; height: auto; margin: .4rem 0; border: 1px solid var(--line); border-radius: .3rem; background: #fff; }
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
  svg.sequence { max-width: 12cm; border-color: #888; }
}
"#;

fn page(lang: Lang, title: &str, refresh: bool, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex";
                @if refresh {
                    meta http-equiv="refresh" content=(PENDING_REFRESH_SECONDS);
                }
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { main { (body) } }
        }
    }
    .into_string()
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
    page(lang, title, false, html! { h1 { (title) } p { (text) } })
}

pub fn error_page(lang: Lang, de: &str, en: &str) -> String {
    let (title, text) = match lang {
        Lang::De => ("Fehler", de),
        Lang::En => ("Error", en),
    };
    page(lang, title, false, html! { h1 { (title) } p { (text) } })
}

/// The report page of a submission.
pub fn report_page(record: &SubmissionRecord, lang: Lang, public_id: &str, token: &str) -> String {
    let other = if lang == Lang::De { Lang::En } else { Lang::De };
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
    let pending = report.is_none() && !matches!(record.status, Status::Failed);
    let body = html! {
        nav class="lang" {
            a href={ "?t=" (token) "&lang=" (other.code()) } hreflang=(other.code()) {
                (t(lang, "English", "Deutsch"))
            }
        }
        header {
            p class="meta" { (t(lang, "Prüfstein – Bericht", "Prüfstein – report")) " · " (public_id) }
            h1 { (&record.exercise) }
            p {
                span class={ "verdict " (verdict_class) } { (verdict_text) }
                @if let Some(report) = &report {
                    " " (PreEscaped("&nbsp;")) (t(lang, "Punkte", "Score")) " "
                    strong { (report.score.points) "/" (report.score.max) }
                }
            }
            p class="meta" {
                (t(lang, "Lernende Person:", "Learner:")) " " (&record.learner) " · sha256 "
                code { (&record.sha256[..record.sha256.len().min(16)]) }
            }
        }
        @if let Some(report) = &report {
            (render_report(report, lang))
        } @else if matches!(record.status, Status::Failed) {
            p {
                (t(
                    lang,
                    "Diese Abgabe konnte nicht bewertet werden; das liegt nicht an dir. Der Grund (für die Lehrenden):",
                    "This submission could not be graded; that is not your fault. The reason (for the teachers):"
                ))
            }
            pre { (record.result.as_ref().and_then(|r| r.failure.as_deref()).unwrap_or("")) }
        } @else {
            p {
                (t(
                    lang,
                    "Die Abgabe wird gerade bewertet. Diese Seite lädt sich von selbst neu.",
                    "The submission is being graded. This page reloads by itself."
                ))
            }
        }
        footer {
            p {
                (t(
                    lang,
                    "Dieser Bericht hängt nur von der Abgabe ab: dieselbe Abgabe ergibt denselben Bericht.",
                    "This report depends on the submission alone: the same submission gives the same report."
                ))
            }
        }
    };
    let title = format!("{} – {}", record.exercise, verdict_text);
    page(lang, &title, pending, body)
}
