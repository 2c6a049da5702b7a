//! Each check's verdict, written once: the checklist line a check's outcome
//! gives — what was measured, against what, pass or fail. `accept all`'s
//! plan puts these lines in its bundle; each `accept` subcommand exits by
//! the same `passed`, so a check passes or fails alike wherever it runs.

use std::time::Duration;

use breakpoint_core::import::bundle::ChecklistItem;
use breakpoint_core::metrics::stress::StressFigures;
use breakpoint_core::perf;
use breakpoint_formats::parsers::drift_log::DriftLog;
use breakpoint_formats::parsers::network_log::{NetworkRecord, stats_by_target};
use breakpoint_formats::parsers::perf_log::PerfLog;
use breakpoint_formats::parsers::storage_log::{DrillOutcome, StorageRecord};

use crate::{billing, failover, ready};

/// Ready passes when the first computation ran within the timeout.
pub fn ready(stages: &ready::Stages, from_submission: bool, timeout: Duration) -> ChecklistItem {
    let s = |ms: Option<i64>| {
        ms.map_or("never".to_string(), |ms| {
            format!("{:.1} s", (ms - stages.submitted_ms) as f64 / 1000.0)
        })
    };
    ChecklistItem {
        check: "ready".into(),
        measured: format!(
            "driver answering after {}, first compute after {} (from {})",
            s(stages.driver_ms),
            s(stages.first_compute_ms),
            if from_submission {
                "submission"
            } else {
                "boot"
            }
        ),
        threshold: format!("first compute within {:.0} s", timeout.as_secs_f64()),
        passed: Some(stages.failure.is_none()),
    }
}

/// Stress passes when every GPU held ≥ 95 % with a swing ≤ 10 % over its
/// loaded window; no loaded window at all fails. The worst GPU is named.
pub fn stress(figures: &[(u32, StressFigures)]) -> ChecklistItem {
    let worst = figures
        .iter()
        .min_by(|a, b| a.1.at_floor_pct.total_cmp(&b.1.at_floor_pct));
    ChecklistItem {
        check: "stress stability".into(),
        measured: worst.map_or("no loaded window".into(), |(g, f)| {
            format!(
                "GPU {g}: {:.1} % of loaded seconds at ≥ 95 %, swing {:.1} %",
                f.at_floor_pct, f.swing_pct
            )
        }),
        threshold: "≥ 95 % utilisation, swing ≤ 10 % (the four-breakpoint review, §6.2)".into(),
        passed: Some(!figures.is_empty() && figures.iter().all(|(_, f)| f.passed())),
    }
}

/// The billing probe has no verdict of its own: the bill decides.
pub fn billing(done: &billing::Done, instance: &str) -> ChecklistItem {
    ChecklistItem {
        check: "billing probe".into(),
        measured: format!(
            "a {:.3} s job on {instance}",
            (done.ended_ms - done.started_ms) as f64 / 1000.0,
        ),
        threshold: "import the platform's bill for the instance to measure the billing unit".into(),
        passed: None,
    }
}

/// The failover drill passes when the job came back within the window —
/// by itself or through the resume command, as the fault-drill table
/// records it (`recovered`), since resuming from a checkpoint by command
/// is what the long-term partner assessment asks a platform to allow.
pub fn failover(outcome: &failover::Outcome, window: Duration) -> ChecklistItem {
    ChecklistItem {
        check: "failover drill".into(),
        measured: match outcome.recovered_s {
            Some(s) => format!(
                "back after {s:.1} s, {} steps lost{}",
                outcome.steps_lost.map_or("?".into(), |v| v.to_string()),
                if outcome.resumed_by_command {
                    " (by the resume command)"
                } else {
                    ""
                }
            ),
            None => "never came back".into(),
        },
        threshold: format!(
            "recovers within {:.0} s (the long-term partner assessment's drills)",
            window.as_secs_f64()
        ),
        passed: Some(outcome.recovered_s.is_some()),
    }
}

/// Drift passes when every operator ran and stayed within tolerance.
pub fn drift(log: &DriftLog, tolerance: f64, reference_device: &str) -> ChecklistItem {
    let (passed, total) = log.coverage();
    ChecklistItem {
        check: "numeric drift".into(),
        measured: format!(
            "{passed} of {total} operators within tolerance; {}",
            log.summary()
        ),
        threshold: format!(
            "every operator runs, rel. L2 ≤ {tolerance:.0e} against {reference_device} (the four-breakpoint review, §3.3)"
        ),
        passed: Some(passed == total),
    }
}

/// Delivered performance passes when no GPU is more than `share` below its
/// node's best on any test (stragglers); a GPU whose throughput fell by
/// more than that share over the timeline fails it too. The worst is named.
pub fn perf(log: &PerfLog, share: f64) -> ChecklistItem {
    let stragglers = perf::stragglers(log, share);
    let decays: Vec<perf::Decay> = log.timeline.as_ref().map(perf::decays).unwrap_or_default();
    let fallen: Vec<&perf::Decay> = decays
        .iter()
        .filter(|d| d.decay_pct > 100.0 * share)
        .collect();
    let gpus = log.gpus.len();
    let mut measured = match stragglers.first() {
        Some(s) => format!(
            "{} of {gpus} GPUs are stragglers; worst GPU {} on {}: {} {} against GPU {}'s {} ({:.1} % below)",
            perf::straggler_gpus(&stragglers).len(),
            s.gpu,
            s.test,
            perf::number(s.value),
            s.unit,
            s.best_gpu,
            perf::number(s.best),
            s.deficit_pct
        ),
        None => format!("no straggler among {gpus} GPUs"),
    };
    if let Some(worst) = decays
        .iter()
        .max_by(|a, b| a.decay_pct.total_cmp(&b.decay_pct))
    {
        measured.push_str(&format!(
            "; throughput over time: worst GPU {} {}{}",
            worst.gpu,
            perf::change(-worst.decay_pct),
            worst
                .onset_s
                .map(|s| format!(" ({})", perf::when(s)))
                .unwrap_or_default()
        ));
    }
    ChecklistItem {
        check: "delivered performance".into(),
        measured,
        threshold: format!(
            "every GPU within {:.0} % of its node's best, and of its own first level over time",
            100.0 * share
        ),
        passed: Some(stragglers.is_empty() && fallen.is_empty()),
    }
}

/// Network is measured, not judged here: its metrics are scored against
/// their anchors. One line per target.
pub fn network(records: &[NetworkRecord]) -> Vec<ChecklistItem> {
    stats_by_target(records)
        .into_iter()
        .map(|s| ChecklistItem {
            check: format!("network {}", s.target),
            measured: format!(
                "p95 {}, jitter {}, loss {:.1} % over {} attempts",
                s.p95_ms.map_or("–".into(), |v| format!("{v:.1} ms")),
                s.jitter_ms.map_or("–".into(), |v| format!("{v:.1} ms")),
                s.loss_pct,
                s.attempts
            ),
            threshold: "measured; scored against docs/metrics.md's anchors".into(),
            passed: None,
        })
        .collect()
}

/// The data path: each location and the upload measured, scored against
/// their anchors; the drill judged, since the review's fifth must-do is
/// that the job keeps running — a stall or a failure fails it.
pub fn storage(records: &[StorageRecord]) -> Vec<ChecklistItem> {
    let size = |b: u64| breakpoint_core::sizes::size_words(b as f64);
    let rate = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.0} MB/s"));
    records
        .iter()
        .map(|r| match r {
            StorageRecord::Location(l) => ChecklistItem {
                check: format!("storage {}", l.path),
                measured: format!(
                    "{} checkpoint written in {:.1} s ({}), read back at {}; random 4 KiB reads p99 {}{}",
                    size(l.bytes),
                    l.write_s,
                    rate(l.write_mb_s()),
                    rate(l.read_mb_s()),
                    l.random_p99_ms
                        .map_or("–".into(), |v| format!("{v:.2} ms")),
                    if l.direct { "" } else { " (buffered: direct I/O refused)" }
                ),
                threshold: "measured; scored against docs/metrics.md's anchors".into(),
                passed: None,
            },
            StorageRecord::Upload(u) => ChecklistItem {
                check: "upload".into(),
                measured: match (&u.error, u.mb_s()) {
                    (Some(e), _) => format!("failed: {e}"),
                    (None, v) => format!("{} in {:.1} s ({})", size(u.bytes), u.seconds.unwrap_or(0.0), rate(v)),
                },
                threshold: "measured; scored against docs/metrics.md's anchors".into(),
                passed: None,
            },
            StorageRecord::Drill(d) => ChecklistItem {
                check: "storage outage drill".into(),
                measured: match d.outcome {
                    DrillOutcome::NotRun => format!("{}: not run — {}", d.path, d.detail),
                    outcome => format!(
                        "{} cut for {:.0} s: the job {} — {}",
                        d.path,
                        d.cut_s,
                        outcome.as_str(),
                        d.detail
                    ),
                },
                threshold: "the job keeps running from the local cache (the four-breakpoint review, §6.2)".into(),
                passed: match d.outcome {
                    DrillOutcome::NotRun => None,
                    outcome => Some(outcome == DrillOutcome::Continues),
                },
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drill(recovered_s: Option<f64>, resumed_by_command: bool) -> failover::Outcome {
        failover::Outcome {
            recovered_s,
            resumed_by_command,
            ..failover::Outcome::default()
        }
    }

    #[test]
    fn a_job_resumed_by_command_passes_as_the_table_records_it() {
        let window = Duration::from_secs(120);
        let by_command = drill(Some(40.0), true);
        assert_eq!(failover(&by_command, window).passed, Some(true));
        assert!(failover::table(&by_command).contains("process-kill,yes,yes,40.0"));
        assert_eq!(failover(&drill(None, false), window).passed, Some(false));
    }

    #[test]
    fn stress_without_a_loaded_window_fails() {
        assert_eq!(stress(&[]).passed, Some(false));
    }
}
