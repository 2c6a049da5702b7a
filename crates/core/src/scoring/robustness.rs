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
        let mut draws: Vec<[f64; 4]> = (0..samples)
            .filter_map(|_| draw_weights(&gammas, &mut rng))
            .collect();
        draws.sort_by_cached_key(near_first);
        let alive = contenders_in_reach(&columns, &masks, kept, &draws, 0..n);
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

/// Draws counted together: neighbours in `near_first` order, whose weights
/// lie close, so that of the contenders in reach of all the draws only a
/// part is in reach of these. Smaller blocks leave fewer in reach but cost
/// more to sort out: counting 10 000 draws at a thousand platforms took
/// 33 M instructions in one block, 56 M in blocks of 64, 31 M of 256 and
/// 27 M of 1024.
const BLOCK: usize = 1024;

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
    weight_counts_in_blocks(columns, masks, draws, kept, alive, BLOCK)
}

/// `weight_counts`, `block` draws at a time, each block counting only the
/// contenders of `alive` in reach of its own draws.
fn weight_counts_in_blocks(
    columns: &[Vec<f64>; 4],
    masks: &[usize],
    draws: &[[f64; 4]],
    kept: usize,
    alive: &[usize],
    block: usize,
) -> Vec<u32> {
    let n = masks.len();
    let block = block.max(1);
    let count = |draws: &[[f64; 4]]| {
        let mut counts = vec![0u32; n * kept];
        for draws in draws.chunks(block) {
            let in_reach = contenders_in_reach(columns, masks, kept, draws, alive.iter().copied());
            count_block(columns, masks, draws, kept, &in_reach, &mut counts);
        }
        counts
    };
    // Threads pay off from about a million contender-draws.
    let threads = if alive.len() * draws.len() < 1 << 20 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |t| t.get().min(8))
    };
    if threads == 1 {
        return count(draws);
    }
    // Whole blocks to each thread: the same blocks, so the same counts, on
    // any number of cores.
    let part = draws.len().div_ceil(threads).div_ceil(block) * block;
    std::thread::scope(|scope| {
        let parts: Vec<_> = draws
            .chunks(part.max(1))
            .map(|part| scope.spawn(move || count(part)))
            .collect();
        let mut counts = vec![0u32; n * kept];
        for part in parts {
            // A tally cannot panic short of a bug; count it as empty then.
            for (c, k) in counts.iter_mut().zip(part.join().unwrap_or_default()) {
                *c += k;
            }
        }
        counts
    })
}

/// Add one block of draws to `counts` (counts[c * kept + r]), among the
/// contenders in `alive` (ascending indices).
fn count_block(
    columns: &[Vec<f64>; 4],
    masks: &[usize],
    draws: &[[f64; 4]],
    kept: usize,
    alive: &[usize],
    counts: &mut [u32],
) {
    const EVERY_BREAKPOINT: usize = 0b1111;
    // Those measured everywhere first (the fast loop), each group in the
    // ranking's order; `origin` keeps that order for ties.
    let (everywhere, partly): (Vec<usize>, Vec<usize>) =
        alive.iter().partition(|&&c| masks[c] == EVERY_BREAKPOINT);
    let origin: Vec<usize> = everywhere.iter().chain(&partly).copied().collect();
    let columns: [Vec<f64>; 4] =
        std::array::from_fn(|b| origin.iter().map(|&c| columns[b][c]).collect());
    let masks: Vec<usize> = origin.iter().map(|&c| masks[c]).collect();
    let mut tally = Tally::new(&origin, kept);
    let mut overall_now = vec![0.0; origin.len()];
    for w in draws {
        overall_in_draw(&columns, &masks, everywhere.len(), w, &mut overall_now);
        tally.count(&overall_now);
    }
    for (row, &c) in tally.counts.chunks(kept.max(1)).zip(&origin) {
        for (total, k) in counts[c * kept..(c + 1) * kept].iter_mut().zip(row) {
            *total += k;
        }
    }
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
    let scale_of = |m: usize| {
        let den: f64 = (0..4).filter(|b| m & (1 << b) != 0).map(|b| w[b]).sum();
        if den > 0.0 { 1.0 / den } else { 0.0 }
    };
    let [s0, s1, s2, s3] = columns;
    let rows = s0.iter().zip(s1).zip(s2).zip(s3);
    let (everywhere, partly) = out.split_at_mut(measured_everywhere.min(out.len()));
    let all = scale_of(15);
    for (o, (((a, b), c), d)) in everywhere.iter_mut().zip(rows.clone()) {
        *o = (w[0] * a + w[1] * b + w[2] * c + w[3] * d) * all;
    }
    if partly.is_empty() {
        return;
    }
    let mut scale = [0.0; 16];
    let mut floor = [0.0; 16];
    for m in 0..16 {
        scale[m] = scale_of(m);
        if scale[m] == 0.0 {
            floor[m] = f64::NEG_INFINITY;
        }
    }
    let rest = rows.zip(masks).skip(measured_everywhere);
    for (o, ((((a, b), c), d), m)) in partly.iter_mut().zip(rest) {
        let num = w[0] * a + w[1] * b + w[2] * c + w[3] * d;
        let m = m & 15;
        *o = num * scale[m] + floor[m];
    }
}

/// The contenders (by index, in ranking order) that can take one of the
/// first `kept` ranks in one of the draws. A contender measured at every
/// breakpoint is out of reach when `kept` contenders before it, also
/// measured everywhere, each score more than it in every draw: because
/// they score at least as much at every breakpoint (rounding is monotone,
/// so the computed sums do too, and a tie goes to the earlier one), or
/// because they lead it under every weights within the draws' range (a
/// margin far above rounding keeps that true of the computed sums). Of the
/// scale bench's thousand platforms 138 are left, and a few dozen for a
/// block of neighbouring draws, which is what makes ten thousand draws
/// cheap.
fn contenders_in_reach(
    columns: &[Vec<f64>; 4],
    masks: &[usize],
    kept: usize,
    draws: &[[f64; 4]],
    among: impl ExactSizeIterator<Item = usize>,
) -> Vec<usize> {
    const EVERY_BREAKPOINT: usize = 0b1111;
    if among.len() <= kept {
        return among.collect();
    }
    let range = ShareRange::of(draws);
    let scores = |c: usize| -> [f64; 4] { std::array::from_fn(|b| columns[b][c]) };
    let leads_always = |t: &[f64; 4], s: &[f64; 4]| {
        (0..4).all(|b| t[b] >= s[b])
            || range
                .as_ref()
                .is_some_and(|r| r.least_lead(std::array::from_fn(|b| t[b] - s[b])) > SURE_LEAD)
    };
    // Only those in reach need be compared with: a contender below one out
    // of reach in every draw is below the `kept` above that one as well.
    let mut front: Vec<(usize, [f64; 4])> = Vec::new();
    let mut alive = Vec::with_capacity(among.len());
    for c in among {
        if masks[c] != EVERY_BREAKPOINT {
            alive.push(c);
            continue;
        }
        let s = scores(c);
        let led_by = front
            .iter()
            .filter(|(_, t)| leads_always(t, &s))
            .take(kept)
            .count();
        if led_by < kept {
            front.push((c, s));
            alive.push(c);
        }
    }
    alive
}

/// A lead (score points) that no rounding in an overall score can undo:
/// scores are at most 100 and weights shares of 1, so rounding moves an
/// overall score by about 1e-13.
const SURE_LEAD: f64 = 1e-9;

/// The range of each breakpoint's share over a set of draws: every draw
/// lies within it, and its shares sum to 1.
struct ShareRange {
    low: [f64; 4],
    high: [f64; 4],
}

impl ShareRange {
    fn of(draws: &[[f64; 4]]) -> Option<ShareRange> {
        let first = draws.first()?;
        let mut range = ShareRange {
            low: *first,
            high: *first,
        };
        for w in draws {
            for ((low, high), x) in range.low.iter_mut().zip(&mut range.high).zip(w) {
                *low = low.min(*x);
                *high = high.max(*x);
            }
        }
        Some(range)
    }

    /// The least of `w · gap` over the shares `w` within the range that
    /// sum to 1 (a bound below that of any draw): each share at its low,
    /// what is left of 1 going to the smallest gaps first.
    fn least_lead(&self, gap: [f64; 4]) -> f64 {
        let mut order = [0, 1, 2, 3];
        order.sort_unstable_by(|a, b| gap[*a].total_cmp(&gap[*b]));
        let mut lead: f64 = (0..4).map(|b| self.low[b] * gap[b]).sum();
        let mut left = (1.0 - self.low.iter().sum::<f64>()).max(0.0);
        for b in order {
            let more = (self.high[b] - self.low[b]).min(left);
            lead += more * gap[b];
            left -= more;
        }
        lead
    }
}

/// A key that puts draws of like weights next to each other (the Z-order
/// of the first three shares, at 1/1024 each; the fourth is what the
/// others leave): the leaders of one draw then mostly lead the next, which
/// is what `Tally::count` makes use of. Counts do not depend on the order
/// in which draws are counted.
fn near_first(w: &[f64; 4]) -> u32 {
    let spread = |x: f64| -> u32 {
        // Each of 10 bits two places apart, leaving room for the others.
        let mut v = (x.clamp(0.0, 1.0) * 1023.0) as u32;
        v = (v | (v << 16)) & 0x0300_00FF;
        v = (v | (v << 8)) & 0x0300_F00F;
        v = (v | (v << 4)) & 0x030C_30C3;
        (v | (v << 2)) & 0x0924_9249
    };
    spread(w[0]) | (spread(w[1]) << 1) | (spread(w[2]) << 2)
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
    /// This draw's contenders that may lead, as `place_key`s.
    candidates: Vec<u128>,
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
        let origin = self.origin;
        self.candidates.extend(
            overall
                .iter()
                .enumerate()
                .filter(|&(_, &o)| o >= bound)
                .map(|(p, &o)| place_key(o, origin[p], p)),
        );
        self.candidates.sort_unstable();
        self.leaders.clear();
        for (r, key) in self.candidates.iter().take(kept).enumerate() {
            let p = (*key as u32) as usize;
            self.counts[p * kept + r] += 1;
            self.leaders.push(p);
        }
    }
}

/// A contender's place in one draw as one number, smaller for better:
/// its overall score, highest first (−0.0 as 0.0, as `>=` has it), then
/// its place in the ranking, then the contender itself. Sorting plain
/// numbers is what makes a draw's leaders cheap to order.
fn place_key(overall: f64, origin: usize, contender: usize) -> u128 {
    let overall = if overall == 0.0 { 0.0 } else { overall };
    // The bits of a float, turned so that their order is `total_cmp`'s.
    let bits = overall.to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    (u128::from(!ascending) << 64) | ((origin as u128) << 32) | contender as u128
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
            block in 1usize..8,
        ) {
            let in_reach = contenders_in_reach(&columns, &masks, kept, &draws, 0..masks.len());
            let everyone = sorting_everyone(&columns, &masks, &draws, kept);
            prop_assert_eq!(
                &weight_counts(&columns, &masks, &draws, kept, &in_reach),
                &everyone
            );
            // A few draws at a time, each block with those in reach of it.
            prop_assert_eq!(
                &weight_counts_in_blocks(&columns, &masks, &draws, kept, &in_reach, block),
                &everyone
            );
        }
    }

    proptest! {
        /// No draw within the range puts a gap's weighted sum below the
        /// range's least lead, and the least lead is reached by shares
        /// within the range that sum to 1.
        #[test]
        fn the_least_lead_bounds_every_draw(
            draws in any_draws(),
            gap in proptest::array::uniform4(-100.0f64..100.0),
        ) {
            let range = ShareRange::of(&draws).unwrap();
            let least = range.least_lead(gap);
            for w in &draws {
                let lead: f64 = (0..4).map(|b| w[b] * gap[b]).sum();
                prop_assert!(least <= lead + 1e-9, "{least} above {lead} at {w:?}");
            }
        }
    }

    proptest! {
        /// Places sort as scores do, highest first with −0.0 as 0.0, ties
        /// in the ranking's order.
        #[test]
        fn place_keys_sort_as_scores_then_the_ranking_do(
            scores in proptest::collection::vec(
                prop_oneof![
                    Just(0.0), Just(-0.0), Just(f64::NEG_INFINITY), Just(f64::INFINITY),
                    Just(55.5), -1.0e3f64..1.0e3,
                ],
                1..30,
            ),
        ) {
            let n = scores.len();
            // The ranking's order: reversed, so that it is not the index's.
            let origin: Vec<usize> = (0..n).rev().collect();
            let mut by_key: Vec<usize> = (0..n).collect();
            by_key.sort_by_key(|&p| place_key(scores[p], origin[p], p));
            let key = |o: f64| if o == 0.0 { 0.0 } else { o };
            let mut by_score: Vec<usize> = (0..n).collect();
            by_score.sort_by(|&a, &b| {
                key(scores[b]).total_cmp(&key(scores[a])).then(origin[a].cmp(&origin[b]))
            });
            prop_assert_eq!(by_key, by_score);
        }
    }

    #[test]
    fn a_contender_behind_under_every_drawn_weight_is_left_out() {
        // The third beats the first two at billing alone, by less than
        // they lead it elsewhere; with billing's share never above a
        // quarter in the draws it is behind both in every one, though
        // neither is ahead of it at every breakpoint.
        let columns = [
            vec![90.0, 80.0, 60.0],
            vec![90.0, 85.0, 60.0],
            vec![90.0, 80.0, 60.0],
            vec![40.0, 50.0, 60.0],
        ];
        let masks = [0b1111; 3];
        let draws = [[0.3, 0.3, 0.2, 0.2], [0.25, 0.25, 0.25, 0.25]];
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &[], 0..masks.len()),
            vec![0, 1, 2]
        );
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &draws, 0..masks.len()),
            vec![0, 1]
        );
        // Where billing may take almost all the weight, it stays in reach.
        let wide = [[0.3, 0.3, 0.2, 0.2], [0.01, 0.01, 0.01, 0.97]];
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &wide, 0..masks.len()),
            vec![0, 1, 2]
        );
    }

    #[test]
    fn draws_of_like_weights_sort_together() {
        let a = near_first(&[0.25, 0.25, 0.25, 0.25]);
        let b = near_first(&[0.251, 0.249, 0.25, 0.25]);
        let far = near_first(&[0.7, 0.1, 0.1, 0.1]);
        assert!(a.abs_diff(b) < a.abs_diff(far));
        // More of any one share never sorts earlier.
        for b in 0..3 {
            let mut w = [0.2; 4];
            let before = near_first(&w);
            w[b] = 0.6;
            assert!(near_first(&w) > before);
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
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &[], 0..masks.len()),
            vec![0, 1, 3]
        );
        assert_eq!(
            contenders_in_reach(&columns, &masks, 3, &[], 0..masks.len()),
            vec![0, 1, 2, 3]
        );
    }
}
