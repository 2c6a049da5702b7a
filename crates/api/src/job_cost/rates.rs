//! Where the job model's rates are drawn from: the interruption rate's
//! posterior over what the platform's runs watched (or a rate stated as the
//! truth), and on spot the reclaims its spot evidence gives. Each is kept
//! as quantiles at (i + ½)/n and drawn by one uniform number, so that a
//! platform that watched worse draws a higher rate for the same number.

use rand::Rng;
use rand::rngs::SmallRng;

use crate::catalogue::keys;
use crate::metrics::interruption_risk::InterruptionRisk;
use crate::metrics::spot::SpotEvidence;

const INTERRUPTIONS_KEY: &str = keys::SUSTAIN_INTERRUPTIONS_PER_100H;

/// Quantiles kept of a rate's distribution.
const KEPT: usize = 512;

/// A distribution kept as its quantiles at (i + ½)/n.
#[derive(Debug, Clone)]
pub(super) struct Quantiles(Vec<f64>);

impl Quantiles {
    /// `quantile(q)` at each kept point, never below 0.
    fn of(quantile: impl Fn(f64) -> f64) -> Quantiles {
        Quantiles(
            (0..KEPT)
                .map(|i| quantile((i as f64 + 0.5) / KEPT as f64).max(0.0))
                .collect(),
        )
    }

    /// One uniform number read between two kept quantiles, linearly.
    fn draw(&self, rng: &mut SmallRng) -> f64 {
        let q = &self.0;
        let at = rng.random::<f64>() * q.len().saturating_sub(1) as f64;
        let (i, f) = (at.floor() as usize, at.fract());
        let low = q.get(i).copied().unwrap_or(0.0);
        let high = q.get(i + 1).copied().unwrap_or(low);
        low + f * (high - low)
    }
}

/// Where the interruption rate's draws come from.
#[derive(Debug, Clone)]
pub(super) enum Rate {
    /// The posterior over what was watched (the prior alone where nothing
    /// was), per GPU-hour.
    Posterior {
        risk: InterruptionRisk,
        quantiles: Quantiles,
    },
    /// Stated per GPU-hour, as the truth ("what if").
    Stated(f64),
}

impl Rate {
    pub(super) fn posterior(risk: InterruptionRisk) -> Rate {
        let quantiles = Quantiles::of(|q| risk.quantile_per_100h(q) / 100.0);
        Rate::Posterior { risk, quantiles }
    }

    /// Interruptions per GPU-hour.
    pub(super) fn draw(&self, rng: &mut SmallRng) -> f64 {
        match self {
            Rate::Stated(v) => v.max(0.0),
            Rate::Posterior { quantiles, .. } => quantiles.draw(rng),
        }
    }

    pub(super) fn said(&self) -> String {
        match self {
            Rate::Posterior { risk, .. }
                if risk.gpu_hours <= 0.0 && risk.unwatched_faults <= 0.0 =>
            {
                format!(
                    "not measured: the field's rate alone ({}; a long log or probe sample measures it)",
                    risk.words()
                )
            }
            Rate::Posterior { risk, .. } => format!("{INTERRUPTIONS_KEY}: {}", risk.words()),
            Rate::Stated(v) => format!("stated: {} per 100 GPU-h", 100.0 * v),
        }
    }
}

/// A spot job's reclaims: each instance it holds is reclaimed at a rate
/// drawn from what its spot evidence gives; a reclaim stops the job as an
/// interruption does.
#[derive(Debug, Clone)]
pub(super) struct Reclaims {
    /// Per instance-hour.
    quantiles: Quantiles,
    pub(super) instances: u32,
    pub(super) said: String,
}

impl Reclaims {
    pub(super) fn of(spot: &SpotEvidence, instances: u32) -> Reclaims {
        Reclaims {
            quantiles: Quantiles::of(|q| spot.quantile_per_hour(q)),
            instances: instances.max(1),
            said: spot.words(),
        }
    }

    /// Reclaims per instance-hour.
    pub(super) fn draw(&self, rng: &mut SmallRng) -> f64 {
        self.quantiles.draw(rng)
    }
}
