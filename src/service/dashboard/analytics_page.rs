//! The analytics page of an exercise for teachers: figures, bar charts (inline SVG, no script),
//! the checks by their titles in the page's language, the mutants grouped by the mistake they
//! make (with the exercise's line about it and the submissions that behave like it), similarity
//! hints, and on the dashboard the regrade buttons. Served by the API (`?format=html`, behind a
//! teacher's token) and by the dashboard (behind its signed link).

use maud::{Markup, html};

use crate::limits::{CHART_BARS_MAX, CHART_LABEL_CHARS_MAX};
use crate::report::html::t;
use crate::service::analytics::Analytics;
use crate::service::html::page_with_style;
use crate::text::Lang;

/// The analytics page's own rules: bar charts and their figures as text, forms.
pub(crate) const ANALYTICS_STYLE: &str = r#"
figure.chart { margin: .6rem 0; } figure.chart figcaption { font-weight: 600; font-size: .9rem; }
svg.bars { display: block; width: 100%; max-width: 42rem; height: auto; font-family: system-ui, sans-serif; }
ul.figures { position: absolute; left: -9999px; }
table.overview th { font-family: inherit; font-weight: 600; }
ul.mistakes li, ul.pairs li, ul.exercises li { margin: .4rem 0; overflow-wrap: anywhere; }
form.inline { display: inline-block; margin: .2rem .4rem .2rem 0; }
button { font: inherit; padding: .4rem 1.2rem; border-radius: .3rem; border: 1px solid #0b57d0; background: #0b57d0; color: #fff; min-height: 2.75rem; }
button.secondary { background: #fff; color: #0b57d0; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; }
.sides > section { min-width: 0; }
@media print { ul.figures { position: static; } svg.bars { max-width: 16cm; } form { display: none; } }
"#;

/// Two submissions' public ids to the page that shows their reports side by side.
pub(crate) type CompareHref<'a> = &'a dyn Fn(&str, &str) -> String;

/// Where the analytics page links to: depends on whether the API or the dashboard serves it.
pub(crate) struct AnalyticsLinks<'a> {
    /// This page in another language.
    pub lang: &'a dyn Fn(Lang) -> String,
    /// A submission's report page (by its public id).
    pub report: &'a dyn Fn(&str) -> String,
    /// Two submissions' reports side by side (the dashboard only).
    pub compare: Option<CompareHref<'a>>,
    /// The regrade form's action and CSRF token (the dashboard only).
    pub regrade: Option<(String, String)>,
    /// Back to the dashboard.
    pub back: Option<String>,
}

/// One bar of a chart: its label, its share (0 to 1) and the figure written beside it.
pub(crate) struct Bar {
    pub label: String,
    pub share: f64,
    pub figure: String,
}

/// A horizontal bar chart as inline SVG (integer coordinates, no script), with its figures also
/// as text for screen readers and print.
fn bar_chart(title: &str, bars: &[Bar]) -> Markup {
    let bars = &bars[..bars.len().min(CHART_BARS_MAX)];
    let (label_w, bar_w, figure_w, row_h) = (260i64, 300i64, 120i64, 22i64);
    let width = label_w + bar_w + figure_w;
    let height = row_h * bars.len() as i64 + 4;
    let label = |text: &str| -> String {
        let mut chars: String = text.chars().take(CHART_LABEL_CHARS_MAX).collect();
        if text.chars().count() > CHART_LABEL_CHARS_MAX {
            chars.push('…');
        }
        chars
    };
    html! {
        figure class="chart" {
            figcaption { (title) }
            svg class="bars" role="img" aria-label=(title) viewBox={ "0 0 " (width) " " (height) }
                xmlns="http://www.w3.org/2000/svg" {
                @for (i, bar) in bars.iter().enumerate() {
                    @let y = 2 + row_h * i as i64;
                    @let w = ((bar.share.clamp(0.0, 1.0) * bar_w as f64).round() as i64).max(i64::from(bar.share > 0.0));
                    text x=(label_w - 8) y=(y + 15) text-anchor="end" font-size="13" { (label(&bar.label)) }
                    rect x=(label_w) y=(y + 3) width=(bar_w) height=(row_h - 6) fill="#eef0f3" {}
                    rect x=(label_w) y=(y + 3) width=(w) height=(row_h - 6) fill="#a1181b" {}
                    text x=(label_w + bar_w + 8) y=(y + 15) font-size="13" { (bar.figure) }
                }
            }
            ul class="figures" {
                @for bar in bars {
                    li { (bar.label) ": " (bar.figure) }
                }
            }
        }
    }
}

pub(crate) fn percent(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}

/// The page's header and the table of overall figures.
fn overview(a: &Analytics, lang: Lang, links: &AnalyticsLinks<'_>) -> Markup {
    let other = if lang == Lang::De { Lang::En } else { Lang::De };
    let minutes = |ms: i64| format!("{:.1} min", ms as f64 / 60_000.0);
    html! {
        nav class="lang" {
            a href=((links.lang)(other)) hreflang=(other.code()) { (t(lang, "English", "Deutsch")) }
        }
        header {
            p class="meta" {
                @if let Some(back) = &links.back {
                    a href=(back) { (t(lang, "Übersicht", "Overview")) } " · "
                }
                (t(lang, "Prüfstein – Auswertung für Lehrende", "Prüfstein – analytics for teachers"))
            }
            h1 { (&a.exercise) }
            p class="meta" { (t(lang, "Version", "Version")) " " code { (&a.exercise_hash[..a.exercise_hash.len().min(12)]) } " · " (&a.grader) }
        }
        table class="overview" {
            tr { th scope="row" { (t(lang, "Abgaben", "Submissions")) } td { (a.submissions) @if a.truncated { " " (t(lang, "(gekürzt)", "(cut)")) } } }
            tr { th scope="row" { (t(lang, "Lernende", "Learners")) } td { (a.learners) } }
            tr { th scope="row" { (t(lang, "Bestanden / bewertet", "Passed / graded")) } td { (a.passed) "/" (a.graded) " (" (percent(a.pass_rate)) ")" } }
            tr { th scope="row" { (t(lang, "Nicht bestanden", "Failed")) } td { (a.failed) } }
            tr { th scope="row" { (t(lang, "Abgewiesen", "Rejected")) } td { (a.rejected) } }
            tr { th scope="row" { (t(lang, "Lernende mit Bestehen", "Learners who passed")) } td { (a.learners_passed) } }
            tr {
                th scope="row" { (t(lang, "Zeit bis zum ersten Bestehen (Median)", "Time to first pass (median)")) }
                td { @match a.time_to_first_pass.median_ms { Some(ms) => (minutes(ms)), None => "–" } }
            }
        }
    }
}

/// The checks failing submissions fail, by their titles in `lang`.
fn checks(a: &Analytics, lang: Lang) -> Markup {
    let bars: Vec<Bar> = a
        .checks
        .iter()
        .map(|c| Bar {
            label: c.title.get(lang).to_string(),
            share: c.share,
            figure: format!("{} ({})", c.failing_submissions, percent(c.share)),
        })
        .collect();
    html! {
        h2 { (t(lang, "Häufigste Fehler", "Most common mistakes")) }
        @if bars.is_empty() {
            p { (t(lang, "Keine nicht bestandene Abgabe.", "No failing submission.")) }
        } @else {
            (bar_chart(t(lang, "Anteil der nicht bestandenen Abgaben je Prüfung", "Share of failing submissions per check"), &bars))
        }
    }
}

/// The mutants grouped by their mistake: the exercise's line about it, its files, and the
/// submissions that behave like it, each a link to its report.
fn mistakes(a: &Analytics, lang: Lang, links: &AnalyticsLinks<'_>) -> Markup {
    let with_submissions: Vec<_> = a.mistakes.iter().filter(|m| !m.submissions.is_empty()).collect();
    let bars: Vec<Bar> = with_submissions
        .iter()
        .map(|m| {
            let share = if a.failed == 0 { 0.0 } else { m.submissions.len() as f64 / a.failed as f64 };
            let label = m.description.as_ref().map_or(m.mistake.clone(), |d| d.get(lang).to_string());
            Bar { label, share, figure: format!("{} ({})", m.submissions.len(), percent(share)) }
        })
        .collect();
    html! {
        @if !a.mistakes.is_empty() {
            h2 { (t(lang, "Verhält sich wie Mutant", "Behaves like mutant")) }
            @if !bars.is_empty() {
                (bar_chart(t(lang, "Nicht bestandene Abgaben, die genau die Prüfungen eines Mutanten nicht bestehen", "Failing submissions that fail exactly a mutant's checks"), &bars))
            }
            ul class="mistakes" {
                @for m in &a.mistakes {
                    li id={ "mistake-" (m.mistake) } {
                        strong { (m.description.as_ref().map_or(m.mistake.as_str(), |d| d.get(lang))) }
                        " " span class="meta" { "(" (m.mistake) ": "
                            @for (i, file) in m.files.iter().enumerate() {
                                @if i > 0 { ", " }
                                (file.rsplit('.').next().map(|e| format!(".{e}")).unwrap_or_default())
                            }
                        ")" }
                        br;
                        @if m.submissions.is_empty() {
                            span class="meta" { (t(lang, "Keine Abgabe.", "No submission.")) }
                        } @else {
                            (m.submissions.len()) " " (t(lang, "Abgaben:", "submissions:")) " "
                            @for (i, id) in m.submissions.iter().enumerate() {
                                @if i > 0 { ", " }
                                a href=((links.report)(id)) { (id) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Wrong answers per part and per parameter value (prediction exercises).
fn parts(a: &Analytics, lang: Lang) -> Markup {
    let part_bars: Vec<Bar> = a
        .parts
        .iter()
        .map(|p| Bar {
            label: p.part.clone(),
            share: p.share,
            figure: format!("{}/{} ({})", p.wrong, p.answered, percent(p.share)),
        })
        .collect();
    let parameter_bars: Vec<Bar> = a
        .parameters
        .iter()
        .map(|p| Bar {
            label: format!("{} = {}", p.parameter, p.value),
            share: p.share,
            figure: format!("{}/{} ({})", p.wrong, p.answered, percent(p.share)),
        })
        .collect();
    html! {
        @if !part_bars.is_empty() {
            h2 { (t(lang, "Falsche Antworten je Teil", "Wrong answers per part")) }
            (bar_chart(t(lang, "Anteil falscher Antworten je Teil", "Share of wrong answers per part"), &part_bars))
        }
        @if !parameter_bars.is_empty() {
            h2 { (t(lang, "Falsche Antworten je Parameterwert", "Wrong answers per parameter value")) }
            (bar_chart(t(lang, "Anteil falscher Antworten je Wert eines Varianten-Parameters", "Share of wrong answers per value of a variant parameter"), &parameter_bars))
        }
    }
}

/// The similarity hints: each pair's two reports, and on the dashboard both side by side.
fn similarity(a: &Analytics, lang: Lang, links: &AnalyticsLinks<'_>) -> Markup {
    html! {
        @if let Some(similarity) = &a.similarity {
            h2 { (t(lang, "Ähnlichkeits-Hinweise", "Similarity hints")) }
            p class="hint" {
                (t(lang,
                   "Nur Hinweise, nie ein Urteil: ähnliche Module entstehen auch aus einem gemeinsamen Starter-Kit oder bei einer kurzen Aufgabe mit einer naheliegenden Lösung. Vor jedem Schluss beide Abgaben ansehen.",
                   "Hints, never verdicts: alike modules also come from a shared starter kit or a short exercise with one natural solution. Look at both submissions before drawing any conclusion."))
            }
            p class="meta" {
                (similarity.compared) " " (t(lang, "Abgaben verglichen, Schwelle", "submissions compared, threshold")) " "
                (similarity.threshold_per_mille / 10) " %"
            }
            @if similarity.pairs.is_empty() {
                p { (t(lang, "Kein Paar über der Schwelle.", "No pair above the threshold.")) }
            } @else {
                ul class="pairs" {
                    @for pair in &similarity.pairs {
                        li {
                            strong { (pair.similarity_per_mille / 10) " %" } ": "
                            a href=((links.report)(&pair.submission_a)) { (&pair.submission_a) } " (" (&pair.learner_a) ") "
                            (t(lang, "und", "and")) " "
                            a href=((links.report)(&pair.submission_b)) { (&pair.submission_b) } " (" (&pair.learner_b) ")"
                            @if let Some(compare) = links.compare {
                                " · " a href=(compare(&pair.submission_a, &pair.submission_b)) { (t(lang, "nebeneinander", "side by side")) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The regrade buttons (the dashboard only): a dry run, then the regrade itself.
fn regrade(lang: Lang, links: &AnalyticsLinks<'_>) -> Markup {
    html! {
        @if let Some((action, csrf)) = &links.regrade {
            section id="regrade" {
                h2 { (t(lang, "Neu bewerten", "Regrade")) }
                p { (t(lang,
                    "Bewertet die jeweils letzte Abgabe jeder lernenden Person dieses Kurses mit der jetzt geladenen Fassung der Aufgabe. Der Probelauf zeigt, welche Urteile sich ändern würden, und schreibt nichts.",
                    "Grades the latest submission of every learner of this course with the version of the exercise loaded now. The dry run shows which verdicts would change and writes nothing.")) }
                form class="inline" method="post" action=(action) {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="dry_run" value="true";
                    button type="submit" class="secondary" { (t(lang, "Probelauf", "Dry run")) }
                }
                form class="inline" method="post" action=(action) {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="dry_run" value="false";
                    button type="submit" { (t(lang, "Neu bewerten", "Regrade")) }
                }
            }
        }
    }
}

/// The analytics page of an exercise, in German or English.
pub(crate) fn analytics_page(a: &Analytics, lang: Lang, links: &AnalyticsLinks<'_>) -> String {
    let body = html! {
        (overview(a, lang, links))
        (regrade(lang, links))
        (checks(a, lang))
        (mistakes(a, lang, links))
        (parts(a, lang))
        (similarity(a, lang, links))
    };
    let title = format!("{} – {}", a.exercise, t(lang, "Auswertung", "Analytics"));
    page_with_style(lang, &title, ANALYTICS_STYLE, body)
}
