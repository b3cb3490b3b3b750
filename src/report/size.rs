//! The report size as a hard limit. Every report passes through [`limit_size`] (in `grade::grade`)
//! before anyone stores, serves or posts it. A report over the limit is shrunk deterministically, in
//! this order, until it fits: traces and timelines are cut (those of passing checks first, the
//! longest first), then the state evidence is dropped, then long texts are clipped, and as a last
//! resort checks are left out. The summary says that the report was shortened and names the limit.

use super::consumer::{clip_owned, clip_text};
use super::{CheckDetail, Report};
use crate::limits::{REPORT_SHRUNK_TEXT_BYTES_MAX, REPORT_SHRUNK_TEXT_BYTES_MIN};

/// Shrinks `report` until its JSON is at most `max_bytes` long; returns whether it had to.
pub fn limit_size(report: &mut Report, max_bytes: usize) -> bool {
    let mut size = report.to_json().len();
    if size <= max_bytes {
        return false;
    }
    report.summary.de.push_str(&format!(
        " (Bericht gekürzt: er war größer als die Grenze „Berichtsgröße“ von {max_bytes} Bytes; \
         Abläufe, Belege oder lange Texte sind ausgelassen.)"
    ));
    report.summary.en.push_str(&format!(
        " (Report shortened: it was larger than the limit \"report size\" of {max_bytes} bytes; \
         traces, evidence or long texts are left out.)"
    ));
    size = report.to_json().len();
    // 1. Traces and timelines, passing checks first, longest first; each cut sheds about the excess.
    while size > max_bytes {
        if !cut_longest_trace(report, size - max_bytes) {
            break;
        }
        size = report.to_json().len();
    }
    // 2. State evidence and parameters, passing checks first.
    for passing in [true, false] {
        for index in 0..report.checks.len() {
            if size <= max_bytes {
                return true;
            }
            let check = &mut report.checks[index];
            if check.passed != passing {
                continue;
            }
            match &mut check.detail {
                CheckDetail::Consumer(detail) => {
                    detail.state = None;
                    detail.schedule = None;
                }
                CheckDetail::Prediction(detail) => detail.parameters.clear(),
            }
            size = report.to_json().len();
        }
    }
    // 3. The source view (the file itself is the student's own).
    if size > max_bytes && report.source.take().is_some() {
        size = report.to_json().len();
    }
    // 4. Long texts, first to a readable length, then to a short one.
    for max_text in [REPORT_SHRUNK_TEXT_BYTES_MAX, REPORT_SHRUNK_TEXT_BYTES_MIN] {
        if size <= max_bytes {
            return true;
        }
        clip_texts(report, max_text);
        size = report.to_json().len();
    }
    // 5. Checks from the end, passing ones first; the count that is left out is said.
    let total = report.checks.len();
    while size > max_bytes && !report.checks.is_empty() {
        let index = report.checks.iter().rposition(|c| c.passed).unwrap_or(report.checks.len() - 1);
        report.checks.remove(index);
        size = report.to_json().len();
    }
    let left_out = total - report.checks.len();
    if left_out > 0 {
        report.summary.de.push_str(&format!(" {left_out} Prüfung(en) ausgelassen."));
        report.summary.en.push_str(&format!(" {left_out} check(s) left out."));
    }
    true
}

/// Cuts the trace (or timeline) of one check: the longest of a passing check, else the longest of
/// a failing one. Events are dropped from the end until about `excess` bytes are shed (at least
/// one event, at most all). Returns false when no trace is left.
fn cut_longest_trace(report: &mut Report, excess: usize) -> bool {
    let mut best: Option<(bool, usize, usize)> = None;
    for (index, check) in report.checks.iter().enumerate() {
        let len = match &check.detail {
            CheckDetail::Consumer(detail) => detail.trace.len(),
            CheckDetail::Prediction(detail) => detail.timeline.len(),
        };
        if len > 0 && best.is_none_or(|(passed, most, _)| (check.passed, len) > (passed, most)) {
            best = Some((check.passed, len, index));
        }
    }
    let Some((_, _, index)) = best else { return false };
    match &mut report.checks[index].detail {
        CheckDetail::Consumer(detail) => {
            let keep = keep_for(&detail.trace, excess);
            let dropped = u32::try_from(detail.trace.len() - keep).unwrap_or(u32::MAX);
            detail.trace_omitted = detail.trace_omitted.saturating_add(dropped);
            detail.trace.truncate(keep);
        }
        CheckDetail::Prediction(detail) => {
            let keep = keep_for(&detail.timeline, excess);
            detail.timeline_omitted += detail.timeline.len() - keep;
            detail.timeline.truncate(keep);
        }
    }
    true
}

/// How many items to keep from the front so that the dropped ones add up to about `excess` bytes:
/// at least one is dropped, at most half, so that the cuts spread over all long traces instead of
/// emptying the first one. Sizes are of compact JSON; the pretty report is longer, so a cut may shed
/// less than asked, and the next round cuts again.
fn keep_for<T: serde::Serialize>(items: &[T], excess: usize) -> usize {
    let half = items.len() / 2;
    let mut shed = 0;
    let mut keep = items.len();
    while keep > half && shed < excess {
        keep -= 1;
        shed += serde_json::to_string(&items[keep]).map(|j| j.len()).unwrap_or(0);
    }
    keep.min(items.len().saturating_sub(1))
}

fn clip_texts(report: &mut Report, max: usize) {
    let clip = |t: &mut crate::text::Text| *t = clip_text(std::mem::take(t), max);
    if let Some(rejection) = &mut report.rejection {
        clip(&mut rejection.message);
    }
    report.replay = report.replay.take().map(|r| clip_owned(r, max));
    for check in &mut report.checks {
        clip(&mut check.explanation);
        if let Some(failure) = &mut check.failure {
            clip(failure);
        }
        if let Some(hint) = &mut check.hint {
            clip(hint);
        }
        check.replay = check.replay.take().map(|r| clip_owned(r, max));
        if let CheckDetail::Prediction(detail) = &mut check.detail {
            detail.given_text = clip_owned(std::mem::take(&mut detail.given_text), max);
            detail.expected_text = clip_owned(std::mem::take(&mut detail.expected_text), max);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::consumer::{ConsumerDetail, TraceEvent};
    use crate::report::{CheckReport, GraderKind, REPORT_FORMAT, Score, Verdict};
    use crate::text::Text;

    fn report(checks: Vec<CheckReport>) -> Report {
        Report {
            format: REPORT_FORMAT,
            exercise: "x".into(),
            grader: GraderKind::Consumer,
            submission_sha256: "00".into(),
            learner: None,
            verdict: Verdict::Failed,
            score: Score { points: 0, max: 1 },
            summary: Text::default(),
            rejection: None,
            checks,
            coverage: Vec::new(),
            replay: None,
            source: None,
            diagnosis: None,
        }
    }

    fn check(passed: bool, events: usize, failure: Option<Text>) -> CheckReport {
        CheckReport {
            name: "fresh-message".into(),
            title: Text::same("t"),
            passed,
            not_run: false,
            explanation: Text::same("e"),
            failure,
            hint: None,
            points: None,
            replay: None,
            detail: CheckDetail::Consumer(ConsumerDetail {
                trace: vec![TraceEvent::Log { instance: 1, text: "x".repeat(1000) }; events],
                ..Default::default()
            }),
        }
    }

    #[test]
    fn an_oversized_report_is_cut_to_the_limit_and_says_so() {
        let mut report = report(vec![check(true, 400, None), check(false, 400, None)]);
        assert!(report.to_json().len() > 700_000);
        assert!(limit_size(&mut report, 256 * 1024));
        assert!(report.to_json().len() <= 256 * 1024);
        assert!(report.summary.en.contains("limit \"report size\""), "{}", report.summary.en);
        assert!(report.summary.de.contains("Grenze „Berichtsgröße“"), "{}", report.summary.de);
        let CheckDetail::Consumer(passing) = &report.checks[0].detail else { panic!() };
        let CheckDetail::Consumer(failing) = &report.checks[1].detail else { panic!() };
        assert!(passing.trace_omitted > 0, "passing checks are cut first");
        assert!(failing.trace.len() >= passing.trace.len());
        assert_eq!(failing.trace.len() as u32 + failing.trace_omitted, 400);
    }

    #[test]
    fn huge_failure_texts_are_clipped_after_the_traces_are_gone() {
        let huge = Text::same("p".repeat(200_000));
        let mut report = report((0..9).map(|_| check(false, 10, Some(huge.clone()))).collect());
        assert!(report.to_json().len() > 1_000_000);
        let mut again = report.clone();
        assert!(limit_size(&mut report, 256 * 1024));
        assert!(report.to_json().len() <= 256 * 1024);
        assert_eq!(report.checks.len(), 9, "clipping texts is enough; no check is left out");
        let failure = report.checks[0].failure.as_ref().expect("failure kept");
        assert!(failure.en.contains("bytes omitted"), "the cut is visible");
        limit_size(&mut again, 256 * 1024);
        assert_eq!(again.to_json(), report.to_json(), "shrinking is deterministic");
    }

    #[test]
    fn a_report_within_the_limit_is_untouched() {
        let mut small = report(vec![check(false, 3, None)]);
        let before = small.to_json();
        assert!(!limit_size(&mut small, 256 * 1024));
        assert_eq!(small.to_json(), before);
    }

    #[test]
    fn checks_are_left_out_only_as_the_last_resort_and_the_report_still_fits() {
        let mut many = report((0..600).map(|i| check(i % 2 == 0, 0, None)).collect());
        assert!(limit_size(&mut many, 32 * 1024));
        assert!(many.to_json().len() <= 32 * 1024);
        assert!(many.summary.en.contains("check(s) left out"));
        assert!(many.checks.iter().all(|c| !c.passed), "passing checks go first");
    }
}
