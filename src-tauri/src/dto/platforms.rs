//! Platforms screen: a platform, its offerings, claims and billing rule, what its detail shows (disputes, delivered performance, acceptance checklists), and the forms that add them.

use super::*;

view! {
    pub struct PlatformRow {
        #[ts(type = "number")]
        pub id: i64,
        pub name: String,
        pub kind: String,
        pub notes: Option<String>,
        pub template: Option<String>,
        #[ts(type = "number")]
        pub offerings: i64,
        #[ts(type = "number")]
        pub claims: i64,
        #[ts(type = "number")]
        pub runs: i64,
        #[ts(type = "number")]
        pub samples: i64,
    }

    pub struct OfferingRow {
        #[ts(type = "number")]
        pub id: i64,
        pub accelerator: String,
        pub count: u32,
        pub pcie: String,
        pub price: String,
    }

    pub struct ClaimRow {
        pub subject: String,
        pub value: String,
        pub text: String,
        pub source: String,
    }

    pub struct PlatformDetail {
        pub platform: PlatformRow,
        pub offerings: Vec<OfferingRow>,
        pub billing: Vec<String>,
        pub claims: Vec<ClaimRow>,
        /// The acceptance bundles imported for the platform, oldest first.
        pub acceptance: Vec<AcceptanceSheetView>,
        /// Delivered performance, per accelerator model it was measured on.
        pub performance: Vec<PerfModelView>,
    }

    /// One platform's bills against its measurements.
    pub struct DisputeSheetView {
        pub platform: String,
        pub lines: u32,
        pub billed_seconds: f64,
        pub seconds_in_question: f64,
        /// "33.03 of 163.58 CNY" per currency.
        pub amounts: Vec<String>,
        /// The rows with the most in question (at most a thousand).
        pub rows: Vec<DisputeRow>,
        /// Rows of the sheet not in `rows`; `bill --disputes -o` writes them all.
        pub unlisted: u32,
        /// Billed time no measurement covers, in words, as every face says
        /// it; null where every billed second was measured.
        pub unmeasured: Option<String>,
    }

    pub struct DisputeRow {
        /// idle | after-teardown | rounding | unmatched | not-billed
        pub finding: String,
        /// The finding in words, in the app's language.
        pub finding_words: String,
        /// "10800 s, 38.40 CNY", as every face says it.
        pub billed_words: String,
        /// "2580 s, 9.17 CNY", or "8173 s unmeasured, 42.91 CNY".
        pub in_question_words: String,
        pub line_id: Option<String>,
        pub instance: String,
        pub billed_from: Option<String>,
        pub billed_to: Option<String>,
        pub billed_seconds: f64,
        /// Exactly as billed.
        pub amount: Option<String>,
        pub currency: Option<String>,
        pub seconds_in_question: f64,
        /// To the cent.
        pub amount_in_question: String,
        pub evidence: String,
    }

    /// The platform's perf figures on one model, against the datasheet and
    /// the other platforms on that model, and its latest run GPU by GPU.
    pub struct PerfModelView {
        pub model: String,
        pub figures: Vec<PerfFigureRow>,
        pub gpus: Vec<PerfGpuRow>,
        #[ts(type = "number | null")]
        pub latest_run: Option<i64>,
        pub host: Option<String>,
    }

    pub struct PerfFigureRow {
        pub test: String,
        pub unit: String,
        pub value: f64,
        pub share_pct: Option<f64>,
        /// Above this share of the other platforms on the model.
        pub percentile: Option<f64>,
        /// The other platforms measured on the model.
        pub others: u32,
    }

    pub struct PerfGpuRow {
        pub gpu: u32,
        /// "bf16", TFLOP/s, share of nominal.
        pub gemm_dtype: Option<String>,
        pub gemm: Option<f64>,
        pub gemm_share_pct: Option<f64>,
        pub copy_gbps: Option<f64>,
        pub copy_share_pct: Option<f64>,
        pub link_gbps: Option<f64>,
        pub link_share_pct: Option<f64>,
        pub decay_pct: Option<f64>,
        /// The test it trails its node's best on, and by how much (%).
        pub straggler_test: Option<String>,
        pub straggler_pct: Option<f64>,
    }

    /// One acceptance bundle: where and when it was made, its checklist as
    /// the instance printed it, and the runs its logs became.
    pub struct AcceptanceSheetView {
        pub title: String,
        pub items: Vec<ChecklistRow>,
        #[ts(type = "Array<number>")]
        pub runs: Vec<i64>,
        pub failed: u32,
    }

    pub struct ChecklistRow {
        pub check: String,
        pub measured: String,
        pub threshold: String,
        /// `null`: measured, nothing to pass or fail.
        pub passed: Option<bool>,
    }

    pub struct NewPlatform {
        pub name: String,
        pub kind: String,
        pub notes: Option<String>,
    }

    pub struct NewOffering {
        pub accelerator: String,
        pub count: u32,
        pub currency: String,
        pub price_on_demand: Option<f64>,
        pub price_spot: Option<f64>,
        pub region: Option<String>,
    }

    pub struct NewBillingRule {
        /// on-demand | spot | monthly
        pub mode: String,
        pub granularity_s: u32,
        pub minimum_charge_s: u32,
        /// ceil | nearest | floor
        pub rounding: String,
        pub bills_io_wait: bool,
        pub bills_idle: bool,
    }

    pub struct NewClaim {
        /// What the figure is about, e.g. "availability".
        pub subject: String,
        pub value: Option<f64>,
        pub unit: Option<String>,
        /// The claim in words, as the source puts it.
        pub text: Option<String>,
        /// Where it comes from: a URL, "contract §4.2" …
        pub source: String,
    }

    pub struct TemplateRow {
        pub name: String,
        pub kind: String,
        pub claims: u32,
    }
}
