//! Decision screen: what finishing the user's job costs on each platform.

use super::*;

view! {
    /// A job costed on every platform, the answer in words and the picture.
    pub struct JobCostView {
        /// "X finishes the job cheapest at the median (…)", or "No answer yet: …".
        pub answer: String,
        /// How the work was read: "2000 GPU-hours on NVIDIA A100 80GB SXM
        /// (…) = 2.25 × 10²¹ FLOP at BF16".
        pub reading: String,
        pub rows: Vec<JobCostRow>,
        /// The bands and the hours term by term, drawn as in the report.
        pub chart_svg: String,
    }
}

view! {
    /// A job's time and money on one platform (`breakpoint cost`).
    pub struct JobCostRow {
        pub platform: String,
        /// "91838.88 / 107676.67 / 130035.71 CNY", or why there is none.
        pub cost: String,
        /// The price mode costed ("on-demand", "monthly", "spot").
        pub mode: Option<String>,
        /// "316 / 368 / 447".
        pub hours: String,
        /// Calendar days at the median.
        /// None where the job could not be costed here.
        pub days: Option<f64>,
        /// Share of draws within the deadline (or horizon), 0–1.
        pub deadline: Option<f64>,
        pub terms: Vec<JobTermRow>,
        /// What else the answer rests on: left-out parts, rates, draws
        /// that never finish.
        pub notes: Vec<String>,
    }
}

view! {
    /// One term of a platform's job model.
    pub struct JobTermRow {
        /// "share", "compute", "interruptions", "lost", "start", "data".
        pub key: String,
        pub name: String,
        pub value: f64,
        pub unit: String,
        /// "88.5 % (p10–p90 85.1–91)": the median, unit and spread as the
        /// command line and the PDF print them.
        pub figure: String,
        /// What it rests on: a metric and its runs, or "not measured: …".
        pub source: String,
        pub measured: bool,
        /// Share of the median hours, 0–1.
        pub share: Option<f64>,
    }
}
