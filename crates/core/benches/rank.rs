//! Ranking benchmark: 20 platforms with every metric measured, ranked with
//! 10 000 SMAA weight draws (target < 100 ms), with and without drawing
//! metric values within their run-to-run spread; and the sustain detector's
//! precision and recall on seeded traces with planted throttling.
//!
//! Run: `cargo bench -p breakpoint-core --bench rank`

use std::collections::BTreeMap;
use std::time::Instant;

use breakpoint_core::domain::{BreakpointWeights, Platform, PlatformKind, WeightProfile};
use breakpoint_core::metrics::catalog::{Anchors, METRICS};
use breakpoint_core::metrics::sustain::synthetic;
use breakpoint_core::metrics::{Evidence, PlatformEvidence};
use breakpoint_core::scoring::{self, RobustnessOptions};
use breakpoint_core::store::StoredProfile;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn platforms(n: i64) -> Vec<PlatformEvidence> {
    let mut rng = StdRng::seed_from_u64(5);
    (1..=n)
        .map(|id| PlatformEvidence {
            platform: Platform {
                id,
                name: format!("Platform {id}"),
                kind: PlatformKind::Other,
                notes: None,
                template: None,
            },
            metrics: METRICS
                .iter()
                .map(|m| {
                    let t: f64 = rng.random_range(0.0..1.0);
                    let v = match m.anchors {
                        Anchors::Fixed {
                            best,
                            worst,
                            log: true,
                        } => (best.ln() + (worst.ln() - best.ln()) * t).exp(),
                        Anchors::Fixed { best, worst, .. } => best + (worst - best) * t,
                        Anchors::RelativeToBest { .. } => 10.0 + 15.0 * t,
                    };
                    let spread = v.abs() * 0.1;
                    Evidence::without_sources(m.key, v, v - spread, v + spread)
                })
                .collect(),
            claims: Vec::new(),
            runs: 3,
            currency: Some("CNY".into()),
            price_source: None,
            not_comparable: Vec::new(),
            degradations: Vec::new(),
        })
        .collect()
}

fn main() {
    let evidence = platforms(20);
    let profile = StoredProfile {
        profile: WeightProfile {
            id: 0,
            name: "balanced".into(),
            builtin: true,
            breakpoints: BreakpointWeights {
                startup: 0.25,
                sustain: 0.25,
                switch: 0.25,
                billing: 0.25,
            },
            metrics: BTreeMap::new(),
        },
        curves: BTreeMap::new(),
        coverage_threshold: 0.5,
    };
    println!(
        "rank: 20 platforms × {} metrics, 10 000 SMAA draws",
        METRICS.len()
    );
    for spread in [false, true] {
        let mut times = Vec::new();
        for seed in 0..15 {
            let start = Instant::now();
            let ranking = scoring::rank(&evidence, &profile);
            let r = scoring::robustness(
                &ranking,
                &RobustnessOptions {
                    samples: 10_000,
                    seed,
                    concentration: 30.0,
                    spread,
                },
            );
            times.push(start.elapsed().as_secs_f64() * 1e3);
            assert_eq!(r.acceptability.len(), 20);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "  {:<38} median {:>6.1} ms, max {:>6.1} ms   (target < 100 ms)",
            if spread {
                "rank + SMAA, weights and metric spread"
            } else {
                "rank + SMAA, weights"
            },
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    let start = Instant::now();
    let (p, r, sp, sr) = synthetic::detection_quality(200, 11);
    println!(
        "sustain detection on 400 seeded 24 h traces (200 with throttling planted at 20–80 %, 12–30 % deep):\n  traces  precision {p:.3}, recall {r:.3}\n  samples precision {sp:.3}, recall {sr:.3}   (goal ≥ 0.95 each; {:.1} s)",
        start.elapsed().as_secs_f64()
    );
}
