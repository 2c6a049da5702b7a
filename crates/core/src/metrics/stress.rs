//! Stress stability (the four-breakpoint review, §6.2 item 1): under a full load, SM
//! utilisation should stay at 95 % or above; a swing of more than 10 %
//! means the scheduler or the driver is at fault. Judged over the loaded
//! window only — from the first to the last second the GPU was at least
//! half busy — so that the load's start and end are not counted as swings.

use crate::samples::{Field, SeriesFrame};
use crate::stats::percentile;

/// The seed's thresholds.
pub const UTIL_FLOOR_PCT: f64 = 95.0;
pub const SWING_LIMIT_PCT: f64 = 10.0;

/// One GPU under load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StressFigures {
    /// Share of the loaded seconds at ≥ 95 % SM utilisation.
    pub at_floor_pct: f64,
    /// p95 − p5 of SM utilisation over the loaded seconds: the swing,
    /// robust to a single odd reading.
    pub swing_pct: f64,
    pub samples: usize,
}

impl StressFigures {
    pub fn passed(&self) -> bool {
        self.at_floor_pct >= UTIL_FLOOR_PCT && self.swing_pct <= SWING_LIMIT_PCT
    }
}

/// The figures of one GPU's utilisation series; `None` without readings
/// or without a loaded window.
pub fn judge(frame: &SeriesFrame) -> Option<StressFigures> {
    let column = frame.column(Field::UtilGpuPct)?;
    let util: Vec<Option<i64>> = (0..frame.len()).map(|i| column.get(i)).collect();
    let loaded = |v: &Option<i64>| v.is_some_and(|u| u >= 50);
    let first = util.iter().position(loaded)?;
    let last = util.iter().rposition(loaded)?;
    let mut window: Vec<f64> = util[first..=last]
        .iter()
        .filter_map(|v| v.map(|u| u as f64))
        .collect();
    if window.len() < 2 {
        return None;
    }
    let at_floor = window.iter().filter(|u| **u >= UTIL_FLOOR_PCT).count();
    let at_floor_pct = 100.0 * at_floor as f64 / window.len() as f64;
    window.sort_by(f64::total_cmp);
    Some(StressFigures {
        at_floor_pct,
        swing_pct: percentile(&window, 0.95)? - percentile(&window, 0.05)?,
        samples: window.len(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::samples::Sample;

    fn frame(util: &[i64]) -> SeriesFrame {
        let samples: Vec<Sample> = util
            .iter()
            .enumerate()
            .map(|(i, u)| Sample::new(i as i64 * 1000, 0).with(Field::UtilGpuPct, *u))
            .collect();
        SeriesFrame::from_samples(0, &samples)
    }

    #[test]
    fn a_steady_load_passes_and_a_15_pct_swing_fails() {
        // Ramp up and down around 5 minutes of 97–100 %.
        let mut steady = vec![0, 10, 30];
        steady.extend((0..300).map(|i| 97 + (i % 4)));
        steady.extend([40, 5, 0]);
        let s = judge(&frame(&steady)).unwrap();
        assert_eq!(s.samples, 300);
        assert_eq!(s.at_floor_pct, 100.0);
        assert!(s.swing_pct <= 3.0 && s.passed(), "{s:?}");

        // The same load dropping to 85 % one second in four.
        let swinging: Vec<i64> = (0..300)
            .map(|i| if i % 4 == 0 { 85 } else { 100 })
            .collect();
        let s = judge(&frame(&swinging)).unwrap();
        assert_eq!(s.at_floor_pct, 75.0);
        assert!((s.swing_pct - 15.0).abs() < 1e-9, "{s:?}");
        assert!(!s.passed());

        assert!(judge(&frame(&[0, 3, 1])).is_none());
    }
}
