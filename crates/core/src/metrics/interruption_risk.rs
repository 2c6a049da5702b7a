//! How often a platform interrupts a job: a posterior over what was
//! watched, not a count. Interruptions arrive at a rate λ per GPU-hour;
//! a platform that showed k of them in E GPU-hours watched (every run that
//! watched it, pooled, faults from its other logs included) and f fatal
//! faults in evidence that watched no hours (a failed diagnostic, a card
//! off the bus in an untimed excerpt) has, under a Gamma prior whose mean
//! is the field's published rate, the posterior
//!
//! ```text
//! λ ~ Gamma(shape α₀ + k + f, rate β₀ + E)
//! ```
//!
//! The prior: Meta's Llama 3 405B training run met 419 unexpected
//! interruptions in 54 days on 16 384 GPUs (Dubey et al., "The Llama 3 Herd
//! of Models", 2024, §3.3.4): 1.97 × 10⁻⁵ per GPU-hour. Shape ⅒ spreads
//! the prior over orders of magnitude (a rented fleet may be far worse than
//! Meta's) and makes it worth about 5 000 GPU-hours of watching — a month
//! of one 8-GPU node: an hour of clean logs barely moves it, 10 000
//! GPU-hours of them do, and a single fault in a short log moves it a long
//! way. The cost model draws λ from this
//! posterior; `explain` shows its exposure and p10–p90 beside the measured
//! rate.

use statrs::distribution::{ContinuousCDF, Gamma};

use super::{EvidenceMap, Pooled};
use crate::metrics::catalog::keys;

/// The field's published rate, per GPU-hour (see the module's comment).
pub const FIELD_RATE_PER_GPU_HOUR: f64 = 419.0 / (54.0 * 24.0 * 16_384.0);

/// The prior's shape: a tenth. The prior spreads over orders of magnitude
/// (rented fleets are not Meta's), and is worth about 5 000 GPU-hours of
/// watching — a month of one 8-GPU node.
pub const PRIOR_SHAPE: f64 = 0.1;

const INTERRUPTIONS: &str = keys::SUSTAIN_INTERRUPTIONS_PER_100H;
const FAULTY_GPUS: &str = keys::SUSTAIN_FAULTY_GPUS_PCT;

/// What a platform's interruption rate rests on, and its posterior.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InterruptionRisk {
    /// Interruptions counted in watched time.
    pub events: f64,
    /// GPU-hours watched.
    pub gpu_hours: f64,
    /// Fatal faults found by evidence that watched no hours (each GPU
    /// found faulty once), counted as interruptions of a job.
    pub unwatched_faults: f64,
}

impl InterruptionRisk {
    /// Nothing watched: the prior alone.
    pub const NONE: InterruptionRisk = InterruptionRisk {
        events: 0.0,
        gpu_hours: 0.0,
        unwatched_faults: 0.0,
    };

    /// From a platform's metrics: the pooled interruption count and its
    /// GPU-hours, and the faulty GPUs found outside every rate.
    pub fn of(metrics: &EvidenceMap) -> InterruptionRisk {
        let pooled = |key: &str| metrics.get(key).and_then(|e| e.pooled);
        let Pooled { count, exposure } = pooled(INTERRUPTIONS).unwrap_or(Pooled {
            count: 0.0,
            exposure: 0.0,
        });
        InterruptionRisk {
            events: count.max(0.0),
            gpu_hours: exposure.max(0.0),
            unwatched_faults: pooled(FAULTY_GPUS).map_or(0.0, |p| p.count.max(0.0)),
        }
    }

    /// The posterior's shape and rate (per GPU-hour).
    pub fn shape_rate(&self) -> (f64, f64) {
        (
            PRIOR_SHAPE + self.events + self.unwatched_faults,
            PRIOR_SHAPE / FIELD_RATE_PER_GPU_HOUR + self.gpu_hours,
        )
    }

    /// The posterior mean, per 100 GPU-hours.
    pub fn mean_per_100h(&self) -> f64 {
        let (shape, rate) = self.shape_rate();
        100.0 * shape / rate
    }

    /// The posterior's `q` quantile, per 100 GPU-hours.
    pub fn quantile_per_100h(&self, q: f64) -> f64 {
        let (shape, rate) = self.shape_rate();
        Gamma::new(shape, rate).map_or(f64::NAN, |g| 100.0 * g.inverse_cdf(q))
    }

    /// "2 in 48.0 GPU-hours watched, 1 fatal fault in evidence without
    /// hours: p10–p90 0.0021–0.021 per 100 GPU-h under the field's prior".
    pub fn words(&self) -> String {
        let rate = |v: f64| {
            if v < 1e-4 {
                "< 0.0001".to_string()
            } else {
                round_sig(v)
            }
        };
        let mut said = format!(
            "{} in {} GPU-hours watched",
            self.events,
            round_sig(self.gpu_hours)
        );
        if self.unwatched_faults > 0.0 {
            said.push_str(&format!(
                ", {} fatal fault(s) in evidence without hours",
                self.unwatched_faults
            ));
        }
        said.push_str(&format!(
            ": the rate a job meets is {}–{} per 100 GPU-h (p10–p90; posterior mean {}) under the field's prior of {} (Llama 3's 419 interruptions in 54 days on 16 384 GPUs, worth {} GPU-hours of watching)",
            rate(self.quantile_per_100h(0.1)),
            rate(self.quantile_per_100h(0.9)),
            rate(self.mean_per_100h()),
            round_sig(100.0 * FIELD_RATE_PER_GPU_HOUR),
            round_sig(PRIOR_SHAPE / FIELD_RATE_PER_GPU_HOUR),
        ));
        said
    }
}

/// Three significant digits, without exponent notation ("0.00197", "25400").
fn round_sig(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let digits = 3 - 1 - v.abs().log10().floor() as i32;
    if digits <= 0 {
        let scale = 10f64.powi(-digits);
        return format!("{}", (v / scale).round() * scale);
    }
    format!("{:.*}", digits as usize, v)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn risk(events: f64, gpu_hours: f64) -> InterruptionRisk {
        InterruptionRisk {
            events,
            gpu_hours,
            unwatched_faults: 0.0,
        }
    }

    /// An hour of clean logs barely moves the prior; ten thousand
    /// GPU-hours of them narrow it; a fault in a short log widens it.
    #[test]
    fn exposure_moves_the_posterior_and_a_count_alone_does_not() {
        let prior = InterruptionRisk::NONE;
        let hour = risk(0.0, 1.0);
        let long = risk(0.0, 200.0);
        let longer = risk(0.0, 10_000.0);
        assert!(hour.quantile_per_100h(0.9) > long.quantile_per_100h(0.9));
        assert!(long.quantile_per_100h(0.9) > longer.quantile_per_100h(0.9));
        let moved = |r: InterruptionRisk| 1.0 - r.mean_per_100h() / prior.mean_per_100h();
        assert!(moved(hour) < 0.001, "{}", moved(hour));
        assert!(moved(longer) > 0.2, "{}", moved(longer));
        // The prior's mean is the field's rate.
        assert!((prior.mean_per_100h() - 100.0 * FIELD_RATE_PER_GPU_HOUR).abs() < 1e-12);
        // One fault in 48 minutes: many times the field's rate.
        let faulted = risk(1.0, 0.8);
        assert!(faulted.mean_per_100h() > 2.5 * prior.mean_per_100h());
        // A fault in evidence without hours counts the same.
        let unwatched = InterruptionRisk {
            unwatched_faults: 1.0,
            ..risk(0.0, 0.8)
        };
        assert_eq!(unwatched.mean_per_100h(), faulted.mean_per_100h());
        // p10 < p90 always: finite evidence never gives a point.
        for r in [prior, hour, longer, faulted] {
            assert!(r.quantile_per_100h(0.1) < r.quantile_per_100h(0.9));
        }
    }

    #[test]
    fn the_posterior_is_said_with_what_it_rests_on() {
        let said = risk(2.0, 48.0).words();
        assert!(
            said.starts_with("2 in 48.0 GPU-hours watched: the rate a job meets is "),
            "{said}"
        );
        assert!(
            said.contains("under the field's prior of 0.00197"),
            "{said}"
        );
        assert!(
            !said.contains("e-") && !said.contains("e+"),
            "no exponent: {said}"
        );
        assert_eq!(round_sig(25_347.0), "25300");
        assert_eq!(round_sig(0.001_973), "0.00197");
        assert_eq!(round_sig(48.0), "48.0");
    }
}
