//! Rankings, ClusterMAX and History screens: the ranking asked for and shown, a cell explained, weight profiles, the matrix in ClusterMAX's categories, a platform over time.

use super::*;

view! {
    pub struct RankRequest {
        pub profile: Option<String>,
        /// Startup, sustain, switch, billing (any scale).
        pub weights: Option<Vec<f64>>,
        pub samples: Option<u32>,
        pub seed: Option<u32>,
        /// Only runs measured from this date or RFC 3339 time.
        pub since: Option<String>,
        /// Only runs measured before this time, or up to the end of this date.
        pub until: Option<String>,
    }

    pub struct RankRow {
        #[ts(type = "number")]
        pub id: i64,
        pub name: String,
        pub rank: Option<u32>,
        pub overall: Option<f64>,
        pub coverage: f64,
        pub insufficient: bool,
        pub scores: Vec<Option<f64>>,
        pub coverages: Vec<f64>,
        pub evidence: u32,
        pub p_first: f64,
    }

    pub struct RankView {
        pub profile: String,
        pub weights: Vec<f64>,
        pub platforms: Vec<RankRow>,
        pub flips: Vec<String>,
        pub fragile: Option<String>,
        pub samples: u32,
        /// Platforms whose latest runs are worse than their baseline, in words.
        pub degradations: Vec<String>,
        /// Prices older than the stale limit, each with its platform, source
        /// and day, as the CLI and the PDF say them.
        pub stale_prices: Vec<String>,
        /// "Pick X because …", "Leaning X (62 %): …" or "No decision yet: …".
        pub decision: String,
        pub decided: bool,
        /// Each platform's chance of being the best once the missing
        /// metrics are known, likeliest first (none once decided).
        pub p_best: Vec<ChanceView>,
        /// The same in one line, in whole percents that add up to 100
        /// (empty once decided).
        pub chances: String,
        /// What to measure or configure next, in the order to do it.
        pub plan: Vec<PlanStepView>,
    }

    /// A platform's chance of being the best.
    pub struct ChanceView {
        pub platform: String,
        pub p: f64,
    }

    /// A step of the plan: a command, what it gives, where, its cost and
    /// its chance of changing the lead.
    pub struct PlanStepView {
        pub command: String,
        /// Every metric it gives, by name.
        pub metrics: Vec<String>,
        /// The same in one line, the first few named.
        pub measures: String,
        pub platforms: Vec<String>,
        /// "free", "420.00 CNY", or "cost unknown (…)".
        pub cost: String,
        pub p_change: f64,
        /// "12 %", as every face says it.
        pub chance: String,
        pub configuration: bool,
    }

    /// The matrix in ClusterMAX's categories, as the API says it (every
    /// string final, in the app's language).
    pub struct CategoriesView {
        /// In the ranking's order; every per-platform list follows it.
        pub platforms: Vec<String>,
        pub categories: Vec<CategoryRow>,
    }

    pub struct CategoryRow {
        /// "security", "reliability", …
        pub key: String,
        pub name: String,
        pub evidenced_by: String,
        pub metrics: Vec<CategoryMetricRow>,
        pub checks: Vec<CategoryCheckRow>,
        pub audits: Vec<AuditRow>,
    }

    pub struct CategoryMetricRow {
        pub key: String,
        pub name: String,
        /// Per platform: "12.5 %", or "–" where not measured.
        pub figures: Vec<String>,
    }

    pub struct CategoryCheckRow {
        pub name: String,
        pub command: String,
        /// Per platform: what measured it ("2 runs", "✓"), or null.
        pub measured: Vec<Option<String>>,
        /// Breakpoint does not read its output yet.
        pub not_read: bool,
    }

    /// A platform's cmax audit results in one category.
    pub struct AuditRow {
        pub platform: String,
        pub said: String,
        pub results: Vec<String>,
    }

    /// A platform's metrics over time.
    pub struct HistoryView {
        pub platform: String,
        pub metrics: Vec<MetricHistoryView>,
    }

    pub struct MetricHistoryView {
        pub key: String,
        pub name: String,
        pub unit: String,
        pub breakpoint: String,
        pub points: Vec<HistoryPointView>,
        /// The degradation test's verdict in words, when flagged.
        pub degradation: Option<String>,
        /// Runs the test needs before it can say anything.
        pub runs_needed: u32,
    }

    pub struct HistoryPointView {
        #[ts(type = "number")]
        pub run_id: i64,
        /// RFC 3339.
        pub at: String,
        #[ts(type = "number")]
        pub at_ms: i64,
        pub value: f64,
        pub file: Option<String>,
    }

    pub struct MetricRow {
        pub key: String,
        pub name: String,
        pub unit: String,
        pub value: Option<f64>,
        /// The value as every face prints it ("21.85 CNY", "88.5 %"); null
        /// where not measured.
        pub figure: Option<String>,
        /// The run-to-run range, said the same way; empty where the runs
        /// agree.
        pub range: String,
        pub min: Option<f64>,
        pub max: Option<f64>,
        pub score: Option<f64>,
        pub weight: f64,
        pub runs: Vec<String>,
        pub details: Vec<String>,
    }

    pub struct CellView {
        pub platform: String,
        pub breakpoint: String,
        pub score: Option<f64>,
        pub coverage: f64,
        pub metrics: Vec<MetricRow>,
    }

    pub struct ProfileRow {
        pub name: String,
        pub builtin: bool,
        pub weights: Vec<f64>,
    }
}
