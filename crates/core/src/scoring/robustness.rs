//! How much the ranking can be trusted.
//!
//! - Rank acceptability (SMAA): breakpoint weights are drawn from a
//!   Dirichlet distribution centred on the profile's weights (concentration
//!   adjustable; seeded, so results repeat); optionally each metric's value is
//!   drawn within its measured run-to-run spread too. For each platform:
//!   the share of draws in which it took each rank.
//! - Flip distances: for each adjacent pair, the smallest change of one
//!   breakpoint's weight share (the others keeping their proportions) that
//!   lets the lower platform catch up.
//! - A fragile-winner warning when the top two are within 10 %, a small
//!   weight change swaps them, or the winner wins in under half of the draws.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};
use serde::Serialize;

use super::rank::{Ranking, overall};
use crate::domain::Breakpoint;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RobustnessOptions {
    pub samples: usize,
    pub seed: u64,
    /// Dirichlet concentration: larger keeps draws closer to the profile.
    pub concentration: f64,
    /// Also draw metric values within their run-to-run spread.
    pub spread: bool,
}

impl Default for RobustnessOptions {
    fn default() -> Self {
        Self {
            samples: 10_000,
            seed: 1,
            concentration: 30.0,
            spread: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceptability {
    pub platform: String,
    /// P(rank r), r = 1 … n.
    pub ranks: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flip {
    pub upper: String,
    pub lower: String,
    pub breakpoint: Breakpoint,
    /// The breakpoint's weight share now and where the lower platform
    /// catches up.
    pub from_share: f64,
    pub to_share: f64,
}

impl Flip {
    pub fn distance(&self) -> f64 {
        (self.to_share - self.from_share).abs()
    }

    /// "C overtakes A if startup weight goes from 0.25 to 0.41"
    pub fn sentence(&self) -> String {
        format!(
            "{} overtakes {} if {} weight goes from {:.2} to {:.2}",
            self.lower, self.upper, self.breakpoint, self.from_share, self.to_share
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Robustness {
    pub samples: usize,
    pub seed: u64,
    pub concentration: f64,
    pub acceptability: Vec<Acceptability>,
    /// For each adjacent pair of ranked platforms, the nearest flip (none
    /// when no single weight can swap them).
    pub flips: Vec<Option<Flip>>,
    pub fragile_winner: Option<String>,
}

/// Per ranked platform: breakpoint scores at the median and, for spread
/// draws, per breakpoint the metrics' (weight, score range).
struct Contender<'a> {
    name: &'a str,
    scores: [Option<f64>; 4],
    spreads: [Vec<(f64, f64, f64)>; 4],
}

pub fn robustness(ranking: &Ranking, options: &RobustnessOptions) -> Robustness {
    let contenders: Vec<Contender> = ranking
        .platforms
        .iter()
        .filter(|p| p.rank.is_some())
        .map(|p| Contender {
            name: &p.platform.name,
            scores: std::array::from_fn(|i| p.breakpoints[i].score),
            spreads: std::array::from_fn(|i| {
                p.breakpoints[i]
                    .metrics
                    .iter()
                    .filter_map(|m| Some((m.weight, m.score_range?.0, m.score_range?.1)))
                    .collect()
            }),
        })
        .collect();
    let n = contenders.len();
    let mut counts = vec![vec![0u32; n]; n];
    let mut rng = StdRng::seed_from_u64(options.seed);
    let base = ranking.weights;
    let gammas: Vec<Option<Gamma<f64>>> = base
        .iter()
        .map(|w| {
            (*w > 0.0)
                .then(|| Gamma::new(options.concentration.max(1e-3) * w, 1.0).ok())
                .flatten()
        })
        .collect();
    let mut overall_now = vec![0.0; n];
    let mut order: Vec<usize> = (0..n).collect();
    let samples = if n == 0 { 0 } else { options.samples };
    for _ in 0..samples {
        let mut w = [0.0; 4];
        for (i, g) in gammas.iter().enumerate() {
            if let Some(g) = g {
                w[i] = g.sample(&mut rng);
            }
        }
        let total: f64 = w.iter().sum();
        if total <= 0.0 {
            continue;
        }
        w.iter_mut().for_each(|x| *x /= total);
        for (p, c) in contenders.iter().enumerate() {
            let scores = if options.spread {
                drawn_scores(c, &mut rng)
            } else {
                c.scores
            };
            overall_now[p] = overall(&scores, &w).unwrap_or(f64::NEG_INFINITY);
        }
        order.sort_by(|a, b| overall_now[*b].total_cmp(&overall_now[*a]));
        for (r, p) in order.iter().enumerate() {
            counts[*p][r] += 1;
        }
    }
    let acceptability: Vec<Acceptability> = contenders
        .iter()
        .zip(&counts)
        .map(|(c, row)| Acceptability {
            platform: c.name.to_string(),
            ranks: row
                .iter()
                .map(|k| {
                    if samples > 0 {
                        f64::from(*k) / samples as f64
                    } else {
                        0.0
                    }
                })
                .collect(),
        })
        .collect();
    let flips: Vec<Option<Flip>> = contenders
        .windows(2)
        .map(|pair| nearest_flip(&pair[0], &pair[1], &base))
        .collect();
    let fragile_winner = fragile(
        ranking,
        &acceptability,
        flips.first().and_then(|f| f.as_ref()),
    );
    Robustness {
        samples,
        seed: options.seed,
        concentration: options.concentration,
        acceptability,
        flips,
        fragile_winner,
    }
}

/// Breakpoint scores with each metric drawn uniformly within its spread.
fn drawn_scores(c: &Contender<'_>, rng: &mut StdRng) -> [Option<f64>; 4] {
    std::array::from_fn(|b| {
        if c.spreads[b].is_empty() || c.scores[b].is_none() {
            return c.scores[b];
        }
        let (mut num, mut den) = (0.0, 0.0);
        for &(w, lo, hi) in &c.spreads[b] {
            let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
            let s = if hi > lo {
                rng.random_range(lo..=hi)
            } else {
                lo
            };
            num += w * s;
            den += w;
        }
        if den > 0.0 {
            Some(num / den)
        } else {
            c.scores[b]
        }
    })
}

/// Weights with breakpoint `b` at share `x` and the others scaled to fill
/// the rest in their current proportions.
pub fn with_share(base: &[f64; 4], b: usize, x: f64) -> [f64; 4] {
    let rest: f64 = base
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != b)
        .map(|(_, w)| w)
        .sum();
    std::array::from_fn(|i| {
        if i == b {
            x
        } else if rest > 0.0 {
            base[i] / rest * (1.0 - x)
        } else {
            (1.0 - x) / 3.0
        }
    })
}

/// The lower platform must lead by more than this (score points) to count
/// as overtaking.
const OVERTAKE: f64 = 1e-9;

fn nearest_flip(upper: &Contender<'_>, lower: &Contender<'_>, base: &[f64; 4]) -> Option<Flip> {
    let gap = |w: &[f64; 4]| {
        overall(&lower.scores, w).unwrap_or(f64::NEG_INFINITY)
            - overall(&upper.scores, w).unwrap_or(f64::NEG_INFINITY)
    };
    let mut best: Option<(f64, usize, f64)> = None;
    for b in 0..4 {
        let from = base[b];
        // Walk away from the current share in both directions; refine the
        // first crossing by bisection.
        for dir in [1.0, -1.0] {
            let steps = 2000;
            let mut prev = from;
            for k in 1..=steps {
                let x = from + dir * (k as f64 / steps as f64);
                if !(0.0..=1.0).contains(&x) {
                    break;
                }
                // Overtaking means a strictly higher score; a tie at an
                // extreme weight is not a flip.
                if gap(&with_share(base, b, x)) > OVERTAKE {
                    let (mut lo, mut hi) = (prev, x);
                    for _ in 0..60 {
                        let mid = (lo + hi) / 2.0;
                        if gap(&with_share(base, b, mid)) > OVERTAKE {
                            hi = mid
                        } else {
                            lo = mid
                        }
                    }
                    let d = (hi - from).abs();
                    if best.is_none_or(|(bd, _, _)| d < bd) {
                        best = Some((d, b, hi));
                    }
                    break;
                }
                prev = x;
            }
        }
    }
    best.map(|(_, b, to)| Flip {
        upper: upper.name.to_string(),
        lower: lower.name.to_string(),
        breakpoint: Breakpoint::ALL[b],
        from_share: base[b],
        to_share: to,
    })
}

fn fragile(
    ranking: &Ranking,
    acceptability: &[Acceptability],
    first_flip: Option<&Flip>,
) -> Option<String> {
    let ranked: Vec<_> = ranking
        .platforms
        .iter()
        .filter(|p| p.rank.is_some())
        .collect();
    let (first, second) = (ranked.first()?, ranked.get(1)?);
    let (a, b) = (first.overall?, second.overall?);
    let mut reasons = Vec::new();
    if a > 0.0 && (a - b) / a < 0.10 {
        reasons.push(format!(
            "{} leads {} by only {:.1} points ({:.0} %)",
            first.platform.name,
            second.platform.name,
            a - b,
            100.0 * (a - b) / a
        ));
    }
    if let Some(f) = first_flip.filter(|f| f.distance() < 0.05) {
        reasons.push(f.sentence());
    }
    if let Some(p1) = acceptability
        .first()
        .map(|a| a.ranks.first().copied().unwrap_or(0.0))
        && p1 < 0.5
    {
        reasons.push(format!(
            "{} ranks first in only {:.0} % of weight draws",
            first.platform.name,
            100.0 * p1
        ));
    }
    (!reasons.is_empty()).then(|| format!("fragile winner: {}", reasons.join("; ")))
}
