//! Billing screen: the reference job priced on every platform.

use super::*;

view! {
    pub struct BillRow {
        pub platform: String,
        pub rule: Option<String>,
        pub price: Option<f64>,
        pub currency: Option<String>,
        pub billed_seconds: Option<f64>,
        pub amount: Option<f64>,
        pub fair_amount: Option<f64>,
        pub overcharge_pct: Option<f64>,
        pub missing: Option<String>,
        /// The workload's GPU energy at the platform's measured power (kWh).
        pub gpu_kwh: Option<f64>,
        /// × PUE (kWh), and × grid intensity (kg CO₂): estimates.
        pub facility_kwh: Option<f64>,
        pub co2_kg: Option<f64>,
        /// The factors are the documented defaults, not the platform's.
        pub default_factors: bool,
        /// What the row rests on, one line each: the offering priced and
        /// why, the cheapest price mode where it is not on demand, the bill
        /// in the reporting currency at its rate (or why it is not).
        pub notes: Vec<String>,
    }
}
