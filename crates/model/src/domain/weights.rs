//! A weight profile says how much each breakpoint, and each metric inside it,
//! matters to the user. The scoring engine reads it; the store keeps it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::validate::{self, Checked};
use crate::error::ValidationError;

labelled_enum! {
    /// The four usability breakpoints.
    pub enum Breakpoint ("breakpoint") {
        Startup => "startup",
        Sustain => "sustain",
        Switch => "switch",
        Billing => "billing",
    }
}

impl Breakpoint {
    /// The breakpoint's name in words, in Chinese where `zh`.
    pub fn name_in(self, zh: bool) -> &'static str {
        match (self, zh) {
            (_, false) => self.as_str(),
            (Breakpoint::Startup, true) => "启动",
            (Breakpoint::Sustain, true) => "持续",
            (Breakpoint::Switch, true) => "切换",
            (Breakpoint::Billing, true) => "计费",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BreakpointWeights {
    pub startup: f64,
    pub sustain: f64,
    pub switch: f64,
    pub billing: f64,
}

impl BreakpointWeights {
    pub fn get(&self, b: Breakpoint) -> f64 {
        match b {
            Breakpoint::Startup => self.startup,
            Breakpoint::Sustain => self.sustain,
            Breakpoint::Switch => self.switch,
            Breakpoint::Billing => self.billing,
        }
    }

    pub fn set(&mut self, b: Breakpoint, value: f64) {
        match b {
            Breakpoint::Startup => self.startup = value,
            Breakpoint::Sustain => self.sustain = value,
            Breakpoint::Switch => self.switch = value,
            Breakpoint::Billing => self.billing = value,
        }
    }

    pub fn validate(self) -> Checked<Self> {
        let mut total = 0.0;
        for b in Breakpoint::ALL {
            total += validate::non_negative(&format!("weight.{b}"), self.get(*b))?;
        }
        if total <= 0.0 {
            return Err(ValidationError::new(
                "weights",
                "at least one breakpoint weight must be above 0",
            ));
        }
        // Weights are used as shares of their sum: a sum that overflows
        // (1e308 + 1e308) would make every share 0 and rank nobody.
        if !total.is_finite() {
            return Err(ValidationError::new(
                "weights",
                format!(
                    "they add up to more than {:e}; give them as shares such as 0.25 or 25",
                    f64::MAX
                ),
            ));
        }
        Ok(self)
    }
}

/// How a metric's value maps to a 0–100 score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Anchors {
    /// 100 at `best`, 0 at `worst`, linear (or logarithmic) between, clamped.
    Fixed { best: f64, worst: f64, log: bool },
    /// Scored against the cheapest platform compared: 100 there, 0 at
    /// `factor` × the cheapest.
    RelativeToBest { factor: f64 },
}

impl Anchors {
    /// Anchors a score can be computed from: finite, distinct, their span a
    /// number (1e308 to −1e308 is not), above 0 for a log curve, a factor
    /// above 1 for a relative one. `key` names the metric in the message.
    pub fn validate(self, key: &str) -> Checked<Self> {
        let field = format!("curve {key}");
        let ok = match self {
            Anchors::Fixed { best, worst, log } => {
                best.is_finite()
                    && worst.is_finite()
                    && best != worst
                    && (best - worst).is_finite()
                    && (!log || (best > 0.0 && worst > 0.0))
            }
            Anchors::RelativeToBest { factor } => factor.is_finite() && factor > 1.0,
        };
        if ok {
            Ok(self)
        } else {
            Err(ValidationError::new(
                &field,
                "anchors must be two different finite numbers a finite span apart (above 0 for a log curve), or a relative factor above 1",
            ))
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeightProfile {
    pub id: i64,
    pub name: String,
    pub builtin: bool,
    pub breakpoints: BreakpointWeights,
    /// Weights of individual metrics by stable key (`sustain.power_drop_pct`);
    /// a metric not listed weighs 1.
    pub metrics: BTreeMap<String, f64>,
}

impl WeightProfile {
    pub fn new(
        name: &str,
        breakpoints: BreakpointWeights,
        metrics: BTreeMap<String, f64>,
    ) -> Checked<Self> {
        let mut total = 0.0;
        for (key, w) in &metrics {
            total += validate::non_negative(&format!("metric weight {key}"), *w)?;
        }
        if !f64::is_finite(total) {
            return Err(ValidationError::new(
                "metric weights",
                "they add up to more than the largest number; give them as shares such as 0.5 or 2",
            ));
        }
        Ok(Self {
            id: 0,
            name: validate::name("name", name)?,
            builtin: false,
            breakpoints: breakpoints.validate()?,
            metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_zero_or_negative_weights_are_refused() {
        let zero = BreakpointWeights {
            startup: 0.0,
            sustain: 0.0,
            switch: 0.0,
            billing: 0.0,
        };
        assert_eq!(zero.validate().unwrap_err().field, "weights");
        let negative = BreakpointWeights {
            startup: -0.1,
            ..zero
        };
        assert_eq!(negative.validate().unwrap_err().field, "weight.startup");
    }

    #[test]
    fn weights_whose_sum_overflows_are_refused_not_stored_as_zero() {
        let huge = BreakpointWeights {
            startup: 1e308,
            sustain: 1e308,
            switch: 0.0,
            billing: 0.0,
        };
        let err = huge.validate().unwrap_err();
        assert_eq!(err.field, "weights");
        assert!(err.reason.contains("add up"), "{}", err.reason);
        let nan = BreakpointWeights {
            startup: f64::NAN,
            ..huge
        };
        assert_eq!(nan.validate().unwrap_err().field, "weight.startup");
        let metrics = BTreeMap::from([
            ("sustain.a".to_string(), 1e308),
            ("sustain.b".to_string(), 1e308),
        ]);
        let fine = BreakpointWeights {
            startup: 1.0,
            ..huge
        };
        let fine = BreakpointWeights {
            sustain: 1.0,
            ..fine
        };
        assert!(WeightProfile::new("w", fine, metrics).is_err());
    }
}
