//! Counters and histograms for `/metrics`, in the Prometheus text format. Gauges that the store
//! knows (queue depth, dead events) are read from it at scrape time.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use super::store::Stats;

/// Upper bounds of the grade latency histogram, in seconds.
const LATENCY_BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];

#[derive(Debug, Default)]
pub struct Metrics {
    /// Submissions accepted by intake (new ones, not idempotent repeats).
    pub accepted: AtomicU64,
    pub idempotent_repeats: AtomicU64,
    pub passed: AtomicU64,
    pub failed: AtomicU64,
    pub rejected: AtomicU64,
    /// Jobs that ended without a verdict (attempts exhausted, broken exercise).
    pub grading_failed: AtomicU64,
    latency_buckets: [AtomicU64; LATENCY_BUCKETS.len()],
    latency_count: AtomicU64,
    latency_sum_us: AtomicU64,
    pub webhook_delivered: AtomicU64,
    pub webhook_retried: AtomicU64,
    pub webhook_dead: AtomicU64,
    /// Exercise folders reloaded while running, by outcome (see [`RELOAD_OUTCOMES`]).
    exercise_reloads: [AtomicU64; RELOAD_OUTCOMES.len()],
}

/// What became of a changed exercise folder: served, rejected (the last good version stays), removed.
pub const RELOAD_OUTCOMES: [&str; 3] = ["loaded", "rejected", "removed"];

impl Metrics {
    pub fn verdict(&self, verdict: &str) {
        match verdict {
            "passed" => &self.passed,
            "failed" => &self.failed,
            _ => &self.rejected,
        }
        .fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a reload of an exercise folder; `outcome` is one of [`RELOAD_OUTCOMES`].
    pub fn exercise_reload(&self, outcome: &str) {
        if let Some(i) = RELOAD_OUTCOMES.iter().position(|o| *o == outcome) {
            self.exercise_reloads[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn observe_grade(&self, seconds: f64) {
        for (bucket, bound) in self.latency_buckets.iter().zip(LATENCY_BUCKETS) {
            if seconds <= bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Ordering::Relaxed);
        self.latency_sum_us.fetch_add((seconds * 1e6) as u64, Ordering::Relaxed);
    }

    pub fn render(&self, stats: &Stats) -> String {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP pruefstein_submissions_total Submissions accepted by intake (repeats excluded)."
        );
        let _ = writeln!(out, "# TYPE pruefstein_submissions_total counter");
        let _ = writeln!(out, "pruefstein_submissions_total {}", get(&self.accepted));
        let _ = writeln!(
            out,
            "# HELP pruefstein_idempotent_repeats_total Requests answered with an earlier submission."
        );
        let _ = writeln!(out, "# TYPE pruefstein_idempotent_repeats_total counter");
        let _ = writeln!(out, "pruefstein_idempotent_repeats_total {}", get(&self.idempotent_repeats));
        let _ = writeln!(
            out,
            "# HELP pruefstein_graded_total Submissions graded, by verdict (failed_to_grade: no verdict)."
        );
        let _ = writeln!(out, "# TYPE pruefstein_graded_total counter");
        for (verdict, counter) in [
            ("passed", &self.passed),
            ("failed", &self.failed),
            ("rejected", &self.rejected),
            ("failed_to_grade", &self.grading_failed),
        ] {
            let _ = writeln!(out, "pruefstein_graded_total{{verdict=\"{verdict}\"}} {}", get(counter));
        }
        let _ = writeln!(out, "# HELP pruefstein_queue_depth Jobs waiting for a worker or being graded.");
        let _ = writeln!(out, "# TYPE pruefstein_queue_depth gauge");
        let _ = writeln!(out, "pruefstein_queue_depth{{state=\"queued\"}} {}", stats.jobs_queued);
        let _ = writeln!(out, "pruefstein_queue_depth{{state=\"running\"}} {}", stats.jobs_running);
        let _ = writeln!(out, "# HELP pruefstein_grade_duration_seconds Time to grade one submission.");
        let _ = writeln!(out, "# TYPE pruefstein_grade_duration_seconds histogram");
        for (bucket, bound) in self.latency_buckets.iter().zip(LATENCY_BUCKETS) {
            let _ =
                writeln!(out, "pruefstein_grade_duration_seconds_bucket{{le=\"{bound}\"}} {}", get(bucket));
        }
        let count = get(&self.latency_count);
        let _ = writeln!(out, "pruefstein_grade_duration_seconds_bucket{{le=\"+Inf\"}} {count}");
        let _ =
            writeln!(out, "pruefstein_grade_duration_seconds_sum {}", get(&self.latency_sum_us) as f64 / 1e6);
        let _ = writeln!(out, "pruefstein_grade_duration_seconds_count {count}");
        let _ =
            writeln!(out, "# HELP pruefstein_webhook_attempts_total Webhook delivery attempts, by outcome.");
        let _ = writeln!(out, "# TYPE pruefstein_webhook_attempts_total counter");
        for (outcome, counter) in [
            ("delivered", &self.webhook_delivered),
            ("retry", &self.webhook_retried),
            ("dead", &self.webhook_dead),
        ] {
            let _ =
                writeln!(out, "pruefstein_webhook_attempts_total{{outcome=\"{outcome}\"}} {}", get(counter));
        }
        let _ = writeln!(
            out,
            "# HELP pruefstein_webhook_events Webhook events waiting for delivery, and dead ones."
        );
        let _ = writeln!(out, "# TYPE pruefstein_webhook_events gauge");
        let _ = writeln!(out, "pruefstein_webhook_events{{state=\"pending\"}} {}", stats.events_pending);
        let _ = writeln!(out, "pruefstein_webhook_events{{state=\"dead\"}} {}", stats.events_dead);
        let _ = writeln!(
            out,
            "# HELP pruefstein_exercise_reloads_total Exercise folders reloaded while running, by outcome."
        );
        let _ = writeln!(out, "# TYPE pruefstein_exercise_reloads_total counter");
        for (outcome, counter) in RELOAD_OUTCOMES.iter().zip(&self.exercise_reloads) {
            let _ =
                writeln!(out, "pruefstein_exercise_reloads_total{{outcome=\"{outcome}\"}} {}", get(counter));
        }
        out
    }
}
