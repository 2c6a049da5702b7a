//! A GPU's board power integrated over time: the energy it drew.
//!
//! Integration is by trapezoids between consecutive power readings. A step
//! longer than [`GAP_STEPS`] times the series' typical (median) step is a
//! gap — nothing is known of the power in it — and is left out; the hours
//! integrated say how much time the figure covers. Each interval counts as
//! working or waiting by the utilisation its first sample reports.
//!
//! The sums are kept exactly, in integers (milliwatts × milliseconds are
//! microjoules), so that the same samples give the same figures bit for bit
//! whatever order they are added in: read back from the store
//! ([`integrate`]), or tallied as an import writes them ([`PowerTally`]),
//! where the typical step is known only at the end.

use serde::Serialize;

use super::WORKING_UTIL;
use super::steps::StepTally;

/// A step longer than this many typical steps is a gap.
pub const GAP_STEPS: i64 = 3;

/// Which rule made a stored figure: figures kept under another are computed
/// again. Raise it whenever what [`integrate`] gives for the same samples
/// changes.
pub const RULE: i64 = 1;

/// One GPU's energy in a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuEnergy {
    pub gpu: u32,
    pub kwh: f64,
    /// Time covered by the integration (gaps left out).
    pub hours: f64,
    /// Mean board power while working (utilisation above 10 %), and while
    /// not; absent without utilisation or without such samples.
    pub working_w: Option<f64>,
    pub waiting_w: Option<f64>,
}

/// Trapezoids summed exactly: twice each one's microjoules (so that halving
/// never rounds), and the milliseconds they span, in all and by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Integral {
    twice_uj: i128,
    ms: i128,
    working_twice_uj: i128,
    working_ms: i128,
    waiting_twice_uj: i128,
    waiting_ms: i128,
}

impl Integral {
    /// The interval of `step_ms` from a reading of `from_mw` (its sample's
    /// utilisation `from_util`) to one of `to_mw`.
    #[inline]
    fn add(&mut self, step_ms: i64, from_mw: i64, to_mw: i64, from_util: Option<i64>) {
        let twice_uj = (i128::from(from_mw) + i128::from(to_mw)) * i128::from(step_ms);
        let ms = i128::from(step_ms);
        self.twice_uj += twice_uj;
        self.ms += ms;
        match from_util {
            Some(u) if u > WORKING_UTIL => {
                self.working_twice_uj += twice_uj;
                self.working_ms += ms;
            }
            Some(_) => {
                self.waiting_twice_uj += twice_uj;
                self.waiting_ms += ms;
            }
            None => {}
        }
    }

    fn merge(&mut self, other: &Integral) {
        self.twice_uj += other.twice_uj;
        self.ms += other.ms;
        self.working_twice_uj += other.working_twice_uj;
        self.working_ms += other.working_ms;
        self.waiting_twice_uj += other.waiting_twice_uj;
        self.waiting_ms += other.waiting_ms;
    }

    /// GPU `gpu`'s energy; `None` where no interval was integrated.
    pub fn energy(&self, gpu: u32) -> Option<GpuEnergy> {
        if self.ms == 0 {
            return None;
        }
        let joules = |twice_uj: i128| twice_uj as f64 / 2e6;
        let mean_w =
            |twice_uj: i128, ms: i128| (ms > 0).then(|| joules(twice_uj) / (ms as f64 / 1e3));
        Some(GpuEnergy {
            gpu,
            kwh: joules(self.twice_uj) / 3.6e6,
            hours: self.ms as f64 / 3.6e6,
            working_w: mean_w(self.working_twice_uj, self.working_ms),
            waiting_w: mean_w(self.waiting_twice_uj, self.waiting_ms),
        })
    }
}

/// A reading that opens the next interval: its time, power and utilisation.
type Reading = (i64, i64, Option<i64>);

/// The integral of one GPU's samples in time order, steps longer than
/// `longest` left out: `power(i)` and `util(i)` are sample `i`'s readings,
/// when it has them.
pub fn integrate(
    t_ms: &[i64],
    power: impl Fn(usize) -> Option<i64>,
    util: impl Fn(usize) -> Option<i64>,
    longest: i64,
) -> Integral {
    let mut integral = Integral::default();
    let mut previous: Option<Reading> = None;
    for (i, &t) in t_ms.iter().enumerate() {
        let Some(mw) = power(i) else { continue };
        let u = util(i);
        if let Some((t0, mw0, u0)) = previous {
            let step = t.saturating_sub(t0);
            if step > 0 && step <= longest {
                integral.add(step, mw0, mw, u0);
            }
        }
        previous = Some((t, mw, u));
    }
    integral
}

/// Steps kept one by one before the tally gives up (then the series is
/// read back): every gap of a real log, bounded for a pathological one.
const WIDE_KEPT: usize = 1 << 12;

/// A GPU's power integral tallied as its samples go past in time order,
/// before the typical step is known: intervals no longer than twice the
/// shortest step before them are summed at once; longer ones are kept
/// apart, to be counted or left out once the step is known. Gives the same
/// integral as [`integrate`] over the whole series, or says it cannot.
#[derive(Debug, Clone, Default)]
pub struct PowerTally {
    previous: Option<Reading>,
    narrow: Integral,
    longest_narrow: i64,
    shortest: Option<i64>,
    wide: Vec<(i64, Integral)>,
    gave_up: bool,
}

/// A GPU's energy from the tallies of its samples in the order they were
/// stored, the steps between their times and their power: what
/// [`integrate`] gives over the same samples read back. `None` where the
/// tallies cannot tell (samples out of order, a step summed at once that
/// turns out to be a gap); `Some(None)` where they hold no interval.
pub fn tallied_energy(
    steps: &StepTally,
    power: &PowerTally,
    gpu: u32,
) -> Option<Option<GpuEnergy>> {
    if !steps.in_order() {
        return None;
    }
    let Some(median) = steps.median_step() else {
        return Some(None); // fewer than two times: no interval
    };
    Some(
        power
            .integral(median.saturating_mul(GAP_STEPS))?
            .energy(gpu),
    )
}

impl PowerTally {
    /// The next sample in time order, with its power and utilisation when
    /// it has them.
    #[inline]
    pub fn push(&mut self, t_ms: i64, power_mw: Option<i64>, util: Option<i64>) {
        let Some(mw) = power_mw else { return };
        if let Some((t0, mw0, u0)) = self.previous {
            let step = t_ms.wrapping_sub(t0);
            if step < 0 {
                self.gave_up = true; // not in time order
            } else if step > 0 {
                let shortest = *self.shortest.get_or_insert(step);
                if step <= shortest.saturating_mul(2) {
                    self.narrow.add(step, mw0, mw, u0);
                    self.longest_narrow = self.longest_narrow.max(step);
                } else if self.wide.len() < WIDE_KEPT {
                    let mut one = Integral::default();
                    one.add(step, mw0, mw, u0);
                    self.wide.push((step, one));
                } else {
                    self.gave_up = true;
                }
                self.shortest = Some(shortest.min(step));
            }
        }
        self.previous = Some((t_ms, mw, util));
    }

    /// The integral with steps longer than `longest` left out, as
    /// [`integrate`] gives it; `None` where the tally cannot tell (samples
    /// out of order, too many long steps, or a step summed at once that
    /// turns out to be a gap).
    pub fn integral(&self, longest: i64) -> Option<Integral> {
        if self.gave_up || self.longest_narrow > longest {
            return None;
        }
        let mut integral = self.narrow;
        for (step, one) in &self.wide {
            if *step <= longest {
                integral.merge(one);
            }
        }
        Some(integral)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn integral_of(samples: &[(i64, Option<i64>, Option<i64>)], longest: i64) -> Integral {
        let t: Vec<i64> = samples.iter().map(|s| s.0).collect();
        integrate(&t, |i| samples[i].1, |i| samples[i].2, longest)
    }

    #[test]
    fn a_steady_gpu_over_a_gap() {
        // 250 W for 10 s at 1 Hz, working; then silent for a minute; then
        // 100 W waiting for 5 s.
        let mut samples: Vec<_> = (0..=10)
            .map(|s| (s * 1000, Some(250_000), Some(90)))
            .collect();
        samples.extend((0..=5).map(|s| (70_000 + s * 1000, Some(100_000), Some(0))));
        let energy = integral_of(&samples, 3000).energy(2).unwrap();
        assert_eq!(energy.gpu, 2);
        assert!((energy.kwh * 3.6e6 - (2500.0 + 500.0)).abs() < 1e-9);
        assert!((energy.hours * 3600.0 - 15.0).abs() < 1e-12);
        assert_eq!(energy.working_w, Some(250.0));
        assert_eq!(energy.waiting_w, Some(100.0));
    }

    #[test]
    fn no_interval_no_energy() {
        assert_eq!(integral_of(&[(0, Some(1), None)], 10).energy(0), None);
        assert_eq!(
            integral_of(&[(0, Some(1), None), (100, Some(1), None)], 10).energy(0),
            None
        );
    }

    #[test]
    fn a_first_step_that_is_a_gap_is_not_told_from_the_tally() {
        // The first step sets the shortest; it is summed at once, and turns
        // out to be a gap once the typical step is known.
        let mut tally = PowerTally::default();
        for t in [0, 60_000, 61_000, 62_000, 63_000] {
            tally.push(t, Some(1_000), None);
        }
        assert_eq!(tally.integral(3_000), None);
        assert!(tally.integral(60_000).is_some());
    }

    proptest! {
        #[test]
        fn the_tally_gives_the_integral_of_the_whole_series_or_nothing(
            steps in prop::collection::vec((0i64..5_000, prop::option::of(0i64..700_000), prop::option::of(0i64..100)), 1..300),
            longest in 0i64..6_000,
        ) {
            let mut t = 0;
            let samples: Vec<_> = steps
                .iter()
                .map(|(step, power, util)| {
                    t += step;
                    (t, *power, *util)
                })
                .collect();
            let mut tally = PowerTally::default();
            for (t, power, util) in &samples {
                tally.push(*t, *power, *util);
            }
            if let Some(tallied) = tally.integral(longest) {
                prop_assert_eq!(tallied, integral_of(&samples, longest));
            }
        }

        #[test]
        fn a_steady_series_is_always_told(
            jitter in prop::collection::vec(0i64..200, 2..300),
            power in 0i64..700_000,
        ) {
            let samples: Vec<_> = jitter
                .iter()
                .enumerate()
                .map(|(i, j)| (i as i64 * 1000 + j, Some(power), Some(50)))
                .collect();
            let mut tally = PowerTally::default();
            for (t, power, util) in &samples {
                tally.push(*t, *power, *util);
            }
            prop_assert_eq!(tally.integral(3 * 800), Some(integral_of(&samples, 3 * 800)));
        }
    }
}
