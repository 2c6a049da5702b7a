//! How a platform turns time into a bill. Two platforms with the same hourly
//! price can charge very different amounts for the same job (the four-breakpoint review: 38.40
//! vs 21.82); the rule is what makes the difference.

use serde::{Deserialize, Serialize};

use super::offering::BillingMode;
use super::validate::{self, Checked};
use crate::error::ValidationError;

labelled_enum! {
    pub enum Rounding ("rounding") {
        /// Any started unit is charged in full.
        Ceil => "ceil",
        /// Rounded to the nearest unit.
        Nearest => "nearest",
        /// Only whole units are charged.
        Floor => "floor",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BillingRule {
    /// Store id; 0 until stored.
    pub id: i64,
    pub platform_id: i64,
    /// `None`: the platform's default for this mode; `Some`: one offering only.
    pub offering_id: Option<i64>,
    pub mode: BillingMode,
    /// The billing unit in seconds (1 per-second, 60 per-minute, 3600 hourly).
    pub granularity_s: u32,
    /// Shortest duration charged for any session, in seconds.
    pub minimum_charge_s: u32,
    pub rounding: Rounding,
    pub bills_queue: bool,
    pub bills_io_wait: bool,
    pub bills_idle: bool,
    pub bills_stopped_storage: bool,
    /// Price per accelerator-hour while the instance is idle, where it differs.
    pub idle_price_per_hour: Option<f64>,
    pub notes: Option<String>,
}

impl BillingRule {
    /// A rule that charges every second of wall time (the usual console
    /// default); adjust the fields, then call `validate`.
    pub fn per_second(platform_id: i64, mode: BillingMode) -> Self {
        Self {
            id: 0,
            platform_id,
            offering_id: None,
            mode,
            granularity_s: 1,
            minimum_charge_s: 0,
            rounding: Rounding::Ceil,
            bills_queue: false,
            bills_io_wait: true,
            bills_idle: true,
            bills_stopped_storage: false,
            idle_price_per_hour: None,
            notes: None,
        }
    }

    pub fn validate(mut self) -> Checked<Self> {
        if self.granularity_s == 0 {
            return Err(ValidationError::new(
                "granularity_s",
                "must be at least 1 second",
            ));
        }
        self.idle_price_per_hour =
            validate::price_opt("idle_price_per_hour", self.idle_price_per_hour)?;
        self.notes = validate::optional_text(self.notes);
        Ok(self)
    }

    /// The rule in words, the same everywhere it is shown: "1 h units,
    /// ceil, io-wait free, idle billed".
    pub fn in_words(&self) -> String {
        let billed = |yes: bool| if yes { "billed" } else { "free" };
        format!(
            "{} units, {}, io-wait {}, idle {}",
            crate::text::duration_words(f64::from(self.granularity_s)),
            self.rounding,
            billed(self.bills_io_wait),
            billed(self.bills_idle)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_granularity_and_negative_idle_price_are_refused() {
        let mut r = BillingRule::per_second(1, BillingMode::OnDemand);
        r.granularity_s = 0;
        assert_eq!(r.validate().unwrap_err().field, "granularity_s");
        let mut r = BillingRule::per_second(1, BillingMode::OnDemand);
        r.idle_price_per_hour = Some(-2.0);
        assert_eq!(r.validate().unwrap_err().field, "idle_price_per_hour");
    }
}
