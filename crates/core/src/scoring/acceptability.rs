//! Rank acceptability counted over weight draws: per contender, the draws
//! in which it took each of the first ranks. Draws are counted in an
//! order that puts like weights together (so one draw's leaders bound the
//! next's), in blocks, each among the contenders in reach of its own draws
//! (`reach`); the counts are those of sorting every contender in every
//! draw, on any number of cores.

use super::reach::contenders_in_reach;

/// Draws counted together: neighbours in `near_first` order, whose weights
/// lie close, so that of the contenders in reach of all the draws only a
/// part is in reach of these. Smaller blocks leave fewer in reach but cost
/// more to sort out: counting 10 000 draws at a thousand platforms took
/// 33 M instructions in one block, 56 M in blocks of 64, 31 M of 256 and
/// 27 M of 1024.
const BLOCK: usize = 1024;

/// Per contender (columns of breakpoint scores, masks of those measured),
/// the draws in which it took each of the first `kept` ranks
/// (counts[c * kept + r]). The draws are put in `near_first` order; only
/// the contenders in reach of them take part, the others counted as never
/// placed.
pub(super) fn weight_counts(
    columns: &[Vec<f64>; 4],
    masks: &[usize],
    mut draws: Vec<[f64; 4]>,
    kept: usize,
) -> Vec<u32> {
    draws.sort_by_cached_key(near_first);
    let alive = contenders_in_reach(columns, masks, kept, &draws, 0..masks.len());
    weight_counts_in_blocks(columns, masks, &draws, kept, &alive, BLOCK)
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

/// Draws in which each contender took each of the first `kept` ranks.
pub(super) struct Tally<'a> {
    kept: usize,
    /// Each contender's place in the ranking, which breaks ties.
    origin: &'a [usize],
    /// counts[p * kept + r]: draws in which contender p took rank r + 1.
    pub(super) counts: Vec<u32>,
    /// The last draw's leaders, best first.
    leaders: Vec<usize>,
    /// This draw's contenders that may lead, as `place_key`s.
    candidates: Vec<u128>,
}

impl<'a> Tally<'a> {
    pub(super) fn new(origin: &'a [usize], kept: usize) -> Tally<'a> {
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
    pub(super) fn count(&mut self, overall: &[f64]) {
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::scoring::robustness::RANKS_KEPT;
    use crate::scoring::tests::{any_draws, any_field};

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
            let everyone = sorting_everyone(&columns, &masks, &draws, kept);
            prop_assert_eq!(
                &weight_counts(&columns, &masks, draws.clone(), kept),
                &everyone
            );
            let in_reach = contenders_in_reach(&columns, &masks, kept, &draws, 0..masks.len());
            // A few draws at a time, each block with those in reach of it.
            prop_assert_eq!(
                &weight_counts_in_blocks(&columns, &masks, &draws, kept, &in_reach, block),
                &everyone
            );
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
}
