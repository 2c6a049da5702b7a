//! The demo builds, reproduces what the four-breakpoint review reports, and is labelled.

use super::*;
use crate::catalogue::keys;
use crate::domain::SourceKind;
use crate::metrics;
use crate::scoring;

fn demo() -> Store {
    let store = Store::open_in_memory().unwrap();
    let summary = build(&store, 7).unwrap();
    assert!(summary.built);
    assert_eq!((summary.platforms, summary.runs), (6, 36));
    store
}

fn value(evidence: &[metrics::PlatformEvidence], letter: char, key: &str) -> f64 {
    let e = evidence
        .iter()
        .find(|e| e.platform.name.starts_with(&format!("Platform {letter}")))
        .unwrap();
    e.value(key)
        .unwrap_or_else(|| panic!("{letter} {key} not measured"))
}

#[test]
fn the_demo_reproduces_the_seed() {
    let store = demo();
    for p in store.platforms().unwrap() {
        assert!(p.notes.unwrap().starts_with(DEMO_LABEL));
    }
    assert!(
        store
            .runs(None)
            .unwrap()
            .iter()
            .all(|r| r.source == SourceKind::Demo)
    );
    let ev = metrics::platform_evidence(&store).unwrap();
    // Startup: A 1.8 s baseline and 22 min at peak; C 4.2 s and 3.1 min; D 1.2 s; B +4 min cold.
    assert!((value(&ev, 'A', keys::STARTUP_BASELINE_P50_S) - 1.8).abs() < 0.4);
    assert!((value(&ev, 'A', keys::STARTUP_PEAK_P50_S) / 60.0 - 22.0).abs() < 4.0);
    assert!((value(&ev, 'C', keys::STARTUP_BASELINE_P50_S) - 4.2).abs() < 0.8);
    assert!((value(&ev, 'C', keys::STARTUP_PEAK_P50_S) / 60.0 - 3.1).abs() < 0.6);
    assert!((value(&ev, 'D', keys::STARTUP_BASELINE_P50_S) - 1.2).abs() < 0.3);
    assert!((value(&ev, 'B', keys::STARTUP_COLD_IMAGE_PENALTY_S) - 240.0).abs() < 50.0);
    // A delivered PCIe x8 for x16.
    assert_eq!(value(&ev, 'A', keys::STARTUP_DELIVERY_MISMATCHES), 1.0);
    assert_eq!(value(&ev, 'B', keys::STARTUP_DELIVERY_MISMATCHES), 0.0);
    // Sustain: E loses 10 % of its power after hour 30; F runs at 87 °C.
    assert!((value(&ev, 'E', keys::SUSTAIN_POWER_DROP_PCT) - 10.0).abs() < 1.0);
    // The slump lasts to the end of the log: read once, as the drop, not
    // again as phantom utilisation.
    assert!(value(&ev, 'E', keys::SUSTAIN_PHANTOM_UTIL_PCT) < 1.0);
    assert!(value(&ev, 'D', keys::SUSTAIN_POWER_DROP_PCT).abs() < 1.0);
    assert_eq!(value(&ev, 'F', keys::SUSTAIN_MAX_TEMP_C), 87.0);
    assert!(value(&ev, 'F', keys::SUSTAIN_THROTTLE_PCT) > 5.0);
    assert!(value(&ev, 'A', keys::SUSTAIN_INTERRUPTIONS_PER_100H) > 0.0);
    // Delivered performance: A's x8 link halves its host copies; F's
    // hottest GPU trails its node; E's throughput falls 17 % with its power.
    assert!((value(&ev, 'A', keys::SUSTAIN_HOST_LINK_PCT) - 39.4).abs() < 1.5);
    assert!(value(&ev, 'B', keys::SUSTAIN_HOST_LINK_PCT) > 75.0);
    assert_eq!(value(&ev, 'F', keys::SUSTAIN_STRAGGLER_PCT), 12.5);
    assert_eq!(value(&ev, 'B', keys::SUSTAIN_STRAGGLER_PCT), 0.0);
    assert!((value(&ev, 'E', keys::SUSTAIN_THROUGHPUT_DECAY_PCT) - 17.0).abs() < 1.5);
    assert!(value(&ev, 'D', keys::SUSTAIN_THROUGHPUT_DECAY_PCT) < 2.0);
    assert!((value(&ev, 'C', keys::SUSTAIN_GEMM_NOMINAL_PCT) - 92.0).abs() < 1.5);
    // Switch: E 127/127 at 5e-5; F 119/127; C 102/127; B 37 steps; A's drift above 1e-3.
    assert_eq!(value(&ev, 'E', keys::SWITCH_OP_COVERAGE_PCT), 100.0);
    // Drift is judged by the worst switch: E's typical 5e-5, 7e-5 at worst.
    assert!((value(&ev, 'E', keys::SWITCH_DRIFT_REL_L2) - 7e-5).abs() < 1e-6);
    assert!((value(&ev, 'F', keys::SWITCH_OP_COVERAGE_PCT) - 100.0 * 119.0 / 127.0).abs() < 1e-9);
    assert!((value(&ev, 'C', keys::SWITCH_OP_COVERAGE_PCT) - 100.0 * 102.0 / 127.0).abs() < 1e-9);
    assert!(value(&ev, 'B', keys::SWITCH_MANUAL_STEPS) >= 35.0);
    assert!(value(&ev, 'A', keys::SWITCH_DRIFT_REL_L2) > 1e-3);
    // Billing: A hourly ceiling, D per second on compute, C bills 127 s too many.
    assert_eq!(value(&ev, 'A', keys::BILLING_GRANULARITY_S), 3600.0);
    assert!((value(&ev, 'A', keys::BILLING_OVERCHARGE_PCT) - 75.95).abs() < 0.1);
    assert_eq!(value(&ev, 'D', keys::BILLING_OVERCHARGE_PCT), 0.0);
    let c_error = value(&ev, 'C', keys::BILLING_BILL_ERROR_PCT);
    assert!((c_error - 100.0 * 127.0 / 6150.0).abs() < 0.2, "{c_error}");
    assert!(value(&ev, 'A', keys::BILLING_BILL_ERROR_PCT) > 10.0);
    let lines = store
        .billing_lines(
            store
                .runs(None)
                .unwrap()
                .iter()
                .find(|r| r.provenance.file_name.as_deref() == Some("demo-a-billing.csv"))
                .unwrap()
                .id,
        )
        .unwrap();
    assert_eq!(lines[0].amount.to_string(), "38.40");
}

#[test]
fn the_demo_ranks_every_platform_and_builds_once() {
    let store = demo();
    let ev = metrics::platform_evidence(&store).unwrap();
    let profile = store.weight_profile("balanced").unwrap();
    let ranking = scoring::rank(&ev, &profile);
    assert!(
        ranking.platforms.iter().all(|p| p.rank.is_some()),
        "all have enough evidence"
    );
    assert!(ranking.platforms.iter().all(|p| p.coverage > 0.9));
    let again = build(&store, 7).unwrap();
    assert!(!again.built);
    assert_eq!(store.platforms().unwrap().len(), 6);
}

#[test]
fn the_demo_never_mixes_with_real_evidence() {
    let store = Store::open_in_memory().unwrap();
    store
        .create_platform(&Platform::new("Mine", crate::domain::PlatformKind::Other, None).unwrap())
        .unwrap();
    let e = build(&store, 7).unwrap_err().to_string();
    assert!(e.contains("not the demo"), "{e}");
    assert_eq!(store.platforms().unwrap().len(), 1);
}

/// A ranking read from the summaries without sources scores, orders and
/// warns exactly as one read from the whole evidence; an explanation has
/// its platform's sources and everyone's values.
#[test]
fn a_ranking_without_sources_is_the_ranking_with_them() {
    use crate::metrics::Sources;
    use crate::ranking::{self, PlatformRef, RankRequest};
    let store = demo();
    let whole = ranking::rank(&store, &RankRequest::default()).unwrap();
    let brief_request = RankRequest {
        sources: Sources::None,
        ..RankRequest::default()
    };
    // Twice: gathered from the caches the first call wrote, then again.
    for _ in 0..2 {
        let brief = ranking::rank(&store, &brief_request).unwrap();
        assert_eq!(brief.robustness, whole.robustness);
        assert_eq!(brief.degradations, whole.degradations);
        assert_eq!(brief.ranking.platforms.len(), whole.ranking.platforms.len());
        for (b, w) in brief.ranking.platforms.iter().zip(&whole.ranking.platforms) {
            assert_eq!(
                (&b.platform, b.rank, b.overall, b.coverage, b.evidence),
                (&w.platform, w.rank, w.overall, w.coverage, w.evidence)
            );
            for (bb, wb) in b.breakpoints.iter().zip(&w.breakpoints) {
                assert_eq!((bb.score, bb.coverage), (wb.score, wb.coverage));
                for (bm, wm) in bb.metrics.iter().zip(&wb.metrics) {
                    assert_eq!(
                        (bm.key, bm.value, bm.min, bm.max, bm.score, bm.score_range),
                        (wm.key, wm.value, wm.min, wm.max, wm.score, wm.score_range)
                    );
                    assert!(bm.runs.is_empty() && bm.details.is_empty());
                }
            }
        }
    }
    let sourced = |p: &scoring::PlatformScore| {
        p.breakpoints
            .iter()
            .flat_map(|b| &b.metrics)
            .any(|m| !m.runs.is_empty())
    };
    assert!(whole.ranking.platforms.iter().all(sourced));
    let e = &whole.ranking.platforms[2];
    let explained =
        ranking::explain(&store, &brief_request, PlatformRef::Id(e.platform.id)).unwrap();
    assert_eq!(&explained.score, e);
}

/// Every platform's share of first places, read in one pass, is what the
/// search by name finds, for ranked platforms and for one that is not.
#[test]
fn shares_of_first_places_in_one_pass_are_those_found_by_name() {
    use crate::domain::{Platform, PlatformKind};
    use crate::ranking::{self, RankRequest};
    let store = demo();
    // Without evidence: listed, not ranked.
    store
        .create_platform(&Platform::new("Aaa (no runs)", PlatformKind::Other, None).unwrap())
        .unwrap();
    let out = ranking::rank(&store, &RankRequest::default()).unwrap();
    assert!(out.ranking.platforms.iter().any(|p| p.rank.is_none()));
    let by_name: Vec<f64> = out
        .ranking
        .platforms
        .iter()
        .map(|p| out.p_first(&p.platform.name))
        .collect();
    assert_eq!(out.p_firsts(), by_name);
    assert!(by_name.iter().sum::<f64>() > 0.99);
}

#[test]
fn record_counts_add_up_each_runs_events_attempts_drills_and_bill_lines() {
    let store = Store::open_in_memory().unwrap();
    crate::demo::build(&store, 7).unwrap();
    let counts = store.record_counts().unwrap();
    let mut table_runs = 0;
    for run in store.runs(None).unwrap() {
        let expected = store.events(run.id).unwrap().len()
            + store.startup_attempts(run.id).unwrap().len()
            + store.switch_attempts(run.id).unwrap().len()
            + store.fault_drills(run.id).unwrap().len()
            + store.billing_lines(run.id).unwrap().len()
            // Records kept in the metadata (a perf log's figures).
            + run
                .metadata
                .get(crate::domain::KEPT_RECORDS)
                .and_then(|v| v.as_u64())
                .unwrap_or(0) as usize;
        assert_eq!(
            counts.get(&run.id).copied().unwrap_or(0),
            expected as u64,
            "run {}",
            run.id
        );
        table_runs += usize::from(expected > 0);
    }
    assert!(table_runs > 3, "the demo has table-based runs");
}
