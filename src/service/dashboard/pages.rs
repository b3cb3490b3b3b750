//! The dashboard's pages (maud): the course's exercises with their pass rates, a learner's
//! submissions, two reports side by side, and a regrade's outcome. Plain HTML without script,
//! readable on a phone, in German or English; every control is a link, a labelled field or a
//! button with its name as text.

use maud::{Markup, html};

use super::analytics_page::{ANALYTICS_STYLE, percent};
use super::{Course, DashboardLink};
use crate::report::Report;
use crate::report::html::{render_report, t};
use crate::service::clock;
use crate::service::html::page_with_style;
use crate::service::regrade::RegradeSummary;
use crate::service::store::SubmissionRecord;
use crate::text::Lang;

/// One exercise of the course on the dashboard.
pub(crate) struct ExerciseRow {
    pub slug: String,
    pub title: String,
    pub submissions: usize,
    pub learners: usize,
    pub passed: usize,
    pub graded: usize,
}

/// What the course is called on its pages.
fn course_name(course: &Course, lang: Lang) -> String {
    match course {
        Course::Service => {
            t(lang, "alle Abgaben dieses Dienstes", "every submission of this service").to_string()
        }
        Course::Lti { context, .. } => format!("{} {context}", t(lang, "Kurs", "course")),
    }
}

/// The header of every dashboard page: the way back, the language switch, the course.
fn header(link: &DashboardLink, lang: Lang, path: &str, more: &str, title: &str) -> Markup {
    let other = if lang == Lang::De { Lang::En } else { Lang::De };
    html! {
        nav class="lang" {
            a href=(link.href(path, other, more)) hreflang=(other.code()) { (t(lang, "English", "Deutsch")) }
        }
        header {
            p class="meta" {
                @if path != "/teach" {
                    a href=(link.href("/teach", lang, "")) { (t(lang, "Übersicht", "Overview")) } " · "
                }
                (t(lang, "Prüfstein – für Lehrende", "Prüfstein – for teachers")) " · " (course_name(&link.course, lang))
            }
            h1 { (title) }
            p class="meta" {
                (t(lang, "Dieser Link gilt bis", "This link is valid until")) " " (clock::rfc3339(link.expires))
            }
        }
    }
}

/// The hidden fields that carry a link through a GET form.
fn link_fields(link: &DashboardLink, lang: Lang) -> Markup {
    html! {
        @if let Course::Lti { platform, context } = &link.course {
            input type="hidden" name="p" value=(platform);
            input type="hidden" name="k" value=(context);
        }
        input type="hidden" name="e" value=(link.expires);
        input type="hidden" name="t" value=(link.token);
        input type="hidden" name="lang" value=(lang.code());
    }
}

/// The dashboard: every exercise with its pass rate and a link to its analytics, and a form that
/// finds a learner's submissions.
pub(crate) fn dashboard_page(link: &DashboardLink, exercises: &[ExerciseRow]) -> String {
    let lang = link.lang;
    let title = t(lang, "Aufgaben des Kurses", "The course's exercises");
    let body = html! {
        (header(link, lang, "/teach", "", title))
        ul class="exercises" {
            @for row in exercises {
                li {
                    a href=(link.href(&format!("/teach/exercises/{}", row.slug), lang, "")) { (row.title) }
                    " " span class="meta" { "(" (row.slug) ")" } br;
                    @if row.graded == 0 {
                        span class="meta" { (t(lang, "Noch keine bewertete Abgabe.", "No graded submission yet.")) }
                    } @else {
                        (t(lang, "Bestanden:", "Passed:")) " " (row.passed) "/" (row.graded) " ("
                        (percent(row.passed as f64 / row.graded as f64)) ") · "
                        (row.submissions) " " (t(lang, "Abgaben", "submissions")) " · "
                        (row.learners) " " (t(lang, "Lernende", "learners"))
                    }
                }
            }
        }
        h2 { (t(lang, "Abgaben einer lernenden Person", "A learner's submissions")) }
        form method="get" action="/teach/learner" {
            (link_fields(link, lang))
            label for="learner" { (t(lang, "Kennung der lernenden Person", "The learner's id")) }
            input id="learner" type="text" name="learner" required autocomplete="off";
            button type="submit" { (t(lang, "Abgaben zeigen", "Show submissions")) }
        }
    };
    page_with_style(lang, &format!("{title} – Prüfstein"), &dashboard_style(), body)
}

fn dashboard_style() -> String {
    format!(
        "{}{ANALYTICS_STYLE}input[type=text] {{ display: block; width: 100%; max-width: 24rem; font: inherit; padding: .3rem; margin-bottom: .6rem; }}",
        crate::service::html::FORM_STYLE
    )
}

/// The verdict word of a submission.
fn verdict(record: &SubmissionRecord, lang: Lang) -> &'static str {
    match record.result.as_ref().and_then(|r| r.verdict.as_deref()) {
        Some("passed") => t(lang, "BESTANDEN", "PASSED"),
        Some("failed") => t(lang, "NICHT BESTANDEN", "FAILED"),
        Some("rejected") => t(lang, "ABGEWIESEN", "REJECTED"),
        _ if record.status.is_final() => t(lang, "NICHT BEWERTBAR", "NOT GRADED"),
        _ => t(lang, "WIRD BEWERTET", "BEING GRADED"),
    }
}

/// A learner's submissions in the course, newest first, each a link to its report.
pub(crate) fn learner_page(
    link: &DashboardLink,
    learner: &str,
    records: &[SubmissionRecord],
    report: &dyn Fn(&str) -> String,
) -> String {
    let lang = link.lang;
    let title = format!("{} {learner}", t(lang, "Abgaben von", "Submissions of"));
    let more =
        format!("&learner={}", url::form_urlencoded::byte_serialize(learner.as_bytes()).collect::<String>());
    let body = html! {
        (header(link, lang, "/teach/learner", &more, &title))
        @if records.is_empty() {
            p { (t(lang, "Keine Abgabe in diesem Kurs.", "No submission in this course.")) }
        } @else {
            ol class="history" reversed {
                @for record in records {
                    @let id = crate::service::public_id::of(record.id);
                    li {
                        a href=(report(&id)) { (id) } " · " (record.exercise) " · "
                        (clock::rfc3339(record.created_at)) " · " (verdict(record, lang))
                        @if let Some(result) = &record.result {
                            @if let (Some(points), Some(max)) = (result.points, result.max_points) {
                                " " (points) "/" (max)
                            }
                        }
                    }
                }
            }
        }
    };
    page_with_style(lang, &format!("{title} – Prüfstein"), &dashboard_style(), body)
}

/// Two submissions' reports side by side (one above the other on a phone).
pub(crate) fn compare_page(link: &DashboardLink, pair: [&SubmissionRecord; 2]) -> String {
    let lang = link.lang;
    let title = t(lang, "Zwei Abgaben nebeneinander", "Two submissions side by side");
    let more = format!(
        "&a={}&b={}",
        crate::service::public_id::of(pair[0].id),
        crate::service::public_id::of(pair[1].id)
    );
    let body = html! {
        (header(link, lang, "/teach/compare", &more, title))
        div class="sides" {
            @for record in pair {
                @let report: Option<Report> = record.result.as_ref().and_then(|r| r.report.as_deref()).and_then(|j| serde_json::from_str(j).ok());
                section {
                    h2 { (crate::service::public_id::of(record.id)) " · " (record.learner) " · " (verdict(record, lang)) }
                    @if let Some(report) = &report { (render_report(report, lang)) }
                }
            }
        }
    };
    page_with_style(lang, &format!("{title} – Prüfstein"), &dashboard_style(), body)
}

/// What a regrade button did: the jobs queued, or the verdicts a dry run would change.
pub(crate) fn regrade_page(link: &DashboardLink, slug: &str, summary: &RegradeSummary) -> String {
    let lang = link.lang;
    let title = if summary.dry_run {
        t(lang, "Probelauf der Neubewertung", "Regrade dry run")
    } else {
        t(lang, "Neubewertung eingereiht", "Regrade queued")
    };
    let back = link.href(&format!("/teach/exercises/{slug}"), lang, "");
    let body = html! {
        (header(link, lang, &format!("/teach/exercises/{slug}"), "", title))
        p { (summary.selected) " " (t(lang, "Abgaben ausgewählt.", "submissions selected.")) }
        @if summary.dry_run {
            p { (summary.would_change.unwrap_or(0)) " " (t(lang, "Urteile würden sich ändern:", "verdicts would change:")) }
            ul {
                @for change in &summary.changes {
                    li { (change.submission_id) " (" (change.learner) "): " (change.old.verdict.as_deref().unwrap_or("–")) " → " (change.new.verdict.as_deref().unwrap_or("–")) }
                }
            }
        } @else {
            p { (summary.queued.len()) " " (t(lang, "Abgaben werden neu bewertet;", "submissions are being regraded;")) " "
                (summary.already_open.len()) " " (t(lang, "warteten schon.", "were waiting already.")) }
        }
        p { a href=(back) { (t(lang, "Zurück zur Auswertung", "Back to the analytics")) } }
    };
    page_with_style(lang, &format!("{title} – Prüfstein"), &dashboard_style(), body)
}
