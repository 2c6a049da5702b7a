//! What a spot instance meets: reclaims, learnt from a trace of when an
//! instance of one type in one place was held and when it was not.
//!
//! A hold that ends is a reclaim; the hold still running when the trace
//! ends is cut short (censored), not a reclaim. The reclaim rate is the
//! reclaims over the hours held; how long an instance lives is the
//! Kaplan–Meier estimate over the holds, the cut one counted as surviving
//! to its cut.

use serde::{Deserialize, Serialize};

/// The run's metadata key for a spot trace (`SpotTrace`).
pub const SPOT_TRACE: &str = "spot_trace";

/// Ended holds kept for the survival curve; past this, every n-th.
const HOLDS_KEPT: usize = 20_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpotTrace {
    /// The trace's file name.
    pub source: Option<String>,
    pub instance_type: Option<String>,
    /// Zone or region, as the trace names it.
    pub place: Option<String>,
    pub gap_s: f64,
    pub points: u64,
    /// Hours an instance was held over the trace.
    pub held_hours: f64,
    /// Holds that ended: reclaims.
    pub reclaims: u64,
    /// The ended holds' lengths in hours (a sample where there are more
    /// than [`HOLDS_KEPT`]).
    pub holds_h: Vec<f64>,
    /// Holds running when a trace ended, in hours (censored).
    pub cut_holds_h: Vec<f64>,
}

impl SpotTrace {
    /// The trace of points `gap_s` apart, `true` where an instance was
    /// held; `None` where none ever was.
    pub fn of(
        held: &[bool],
        gap_s: f64,
        instance_type: Option<String>,
        place: Option<String>,
        source: Option<String>,
    ) -> Option<SpotTrace> {
        let hours = |points: usize| points as f64 * gap_s / 3600.0;
        let mut holds = Vec::new();
        let mut run = 0usize;
        for &h in held {
            if h {
                run += 1;
            } else if run > 0 {
                holds.push(hours(run));
                run = 0;
            }
        }
        let cut_holds_h: Vec<f64> = (run > 0).then(|| hours(run)).into_iter().collect();
        let held_points = held.iter().filter(|h| **h).count();
        if held_points == 0 {
            return None;
        }
        let reclaims = holds.len() as u64;
        let holds_h = if holds.len() > HOLDS_KEPT {
            let step = holds.len().div_ceil(HOLDS_KEPT);
            holds.iter().step_by(step).copied().collect()
        } else {
            holds
        };
        Some(SpotTrace {
            source,
            instance_type,
            place,
            gap_s,
            points: held.len() as u64,
            held_hours: hours(held_points),
            reclaims,
            holds_h,
            cut_holds_h,
        })
    }

    /// A gang's trace: the instances held at each point. Each instance
    /// fewer is a reclaim; the hours held are every instance's.
    pub fn of_counts(
        counts: &[u32],
        gap_s: f64,
        instance_type: Option<String>,
        place: Option<String>,
        source: Option<String>,
    ) -> Option<SpotTrace> {
        let held: u64 = counts.iter().map(|c| u64::from(*c)).sum();
        if held == 0 {
            return None;
        }
        let reclaims = counts
            .windows(2)
            .map(|w| u64::from(w[0].saturating_sub(w[1])))
            .sum();
        Some(SpotTrace {
            source,
            instance_type,
            place,
            gap_s,
            points: counts.len() as u64,
            held_hours: held as f64 * gap_s / 3600.0,
            reclaims,
            holds_h: Vec::new(),
            cut_holds_h: Vec::new(),
        })
    }

    /// Several traces as one (their holds together), named by all of them.
    pub fn pooled(traces: &[SpotTrace]) -> Option<SpotTrace> {
        let first = traces.first()?;
        let names = |f: fn(&SpotTrace) -> Option<&String>| {
            let mut v: Vec<&str> = traces
                .iter()
                .filter_map(|t| f(t).map(String::as_str))
                .collect();
            v.sort_unstable();
            v.dedup();
            (!v.is_empty()).then(|| v.join(", "))
        };
        Some(SpotTrace {
            source: names(|t| t.source.as_ref()),
            instance_type: names(|t| t.instance_type.as_ref()),
            place: names(|t| t.place.as_ref()),
            gap_s: first.gap_s,
            points: traces.iter().map(|t| t.points).sum(),
            held_hours: traces.iter().map(|t| t.held_hours).sum(),
            reclaims: traces.iter().map(|t| t.reclaims).sum(),
            holds_h: traces
                .iter()
                .flat_map(|t| t.holds_h.iter().copied())
                .collect(),
            cut_holds_h: traces
                .iter()
                .flat_map(|t| t.cut_holds_h.iter().copied())
                .collect(),
        })
    }

    /// Reclaims per hour held (the rate's maximum-likelihood estimate).
    pub fn reclaims_per_hour(&self) -> f64 {
        self.reclaims as f64 / self.held_hours.max(f64::MIN_POSITIVE)
    }

    /// The probability an instance lives `t` hours (Kaplan–Meier over the
    /// holds, the cut one censored at its length).
    pub fn survival(&self, t_h: f64) -> f64 {
        if self.holds_h.is_empty() && self.cut_holds_h.is_empty() {
            // A gang's counts keep no single instance's holds: the
            // exponential at the trace's rate.
            return (-self.reclaims_per_hour() * t_h).exp();
        }
        let mut times: Vec<(f64, bool)> = self.holds_h.iter().map(|h| (*h, true)).collect();
        times.extend(self.cut_holds_h.iter().map(|h| (*h, false)));
        times.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut at_risk = times.len() as f64;
        let mut s = 1.0;
        for (length, ended) in times {
            if length > t_h {
                break;
            }
            if ended && at_risk > 0.0 {
                s *= 1.0 - 1.0 / at_risk;
            }
            at_risk -= 1.0;
        }
        s
    }

    /// What the trace is of: "p3.2xlarge, us-east-1a".
    pub fn of_what(&self) -> String {
        match (&self.instance_type, &self.place) {
            (Some(t), Some(p)) => format!("{t}, {p}"),
            (Some(t), None) => t.clone(),
            (None, Some(p)) => p.clone(),
            (None, None) => "instance and place not named".into(),
        }
    }

    /// "spot trace trace.json (p3.2xlarge, us-east-1a): 37 reclaims in 412.0
    /// instance-hours held (one per 11.1 h); an instance lives (probability)
    /// 1 h 93 %, 8 h 52 %, 24 h 14 %".
    pub fn words(&self) -> String {
        let per = if self.reclaims > 0 {
            format!(" (one per {:.1} h)", self.held_hours / self.reclaims as f64)
        } else {
            String::new()
        };
        let lives: Vec<String> = [1.0, 8.0, 24.0]
            .iter()
            .map(|t| format!("{t} h {:.0} %", 100.0 * self.survival(*t)))
            .collect();
        format!(
            "spot trace {} ({}): {} reclaim(s) in {:.1} instance-hours held{per}; an instance lives (probability) {}",
            self.source.as_deref().unwrap_or("(unnamed)"),
            self.of_what(),
            self.reclaims,
            self.held_hours,
            lives.join(", ")
        )
    }
}

/// The run's metadata key for the AWS Spot Instance Advisor's bands
/// (`SpotAdvisor`).
pub const SPOT_ADVISOR: &str = "spot_advisor";

/// The AWS Spot Instance Advisor's interruption bands for accelerator
/// instance types (Linux): how often, over the trailing month, spot
/// capacity of each type in each region was reclaimed — a band ("<5%",
/// "5-10%", … ">20%"), not a count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpotAdvisor {
    pub bands: Vec<AdvisorBand>,
    pub entries: Vec<AdvisorEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdvisorBand {
    pub index: u32,
    pub label: String,
    /// The band's bounds, % of instances reclaimed in a month.
    pub low_pct: f64,
    pub high_pct: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdvisorEntry {
    pub region: String,
    pub instance_type: String,
    /// `AdvisorBand::index`.
    pub band: u32,
    /// The spot price's saving on on-demand, %.
    pub savings_pct: Option<f64>,
}

impl SpotAdvisor {
    /// The band of `instance_type` in `region`.
    pub fn band_of(&self, region: &str, instance_type: &str) -> Option<&AdvisorBand> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.region == region && e.instance_type == instance_type)?;
        self.bands.iter().find(|b| b.index == entry.band)
    }
}

impl AdvisorBand {
    /// Hours in a month, as AWS bills them.
    const MONTH_H: f64 = 730.0;

    /// The reclaim rate per instance-hour at quantile `q` of the band: the
    /// share reclaimed in a month taken uniform over the band (at most 99 %),
    /// as a constant hourly rate.
    pub fn per_hour_at(&self, q: f64) -> f64 {
        let high = self.high_pct.min(99.0);
        let low = self.low_pct.min(high);
        let share = (low + q.clamp(0.0, 1.0) * (high - low)) / 100.0;
        -(-share).ln_1p() / Self::MONTH_H
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_that_end_are_reclaims_and_the_cut_one_is_not() {
        // Points an hour apart: held 3 h, lost 1 h, held 1 h, lost, held 2 h (cut).
        let held = [true, true, true, false, true, false, true, true];
        let t = SpotTrace::of(&held, 3600.0, Some("p3.2xlarge".into()), None, None).unwrap();
        assert_eq!((t.reclaims, t.held_hours), (2, 6.0));
        assert_eq!(t.holds_h, vec![3.0, 1.0]);
        assert_eq!(t.cut_holds_h, vec![2.0]);
        assert!((t.reclaims_per_hour() - 1.0 / 3.0).abs() < 1e-12);
        // Kaplan–Meier: at 1 h one of three ends (2/3); at 2 h the cut one
        // leaves; at 3 h the last of the one at risk ends (0).
        assert!((t.survival(0.5) - 1.0).abs() < 1e-12);
        assert!((t.survival(1.0) - 2.0 / 3.0).abs() < 1e-12);
        assert!((t.survival(2.5) - 2.0 / 3.0).abs() < 1e-12);
        assert!(t.survival(3.0).abs() < 1e-12);
        assert!(SpotTrace::of(&[false, false], 600.0, None, None, None).is_none());
        // A gang of 4 losing one, then two: 3 reclaims over 4+4+3+1 instance-points.
        let g = SpotTrace::of_counts(&[4, 4, 3, 1], 3600.0, None, None, None).unwrap();
        assert_eq!((g.reclaims, g.held_hours), (3, 12.0));
        assert!((g.survival(4.0) - (-1.0f64).exp()).abs() < 1e-12);
    }

    #[test]
    fn an_advisor_band_is_a_range_of_hourly_rates() {
        let band = AdvisorBand {
            index: 1,
            label: "5-10%".into(),
            low_pct: 5.0,
            high_pct: 11.0,
        };
        // 5 % of instances in a 730-hour month: −ln(0.95)/730 an hour.
        assert!((band.per_hour_at(0.0) - 0.95f64.ln().abs() / 730.0).abs() < 1e-12);
        assert!((band.per_hour_at(1.0) - 0.89f64.ln().abs() / 730.0).abs() < 1e-12);
        let worst = AdvisorBand {
            index: 4,
            label: ">20%".into(),
            low_pct: 22.0,
            high_pct: 100.0,
        };
        assert!(worst.per_hour_at(1.0).is_finite());
    }
}
