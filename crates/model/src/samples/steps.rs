//! A series' time steps, tallied as its timestamps go past: what an import
//! checks once every sample is stored (repeated times, the longest silence,
//! the typical step, the gaps) without reading the series back.

use std::collections::BTreeMap;

/// Steps shorter than this are counted in a plain array (a minute in
/// milliseconds: every sampling interval in practice); longer ones in a map.
const DENSE_STEPS: usize = 1 << 16;
/// Steps kept with their place in the series before the tally gives up on
/// them: enough for every gap of a real log, bounded for a pathological one.
const WIDE_STEPS_KEPT: usize = 1 << 16;
/// A step is kept with its place when it is longer than this many times the
/// shortest step seen before it. Gaps are steps longer than three typical
/// steps, and the typical (median) step is never shorter than the shortest;
/// two rather than three leaves room for a shortest step that is only
/// reached later (jitter around the interval).
const WIDE_FACTOR: i64 = 2;

/// The steps between consecutive timestamps of one series, in order.
#[derive(Debug, Clone, Default)]
pub struct StepTally {
    last: Option<i64>,
    count: u64,
    repeats: u64,
    longest: Option<(i64, i64)>,
    /// Positive steps: `dense[d]` is how many were `d` long.
    dense: Vec<u64>,
    sparse: BTreeMap<i64, u64>,
    positive: u64,
    shortest: Option<i64>,
    /// `(from, step)` for each step longer than [`WIDE_FACTOR`] × the
    /// shortest before it, while there are few enough.
    wide: Vec<(i64, i64)>,
    wide_overflow: bool,
    /// A timestamp earlier than the one before it: the tally no longer
    /// describes the series in time order.
    disordered: bool,
}

impl StepTally {
    /// The tally of a whole series at once.
    pub fn of(t_ms: &[i64]) -> Self {
        let mut tally = Self::default();
        tally.extend(t_ms.iter().copied());
        tally
    }

    /// Timestamps that follow the ones already tallied.
    pub fn extend(&mut self, t_ms: impl IntoIterator<Item = i64>) {
        for t in t_ms {
            self.count += 1;
            if let Some(previous) = self.last {
                let step = t.wrapping_sub(previous);
                if step > 0 {
                    self.positive_step(previous, step);
                } else if step == 0 {
                    self.repeats += 1;
                } else {
                    self.disordered = true;
                }
            }
            self.last = Some(t);
        }
    }

    fn positive_step(&mut self, from: i64, step: i64) {
        self.positive += 1;
        match self.dense.get_mut(step as usize) {
            Some(n) => *n += 1,
            None if (step as usize) < DENSE_STEPS => {
                self.dense.resize(step as usize + 1, 0);
                self.dense[step as usize] = 1;
            }
            None => *self.sparse.entry(step).or_insert(0) += 1,
        }
        if self.longest.is_none_or(|(a, b)| step > b - a) {
            self.longest = Some((from, from + step));
        }
        let shortest = *self.shortest.get_or_insert(step);
        if step > shortest.saturating_mul(WIDE_FACTOR) {
            if self.wide.len() < WIDE_STEPS_KEPT {
                self.wide.push((from, step));
            } else {
                self.wide_overflow = true;
            }
        }
        self.shortest = Some(shortest.min(step));
    }

    /// Whether the timestamps came in time order (repeats allowed); the
    /// other answers describe the series only then.
    pub fn in_order(&self) -> bool {
        !self.disordered
    }

    /// The latest timestamp, where they came in time order.
    pub fn last(&self) -> Option<i64> {
        self.last.filter(|_| self.in_order())
    }

    /// Timestamps tallied.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Timestamps equal to the one before them.
    pub fn repeats(&self) -> u64 {
        self.repeats
    }

    /// The longest step, as the two timestamps around it (the first, if
    /// several are as long).
    pub fn longest(&self) -> Option<(i64, i64)> {
        self.longest
    }

    /// The median positive step, as [`super::median_step`] defines it.
    pub fn median_step(&self) -> Option<i64> {
        if self.positive == 0 {
            return None;
        }
        let rank = self.positive / 2;
        let mut below = 0;
        let dense = self.dense.iter().enumerate().map(|(d, n)| (d as i64, *n));
        let sparse = self.sparse.iter().map(|(d, n)| (*d, *n));
        for (step, n) in dense.chain(sparse) {
            below += n;
            if below > rank {
                return Some(step);
            }
        }
        None
    }

    /// Every step longer than `limit` as `(from, step)`, in series order —
    /// or `None` where the tally did not keep them all (read the series).
    pub fn steps_longer_than(&self, limit: i64) -> Option<Vec<(i64, i64)>> {
        let limit = limit.max(0);
        let longer = |(d, n): (i64, u64)| if d > limit { n } else { 0 };
        let expected: u64 = self
            .dense
            .iter()
            .enumerate()
            .map(|(d, n)| longer((d as i64, *n)))
            .chain(self.sparse.iter().map(|(d, n)| longer((*d, *n))))
            .sum();
        let kept: Vec<(i64, i64)> = self
            .wide
            .iter()
            .copied()
            .filter(|(_, step)| *step > limit)
            .collect();
        (!self.wide_overflow && kept.len() as u64 == expected).then_some(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::median_step;
    use proptest::prelude::*;

    fn longer_than(t: &[i64], limit: i64) -> Vec<(i64, i64)> {
        t.windows(2)
            .map(|w| (w[0], w[1] - w[0]))
            .filter(|(_, d)| *d > limit)
            .collect()
    }

    #[test]
    fn a_steady_log_with_a_silence() {
        let mut t: Vec<i64> = (0..100).map(|i| 1_000 * i).collect();
        t.extend((0..100).map(|i| 200_000 + 1_000 * i));
        t.push(t[t.len() - 1]);
        let tally = StepTally::of(&t);
        assert_eq!(tally.count(), 201);
        assert_eq!(tally.repeats(), 1);
        assert_eq!(tally.median_step(), Some(1_000));
        assert_eq!(tally.longest(), Some((99_000, 200_000)));
        assert_eq!(
            tally.steps_longer_than(3_000),
            Some(vec![(99_000, 101_000)])
        );
        assert!(tally.in_order());
    }

    #[test]
    fn fed_in_pieces_it_is_the_tally_of_the_whole() {
        let t: Vec<i64> = (0..5000).map(|i| i * 997 + (i * i) % 13).collect();
        let mut pieces = StepTally::default();
        for piece in t.chunks(37) {
            pieces.extend(piece.iter().copied());
        }
        let whole = StepTally::of(&t);
        assert_eq!(pieces.count(), whole.count());
        assert_eq!(pieces.median_step(), whole.median_step());
        assert_eq!(pieces.longest(), whole.longest());
        assert_eq!(
            pieces.steps_longer_than(1000),
            whole.steps_longer_than(1000)
        );
    }

    #[test]
    fn a_step_back_is_noticed() {
        assert!(!StepTally::of(&[5, 6, 4]).in_order());
        let mut tally = StepTally::of(&[5, 6]);
        tally.extend([3, 7]);
        assert!(!tally.in_order());
    }

    #[test]
    fn long_steps_before_the_shortest_are_not_claimed_to_be_all() {
        // Steps of 10 s first, then of 1 s: the first ones were not long
        // next to what came before them, so they were not kept — and the
        // tally says so rather than miss them.
        let mut t: Vec<i64> = (0..10).map(|i| i * 10_000).collect();
        t.extend((1..=100).map(|i| 90_000 + i * 1_000));
        let tally = StepTally::of(&t);
        assert_eq!(tally.median_step(), Some(1_000));
        assert_eq!(tally.steps_longer_than(3_000), None);
        assert_eq!(tally.steps_longer_than(10_000), Some(vec![]));
    }

    proptest! {
        #[test]
        fn it_agrees_with_the_series_read_whole(
            steps in prop::collection::vec(
                prop_oneof![
                    8 => 990i64..1010,
                    1 => Just(0i64),
                    1 => 3_000i64..200_000,
                    1 => 70_000i64..90_000_000,
                ],
                0..400,
            ),
            cut in 1usize..50,
        ) {
            let t: Vec<i64> = steps
                .iter()
                .scan(1_717_200_000_000i64, |t, d| { *t += d; Some(*t) })
                .collect();
            let mut tally = StepTally::default();
            for piece in t.chunks(cut) {
                tally.extend(piece.iter().copied());
            }
            prop_assert_eq!(tally.median_step(), median_step(&t));
            prop_assert_eq!(tally.count(), t.len() as u64);
            prop_assert_eq!(
                tally.repeats(),
                t.windows(2).filter(|w| w[0] == w[1]).count() as u64
            );
            let longest = t
                .windows(2)
                .filter(|w| w[1] > w[0])
                .fold(None::<(i64, i64)>, |best, w| match best {
                    Some((a, b)) if w[1] - w[0] <= b - a => best,
                    _ => Some((w[0], w[1])),
                });
            prop_assert_eq!(tally.longest(), longest);
            for limit in [0, 2_999, 3_000, 3_030, 100_000] {
                if let Some(kept) = tally.steps_longer_than(limit) {
                    prop_assert_eq!(kept, longer_than(&t, limit));
                }
            }
        }
    }
}
