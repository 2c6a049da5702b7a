//! Properties of the ranking and of its robustness analysis, on generated
//! evidence.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::domain::{Breakpoint, BreakpointWeights, Platform, PlatformKind, WeightProfile};
use crate::metrics::catalog::keys;
use crate::metrics::catalog::{Anchors, METRICS};
use crate::metrics::{Evidence, PlatformEvidence};
use crate::store::StoredProfile;

fn profile(w: [f64; 4]) -> StoredProfile {
    StoredProfile {
        profile: WeightProfile {
            id: 0,
            name: "test".into(),
            builtin: false,
            breakpoints: BreakpointWeights {
                startup: w[0],
                sustain: w[1],
                switch: w[2],
                billing: w[3],
            },
            metrics: BTreeMap::new(),
        },
        curves: BTreeMap::new(),
        coverage_threshold: 0.0,
    }
}

fn platform(id: i64, values: &[(&str, f64)]) -> PlatformEvidence {
    PlatformEvidence {
        platform: Platform {
            id,
            name: format!("P{id}"),
            kind: PlatformKind::Other,
            notes: None,
            template: None,
        },
        metrics: values
            .iter()
            .map(|(k, v)| Evidence::without_sources(*k, *v, *v, *v))
            .collect(),
        claims: Vec::new(),
        runs: 1,
        currency: Some("CNY".into()),
        price_source: None,
        not_comparable: Vec::new(),
        degradations: Vec::new(),
    }
}

/// A value for each metric, spread across its anchors by `t` in 0…1.
fn value_at(key: &str, t: f64) -> f64 {
    let def = crate::metrics::catalog::metric(key).unwrap_or(&METRICS[0]);
    match def.anchors {
        Anchors::Fixed { best, worst, log } if log => {
            (best.ln() + (worst.ln() - best.ln()) * t).exp()
        }
        Anchors::Fixed { best, worst, .. } => best + (worst - best) * t,
        Anchors::RelativeToBest { .. } => 10.0 + 20.0 * t,
    }
}

fn any_platforms() -> impl Strategy<Value = Vec<PlatformEvidence>> {
    proptest::collection::vec(
        proptest::collection::vec(proptest::option::of(0.0f64..1.2), METRICS.len()),
        2..8,
    )
    .prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(i, row)| {
                let values: Vec<(&str, f64)> = METRICS
                    .iter()
                    .zip(row)
                    .filter_map(|(m, t)| Some((m.key, value_at(m.key, t?))))
                    .collect();
                platform(i as i64 + 1, &values)
            })
            .collect()
    })
}

fn any_weights() -> impl Strategy<Value = [f64; 4]> {
    [0.01f64..1.0, 0.01f64..1.0, 0.01f64..1.0, 0.01f64..1.0]
}

fn overall_of(r: &Ranking, id: i64) -> Option<f64> {
    r.platforms
        .iter()
        .find(|p| p.platform.id == id)
        .and_then(|p| p.overall)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn improving_a_metric_never_lowers_the_score(platforms in any_platforms(), w in any_weights(), which in 0usize..METRICS.len()) {
        let def = &METRICS[which];
        prop_assume!(matches!(def.anchors, Anchors::Fixed { .. }));
        // Only cases that test something: the first platform measured the
        // metric and has an overall score to lose.
        prop_assume!(platforms[0].metrics.contains_key(def.key));
        let before = rank(&platforms, &profile(w));
        let a = overall_of(&before, 1);
        prop_assume!(a.is_some());
        let mut better = platforms.clone();
        let Anchors::Fixed { best, .. } = def.anchors else { unreachable!() };
        let e = better[0].metrics.get_mut(def.key).expect("assumed above");
        // To the best anchor.
        e.value = best;
        e.min = best;
        e.max = best;
        let after = rank(&better, &profile(w));
        let (a, b) = (a.unwrap_or_default(), overall_of(&after, 1));
        prop_assert!(b.is_some(), "a better figure lost the overall score");
        let b = b.unwrap_or_default();
        prop_assert!(b >= a - 1e-9, "{} → {}", a, b);
    }

    #[test]
    fn scaling_all_weights_changes_nothing(platforms in any_platforms(), w in any_weights(), k in 0.1f64..50.0) {
        let a = rank(&platforms, &profile(w));
        let b = rank(&platforms, &profile(w.map(|x| x * k)));
        for (x, y) in a.platforms.iter().zip(&b.platforms) {
            prop_assert_eq!(x.platform.id, y.platform.id);
            prop_assert_eq!(x.rank, y.rank);
            prop_assert!((x.overall.unwrap_or(0.0) - y.overall.unwrap_or(0.0)).abs() < 1e-9);
        }
    }

    #[test]
    fn removing_an_unmeasured_metric_changes_no_score(platforms in any_platforms(), w in any_weights(), which in 0usize..METRICS.len()) {
        let key = METRICS[which].key;
        let mut without = platforms.clone();
        for p in &mut without {
            p.metrics.remove(key);
        }
        // Unmeasured everywhere, with or without weight: the same scores.
        let mut zero = profile(w);
        zero.profile.metrics.insert(key.into(), 0.0);
        let a = rank(&without, &profile(w));
        let b = rank(&without, &zero);
        for (x, y) in a.platforms.iter().zip(&b.platforms) {
            prop_assert_eq!(x.overall.map(|v| (v * 1e6).round()), y.overall.map(|v| (v * 1e6).round()));
        }
    }

    #[test]
    fn every_flip_is_confirmed_by_re_ranking(platforms in any_platforms(), w in any_weights()) {
        let p = profile(w);
        let ranking = rank(&platforms, &p);
        let robust = robustness(&ranking, &RobustnessOptions { samples: 0, ..RobustnessOptions::default() });
        for flip in robust.flips.iter().flatten() {
            let b = Breakpoint::ALL.iter().position(|x| *x == flip.breakpoint).unwrap();
            let shares = robustness::with_share(&ranking.weights, b, flip.to_share);
            let again = rank(&platforms, &profile(shares));
            let score = |name: &str| again.platforms.iter().find(|x| x.platform.name == name).and_then(|x| x.overall).unwrap();
            prop_assert!(score(&flip.lower) > score(&flip.upper) - 1e-6, "{}", flip.sentence());
            // Just short of the flip, the order still holds.
            let toward = flip.from_share + (flip.to_share - flip.from_share) * 0.98;
            let before = rank(&platforms, &profile(robustness::with_share(&ranking.weights, b, toward)));
            let score = |name: &str| before.platforms.iter().find(|x| x.platform.name == name).and_then(|x| x.overall).unwrap();
            prop_assert!(score(&flip.lower) <= score(&flip.upper) + 1e-6);
        }
    }

    #[test]
    fn no_flip_nearer_than_the_one_named_is_missed(platforms in any_platforms(), w in any_weights()) {
        let ranking = rank(&platforms, &profile(w));
        let robust = robustness(&ranking, &RobustnessOptions { samples: 0, ..RobustnessOptions::default() });
        let ranked: Vec<[Option<f64>; 4]> = ranking.platforms.iter().filter(|p| p.rank.is_some())
            .map(|p| std::array::from_fn(|i| p.breakpoints[i].score)).collect();
        for (pair, flip) in ranked.windows(2).zip(&robust.flips) {
            // A dense scan of every breakpoint's share.
            for b in 0..4 {
                for k in 0..=1000 {
                    let x = f64::from(k) / 1000.0;
                    let shares = robustness::with_share(&ranking.weights, b, x);
                    let score = |s: &[Option<f64>; 4]| crate::scoring::rank::overall(s, &shares);
                    // A platform left with no score is unranked, not overtaken.
                    if let (Some(upper), Some(lower)) = (score(&pair[0]), score(&pair[1]))
                        && lower - upper > 1e-6
                    {
                        let distance = (x - ranking.weights[b]).abs();
                        let named = flip.as_ref().map(|f| f.distance());
                        prop_assert!(named.is_some_and(|d| d <= distance + 1e-9),
                            "overtakes at {} share {x}, {distance} away; flip named: {:?}", Breakpoint::ALL[b], flip);
                    }
                }
            }
        }
    }
}

#[test]
fn smaa_repeats_for_a_seed_and_sums_to_one() {
    let platforms: Vec<PlatformEvidence> = (1..=6)
        .map(|i| {
            let t = i as f64 / 7.0;
            platform(
                i,
                &[
                    (
                        keys::STARTUP_BASELINE_P50_S,
                        value_at(keys::STARTUP_BASELINE_P50_S, t),
                    ),
                    (
                        keys::SUSTAIN_POWER_DROP_PCT,
                        value_at(keys::SUSTAIN_POWER_DROP_PCT, 1.0 - t),
                    ),
                    (
                        keys::SWITCH_SUCCESS_PCT,
                        value_at(keys::SWITCH_SUCCESS_PCT, (t * 3.0) % 1.0),
                    ),
                    (
                        keys::BILLING_GRANULARITY_S,
                        value_at(keys::BILLING_GRANULARITY_S, (t * 5.0) % 1.0),
                    ),
                ],
            )
        })
        .collect();
    let ranking = rank(&platforms, &profile([0.25; 4]));
    let options = RobustnessOptions {
        samples: 2000,
        seed: 42,
        concentration: 10.0,
        spread: false,
    };
    let a = robustness(&ranking, &options);
    let b = robustness(&ranking, &options);
    assert_eq!(a, b);
    for acc in &a.acceptability {
        assert!((acc.ranks.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    let other = robustness(
        &ranking,
        &RobustnessOptions {
            seed: 43,
            ..options
        },
    );
    assert_ne!(a.acceptability, other.acceptability);
}

#[test]
fn ties_share_a_rank_and_thin_evidence_comes_last() {
    let same = [(keys::STARTUP_BASELINE_P50_S, 5.0)];
    let platforms = vec![
        platform(1, &same),
        platform(2, &same),
        platform(3, &[(keys::STARTUP_BASELINE_P50_S, 1800.0)]),
        platform(4, &[]),
    ];
    let mut p = profile([1.0, 0.0, 0.0, 0.0]);
    p.coverage_threshold = 0.05;
    let r = rank(&platforms, &p);
    let ranks: Vec<(i64, Option<u32>)> = r
        .platforms
        .iter()
        .map(|x| (x.platform.id, x.rank))
        .collect();
    assert_eq!(
        ranks,
        vec![(1, Some(1)), (2, Some(1)), (3, Some(3)), (4, None)]
    );
    assert!(r.platforms[3].insufficient_evidence);
    assert_eq!(r.platforms[3].overall, None, "nothing measured is not 0");
}

// Fields of contenders and weight draws, for the tests of the counting
// (`acceptability`) and of who is in reach (`reach`).

/// Scores from a few levels, so that ties and dominance are common;
/// most contenders measured everywhere, some not.
pub(super) fn any_field() -> impl Strategy<Value = ([Vec<f64>; 4], Vec<usize>)> {
    proptest::collection::vec(
        (
            proptest::array::uniform4(0u8..5),
            prop_oneof![4 => Just(0b1111usize), 1 => 0usize..16],
        ),
        1..60,
    )
    .prop_map(|rows| {
        let columns = std::array::from_fn(|b| {
            rows.iter()
                .map(|(s, m)| {
                    if m & (1 << b) != 0 {
                        f64::from(s[b]) * 25.0
                    } else {
                        0.0
                    }
                })
                .collect()
        });
        (columns, rows.iter().map(|(_, m)| *m).collect())
    })
}

/// Shares of 1, some of them nought (a breakpoint weighed at 0).
pub(super) fn any_draws() -> impl Strategy<Value = Vec<[f64; 4]>> {
    proptest::collection::vec(
        proptest::array::uniform4(prop_oneof![1 => Just(0.0), 4 => 0.0f64..1.0]),
        1..40,
    )
    .prop_map(|draws| {
        draws
            .into_iter()
            .filter_map(|w| {
                let total: f64 = w.iter().sum();
                (total > 0.0).then(|| w.map(|x| x / total))
            })
            .collect()
    })
}
