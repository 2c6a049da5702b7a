//! How much the ranking can be trusted.
//!
//! - Rank acceptability (SMAA): breakpoint weights are drawn from a
//!   Dirichlet distribution centred on the profile's weights (concentration
//!   adjustable; seeded, so results repeat); optionally each metric's value is
//!   drawn within its measured run-to-run spread too. For each platform:
//!   the share of draws in which it took each rank.
//! - Flip distances (`flips`): for each adjacent pair, the smallest change of one
//!   breakpoint's weight share (the others keeping their proportions) that
//!   lets the lower platform catch up.
//! - A fragile-winner warning when the top two are within 10 %, a small
//!   weight change swaps them, or the winner wins in under half of the draws.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};
use serde::Serialize;

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
        let alive = contenders_in_reach(&columns, &masks, kept);
        weight_counts(&columns, &masks, &draws, kept, &alive)
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

/// Per contender, the draws in which it took each of the first `kept`
/// ranks (counts[c * kept + r]), counting only the contenders in `alive`
/// (ascending indices): the others are counted as never placed.
fn weight_counts(
    columns: &[Vec<f64>; 4],
    masks: &[usize],
    draws: &[[f64; 4]],
    kept: usize,
    alive: &[usize],
) -> Vec<u32> {
    const EVERY_BREAKPOINT: usize = 0b1111;
    let n = masks.len();
    // Those measured everywhere first (the fast loop), each group in the
    // ranking's order; `origin` keeps that order for ties.
    let (everywhere, partly): (Vec<usize>, Vec<usize>) =
        alive.iter().partition(|&&c| masks[c] == EVERY_BREAKPOINT);
    let origin: Vec<usize> = everywhere.iter().chain(&partly).copied().collect();
    let columns: [Vec<f64>; 4] =
        std::array::from_fn(|b| origin.iter().map(|&c| columns[b][c]).collect());
    let masks: Vec<usize> = origin.iter().map(|&c| masks[c]).collect();
    let tally = |draws: &[[f64; 4]]| {
        let mut tally = Tally::new(&origin, kept);
        let mut overall_now = vec![0.0; origin.len()];
        for w in draws {
            overall_in_draw(&columns, &masks, everywhere.len(), w, &mut overall_now);
            tally.count(&overall_now);
        }
        tally.counts
    };
    // Threads pay off from about a million contender-draws.
    let threads = if origin.len() * draws.len() < 1 << 20 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |t| t.get().min(8))
    };
    let alive_counts = if threads == 1 {
        tally(draws)
    } else {
        let chunk = draws.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let parts: Vec<_> = draws
                .chunks(chunk.max(1))
                .map(|part| scope.spawn(move || tally(part)))
                .collect();
            let mut counts = vec![0u32; alive.len() * kept];
            for part in parts {
                // A tally cannot panic short of a bug; count it as empty then.
                for (c, k) in counts.iter_mut().zip(part.join().unwrap_or_default()) {
                    *c += k;
                }
            }
            counts
        })
    };
    let mut counts = vec![0u32; n * kept];
    for (row, &c) in alive_counts.chunks(kept.max(1)).zip(&origin) {
        counts[c * kept..(c + 1) * kept].copy_from_slice(row);
    }
    counts
}

/// Each contender's overall score under one draw's weights. The measured
/// weight of each of the 16 masks is divided once per draw rather than once
/// per contender; a mask with no weight at all puts its contenders last.
/// The first `measured_everywhere` contenders have every breakpoint
/// measured: their loop needs no mask and the compiler vectorises it.
fn overall_in_draw(
    columns: &[Vec<f64>; 4],
    masks: &[usize],
    measured_everywhere: usize,
    w: &[f64; 4],
    out: &mut [f64],
) {
    let mut scale = [0.0; 16];
    let mut floor = [0.0; 16];
    for m in 0..16 {
        let den: f64 = (0..4).filter(|b| m & (1 << b) != 0).map(|b| w[b]).sum();
        if den > 0.0 {
            scale[m] = 1.0 / den;
        } else {
            floor[m] = f64::NEG_INFINITY;
        }
    }
    let [s0, s1, s2, s3] = columns;
    let rows = s0.iter().zip(s1).zip(s2).zip(s3);
    let (everywhere, partly) = out.split_at_mut(measured_everywhere.min(out.len()));
    let all = scale[15];
    for (o, (((a, b), c), d)) in everywhere.iter_mut().zip(rows.clone()) {
        *o = (w[0] * a + w[1] * b + w[2] * c + w[3] * d) * all;
    }
    let rest = rows.zip(masks).skip(measured_everywhere);
    for (o, ((((a, b), c), d), m)) in partly.iter_mut().zip(rest) {
        let num = w[0] * a + w[1] * b + w[2] * c + w[3] * d;
        let m = m & 15;
        *o = num * scale[m] + floor[m];
    }
}

/// The contenders (by index, in ranking order) that can take one of the
/// first `kept` ranks under some weights. A contender measured at every
/// breakpoint whose scores are all at most those of `kept` contenders
/// before it, also measured at every breakpoint, cannot: under any weights
/// each of those scores at least as much overall (rounding is monotone, so
/// the computed sums are too), and a tie goes to the earlier one. Of a
/// thousand platforms a few dozen are left, which is what makes ten
/// thousand draws cheap.
fn contenders_in_reach(columns: &[Vec<f64>; 4], masks: &[usize], kept: usize) -> Vec<usize> {
    const EVERY_BREAKPOINT: usize = 0b1111;
    let n = masks.len();
    if n <= kept {
        return (0..n).collect();
    }
    let scores = |c: usize| -> [f64; 4] { std::array::from_fn(|b| columns[b][c]) };
    // Only those in reach need be compared with: a contender below one out
    // of reach is below the `kept` in reach above that one as well.
    let mut front: Vec<usize> = Vec::new();
    let mut alive = Vec::with_capacity(n);
    for (c, &mask) in masks.iter().enumerate() {
        if mask != EVERY_BREAKPOINT {
            alive.push(c);
            continue;
        }
        let s = scores(c);
        let dominated_by = front
            .iter()
            .filter(|&&j| {
                let t = scores(j);
                (0..4).all(|b| t[b] >= s[b])
            })
            .take(kept)
            .count();
        if dominated_by < kept {
            front.push(c);
            alive.push(c);
        }
    }
    alive
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

/// Draws in which each contender took each of the first `kept` ranks.
struct Tally<'a> {
    kept: usize,
    /// Each contender's place in the ranking, which breaks ties.
    origin: &'a [usize],
    /// counts[p * kept + r]: draws in which contender p took rank r + 1.
    counts: Vec<u32>,
    /// The last draw's leaders, best first.
    leaders: Vec<usize>,
    /// This draw's contenders that may lead: (overall, contender).
    candidates: Vec<(f64, usize)>,
}

impl<'a> Tally<'a> {
    fn new(origin: &'a [usize], kept: usize) -> Tally<'a> {
        Tally {
            kept,
            origin,
            counts: vec![0; origin.len() * kept],
            leaders: Vec::with_capacity(kept),
            candidates: Vec::new(),
        }
    }

    /// Count one draw's leaders: the first `kept` by overall score, ties
    /// in the ranking's order. The `kept`-th best is at least the least of
    /// any `kept` of them, so the last draw's leaders (whom a nearby draw
    /// mostly keeps) bound it from below and only the few at or above that
    /// bound are sorted.
    fn count(&mut self, overall: &[f64]) {
        let kept = self.kept;
        let bound = if self.leaders.len() == kept {
            self.leaders
                .iter()
                .map(|&p| overall[p])
                .fold(f64::INFINITY, f64::min)
        } else {
            f64::NEG_INFINITY
        };
        self.candidates.clear();
        self.candidates.extend(
            overall
                .iter()
                .enumerate()
                .filter(|&(_, &o)| o >= bound)
                .map(|(p, &o)| (o, p)),
        );
        // Best first, ties in the ranking's order; -0.0 is 0.0 here, as
        // `>=` has it. The first `kept` are picked out, then sorted.
        let key = |o: f64| if o == 0.0 { 0.0 } else { o };
        let origin = self.origin;
        let order = |a: &(f64, usize), b: &(f64, usize)| {
            key(b.0)
                .total_cmp(&key(a.0))
                .then(origin[a.1].cmp(&origin[b.1]))
        };
        if self.candidates.len() > kept {
            self.candidates.select_nth_unstable_by(kept, order);
            self.candidates.truncate(kept);
        }
        self.candidates.sort_unstable_by(order);
        self.leaders.clear();
        for (r, &(_, p)) in self.candidates.iter().take(kept).enumerate() {
            self.counts[p * kept + r] += 1;
            self.leaders.push(p);
        }
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Scores from a few levels, so that ties and dominance are common;
    /// most contenders measured everywhere, some not.
    fn any_field() -> impl Strategy<Value = ([Vec<f64>; 4], Vec<usize>)> {
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
    fn any_draws() -> impl Strategy<Value = Vec<[f64; 4]>> {
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

    /// The plain way: every contender's overall score in every draw,
    /// sorted best first (a stable sort: ties in the ranking's order).
    fn sorting_everyone(
        columns: &[Vec<f64>; 4],
        masks: &[usize],
        draws: &[[f64; 4]],
        kept: usize,
    ) -> Vec<u32> {
        let n = masks.len();
        let mut counts = vec![0; n * kept];
        let mut overall = vec![0.0; n];
        for w in draws {
            overall_in_draw(columns, masks, 0, w, &mut overall);
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|a, b| {
                overall[*b]
                    .partial_cmp(&overall[*a])
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            for (r, p) in order.into_iter().take(kept).enumerate() {
                counts[p * kept + r] += 1;
            }
        }
        counts
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// The counts, with the contenders out of reach left out and the
        /// leaders found from the last draw's, are those of sorting every
        /// contender in every draw.
        #[test]
        fn counts_are_those_of_sorting_everyone(
            (columns, masks) in any_field(),
            draws in any_draws(),
            kept in 1usize..=RANKS_KEPT,
        ) {
            let in_reach = contenders_in_reach(&columns, &masks, kept);
            prop_assert_eq!(
                weight_counts(&columns, &masks, &draws, kept, &in_reach),
                sorting_everyone(&columns, &masks, &draws, kept)
            );
        }
    }

    #[test]
    fn a_contender_below_enough_others_everywhere_is_left_out() {
        // Three contenders measured everywhere, the last below both others
        // at every breakpoint; one more measured at startup alone.
        let columns = [
            vec![90.0, 80.0, 70.0, 10.0],
            vec![90.0, 85.0, 60.0, 0.0],
            vec![50.0, 60.0, 40.0, 0.0],
            vec![50.0, 40.0, 40.0, 0.0],
        ];
        let masks = [0b1111, 0b1111, 0b1111, 0b0001];
        assert_eq!(contenders_in_reach(&columns, &masks, 2), vec![0, 1, 3]);
        assert_eq!(contenders_in_reach(&columns, &masks, 3), vec![0, 1, 2, 3]);
    }
}
