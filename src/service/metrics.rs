//! Counters and histograms for `/metrics`, in the Prometheus text format (version 0.0.4), kept and
//! encoded by `prometheus-client`. Every label is a closed enum ([`Label`]), so a series that does
//! not exist cannot be counted, and each labelled metric lists all its series, zero or not, in the
//! enum's order. Gauges that the store knows (queue depth, dead events) are set from it at scrape
//! time.

use std::fmt::Debug;
use std::marker::PhantomData;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, prometheus_text};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::Registry;

use super::store::Stats;

/// Upper bounds of the grade latency histogram, in seconds.
const LATENCY_BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];

/// The values of one label: its key, every value in the order they are listed, and each value's
/// name on `/metrics`.
pub(crate) trait Label: Copy + PartialEq + Debug + Send + Sync + 'static {
    const KEY: &'static str;
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
}

/// Declares a label enum with its key and the name of each value.
macro_rules! label {
    ($(#[$doc:meta])* $ty:ident, $key:literal, { $($(#[$vdoc:meta])* $variant:ident => $name:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum $ty { $($(#[$vdoc])* $variant),+ }

        impl Label for $ty {
            const KEY: &'static str = $key;
            const ALL: &'static [Self] = &[$(Self::$variant),+];
            fn name(self) -> &'static str {
                match self { $(Self::$variant => $name),+ }
            }
        }
    };
}

label!(
    /// What became of a graded submission (`pruefstein_graded_total{verdict}`).
    Graded, "verdict", {
        Passed => "passed",
        Failed => "failed",
        Rejected => "rejected",
        /// No verdict: attempts exhausted, or a broken exercise.
        FailedToGrade => "failed_to_grade",
    }
);

label!(
    /// The state of a job in the queue (`pruefstein_queue_depth{state}`).
    JobState, "state", { Queued => "queued", Running => "running" }
);

label!(
    /// How one webhook attempt ended (`pruefstein_webhook_attempts_total{outcome}`).
    WebhookOutcome, "outcome", { Delivered => "delivered", Retry => "retry", Dead => "dead" }
);

label!(
    /// Webhook events by state (`pruefstein_webhook_events{state}`).
    EventState, "state", { Pending => "pending", Dead => "dead" }
);

label!(
    /// What became of a changed exercise folder: served, rejected (the last good version stays),
    /// removed (`pruefstein_exercise_reloads_total{outcome}`).
    ReloadOutcome, "outcome", { Loaded => "loaded", Rejected => "rejected", Removed => "removed" }
);

label!(
    /// What a node did with a job recorded for an exercise version other than the one it serves
    /// (`pruefstein_version_mismatches_total{action}`): left it to the living node that serves
    /// that version, or graded it because no living node does.
    VersionMismatch, "action", { Left => "left", Graded => "graded" }
);

label!(
    /// What became of an LTI login initiation (`pruefstein_lti_logins_total{outcome}`): started
    /// (its state kept), refused at its client address's bound of pending logins, refused at its
    /// platform's bound (the address holding its share), or a pending one given up for a newer
    /// one of its platform (evicted).
    LtiLogin, "outcome", {
        Started => "started",
        RefusedAddress => "refused_address",
        RefusedPlatform => "refused_platform",
        Evicted => "evicted",
    }
);

/// One metric per value of a label, encoded as one family in the label's order.
#[derive(Debug, Clone)]
pub(crate) struct Series<L: Label, M> {
    metrics: Vec<M>,
    label: PhantomData<L>,
}

impl<L: Label, M: Default> Default for Series<L, M> {
    fn default() -> Self {
        Self { metrics: L::ALL.iter().map(|_| M::default()).collect(), label: PhantomData }
    }
}

impl<L: Label, M> Series<L, M> {
    /// The metric of one label value.
    pub(crate) fn get(&self, label: L) -> &M {
        let index = L::ALL.iter().position(|l| *l == label).unwrap_or(0);
        &self.metrics[index]
    }
}

impl<L: Label, M: EncodeMetric + TypedMetric + Debug + Send + Sync + 'static> EncodeMetric for Series<L, M> {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        for (label, metric) in L::ALL.iter().zip(&self.metrics) {
            metric.encode(encoder.encode_family(&[(L::KEY, label.name())])?)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        M::TYPE
    }
}

/// The service's metrics. The handles here share their values with the registry that encodes them.
#[derive(Debug)]
pub(crate) struct Metrics {
    /// Submissions accepted by intake (new ones, not idempotent repeats).
    pub accepted: Counter,
    pub idempotent_repeats: Counter,
    graded: Series<Graded, Counter>,
    /// Jobs that ended without a verdict (attempts exhausted, broken exercise).
    pub grading_failed: Counter,
    queue_depth: Series<JobState, Gauge>,
    grade_duration: Histogram,
    webhook_attempts: Series<WebhookOutcome, Counter>,
    pub webhook_delivered: Counter,
    pub webhook_retried: Counter,
    pub webhook_dead: Counter,
    webhook_events: Series<EventState, Gauge>,
    exercise_reloads: Series<ReloadOutcome, Counter>,
    version_mismatches: Series<VersionMismatch, Counter>,
    /// Leases that gave a grading thread jobs (one store round trip each, however many jobs).
    pub job_leases: Counter,
    /// Log lines dropped so far, copied from [`super::log::lines_dropped`] at scrape time.
    log_lines_dropped: Counter,
    lti_logins: Series<LtiLogin, Counter>,
    /// Learners erased on request (by a client or the operator through this process).
    pub learners_erased: Counter,
    /// Retention sweeps run, and the rows they deleted.
    pub retention_sweeps: Counter,
    pub retention_rows: Counter,
    registry: Registry,
}

impl Default for Metrics {
    fn default() -> Self {
        let graded = Series::<Graded, Counter>::default();
        let webhook_attempts = Series::<WebhookOutcome, Counter>::default();
        let metrics = Metrics {
            accepted: Counter::default(),
            idempotent_repeats: Counter::default(),
            grading_failed: graded.get(Graded::FailedToGrade).clone(),
            webhook_delivered: webhook_attempts.get(WebhookOutcome::Delivered).clone(),
            webhook_retried: webhook_attempts.get(WebhookOutcome::Retry).clone(),
            webhook_dead: webhook_attempts.get(WebhookOutcome::Dead).clone(),
            graded,
            queue_depth: Series::default(),
            grade_duration: Histogram::new(LATENCY_BUCKETS),
            webhook_attempts,
            webhook_events: Series::default(),
            exercise_reloads: Series::default(),
            version_mismatches: Series::default(),
            job_leases: Counter::default(),
            log_lines_dropped: Counter::default(),
            lti_logins: Series::default(),
            learners_erased: Counter::default(),
            retention_sweeps: Counter::default(),
            retention_rows: Counter::default(),
            registry: Registry::default(),
        };
        let registry = registry_of(&metrics);
        Metrics { registry, ..metrics }
    }
}

/// The registry that encodes `metrics`: each one under its name and help text.
fn registry_of(metrics: &Metrics) -> Registry {
    let mut registry = Registry::default();
    // Counters are named without `_total`: the encoder adds it.
    registry.register(
        "pruefstein_submissions",
        "Submissions accepted by intake (repeats excluded)",
        metrics.accepted.clone(),
    );
    registry.register(
        "pruefstein_idempotent_repeats",
        "Requests answered with an earlier submission",
        metrics.idempotent_repeats.clone(),
    );
    registry.register(
        "pruefstein_graded",
        "Submissions graded, by verdict (failed_to_grade: no verdict)",
        metrics.graded.clone(),
    );
    registry.register(
        "pruefstein_queue_depth",
        "Jobs waiting for a worker or being graded",
        metrics.queue_depth.clone(),
    );
    registry.register(
        "pruefstein_grade_duration_seconds",
        "Time to grade one submission",
        metrics.grade_duration.clone(),
    );
    registry.register(
        "pruefstein_webhook_attempts",
        "Webhook delivery attempts, by outcome",
        metrics.webhook_attempts.clone(),
    );
    registry.register(
        "pruefstein_webhook_events",
        "Webhook events waiting for delivery, and dead ones",
        metrics.webhook_events.clone(),
    );
    registry.register(
        "pruefstein_exercise_reloads",
        "Exercise folders reloaded while running, by outcome",
        metrics.exercise_reloads.clone(),
    );
    registry.register(
        "pruefstein_version_mismatches",
        "Jobs recorded for another exercise version than this node serves, by what the node did",
        metrics.version_mismatches.clone(),
    );
    registry.register(
        "pruefstein_job_leases",
        "Leases that gave a grading thread jobs, each one round trip to the store for up to \
         job_lease_batch_max jobs (pruefstein_submissions_total over this: jobs per lease)",
        metrics.job_leases.clone(),
    );
    registry.register(
        "pruefstein_log_lines_dropped",
        "Log lines dropped because the log queue was full or standard error refused them (a closed pipe)",
        metrics.log_lines_dropped.clone(),
    );
    registry.register(
        "pruefstein_lti_logins",
        "LTI login initiations, by outcome (refused at the client address's or at the \
         platform's bound; evicted: a pending login given up for a newer one at the platform's bound)",
        metrics.lti_logins.clone(),
    );
    registry.register(
        "pruefstein_learners_erased",
        "Learners whose data was erased on request",
        metrics.learners_erased.clone(),
    );
    registry.register(
        "pruefstein_retention_sweeps",
        "Retention sweeps run (--retention-days)",
        metrics.retention_sweeps.clone(),
    );
    registry.register(
        "pruefstein_retention_rows",
        "Rows the retention sweep deleted (submissions, results, result versions, webhook events, \
         uploaded files, LTI launch records)",
        metrics.retention_rows.clone(),
    );
    registry
}

impl Metrics {
    /// Counts a graded submission by its verdict as stored (`passed`, `failed`; anything else
    /// counts as rejected).
    pub(crate) fn verdict(&self, verdict: &str) {
        use crate::report::Verdict;
        self.graded(match Verdict::from_name(verdict) {
            Some(Verdict::Passed) => Graded::Passed,
            Some(Verdict::Failed) => Graded::Failed,
            Some(Verdict::Rejected) | None => Graded::Rejected,
        });
    }

    /// Counts a graded submission, or one that could not be graded.
    pub(crate) fn graded(&self, outcome: Graded) {
        self.graded.get(outcome).inc();
    }

    /// Counts a reload of an exercise folder.
    pub(crate) fn exercise_reload(&self, outcome: ReloadOutcome) {
        self.exercise_reloads.get(outcome).inc();
    }

    /// Counts a job of another exercise version than this node serves.
    pub(crate) fn version_mismatch(&self, action: VersionMismatch) {
        self.version_mismatches.get(action).inc();
    }

    /// Counts an LTI login initiation by what became of it.
    pub(crate) fn lti_login(&self, outcome: LtiLogin) {
        self.lti_logins.get(outcome).inc();
    }

    pub(crate) fn observe_grade(&self, seconds: f64) {
        self.grade_duration.observe(seconds);
    }

    /// The metrics in the Prometheus text format, with the store's gauges as of `stats`.
    pub(crate) fn render(&self, stats: &Stats) -> String {
        let gauge = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.queue_depth.get(JobState::Queued).set(gauge(stats.jobs_queued));
        self.queue_depth.get(JobState::Running).set(gauge(stats.jobs_running));
        self.webhook_events.get(EventState::Pending).set(gauge(stats.events_pending));
        self.webhook_events.get(EventState::Dead).set(gauge(stats.events_dead));
        let dropped = super::log::lines_dropped();
        let counted = self.log_lines_dropped.get();
        if dropped > counted {
            self.log_lines_dropped.inc_by(dropped - counted);
        }
        let mut out = String::new();
        // Writing to a String cannot fail, and no metric here reports an error.
        let _ = prometheus_text::encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every series is listed, zero or not, under the names, help texts and labels of the text
    /// format; a counted value shows in its own series only.
    #[test]
    fn every_series_is_listed_under_its_name_and_label() {
        let metrics = Metrics::default();
        metrics.verdict("failed");
        metrics.graded(Graded::FailedToGrade);
        metrics.webhook_dead.inc();
        metrics.exercise_reload(ReloadOutcome::Rejected);
        metrics.accepted.inc();
        metrics.observe_grade(0.003);
        let stats = Stats { jobs_queued: 2, jobs_running: 1, events_pending: 0, events_dead: 5 };
        let text = metrics.render(&stats);
        for line in [
            "# HELP pruefstein_submissions_total Submissions accepted by intake (repeats excluded).",
            "# TYPE pruefstein_submissions_total counter",
            "pruefstein_submissions_total 1",
            "pruefstein_idempotent_repeats_total 0",
            "pruefstein_graded_total{verdict=\"passed\"} 0",
            "pruefstein_graded_total{verdict=\"failed\"} 1",
            "pruefstein_graded_total{verdict=\"rejected\"} 0",
            "pruefstein_graded_total{verdict=\"failed_to_grade\"} 1",
            "# TYPE pruefstein_queue_depth gauge",
            "pruefstein_queue_depth{state=\"queued\"} 2",
            "pruefstein_queue_depth{state=\"running\"} 1",
            "# TYPE pruefstein_grade_duration_seconds histogram",
            "pruefstein_grade_duration_seconds_bucket{le=\"0.0025\"} 0",
            "pruefstein_grade_duration_seconds_bucket{le=\"0.005\"} 1",
            "pruefstein_grade_duration_seconds_bucket{le=\"+Inf\"} 1",
            "pruefstein_grade_duration_seconds_count 1",
            "pruefstein_webhook_attempts_total{outcome=\"delivered\"} 0",
            "pruefstein_webhook_attempts_total{outcome=\"dead\"} 1",
            "pruefstein_webhook_events{state=\"pending\"} 0",
            "pruefstein_webhook_events{state=\"dead\"} 5",
            "pruefstein_exercise_reloads_total{outcome=\"loaded\"} 0",
            "pruefstein_exercise_reloads_total{outcome=\"rejected\"} 1",
            "pruefstein_exercise_reloads_total{outcome=\"removed\"} 0",
            "pruefstein_version_mismatches_total{action=\"left\"} 0",
            "pruefstein_version_mismatches_total{action=\"graded\"} 0",
            "pruefstein_job_leases_total 0",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in:\n{text}");
        }
        // The series of a label come in the label's order, on every scrape.
        let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
        assert!(at("verdict=\"passed\"") < at("verdict=\"failed\""), "{text}");
        assert!(at("verdict=\"rejected\"") < at("verdict=\"failed_to_grade\""), "{text}");
        assert!(!text.contains("# EOF"), "the Prometheus text format has no EOF marker");
    }
}
