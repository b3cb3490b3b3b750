//! The service's pages: the student's report page (`/reports/{id}?t=TOKEN&lang=de|en`), the error
//! page and the not-found page, as maud templates. Plain HTML with inline CSS, no JavaScript,
//! readable on a phone, printable. The report page shows the submission's header and wraps the
//! report's own HTML ([`crate::report::html`]); everything it prints is escaped. The student's page
//! ([`student_page`], served by [`super::http::learn`]) adds the statement and a submission form.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::clock;
use super::store::{Status, SubmissionRecord};
use crate::report::html::{render_report, t};
use crate::report::{Report, Verdict};
use crate::submission::SubmissionKind;
use crate::text::{Lang, Text};

/// A page link whose token was right.
#[derive(Debug, Clone)]
pub(crate) struct PageLink {
    pub slug: String,
    pub client_id: i64,
    pub learner: String,
    pub context: Option<i64>,
    pub token: String,
    pub lang: Lang,
}

impl PageLink {
    /// The link's query without `lang` and `s` (what the page's own links and its form build on).
    pub(crate) fn query(&self) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("c", &self.client_id.to_string()).append_pair("l", &self.learner);
        if let Some(context) = self.context {
            query.append_pair("x", &context.to_string());
        }
        query.append_pair("t", &self.token);
        query.finish()
    }

    /// The path and query of this page in `lang`, showing submission `selected` if given.
    pub(crate) fn href(&self, lang: Lang, selected: Option<i64>) -> String {
        let mut href = format!("/learn/{}?{}&lang={}", self.slug, self.query(), lang.code());
        if let Some(id) = selected {
            href.push_str(&format!("&s={}", crate::service::public_id::of(id)));
        }
        href
    }
}

/// The content security policy of a page that only shows (a report, the course analytics): its
/// own inline styles and `data:` images, no script, no form, no base URL.
pub(crate) const PAGE_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

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
pre.source { font-family: ui-monospace, monospace; font-size: .85rem; overflow-x: auto; padding: .4rem 0; }
pre.source .ln { display: inline-block; min-width: 3ch; text-align: right; color: #595959; margin-right: .6rem; }
pre.source .marked { background: #fff3c4; }
pre.source .crash, pre.source .error { background: #ffd9d6; font-weight: 700; }
pre.source .decisive { outline: 2px solid #a40000; font-weight: 700; }
section.main-problem { border-left: 4px solid #a40000; padding-left: .8rem; }
svg.sequence { display: block; width: 100%; height: auto; margin: .4rem 0; border: 1px solid var(--line); border-radius: .3rem; background: #fff; }
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
  svg.sequence { max-width: 16cm; border-color: #888; }
}
"#;

/// What the pages with forms (the student's page, LTI's pages) add to [`STYLE`].
pub(crate) const FORM_STYLE: &str = r#"
form label { display: block; font-weight: 600; margin: .4rem 0 .2rem; }
textarea, input[type=file] { display: block; width: 100%; max-width: 100%; font: inherit; margin-bottom: .6rem; }
textarea { font-family: ui-monospace, monospace; padding: .4rem; }
button { font: inherit; padding: .4rem 1.2rem; border-radius: .3rem; border: 1px solid #0b57d0; background: #0b57d0; color: #fff; }
.error { border-left: 3px solid var(--bad); padding: .3rem .6rem; background: var(--bg-bad); }
pre.statement { background: none; border: none; padding: 0; font-family: inherit; font-size: 1rem; }
.verdict.small { font-size: .8rem; padding: 0 .4rem; }
ol.history li, ul.picker li { overflow-wrap: anywhere; margin: .3rem 0; }
"#;

fn page(lang: Lang, title: &str, refresh: bool, body: Markup) -> String {
    page_refreshing(lang, title, refresh.then_some(""), "", body)
}

/// A page with rules of its own besides the common style (the teachers' pages).
pub(crate) fn page_with_style(lang: Lang, title: &str, extra_style: &str, body: Markup) -> String {
    page_refreshing(lang, title, None, extra_style, body)
}

/// A page; with `refresh`, it reloads itself after [`PENDING_REFRESH_SECONDS`] (from the URL
/// given, or, when it is empty, its own).
fn page_refreshing(
    lang: Lang,
    title: &str,
    refresh: Option<&str>,
    extra_style: &str,
    body: Markup,
) -> String {
    let page = html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex";
                @match refresh {
                    Some("") => { meta http-equiv="refresh" content=(PENDING_REFRESH_SECONDS); }
                    // A URL without a fragment: a browser does not reload for a fragment.
                    Some(url) => { meta http-equiv="refresh" content={ (PENDING_REFRESH_SECONDS) "; url=" (url) }; }
                    None => {}
                }
                title { (title) }
                style { (PreEscaped(STYLE)) (PreEscaped(extra_style)) }
            }
            body { main { (body) } }
        }
    }
    .into_string();
    // A student's text may hold bidirectional controls ("Trojan Source"): every page names them.
    crate::text::reveal_bidi(&page).into_owned()
}

pub(crate) fn not_found_page(lang: Lang) -> String {
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

/// The page of a report that was erased on request or deleted after the retention period.
pub(crate) fn gone_page(lang: Lang) -> String {
    let (title, text) = match lang {
        Lang::De => (
            "Bericht gelöscht",
            "Diese Abgabe und ihr Bericht wurden gelöscht (auf Wunsch oder nach Ablauf der Aufbewahrungsfrist).",
        ),
        Lang::En => (
            "Report deleted",
            "This submission and its report were deleted (on request, or after the retention period).",
        ),
    };
    page(lang, title, false, html! { h1 { (title) } p { (text) } })
}

pub(crate) fn error_page(lang: Lang, de: &str, en: &str) -> String {
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

/// A page with a title and a body of its own (the LTI pages).
pub(crate) fn plain_page(lang: Lang, title: &str, body: Markup) -> String {
    page_refreshing(lang, title, None, FORM_STYLE, body)
}

/// A page with a title and one paragraph (the student's page's errors and LTI failures).
pub(crate) fn message_page(lang: Lang, title: &Text, text: &Text) -> String {
    page(lang, title.get(lang), false, html! { h1 { (title.get(lang)) } p { (text.get(lang)) } })
}

/// What the student's page shows.
pub(crate) struct StudentPage<'a> {
    pub link: &'a PageLink,
    pub title: &'a str,
    pub points: u32,
    /// The statement of the learner's variant (Markdown, shown as text).
    pub statement: &'a str,
    pub kind: SubmissionKind,
    /// The languages whose source the exercise takes besides a module.
    pub languages: &'a [crate::submission::Language],
    pub answer_example: Option<&'a str>,
    /// Starter kits: name and files.
    pub kits: &'a [(String, Vec<String>)],
    /// The submission whose report is shown.
    pub shown: Option<&'a SubmissionRecord>,
    /// The learner's submissions for this exercise, newest first.
    pub history: &'a [SubmissionRecord],
    /// Why the last submission was not accepted.
    pub error: Option<&'a Text>,
}

/// The verdict of a submission as a CSS class and a word.
fn verdict_label(
    record: &SubmissionRecord,
    report: Option<&Report>,
    lang: Lang,
) -> (&'static str, &'static str) {
    match (record.status, report.map(|r| r.verdict)) {
        (_, Some(Verdict::Passed)) => ("passed", t(lang, "BESTANDEN", "PASSED")),
        (_, Some(Verdict::Failed)) => ("failed", t(lang, "NICHT BESTANDEN", "FAILED")),
        (_, Some(Verdict::Rejected)) => ("rejected", t(lang, "ABGEWIESEN", "REJECTED")),
        (Status::Failed, None) => ("failed", t(lang, "NICHT BEWERTBAR", "NOT GRADED")),
        _ => ("pending", t(lang, "WIRD BEWERTET", "BEING GRADED")),
    }
}

/// The student's page: statement, starter kits, the submission form, the chosen submission's
/// report and the learner's history for the exercise. It reloads itself while the shown
/// submission waits to be graded.
pub(crate) fn student_page(view: &StudentPage<'_>) -> String {
    let link = view.link;
    let lang = link.lang;
    let other = if lang == Lang::De { Lang::En } else { Lang::De };
    let shown_id = view.shown.map(|r| r.id);
    let report: Option<Report> = view
        .shown
        .and_then(|r| r.result.as_ref())
        .and_then(|r| r.report.as_deref())
        .and_then(|json| serde_json::from_str(json).ok());
    let pending = view.shown.is_some_and(|r| !r.status.is_final());
    let action = format!("/learn/{}?{}&lang={}", link.slug, link.query(), lang.code());
    let body = html! {
        nav class="lang" {
            a href=(link.href(other, shown_id)) hreflang=(other.code()) { (t(lang, "English", "Deutsch")) }
        }
        header {
            p class="meta" { (t(lang, "Prüfstein – Aufgabe", "Prüfstein – exercise")) " · " (link.slug) }
            h1 { (view.title) }
            p class="meta" {
                (t(lang, "Lernende Person:", "Learner:")) " " (link.learner) " · "
                (t(lang, "Punkte:", "Points:")) " " (view.points)
            }
        }
        (statement_section(view, lang))
        (submit_section(view, lang, &action))
        @if let Some(record) = view.shown { (result_section(record, report.as_ref(), lang)) }
        (history_section(view, lang, shown_id))
    };
    let title = format!("{} – Prüfstein", view.title);
    let reload = link.href(lang, shown_id);
    page_refreshing(lang, &title, pending.then_some(reload.as_str()), FORM_STYLE, body)
}

/// The student's page's statement and starter kits.
fn statement_section(view: &StudentPage<'_>, lang: Lang) -> Markup {
    html! {
        section id="statement" {
            h2 { (t(lang, "Aufgabe", "Exercise")) }
            pre class="statement" { (view.statement) }
            @if !view.kits.is_empty() {
                h3 { (t(lang, "Startpakete", "Starter kits")) }
                ul class="kits" {
                    @for (name, files) in view.kits {
                        li {
                            strong { (name) } ": "
                            @for (i, file) in files.iter().enumerate() {
                                @if i > 0 { ", " }
                                a href={ "/kits/" (name) "/" (file) } { (file) }
                            }
                        }
                    }
                }
                p { a href="/docs/consumer-abi" { (t(lang, "Die Schnittstelle (ABI) des Konsumenten", "The consumer's interface (ABI)")) } }
            }
        }
    }
}

/// The student's page's submission form.
fn submit_section(view: &StudentPage<'_>, lang: Lang, action: &str) -> Markup {
    let link = view.link;
    html! {
        section id="submit" class="noprint" {
            h2 { (t(lang, "Abgeben", "Submit")) }
            @if let Some(error) = view.error {
                p class="error" role="alert" { (error.get(lang)) }
            }
            form method="post" action=(action) enctype="multipart/form-data" {
                input type="hidden" name="exercise" value=(link.slug);
                input type="hidden" name="learner" value=(link.learner);
                @match view.kind {
                    SubmissionKind::Answer => {
                        label for="answer" { (t(lang, "Deine Antwort", "Your answer")) }
                        @if let Some(example) = view.answer_example {
                            span class="meta" { " (" (t(lang, "Form zum Beispiel", "shaped like")) " " code { (example) } ")" }
                        }
                        textarea id="answer" name="answer" rows="4" required {}
                    }
                    SubmissionKind::Module => {
                        @let sources: Vec<String> = view.languages.iter().map(|l| format!(".{}", l.extension())).collect();
                        @if sources.is_empty() {
                            label for="file" { (t(lang, "Dein Modul (.wasm oder .wat)", "Your module (.wasm or .wat)")) }
                        } @else {
                            label for="file" {
                                (t(lang, "Dein Modul (.wasm oder .wat) oder dein Quelltext", "Your module (.wasm or .wat) or your source"))
                                " (" (sources.join(", ")) ")"
                            }
                        }
                        input id="file" type="file" name="file" accept=(
                            [".wasm".to_string(), ".wat".to_string()].into_iter().chain(sources.iter().cloned()).collect::<Vec<_>>().join(",")
                        ) required;
                    }
                }
                button type="submit" { (t(lang, "Abgeben", "Submit")) }
            }
        }
    }
}

/// The report of the submission the student's page shows (or why there is none yet).
fn result_section(record: &SubmissionRecord, report: Option<&Report>, lang: Lang) -> Markup {
    html! {
    @let (class, word) = verdict_label(record, report, lang);
    section id="result" {
        h2 { (t(lang, "Bericht", "Report")) " · " (crate::service::public_id::of(record.id)) }
        p {
            span class={ "verdict " (class) } { (word) }
            @if let Some(report) = &report {
                " " (PreEscaped("&nbsp;")) (t(lang, "Punkte", "Score")) " "
                strong { (report.score.points) "/" (report.score.max) }
            }
        }
        @if let Some(report) = &report {
            (render_report(report, lang))
        } @else if record.status == Status::Failed {
            p {
                (t(
                    lang,
                    "Diese Abgabe konnte nicht bewertet werden; das liegt nicht an dir. Der Grund (für die Lehrenden):",
                    "This submission could not be graded; that is not your fault. The reason (for the teachers):"
                ))
            }
            pre { (record.result.as_ref().and_then(|r| r.failure.as_deref()).unwrap_or("")) }
        } @else {
            p class="waiting" {
                (t(
                    lang,
                    "Die Abgabe wird gerade bewertet. Diese Seite lädt sich von selbst neu.",
                    "The submission is being graded. This page reloads by itself."
                ))
            }
        }
    }
    }
}

/// The learner's submissions for the exercise, newest first.
fn history_section(view: &StudentPage<'_>, lang: Lang, shown_id: Option<i64>) -> Markup {
    let link = view.link;
    html! {
        @if !view.history.is_empty() {
            section id="history" {
                h2 { (t(lang, "Deine Abgaben", "Your submissions")) }
                ol class="history" reversed {
                    @for record in view.history {
                        @let record_report: Option<Report> = record.result.as_ref().and_then(|r| r.report.as_deref()).and_then(|j| serde_json::from_str(j).ok());
                        @let (class, word) = verdict_label(record, record_report.as_ref(), lang);
                        li {
                            a href={ (link.href(lang, Some(record.id))) "#result" } { (crate::service::public_id::of(record.id)) }
                            " · " (clock::rfc3339(record.created_at)) " · "
                            span class={ "verdict small " (class) } { (word) }
                            @if let Some(result) = &record.result {
                                @if let (Some(points), Some(max)) = (result.points, result.max_points) {
                                    " " (points) "/" (max)
                                }
                            }
                            @if Some(record.id) == shown_id { " ←" }
                        }
                    }
                }
            }
        }
    }
}
