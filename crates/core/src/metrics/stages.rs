//! Where a start's time goes: the median of each stage (submitted →
//! provisioned → image ready → first compute) over attempts. One definition
//! for `explain`'s startup details and the report's stage chart.
//!
//! A stage missing from an attempt (a platform that reports no
//! "provisioned" moment) is bridged from the stage before it, so the next
//! stage still counts: image ready is measured from provisioned, else from
//! submitted; first compute from image ready, else from provisioned.

use super::sustain::median;
use crate::domain::StartupAttempt;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StageMedians {
    pub provisioned_s: Option<f64>,
    pub image_ready_s: Option<f64>,
    pub first_compute_s: Option<f64>,
}

impl StageMedians {
    pub fn of(attempts: &[&StartupAttempt]) -> Self {
        let stage = |from: fn(&StartupAttempt) -> Option<jiff::Timestamp>,
                     to: fn(&StartupAttempt) -> Option<jiff::Timestamp>| {
            let mut v: Vec<f64> = attempts
                .iter()
                .filter_map(|a| Some(to(a)?.duration_since(from(a)?).as_secs_f64()))
                .collect();
            median(&mut v)
        };
        Self {
            provisioned_s: stage(|a| Some(a.submitted_at), |a| a.provisioned_at),
            image_ready_s: stage(
                |a| a.provisioned_at.or(Some(a.submitted_at)),
                |a| a.image_ready_at,
            ),
            first_compute_s: stage(
                |a| a.image_ready_at.or(a.provisioned_at),
                |a| a.first_compute_at,
            ),
        }
    }

    /// All three, where every stage was seen.
    pub fn all(&self) -> Option<[f64; 3]> {
        Some([
            self.provisioned_s?,
            self.image_ready_s?,
            self.first_compute_s?,
        ])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::domain::{ImageState, LoadScenario, StartupOutcome};

    fn attempt(stages: [Option<i64>; 3]) -> StartupAttempt {
        let t0: jiff::Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let at = |s: Option<i64>| s.map(|s| t0 + jiff::SignedDuration::from_secs(s));
        StartupAttempt {
            scenario: LoadScenario::Baseline,
            image: ImageState::Warm,
            submitted_at: t0,
            provisioned_at: at(stages[0]),
            image_ready_at: at(stages[1]),
            first_compute_at: at(stages[2]),
            outcome: StartupOutcome::Ok,
        }
    }

    #[test]
    fn each_stage_is_the_median_of_its_own_durations() {
        let a = attempt([Some(10), Some(40), Some(45)]);
        let b = attempt([Some(20), Some(30), Some(50)]);
        let c = attempt([Some(30), Some(90), Some(100)]);
        let m = StageMedians::of(&[&a, &b, &c]);
        assert_eq!(m.provisioned_s, Some(20.0));
        assert_eq!(m.image_ready_s, Some(30.0));
        assert_eq!(m.first_compute_s, Some(10.0));
        assert_eq!(m.all(), Some([20.0, 30.0, 10.0]));
    }

    #[test]
    fn a_missing_stage_is_bridged_from_the_one_before() {
        let a = attempt([None, Some(40), Some(45)]);
        let m = StageMedians::of(&[&a]);
        assert_eq!(m.provisioned_s, None);
        assert_eq!(m.image_ready_s, Some(40.0));
        assert_eq!(m.first_compute_s, Some(5.0));
        assert_eq!(m.all(), None);
    }
}
