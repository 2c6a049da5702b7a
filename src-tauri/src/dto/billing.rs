//! Billing screen: the reference job priced on every platform.

use super::*;

view! {
    /// A job costed on every platform, and the answer in words.
    pub struct JobCostView {
        /// "X finishes the job cheapest at the median (…)", or "No answer yet: …".
        pub answer: String,
        pub rows: Vec<JobCostRow>,
    }
}

view! {
    /// A job's time and money on one platform (`breakpoint cost`).
    pub struct JobCostRow {
        pub platform: String,
        /// "91838.88 / 107676.67 / 130035.71 CNY", or why there is none.
        pub cost: String,
        /// "316 / 368 / 447".
        pub hours: String,
        /// Share of draws within the deadline, 0–1.
        pub deadline: Option<f64>,
        /// Each term with what it rests on, one line each.
        pub terms: Vec<String>,
    }
}

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
