//! How much the ranking can be trusted.
//!
//! - Rank acceptability (SMAA): breakpoint weights are drawn from a
//!   Dirichlet distribution centred on the profile's weights (concentration
//!   adjustable; seeded, so results repeat); optionally each metric's value is
//!   drawn within its measured run-to-run spread too. For each platform:
//!   the share of draws in which it took each rank (counted in
//!   `acceptability`, among the contenders `reach` leaves in).
//! - Flip distances (`flips`): for each adjacent pair, the smallest change of one
//!   breakpoint's weight share (the others keeping their proportions) that
//!   lets the lower platform catch up.
//! - A fragile-winner warning when the top two are within 10 %, a small
//!   weight change swaps them, or the winner wins in under half of the draws.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};
use serde::Serialize;

use super::acceptability::{self, Tally};
use super::flips::nearest_flip;
pub use super::flips::{Flip, with_share};
use super::rank::{Ranking, overall};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RobustnessOptions {
    pub samples: usize,
    pub seed: u64,
    /// Dirichlet concentration: larger keeps draws closer to the profile.
    pub concentration: f64,
    /// Also draw metric values within their run-to-run spread.
    pub spread: bool,
}

/// Weight draws every face takes unless told otherwise: the command line,
/// the PDF and the app show the same robustness because they ask the same.
pub const SAMPLES: usize = 10_000;
/// The seed of the draws unless told otherwise.
pub const SEED: u64 = 1;
/// The Dirichlet concentration unless told otherwise.
pub const CONCENTRATION: f64 = 30.0;

impl Default for RobustnessOptions {
    fn default() -> Self {
        Self {
            samples: SAMPLES,
            seed: SEED,
            concentration: CONCENTRATION,
            spread: false,
        }
    }
}

/// How many ranks the acceptability counts: P(rank 1) … P(rank 10). Beyond
/// ten platforms a full n × n table would cost n log n per draw and say
/// nothing a buyer reads; the top ten takes one pass per draw.
pub const RANKS_KEPT: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceptability {
    pub platform: String,
    /// P(rank r), r = 1 … min(n, RANKS_KEPT); what is left of 1 is the
    /// chance of ranking lower.
    pub ranks: Vec<f64>,
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
    /// The same, in Chinese.
    #[serde(skip)]
    pub fragile_winner_zh: Option<String>,
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
            // Only spread draws read them.
            spreads: std::array::from_fn(|i| {
                if !options.spread {
                    return Vec::new();
                }
                p.breakpoints[i]
                    .metrics
                    .iter()
                    .filter_map(|m| Some((m.weight, m.score_range?.0, m.score_range?.1)))
                    .collect()
            }),
        })
        .collect();
    let n = contenders.len();
    let kept = n.min(RANKS_KEPT);
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
    // Each contender's scores by breakpoint, a column each with 0 where
    // unmeasured, and which breakpoints it was measured at (a 4-bit mask):
    // a draw's overall scores are then one pass the compiler vectorises.
    let columns: [Vec<f64>; 4] = std::array::from_fn(|b| {
        contenders
            .iter()
            .map(|c| c.scores[b].unwrap_or(0.0))
            .collect()
    });
    let masks: Vec<usize> = contenders
        .iter()
        .map(|c| {
            (0..4)
                .filter(|b| c.scores[*b].is_some())
                .map(|b| 1 << b)
                .sum()
        })
        .collect();
    let samples = if n == 0 { 0 } else { options.samples };
    let counts = if options.spread {
        // Each draw's metric values come from the same generator as its
        // weights, in turn: one thread.
        let origin: Vec<usize> = (0..n).collect();
        let mut tally = Tally::new(&origin, kept);
        let mut overall_now = vec![0.0; n];
        for _ in 0..samples {
            let Some(w) = draw_weights(&gammas, &mut rng) else {
                continue;
            };
            for (o, c) in overall_now.iter_mut().zip(&contenders) {
                *o = overall(&drawn_scores(c, &mut rng), &w).unwrap_or(f64::NEG_INFINITY);
            }
            tally.count(&overall_now);
        }
        tally.counts
    } else {
        // The weights drawn first, in order, then shared out among the
        // cores: the same counts on any number of them.
        let draws: Vec<[f64; 4]> = (0..samples)
            .filter_map(|_| draw_weights(&gammas, &mut rng))
            .collect();
        acceptability::weight_counts(&columns, &masks, draws, kept)
    };
    let acceptability: Vec<Acceptability> = contenders
        .iter()
        .zip(counts.chunks(kept.max(1)))
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
        .map(|pair| {
            nearest_flip(
                (pair[0].name, &pair[0].scores),
                (pair[1].name, &pair[1].scores),
                &base,
            )
        })
        .collect();
    let first_flip = flips.first().and_then(|f| f.as_ref());
    let fragile_winner = fragile(ranking, &acceptability, first_flip, false);
    let fragile_winner_zh = fragile(ranking, &acceptability, first_flip, true);
    Robustness {
        samples,
        seed: options.seed,
        concentration: options.concentration,
        acceptability,
        flips,
        fragile_winner,
        fragile_winner_zh,
    }
}

/// One draw of breakpoint weight shares around the profile's (Dirichlet:
/// normalised gamma draws); none when every share came out nil.
fn draw_weights(gammas: &[Option<Gamma<f64>>], rng: &mut StdRng) -> Option<[f64; 4]> {
    let mut w = [0.0; 4];
    for (x, g) in w.iter_mut().zip(gammas) {
        if let Some(g) = g {
            *x = g.sample(rng);
        }
    }
    let total: f64 = w.iter().sum();
    (total > 0.0).then(|| w.map(|x| x / total))
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

fn fragile(
    ranking: &Ranking,
    acceptability: &[Acceptability],
    first_flip: Option<&Flip>,
    zh: bool,
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
        let (lead, pct) = (a - b, 100.0 * (a - b) / a);
        let (x, y) = (&first.platform.name, &second.platform.name);
        reasons.push(if zh {
            format!("{x} 仅领先 {y} {lead:.1} 分（{pct:.0} %）")
        } else {
            format!("{x} leads {y} by only {lead:.1} points ({pct:.0} %)")
        });
    }
    if let Some(f) = first_flip.filter(|f| f.distance() < 0.05) {
        reasons.push(f.sentence_in(zh));
    }
    if let Some(p1) = acceptability
        .first()
        .map(|a| a.ranks.first().copied().unwrap_or(0.0))
        && p1 < 0.5
    {
        let (x, pct) = (&first.platform.name, 100.0 * p1);
        reasons.push(if zh {
            format!("{x} 仅在 {pct:.0} % 的权重抽样中排名第一")
        } else {
            format!("{x} ranks first in only {pct:.0} % of weight draws")
        });
    }
    (!reasons.is_empty()).then(|| {
        if zh {
            format!("领先者不稳：{}", reasons.join("；"))
        } else {
            format!("fragile winner: {}", reasons.join("; "))
        }
    })
}
