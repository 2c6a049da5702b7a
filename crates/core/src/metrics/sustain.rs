//! Sustain analysis of one GPU's sample series: is the GPU still doing the
//! work it did when the run settled?
//!
//! "Busy" means GPU utilisation ≥ 90 %. The first busy minutes are warm-up
//! (clocks and temperatures still climbing) and are skipped; the settled
//! level is the median of the first stretch after them, compared with the
//! last stretch of the run. A field the log lacks leaves the metrics that
//! need it unmeasured — never 0.

use crate::metrics::catalog::keys;
use crate::samples::windows::GpuWindow;
use crate::samples::{Field, SeriesFrame};
/// One median for every metric (`stats::median`), reached from here too.
pub use crate::stats::median;

/// Busy means utilisation at or above this.
pub const BUSY_UTIL: i64 = 90;
/// Utilisation above which a GPU counts as working.
pub use crate::samples::WORKING_UTIL;
/// Temperature above which A100-class cards start to throttle.
pub const HOT_C: i64 = 83;
/// Which clock-event bits count as throttling: the samples' own rule.
pub use crate::samples::{COUNTED_THROTTLE, HARDWARE_THROTTLE, THERMAL_THROTTLE};
/// A busy sample this far below the settled level is phantom utilisation.
pub const PHANTOM_FRACTION: f64 = 0.9;

const WARMUP_MAX_MS: i64 = 10 * 60_000;
const STRETCH_MAX_MS: i64 = 3_600_000;
const MIN_STRETCH_SAMPLES: usize = 10;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuSustain {
    pub gpu: u32,
    pub samples: usize,
    pub busy_samples: usize,
    /// Settled and final busy power, W.
    pub settled_power_w: Option<f64>,
    pub final_power_w: Option<f64>,
    pub power_drop_pct: Option<f64>,
    pub phantom_samples: usize,
    pub phantom_checked: usize,
    /// Working samples, and those with counted throttle reasons.
    pub working_samples: usize,
    pub throttled_samples: usize,
    /// Samples with each reason bit (0x1 … 0x100) set, counted or not.
    pub reason_samples: [usize; 9],
    pub mask_samples: usize,
    pub temp_samples: usize,
    pub hot_samples: usize,
    pub max_temp_c: Option<i64>,
    /// Observed span (first to last sample plus one step), ms.
    pub span_ms: i64,
    /// The first and last sample's time, ms.
    pub first_ms: i64,
    pub last_ms: i64,
    pub longest_plateau_ms: Option<i64>,
}

impl GpuSustain {
    pub fn phantom_pct(&self) -> Option<f64> {
        (self.phantom_checked > 0)
            .then(|| 100.0 * self.phantom_samples as f64 / self.phantom_checked as f64)
    }

    pub fn throttle_pct(&self) -> Option<f64> {
        (self.mask_samples > 0 && self.working_samples > 0)
            .then(|| 100.0 * self.throttled_samples as f64 / self.working_samples as f64)
    }

    pub fn hot_pct(&self) -> Option<f64> {
        (self.temp_samples > 0).then(|| 100.0 * self.hot_samples as f64 / self.temp_samples as f64)
    }
}

/// The sample fields the sustain figures and the energy read.
pub const FIELDS: [Field; 6] = [
    Field::UtilGpuPct,
    Field::PowerMw,
    Field::SmClockMhz,
    Field::ThrottleMask,
    Field::TempGpuC,
    Field::MemUsedMib,
];

/// The metrics judged per GPU, each read from one GPU's analysis: the one
/// place a run's GPU figures and a platform's GPU histories take them from.
pub const GPU_FIGURES: [&str; 6] = [
    keys::SUSTAIN_POWER_DROP_PCT,
    keys::SUSTAIN_PHANTOM_UTIL_PCT,
    keys::SUSTAIN_THROTTLE_PCT,
    keys::SUSTAIN_HOT_TIME_PCT,
    keys::SUSTAIN_MAX_TEMP_C,
    keys::SUSTAIN_MEMORY_PLATEAU_H,
];

/// One GPU's figure for a metric of [`GPU_FIGURES`]; none for a metric that
/// is not judged per GPU or a field the log lacks.
pub fn gpu_figure(g: &GpuSustain, key: &str) -> Option<f64> {
    match key {
        keys::SUSTAIN_POWER_DROP_PCT => g.power_drop_pct,
        keys::SUSTAIN_PHANTOM_UTIL_PCT => g.phantom_pct(),
        keys::SUSTAIN_THROTTLE_PCT => g.throttle_pct(),
        keys::SUSTAIN_HOT_TIME_PCT => g.hot_pct(),
        keys::SUSTAIN_MAX_TEMP_C => g.max_temp_c.map(|t| t as f64),
        keys::SUSTAIN_MEMORY_PLATEAU_H => g.longest_plateau_ms.map(|ms| ms as f64 / 3.6e6),
        _ => None,
    }
}

/// The stretches a run is judged on: busy samples in the first settled
/// stretch and in the last one.
pub struct Stretches {
    pub warmup_end_ms: i64,
    pub first: std::ops::Range<i64>,
    pub last: std::ops::Range<i64>,
}

fn stretches(t: &[i64], busy: &[bool]) -> Option<Stretches> {
    let first_busy = t.iter().zip(busy).find(|(_, b)| **b).map(|(t, _)| *t)?;
    let last_busy = t
        .iter()
        .zip(busy)
        .rev()
        .find(|(_, b)| **b)
        .map(|(t, _)| *t)?;
    let warmup_end = first_busy + WARMUP_MAX_MS.min((last_busy - first_busy) / 10);
    let length = STRETCH_MAX_MS.min((last_busy - warmup_end) / 5);
    if length <= 0 {
        return None;
    }
    Some(Stretches {
        warmup_end_ms: warmup_end,
        first: warmup_end..warmup_end + length,
        last: last_busy - length + 1..last_busy + 1,
    })
}

/// Analyse one GPU. `frame` needs at least timestamps; each metric uses
/// what is there.
pub fn analyse(frame: &SeriesFrame) -> GpuSustain {
    analyse_detailed(frame).0
}

fn analyse_detailed(frame: &SeriesFrame) -> (GpuSustain, Vec<bool>) {
    let n = frame.len();
    let mut flags = vec![false; n];
    let t = &frame.t_ms;
    let mut out = GpuSustain {
        gpu: frame.gpu,
        samples: n,
        ..GpuSustain::default()
    };
    if n == 0 {
        return (out, flags);
    }
    out.span_ms = t[n - 1] - t[0] + crate::samples::median_step(t).unwrap_or(0);
    (out.first_ms, out.last_ms) = (t[0], t[n - 1]);
    let util = frame.column(Field::UtilGpuPct);
    let power = frame.column(Field::PowerMw);
    let sm = frame.column(Field::SmClockMhz);

    // Throttle time over working samples, reasons over all with a mask.
    if let Some(mask) = frame.column(Field::ThrottleMask) {
        for i in 0..n {
            let Some(m) = mask.get(i) else { continue };
            out.mask_samples += 1;
            for (bit, count) in out.reason_samples.iter_mut().enumerate() {
                if m & (1 << bit) != 0 {
                    *count += 1;
                }
            }
            let working = util.is_none_or(|u| u.get(i).is_some_and(|u| u > WORKING_UTIL));
            if working {
                out.working_samples += 1;
                if m & COUNTED_THROTTLE != 0 {
                    out.throttled_samples += 1;
                }
            }
        }
    }
    if let Some(temp) = frame.column(Field::TempGpuC) {
        for v in temp.iter().flatten() {
            out.temp_samples += 1;
            if v > HOT_C {
                out.hot_samples += 1;
            }
            out.max_temp_c = Some(out.max_temp_c.map_or(v, |m| m.max(v)));
        }
    }

    let Some(util) = util else {
        return (out, flags);
    };
    let busy: Vec<bool> = (0..n)
        .map(|i| util.get(i).is_some_and(|u| u >= BUSY_UTIL))
        .collect();
    out.busy_samples = busy.iter().filter(|b| **b).count();
    let Some(st) = stretches(t, &busy) else {
        return (out, flags);
    };
    let level =
        |column: Option<&crate::samples::Column>, range: &std::ops::Range<i64>| -> Option<f64> {
            let column = column?;
            let mut values: Vec<f64> = (0..n)
                .filter(|&i| busy[i] && range.contains(&t[i]))
                .filter_map(|i| column.get(i).map(|v| v as f64))
                .collect();
            if values.len() < MIN_STRETCH_SAMPLES {
                return None;
            }
            median(&mut values)
        };
    let settled_power = level(power, &st.first);
    let final_power = level(power, &st.last);
    out.settled_power_w = settled_power.map(|p| p / 1000.0);
    out.final_power_w = final_power.map(|p| p / 1000.0);
    if let (Some(a), Some(b)) = (settled_power, final_power)
        && a > 0.0
    {
        out.power_drop_pct = Some((a - b) / a * 100.0);
    }
    let settled_sm = level(sm, &st.first);
    let final_sm = level(sm, &st.last);
    if settled_power.is_some() || settled_sm.is_some() {
        for i in 0..n {
            if !busy[i] || t[i] < st.warmup_end_ms {
                continue;
            }
            let below = |column: Option<&crate::samples::Column>, level: Option<f64>| matches!((column.and_then(|c| c.get(i)), level), (Some(v), Some(s)) if (v as f64) < PHANTOM_FRACTION * s);
            let checked =
                power.and_then(|c| c.get(i)).is_some() || sm.and_then(|c| c.get(i)).is_some();
            if !checked {
                continue;
            }
            out.phantom_checked += 1;
            if below(power, settled_power) || below(sm, settled_sm) {
                flags[i] = true;
                // One reading of one fault: a slump the GPU ended in is the
                // power drop's; phantom utilisation counts the busy time
                // spent below where the GPU both settled and ended.
                let below_end = |column, settled, last: Option<f64>| {
                    below(column, settled) && last.is_none_or(|_| below(column, last))
                };
                if below_end(power, settled_power, final_power)
                    || below_end(sm, settled_sm, final_sm)
                {
                    out.phantom_samples += 1;
                }
            }
        }
    }
    if let Some(mem) = frame.column(Field::MemUsedMib) {
        out.longest_plateau_ms = longest_plateau(t, &busy, mem);
    }
    (out, flags)
}

/// One GPU's figures from the windows a time-series database summarised
/// its samples into (`GpuWindow`), by the rules [`analyse`] applies to the
/// samples: the counts add up window by window (the database counted them
/// with the same thresholds); the settled and final levels are the busy
/// median power of the first and the last window holding a stretch's worth
/// of busy points (and half a busy window's); phantom utilisation is judged a window at a time — a
/// window whose busy median lies below both levels counts its busy points —
/// so a slump shorter than a window shows in the windows drilled into, not
/// here. `step_ms` is the sampling step the points were counted at.
pub fn from_windows(gpu: u32, windows: &[&GpuWindow], step_ms: i64) -> GpuSustain {
    let mut out = GpuSustain {
        gpu,
        ..GpuSustain::default()
    };
    let mut seen = windows.iter().filter(|w| w.points > 0);
    let Some(first) = seen.next() else {
        return out;
    };
    let last = seen.next_back().unwrap_or(first);
    out.first_ms = first.first_ms.unwrap_or(first.end_ms);
    out.last_ms = last.last_ms.unwrap_or(last.end_ms);
    out.span_ms = out.last_ms - out.first_ms + step_ms;
    for w in windows {
        out.samples += w.points as usize;
        out.busy_samples += w.busy as usize;
        out.mask_samples += w.masked as usize;
        out.working_samples += w.working as usize;
        out.throttled_samples += w.throttled as usize;
        for (count, n) in out.reason_samples.iter_mut().zip(w.reasons) {
            *count += n as usize;
        }
        out.temp_samples += w.temp_points as usize;
        out.hot_samples += w.hot as usize;
        if let Some(t) = w.max_temp_c {
            out.max_temp_c = Some(out.max_temp_c.map_or(t, |m| m.max(t)));
        }
    }
    // A level needs a stretch's worth of busy points, and at least half of
    // a busy window's: the minutes a lost GPU's last values linger (the
    // database's lookback repeats one reading) are no level.
    let busiest = windows.iter().map(|w| w.busy).max().unwrap_or(0);
    let levels: Vec<(u32, f64)> = windows
        .iter()
        .filter(|w| w.busy as usize >= MIN_STRETCH_SAMPLES && 2 * w.busy >= busiest)
        .filter_map(|w| Some((w.busy, w.busy_power_mw? as f64)))
        .collect();
    let (Some(&(_, settled)), Some(&(_, last_level))) = (levels.first(), levels.last()) else {
        return out;
    };
    out.settled_power_w = Some(settled / 1000.0);
    out.final_power_w = Some(last_level / 1000.0);
    if settled > 0.0 {
        out.power_drop_pct = Some((settled - last_level) / settled * 100.0);
    }
    for &(busy, level) in &levels {
        out.phantom_checked += busy as usize;
        if level < PHANTOM_FRACTION * settled && level < PHANTOM_FRACTION * last_level {
            out.phantom_samples += busy as usize;
        }
    }
    out
}

/// Busy samples below the GPU's settled level (a slump, whether it lasted
/// to the end or not), for inspection and tests.
pub fn phantom_flags(frame: &SeriesFrame) -> Vec<bool> {
    analyse_detailed(frame).1
}

/// The longest stretch of busy samples whose memory use stays within 1 %
/// of the level where the stretch began.
fn longest_plateau(t: &[i64], busy: &[bool], mem: &crate::samples::Column) -> Option<i64> {
    let mut best: Option<i64> = None;
    // (start, last, level) of the stretch being followed.
    let mut current: Option<(i64, i64, f64)> = None;
    for i in 0..t.len() {
        let value = if busy[i] { mem.get(i) } else { None };
        match (value, current) {
            (Some(m), Some((start, _, level)))
                if (m as f64 - level).abs() <= level.abs() * 0.01 =>
            {
                current = Some((start, t[i], level));
            }
            (value, previous) => {
                if let Some((start, last, _)) = previous {
                    best = Some(best.unwrap_or(0).max(last - start));
                }
                current = value.map(|m| (t[i], t[i], m as f64));
            }
        }
    }
    if let Some((start, last, _)) = current {
        best = Some(best.unwrap_or(0).max(last - start));
    }
    best
}

/// Seeded synthetic traces with known answers, for the detection-quality
/// tests and the benchmark.
pub mod synthetic {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use crate::samples::{Field, Sample, SeriesFrame};

    /// A 24 h busy trace at 30 s (2 880 samples): power ~250 W with 1 % noise,
    /// SM clock 1410 MHz, utilisation 93–99 %, a two-minute checkpoint dip
    /// every two hours. With `throttle = Some((onset fraction, depth))`,
    /// power and SM clock fall by `depth` from the onset while utilisation
    /// still reads busy. Returns the frame and, per sample, whether it was
    /// throttled.
    pub fn trace(seed: u64, throttle: Option<(f64, f64)>) -> (SeriesFrame, Vec<bool>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let n = 24 * 120;
        let onset = throttle.map(|(f, _)| (f * n as f64) as i64);
        let mut truth = Vec::with_capacity(n as usize);
        let samples: Vec<Sample> = (0..n)
            .map(|i| {
                let dip = i % 240 < 4;
                let util = if dip { 3 } else { rng.random_range(93..=99) };
                let throttled = !dip && onset.is_some_and(|o| i >= o);
                let depth = if throttled {
                    throttle.map_or(0.0, |(_, d)| d)
                } else {
                    0.0
                };
                let noise = 1.0 + rng.random_range(-0.01..0.01);
                let power = if dip {
                    60.0
                } else {
                    250.0 * (1.0 - depth) * noise
                };
                let sm = if dip {
                    210.0
                } else {
                    1410.0 * (1.0 - depth / 2.0)
                };
                truth.push(throttled);
                Sample::new(i * 30_000, 0)
                    .with(Field::UtilGpuPct, util)
                    .with(Field::PowerMw, (power * 1000.0) as i64)
                    .with(Field::SmClockMhz, sm as i64)
            })
            .collect();
        (SeriesFrame::from_samples(0, &samples), truth)
    }

    /// Detection quality over `n` planted and `n` steady traces: a trace
    /// raises an alarm when its power drop or phantom share exceeds 5 %.
    /// Returns (trace precision, trace recall, sample precision, sample recall).
    pub fn detection_quality(n: u64, seed: u64) -> (f64, f64, f64, f64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let (mut tp, mut fp, mut fn_) = (0u64, 0u64, 0u64);
        let (mut stp, mut sfp, mut sfn) = (0u64, 0u64, 0u64);
        for k in 0..2 * n {
            let planted = k % 2 == 0;
            let throttle =
                planted.then(|| (rng.random_range(0.2..0.8), rng.random_range(0.12..0.30)));
            let (frame, truth) = trace(seed.wrapping_mul(31).wrapping_add(k), throttle);
            let stats = super::analyse(&frame);
            let alarm = stats.power_drop_pct.is_some_and(|d| d > 5.0)
                || stats.phantom_pct().is_some_and(|p| p > 5.0);
            match (alarm, planted) {
                (true, true) => tp += 1,
                (true, false) => fp += 1,
                (false, true) => fn_ += 1,
                _ => {}
            }
            for (flag, truth) in super::phantom_flags(&frame).iter().zip(&truth) {
                match (*flag, *truth) {
                    (true, true) => stp += 1,
                    (true, false) => sfp += 1,
                    (false, true) => sfn += 1,
                    _ => {}
                }
            }
        }
        let ratio = |a: u64, b: u64| {
            if a + b == 0 {
                1.0
            } else {
                a as f64 / (a + b) as f64
            }
        };
        (
            ratio(tp, fp),
            ratio(tp, fn_),
            ratio(stp, sfp),
            ratio(stp, sfn),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::Sample;

    fn hour(h: i64, busy: u32, power_w: i64) -> GpuWindow {
        GpuWindow {
            gpu: 2,
            start_ms: h * 3_600_000,
            end_ms: (h + 1) * 3_600_000,
            points: busy,
            first_ms: (busy > 0).then_some(h * 3_600_000),
            last_ms: (busy > 0).then_some(h * 3_600_000 + (i64::from(busy) - 1) * 15_000),
            busy,
            busy_power_mw: (busy > 0).then_some(power_w * 1000),
            masked: busy,
            working: busy,
            throttled: busy / 10,
            temp_points: busy,
            hot: 1,
            max_temp_c: Some(70 + h),
            ..GpuWindow::default()
        }
    }

    #[test]
    fn windows_are_read_by_the_samples_rules() {
        // Six hours; a slump in the third that the GPU comes back from; the
        // last twenty lookback points of a GPU gone in the sixth.
        let windows = [
            hour(0, 240, 600),
            hour(1, 240, 598),
            hour(2, 240, 480),
            hour(3, 240, 590),
            hour(4, 240, 560),
            hour(5, 20, 400),
        ];
        let refs: Vec<&GpuWindow> = windows.iter().collect();
        let g = from_windows(2, &refs, 15_000);
        assert_eq!(g.gpu, 2);
        assert_eq!(g.samples, 5 * 240 + 20);
        assert_eq!(g.throttled_samples, 5 * 24 + 2);
        assert_eq!(g.hot_samples, 6);
        assert_eq!(g.max_temp_c, Some(75));
        assert_eq!((g.first_ms, g.last_ms), (0, 5 * 3_600_000 + 19 * 15_000));
        assert_eq!(g.span_ms, g.last_ms + 15_000);
        // Settled in the first hour, ended in the fifth (the lingering
        // twenty points are no level): a 6.7 % drop.
        assert_eq!(g.settled_power_w, Some(600.0));
        assert_eq!(g.final_power_w, Some(560.0));
        assert!((g.power_drop_pct.unwrap() - 100.0 * 40.0 / 600.0).abs() < 1e-9);
        // The slump below both levels is phantom; the end's level is not.
        assert_eq!(g.phantom_samples, 240);
        assert_eq!(g.phantom_checked, 5 * 240);
        assert_eq!(g.longest_plateau_ms, None);
        // A GPU with no point at all has no figures.
        let silent = [hour(0, 0, 0)];
        let g = from_windows(0, &silent.iter().collect::<Vec<_>>(), 15_000);
        assert_eq!((g.samples, g.power_drop_pct), (0, None));
    }

    #[test]
    fn planted_throttling_is_found_and_steady_traces_raise_no_alarm() {
        let (precision, recall, sample_precision, sample_recall) =
            synthetic::detection_quality(60, 11);
        assert!(
            precision >= 0.95 && recall >= 0.95,
            "traces: precision {precision}, recall {recall}"
        );
        assert!(
            sample_precision >= 0.95 && sample_recall >= 0.95,
            "samples: precision {sample_precision}, recall {sample_recall}"
        );
        for seed in 0..20 {
            let (frame, _) = synthetic::trace(1000 + seed, None);
            let s = analyse(&frame);
            assert!(
                s.power_drop_pct.unwrap().abs() < 2.0,
                "steady trace {seed}: {:?}",
                s.power_drop_pct
            );
            assert_eq!(s.phantom_samples, 0, "steady trace {seed}");
        }
    }

    /// `hours` of 1-minute samples; power and util from closures of the minute.
    fn trace(hours: i64, power_w: impl Fn(i64) -> i64, util: impl Fn(i64) -> i64) -> SeriesFrame {
        let samples: Vec<Sample> = (0..hours * 60)
            .map(|m| {
                Sample::new(m * 60_000, 0)
                    .with(Field::PowerMw, power_w(m) * 1000)
                    .with(Field::UtilGpuPct, util(m))
                    .with(Field::SmClockMhz, 1410)
            })
            .collect();
        SeriesFrame::from_samples(0, &samples)
    }

    #[test]
    fn a_steady_gpu_shows_no_drop_and_no_phantom() {
        let s = analyse(&trace(48, |m| 250 + (m % 3) - 1, |_| 95));
        assert!(s.power_drop_pct.unwrap().abs() < 0.5);
        assert_eq!(s.phantom_pct(), Some(0.0));
    }

    #[test]
    fn the_seed_platform_e_drop_is_measured() {
        // 250 W, then 225 W from hour 30, utilisation still 95 %.
        let s = analyse(&trace(48, |m| if m < 30 * 60 { 250 } else { 225 }, |_| 95));
        assert!((s.power_drop_pct.unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(s.settled_power_w, Some(250.0));
        // 225 is exactly 10 % under 250: not *more* than 10 %, so no phantom.
        assert_eq!(s.phantom_pct(), Some(0.0));
        // A deeper slump that lasts to the end is read once, as the drop.
        let deeper = analyse(&trace(48, |m| if m < 30 * 60 { 250 } else { 220 }, |_| 95));
        assert!((deeper.power_drop_pct.unwrap() - 12.0).abs() < 1e-9);
        assert_eq!(deeper.phantom_pct(), Some(0.0));
    }

    #[test]
    fn a_slump_the_gpu_came_back_from_is_phantom_utilisation_not_a_drop() {
        // 220 W from hour 20 to hour 38 of 48, busy throughout.
        let slump = |m: i64| {
            if (20 * 60..38 * 60).contains(&m) {
                220
            } else {
                250
            }
        };
        let s = analyse(&trace(48, slump, |_| 95));
        assert!(s.power_drop_pct.unwrap().abs() < 1e-9);
        let pct = s.phantom_pct().unwrap();
        assert!(
            (pct - 100.0 * 18.0 / (48.0 - 10.0 / 60.0)).abs() < 0.5,
            "{pct}"
        );
    }

    #[test]
    fn warm_up_is_not_the_baseline() {
        // Power ramps up over the first 5 minutes; no drop afterwards.
        let s = analyse(&trace(
            24,
            |m| if m < 5 { 150 + m * 20 } else { 250 },
            |_| 99,
        ));
        assert!(s.power_drop_pct.unwrap().abs() < 1e-9);
    }

    #[test]
    fn a_log_without_power_cannot_give_a_power_drop() {
        let samples: Vec<Sample> = (0..600)
            .map(|m| {
                Sample::new(m * 60_000, 0)
                    .with(Field::UtilGpuPct, 95)
                    .with(Field::TempGpuC, 70)
            })
            .collect();
        let s = analyse(&SeriesFrame::from_samples(0, &samples));
        assert_eq!(s.power_drop_pct, None);
        assert_eq!(s.phantom_pct(), None);
        assert_eq!(s.throttle_pct(), None);
        assert_eq!(s.max_temp_c, Some(70));
        assert_eq!(s.hot_pct(), Some(0.0));
    }

    #[test]
    fn only_hardware_thermal_and_brake_reasons_count_as_throttling() {
        let masks = [0x0, 0x4, 0x4, 0x1, 0x20, 0x48, 0x80, 0x10, 0x2, 0x0];
        let samples: Vec<Sample> = masks
            .iter()
            .enumerate()
            .map(|(i, m)| {
                Sample::new(i as i64 * 1000, 0)
                    .with(Field::ThrottleMask, *m)
                    .with(Field::UtilGpuPct, if *m == 0x1 { 0 } else { 100 })
                    .with(Field::TempGpuC, 80 + i as i64)
            })
            .collect();
        let s = analyse(&SeriesFrame::from_samples(0, &samples));
        // 9 working samples (the idle one is not), 3 with counted reasons.
        assert_eq!((s.working_samples, s.throttled_samples), (9, 3));
        assert!((s.throttle_pct().unwrap() - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.reason_samples[2], 2, "SW power cap shown");
        assert_eq!((s.hot_samples, s.max_temp_c), (6, Some(89)));
    }

    #[test]
    fn memory_plateaus_are_measured_over_busy_time() {
        let samples: Vec<Sample> = (0..300)
            .map(|m| {
                let mem = if m < 100 { 1000 + m * 100 } else { 32_768 };
                Sample::new(m * 60_000, 0)
                    .with(Field::UtilGpuPct, 95)
                    .with(Field::MemUsedMib, mem)
            })
            .collect();
        let s = analyse(&SeriesFrame::from_samples(0, &samples));
        assert_eq!(s.longest_plateau_ms, Some(199 * 60_000));
    }
}
