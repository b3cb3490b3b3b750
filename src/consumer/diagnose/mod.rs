//! The diagnosis of a consumer report: every failed check's evidence is read into [`Facts`]
//! (`facts`), matched against the kinds of mistake (`mistakes`: the lesson's, and an exercise's
//! own), and said in the student's words ([`Voice`]) with the delivery, the crash point, the
//! decisive line and the state difference that prove it. The finding of the lowest rank is the
//! report's main problem. Nothing here knows an exercise: roles of tables, kinds and texts are data.

pub(crate) mod facts;
pub(crate) mod mistakes;

use self::facts::{Segment, transaction_control};
use self::mistakes::{Decisive, Mistake, Mistakes, Observed};
use crate::consumer::checks::texts::fill;
use crate::report::consumer::{ConsumerDetail, TraceEvent, quote_sql, status};
use crate::report::diagnosis::{Diagnosis, Effect, Facts, Finding};
use crate::report::roles::{Role, Roles, written_table};
use crate::report::state::{Row, SqlValue};
use crate::report::voice::Voice;
use crate::report::{CheckDetail, CheckReport, Report};
use crate::text::Text;

/// What a diagnosis reads besides the report's checks.
pub(crate) struct Context<'a> {
    pub roles: &'a Roles,
    pub voice: Voice,
    pub mistakes: &'a Mistakes,
    /// The student's file name (`consumer.py`), for the lines of uncaught errors in its log.
    pub file: Option<&'a str>,
    /// The student's file, for the `with` whose end committed (Python).
    pub source: Option<&'a str>,
}

/// The diagnosis of `checks`; `problems` holds the key of each check's failure text, in the same
/// order. `None` when no check failed.
pub(crate) fn diagnose(
    checks: &[CheckReport],
    problems: &[Option<&str>],
    context: &Context<'_>,
) -> Option<Diagnosis> {
    let mut findings: Vec<(usize, Finding)> = Vec::new();
    for (index, (check, problem)) in checks.iter().zip(problems).enumerate() {
        if check.passed || check.not_run {
            continue;
        }
        let (CheckDetail::Consumer(detail), Some(problem)) = (&check.detail, problem) else { continue };
        if let Some(finding) = find(check, detail, problem, context) {
            findings.push((index, finding));
        }
    }
    findings.sort_by_key(|(index, finding)| (finding.rank, *index));
    let mut findings = findings.into_iter().map(|(_, finding)| finding);
    let main = findings.next()?;
    let others = findings
        .map(|mut finding| {
            finding.same_cause = finding.mistake == main.mistake;
            finding
        })
        .collect();
    Some(Diagnosis { main, others })
}

/// `report` with its diagnosis, from the keys of its checks' failures (in `report.checks`' order);
/// the summary names the main problem.
pub(crate) fn attach(
    (mut report, problems): (Report, Vec<Option<&'static str>>),
    context: &Context<'_>,
) -> Report {
    report.diagnosis = diagnose(&report.checks, &problems, context);
    if let Some(main) = report.diagnosis.as_ref().map(|d| &d.main) {
        report.summary.de.push_str(&format!(" Hauptproblem: {}.", main.title.de));
        report.summary.en.push_str(&format!(" Main problem: {}.", main.title.en));
    }
    report
}

/// The finding of one failed check.
fn find(
    check: &CheckReport,
    detail: &ConsumerDetail,
    problem: &str,
    context: &Context<'_>,
) -> Option<Finding> {
    let (facts, segment) = facts::facts(problem, detail, context.roles);
    let mistake = context.mistakes.find(&Observed { check: &check.name, facts: &facts })?;
    let values = values(&facts, check, context);
    let (line, statement) =
        segment.as_ref().map(|s| decisive(mistake, &detail.trace, s, context)).unwrap_or_default();
    Some(Finding {
        check: check.name.clone(),
        mistake: mistake.name.clone(),
        rank: mistake.rank,
        title: fill(&mistake.title, &values),
        explanation: fill(&mistake.explanation, &values),
        hint: mistake.hint.as_ref().map(|hint| fill(hint, &values)),
        place: segment.as_ref().and_then(|s| place(detail, s)),
        evidence: evidence(detail),
        line,
        statement,
        events: segment.as_ref().map(|s| s.events.iter().map(|&i| i as u32).collect()).unwrap_or_default(),
        same_cause: false,
        facts,
    })
}

/// The values of the placeholders of a kind's texts.
fn values(facts: &Facts, check: &CheckReport, context: &Context<'_>) -> Vec<(&'static str, Text)> {
    let voice = context.voice;
    let tables = |names: &[String]| {
        let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        Text::same(list.join(", "))
    };
    let times = match (facts.effect, facts.times) {
        (Effect::Doubled, _) => Text::new("doppelt", "twice"),
        (Effect::Multiplied, Some(k)) => Text { de: format!("{k}-mal"), en: format!("{k} times") },
        _ => Text::new("mehr als einmal", "more than once"),
    };
    let ended = match facts.returned {
        Some(value) => voice.ended(value),
        None => Text::new("endete nicht", "did not end"),
    };
    vec![
        ("times", times),
        ("effect", tables(&facts.effect_tables)),
        ("memory", tables(&facts.memory_tables)),
        ("ended", ended),
        ("processed", voice.processed()),
        ("duplicate", voice.duplicate()),
        ("raise", voice.raise()),
        ("transaction", voice.transaction()),
        ("close", voice.close()),
        ("failure", check.failure.clone().unwrap_or_default()),
    ]
}

/// "2. Zustellung der Nachricht 7 (Duplikat) an Prozess #1, Absturz nach Schreibzugriff 1 (…)".
fn place(detail: &ConsumerDetail, segment: &Segment) -> Option<Text> {
    let first = *segment.events.first()?;
    let TraceEvent::Deliver { message, note, instance } = &detail.trace[first] else { return None };
    let crash = segment.events.iter().find_map(|&i| match &detail.trace[i] {
        TraceEvent::Crash { point, .. } => Some(*point),
        _ => None,
    });
    let id = message.get("id").map(|id| id.to_string()).unwrap_or_else(|| message.to_string());
    // A check that crashes starts over for each crash point: its deliveries are not counted.
    let mut text = if crash.is_some() || detail.crash_points.is_some() {
        Text { de: format!("Zustellung der Nachricht {id}"), en: format!("delivery of message {id}") }
    } else {
        let ordinal = detail.trace[..=first]
            .iter()
            .filter(|e| matches!(e, TraceEvent::Deliver { message: m, .. } if m == message))
            .count();
        Text {
            de: format!("{ordinal}. Zustellung der Nachricht {id}"),
            en: format!("delivery {ordinal} of message {id}"),
        }
    };
    let note = note.as_ref();
    if let Some(note) = note {
        text.de.push_str(&format!(" ({})", note.de));
        text.en.push_str(&format!(" ({})", note.en));
    }
    text.de.push_str(&format!(" an Prozess #{instance}"));
    text.en.push_str(&format!(" to process #{instance}"));
    if let Some(point) = crash {
        let place = detail.crash_points.as_ref().and_then(|p| p.failed_where.clone());
        match place {
            Some(place) => {
                text.de.push_str(&format!(", Absturz {}", place.de));
                text.en.push_str(&format!(", crash {}", place.en));
            }
            None => {
                text.de.push_str(&format!(", Absturz an Absturzpunkt {point}"));
                text.en.push_str(&format!(", crash at crash point {point}"));
            }
        }
    }
    Some(text)
}

/// A row's values that are not numbers: what identifies it across states.
fn key(row: &Row) -> Vec<&SqlValue> {
    row.iter().filter(|v| !matches!(v, SqlValue::Integer(_) | SqlValue::Real(_))).collect()
}

/// The state difference in words: "`punkte`: ('anna', 200) statt ('anna', 150); `gesehen`: (7) fehlt".
fn evidence(detail: &ConsumerDetail) -> Option<Text> {
    let state = detail.state.as_ref()?;
    let row = crate::report::consumer::row_text;
    let (mut de, mut en) = (Vec::new(), Vec::new());
    for table in &state.diff {
        let mut missing: Vec<&Row> = table.missing.iter().collect();
        for extra in &table.unexpected {
            let paired = missing.iter().position(|m| !key(m).is_empty() && key(m) == key(extra));
            match paired {
                Some(p) => {
                    let instead = missing.remove(p);
                    de.push(format!("`{}`: {} statt {}", table.table, row(extra), row(instead)));
                    en.push(format!("`{}`: {} instead of {}", table.table, row(extra), row(instead)));
                }
                None => {
                    de.push(format!("`{}`: {} zu viel", table.table, row(extra)));
                    en.push(format!("`{}`: {} extra", table.table, row(extra)));
                }
            }
        }
        for gone in missing {
            de.push(format!("`{}`: {} fehlt", table.table, row(gone)));
            en.push(format!("`{}`: {} missing", table.table, row(gone)));
        }
    }
    if de.is_empty() {
        return None;
    }
    let more = de.len().saturating_sub(crate::limits::EVIDENCE_ITEMS_MAX);
    de.truncate(crate::limits::EVIDENCE_ITEMS_MAX);
    en.truncate(crate::limits::EVIDENCE_ITEMS_MAX);
    if more > 0 {
        de.push(format!("und {more} weitere"));
        en.push(format!("and {more} more"));
    }
    Some(Text { de: de.join("; "), en: en.join("; ") })
}

/// The decisive line (interpreted consumers) and statement of a finding: the first place of the
/// kind's list that the failing delivery has.
fn decisive(
    mistake: &Mistake,
    trace: &[TraceEvent],
    segment: &Segment,
    context: &Context<'_>,
) -> (Option<u32>, Option<String>) {
    let events: Vec<&TraceEvent> = segment.events.iter().map(|&i| &trace[i]).collect();
    let statements = || {
        events.iter().filter_map(|e| match e {
            TraceEvent::Statement { line, sql, status: code, write, .. } => Some((*line, sql, *code, *write)),
            _ => None,
        })
    };
    let write_of = |role: Option<Role>| {
        statements()
            .find(|(_, sql, code, write)| {
                *code == status::OK
                    && write.is_some()
                    && role.is_none_or(|r| {
                        written_table(sql).and_then(|t| context.roles.of_table(&t)) == Some(r)
                    })
            })
            .map(|(line, sql, ..)| (line, Some(quote_sql(sql))))
    };
    for place in &mistake.decisive {
        let found = match place {
            Decisive::Crash => {
                let crash = events.iter().rposition(|e| matches!(e, TraceEvent::Crash { .. }));
                crash.map(|c| {
                    let line = match events[c] {
                        TraceEvent::Crash { line, .. } => *line,
                        _ => None,
                    };
                    let before = events[..c].iter().rev().find_map(|e| match e {
                        TraceEvent::Statement { sql, .. } => Some(sql),
                        _ => None,
                    });
                    (own_line(context, before.map(String::as_str), line), before.map(|sql| quote_sql(sql)))
                })
            }
            Decisive::EffectWrite => write_of(Some(Role::Effect)),
            Decisive::MemoryWrite => write_of(Some(Role::Memory)),
            Decisive::FirstWrite => write_of(None),
            Decisive::FirstStatement => statements()
                .find(|(_, sql, ..)| transaction_control(sql).is_none())
                .map(|(line, sql, ..)| (line, Some(quote_sql(sql)))),
            Decisive::FailedStatement => statements()
                .find(|(_, _, code, _)| *code != status::OK && *code != status::NO_ROW)
                .map(|(line, sql, ..)| (line, Some(quote_sql(sql)))),
            Decisive::Commit => statements()
                .rfind(|(_, sql, code, _)| {
                    let rollback = sql.trim_start().to_ascii_uppercase().starts_with("ROLLBACK");
                    *code == status::OK && transaction_control(sql) == Some(false) && !rollback
                })
                .map(|(line, sql, ..)| (own_line(context, Some(sql), line), Some(quote_sql(sql)))),
            Decisive::Return => events.iter().rev().find_map(|e| match e {
                TraceEvent::Return { line, .. } => Some((*line, None)),
                _ => None,
            }),
            Decisive::Error => {
                context.file.and_then(|file| facts_error_line(file, &events)).map(|line| (Some(line), None))
            }
            Decisive::LastStatement => {
                statements().next_back().map(|(line, sql, ..)| (line, Some(quote_sql(sql))))
            }
            Decisive::OutsideCall => events.iter().rev().find_map(|e| match e {
                TraceEvent::Outside { line: Some(line), .. } => Some((Some(*line), None)),
                _ => None,
            }),
        };
        if let Some(found) = found {
            return found;
        }
    }
    (None, None)
}

/// The line a statement belongs to in the student's words: a Python COMMIT that the end of a
/// `with` block issued belongs to the `with`.
fn own_line(context: &Context<'_>, sql: Option<&str>, line: Option<u32>) -> Option<u32> {
    match (context.voice, context.source, sql, line) {
        (Voice::Python, Some(source), Some(sql), Some(line)) => {
            Some(crate::report::trace_text::python_transaction_end(source, sql, line))
        }
        _ => line,
    }
}

/// The line the failing delivery's uncaught error came from.
fn facts_error_line(file: &str, events: &[&TraceEvent]) -> Option<u32> {
    crate::report::trace_text::uncaught_error_lines(file, events.iter().copied()).last().copied()
}
