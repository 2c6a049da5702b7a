//! Scoring curves: a metric's value to 0–100 between two anchors, linear or
//! logarithmic, clamped.

use crate::metrics::catalog::Anchors;

/// The score of `value`; `best_seen` is the best value among the platforms
/// compared, for relative anchors.
pub fn score(anchors: &Anchors, value: f64, best_seen: Option<f64>) -> Option<f64> {
    if !value.is_finite() {
        return None;
    }
    match *anchors {
        Anchors::Fixed { best, worst, log } => {
            let f = |x: f64| if log { x.max(1e-300).ln() } else { x };
            let span = f(best) - f(worst);
            if span == 0.0 {
                return Some(if value == best { 100.0 } else { 0.0 });
            }
            // `+ 0.0` turns the −0 of a value at a falling scale's worst
            // anchor into 0, which every face prints without a sign.
            Some(100.0 * ((f(value) - f(worst)) / span).clamp(0.0, 1.0) + 0.0)
        }
        Anchors::RelativeToBest { factor } => {
            let best = best_seen?;
            if best <= 0.0 || factor <= 1.0 {
                return Some(if value <= best { 100.0 } else { 0.0 });
            }
            Some(100.0 * ((factor - value / best) / (factor - 1.0)).clamp(0.0, 1.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(best: f64, worst: f64, log: bool) -> Anchors {
        Anchors::Fixed { best, worst, log }
    }

    #[test]
    fn linear_curves_clamp_at_both_anchors() {
        let power_drop = fixed(2.0, 15.0, false);
        assert_eq!(score(&power_drop, 0.0, None), Some(100.0));
        assert_eq!(score(&power_drop, 2.0, None), Some(100.0));
        assert_eq!(score(&power_drop, 8.5, None), Some(50.0));
        assert_eq!(score(&power_drop, 40.0, None), Some(0.0));
        // At the worst anchor the score is 0, not −0 (printed "-0.0").
        let at_worst = score(&fixed(0.0, 25.0, false), 25.0, None).unwrap();
        assert!(at_worst == 0.0 && at_worst.is_sign_positive());
        // Higher is better: the anchors say so by their order.
        let success = fixed(100.0, 50.0, false);
        assert_eq!(score(&success, 75.0, None), Some(50.0));
        assert_eq!(score(&success, f64::NAN, None), None);
    }

    #[test]
    fn log_curves_are_even_per_factor() {
        let latency = fixed(5.0, 1800.0, true);
        let mid = (5.0f64 * 1800.0).sqrt();
        assert!((score(&latency, mid, None).unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(score(&latency, 1.2, None), Some(100.0));
        assert_eq!(
            score(&latency, 22.0 * 60.0, None).map(|s| s.round()),
            Some(5.0)
        );
        let drift = fixed(1e-5, 1e-3, true);
        assert!((score(&drift, 1e-4, None).unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(score(&drift, 0.0, None), Some(100.0));
    }

    #[test]
    fn relative_curves_score_against_the_cheapest() {
        let cost = Anchors::RelativeToBest { factor: 2.0 };
        assert_eq!(score(&cost, 10.0, Some(10.0)), Some(100.0));
        assert_eq!(score(&cost, 15.0, Some(10.0)), Some(50.0));
        assert_eq!(score(&cost, 25.0, Some(10.0)), Some(0.0));
        assert_eq!(score(&cost, 15.0, None), None);
    }
}
