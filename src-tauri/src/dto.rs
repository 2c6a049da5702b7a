//! What crosses IPC: plain views of the core's results, shaped for the UI.
//! Their TypeScript twins are generated into ui/src/bindings by `cargo test`
//! (ts-rs); CI fails when the committed ones drift.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! view {
    ($($item:item)*) => {
        $(
            #[derive(Debug, Clone, Serialize, Deserialize, TS)]
            #[ts(export, export_to = "../../ui/src/bindings/")]
            $item
        )*
    };
}

view! {
    pub struct AppInfo {
        pub version: String,
        pub db_path: String,
        pub language: String,
        pub platforms: u32,
        pub runs: u32,
        pub demo: bool,
    }

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
        pub rows: Vec<DisputeRow>,
    }

    pub struct DisputeRow {
        /// idle | after-teardown | rounding | unmatched | not-billed
        pub finding: String,
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

    pub struct RunRow {
        #[ts(type = "number")]
        pub id: i64,
        pub platform: String,
        pub kind: String,
        pub source: String,
        pub format: Option<String>,
        pub file: Option<String>,
        pub started_at: Option<String>,
        pub hours: Option<f64>,
        pub gpus: u32,
        #[ts(type = "number")]
        pub samples: u64,
        /// Events, startup and switch attempts, fault drills and bill lines
        /// (as the import report counts them): what a table-based run holds
        /// instead of samples.
        #[ts(type = "number")]
        pub records: u64,
        pub warnings: Vec<String>,
    }

    pub struct RunDetail {
        pub run: RunRow,
        pub sha256: Option<String>,
        pub host: Option<String>,
        pub inventory: Vec<String>,
        pub events: u32,
        /// The first events in time order (at most `EVENTS_SHOWN`): lost
        /// GPUs, XIDs, gaps — the interruptions behind the sustain score.
        pub event_list: Vec<EventRow>,
        /// `dcgmi diag` results, test by test and GPU by GPU.
        pub health: Vec<HealthRow>,
        /// What the run saw wrong with the delivery, one line each; empty
        /// when it saw nothing wrong or checked nothing.
        pub delivery_problems: Vec<String>,
        /// What the GPUs drew, where the run sampled power ("0.500 kWh over
        /// 2.00 GPU-hours, mean 250 W per GPU").
        pub energy: Option<String>,
        /// The startup chart as an SVG document, shown as an image (never
        /// as markup).
        pub startup_svg: Option<String>,
    }

    /// A run's timeline reduced to the columns the app draws (one per
    /// pixel): per GPU and series the first, smallest, largest and last
    /// value of each column that has samples. It crosses IPC as bytes
    /// (`timeline_bytes`): this header as JSON, then the values as 32-bit
    /// integers, which the web view reads without parsing.
    pub struct TimelineView {
        #[ts(type = "number")]
        pub run_id: i64,
        /// The run's first and last sample, ms since the epoch: how far a
        /// zoom may go out.
        #[ts(type = "[number, number] | null")]
        pub span: Option<(i64, i64)>,
        /// The range shown, ms since the epoch (end excluded).
        #[ts(type = "number")]
        pub start_ms: i64,
        #[ts(type = "number")]
        pub end_ms: i64,
        pub columns: u32,
        pub panels: Vec<TimelinePanel>,
        /// Per column: 0 none, 1 thermal slowdown, 2 HW slowdown or power
        /// brake, 3 both (on any GPU).
        pub throttle: Vec<u8>,
        pub interruptions: Vec<TimelineMark>,
        #[ts(type = "number")]
        pub samples: u64,
    }

    pub struct TimelinePanel {
        /// power_mw | temp_gpu_c | sm_clock_mhz
        pub field: String,
        /// The unit values are shown in ("W"), and what a stored value is
        /// divided by to get there.
        pub unit: String,
        pub scale: f64,
        pub gpus: Vec<TimelineSeries>,
    }

    pub struct TimelineSeries {
        pub gpu: u32,
        /// The columns that have samples, in order.
        pub columns: Vec<u32>,
        /// Where its values start among the answer's values: four stored
        /// values per entry of `columns` (first, min, max, last).
        pub at: u32,
        /// Columns where the line starts afresh after an outage.
        pub breaks: Vec<u32>,
    }

    pub struct TimelineMark {
        #[ts(type = "number")]
        pub at_ms: i64,
        pub kind: String,
        /// When a lost GPU answered again.
        #[ts(type = "number | null")]
        pub lost_until_ms: Option<i64>,
    }

    pub struct EventRow {
        /// gap | gpu-lost | xid | reset-required | gpu-unreadable | instance-lost | fault |
        /// recovered | phase | note
        pub kind: String,
        /// `None`: every GPU, or the run as a whole.
        pub gpu: Option<u32>,
        /// "GPU 6 (00000000:B7:00.0)" where the run knows the GPU's address.
        pub gpu_label: Option<String>,
        /// UTC, to the second.
        pub at: String,
        pub duration_s: Option<f64>,
        #[ts(type = "number | null")]
        pub code: Option<i64>,
        pub detail: Option<String>,
        /// What an Xid means, from the catalogue.
        pub meaning: Option<String>,
        /// platform | application | either, for an Xid the catalogue knows.
        pub blame: Option<String>,
        /// Whether it counts against the platform's sustain score.
        pub counted: bool,
    }

    pub struct HealthRow {
        pub category: Option<String>,
        pub test: String,
        /// `None`: every GPU the test ran on.
        pub gpu: Option<String>,
        /// Pass | Fail | Warn | Skip, as DCGM wrote it.
        pub status: String,
        pub message: Option<String>,
    }

    pub struct ImportRow {
        pub file: String,
        /// imported | already_imported | failed | cancelled | skipped
        pub status: String,
        #[ts(type = "number | null")]
        pub run_id: Option<i64>,
        pub format: Option<String>,
        #[ts(type = "number")]
        pub samples: u64,
        #[ts(type = "number")]
        pub records: u64,
        pub gaps: u32,
        pub warnings: Vec<String>,
        pub error: Option<String>,
    }

    pub struct ImportProgress {
        #[ts(type = "number")]
        pub job: u64,
        pub file: String,
        pub index: u32,
        pub files: u32,
        #[ts(type = "number")]
        pub bytes: u64,
        #[ts(type = "number")]
        pub total: u64,
    }

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
    }

    /// Import from Prometheus: the server, the range, the fleet.
    pub struct PullForm {
        #[ts(type = "number")]
        pub platform_id: i64,
        pub url: String,
        /// RFC 3339.
        pub from: String,
        pub to: String,
        pub step_s: Option<u32>,
        pub selector: Option<String>,
        /// The environment variable holding a bearer token (never the token).
        pub token_env: Option<String>,
    }

    pub struct PullProgressView {
        #[ts(type = "number")]
        pub job: u64,
        pub node: Option<String>,
        /// Nodes found (the first event).
        pub nodes: Option<u32>,
        pub done: u32,
        pub of: u32,
        /// Set when the node's run is stored.
        #[ts(type = "number | null")]
        pub stored_samples: Option<u64>,
    }

    pub struct PullNodeRow {
        pub node: String,
        #[ts(type = "Array<number>")]
        pub runs: Vec<i64>,
        pub gpus: u32,
        #[ts(type = "number")]
        pub samples: u64,
        pub already: bool,
    }

    pub struct PullResultView {
        pub nodes: Vec<PullNodeRow>,
        #[ts(type = "number")]
        pub requests: u64,
        #[ts(type = "number")]
        pub retries: u64,
    }

    pub struct BundleExported {
        pub path: String,
        pub sha256: String,
        pub platforms: Vec<String>,
        pub runs: u32,
        #[ts(type = "number")]
        pub samples: u64,
    }

    pub struct BundleMerged {
        pub created_by: String,
        pub runs_added: u32,
        pub runs_already_here: u32,
        pub platforms_added: Vec<String>,
        /// "theirs → ours".
        pub platforms_matched: Vec<String>,
        /// Conflicts and how they were settled.
        pub conflicts: Vec<String>,
        /// Their runs already here under another of our platforms.
        pub filed_elsewhere: Vec<String>,
    }

    pub struct ReportRequest {
        pub path: String,
        pub lang: String,
        pub title: Option<String>,
        pub date: Option<String>,
    }

    pub struct ReportResult {
        pub path: String,
        pub pages: u32,
        #[ts(type = "number")]
        pub bytes: u64,
    }

    pub struct GpuRow {
        pub index: u32,
        pub name: String,
        pub canonical: String,
        pub uuid: Option<String>,
        #[ts(type = "number | null")]
        pub vram_mib: Option<u64>,
        pub driver: Option<String>,
        pub cuda: Option<String>,
        pub pcie: String,
        pub power_limit_w: Option<f64>,
        /// Why the GPU could not be read, when it could not.
        pub unreadable: Option<String>,
        /// Its MIG instances (profile names), when it is partitioned.
        pub mig: Vec<String>,
    }

    pub struct DeliveryView {
        pub gpus: u32,
        #[ts(type = "number")]
        pub run_id: i64,
        /// Empty when the machine matches the order.
        pub mismatches: Vec<String>,
    }

    pub struct ProbeStarted {
        #[ts(type = "number")]
        pub job: u64,
        pub log_path: String,
    }

    pub struct GpuPoint {
        pub gpu: u32,
        pub power_w: Option<f64>,
        #[ts(type = "number | null")]
        pub temp_c: Option<i64>,
        #[ts(type = "number | null")]
        pub util_pct: Option<i64>,
    }

    /// One sampling tick, for the live chart.
    pub struct ProbeTick {
        /// Milliseconds since sampling started.
        #[ts(type = "number")]
        pub t_ms: i64,
        #[ts(type = "number")]
        pub samples: u64,
        pub gpus: Vec<GpuPoint>,
    }

    pub struct ProbeFinished {
        #[ts(type = "number")]
        pub job: u64,
        pub log_path: String,
        #[ts(type = "number")]
        pub samples: u64,
        pub duration_s: f64,
        pub error: Option<String>,
        /// Set when the session wrapped a workload.
        pub workload: Option<WorkloadOutcome>,
    }

    /// How a wrapped workload went: the figures `breakpoint probe run` prints.
    pub struct WorkloadOutcome {
        pub command: String,
        /// `None` when a signal ended it.
        pub exit_code: Option<i32>,
        pub wall_s: f64,
        /// Seconds in which some GPU was above 10 % utilisation; `None`
        /// when no GPU reports utilisation (MIG).
        pub busy_s: Option<f64>,
        /// Launch → first GPU activity; `None` if it never used a GPU, or
        /// when `gpu_use_unknown`, if that could not be seen.
        pub first_activity_s: Option<f64>,
        /// Neither utilisation nor process lists could be read.
        pub gpu_use_unknown: bool,
        /// Whether it ended because Stop was pressed.
        pub stopped: bool,
        /// The file holding its stdout and stderr, and its last lines.
        pub output_path: String,
        pub output_tail: Vec<String>,
    }

    pub struct ProbeState {
        /// ready | no_gpu
        pub status: String,
        pub message: Option<String>,
        pub gpus: Vec<GpuRow>,
    }
}

view! {
    /// What the Campaigns screen sends: a recipe and how to run it.
    pub struct CampaignForm {
        pub recipe_path: String,
        /// baseline | peak | mixed
        pub scenario: String,
        /// `None`: the recipe's.
        pub platform: Option<String>,
        pub count: Option<u32>,
        pub spacing_ms: u32,
        /// warm | cold | both
        pub image: String,
    }

    /// A campaign as it would run: shown before anything launches.
    pub struct CampaignPlanView {
        pub platform: String,
        pub scenario: String,
        pub instances: u32,
        pub worst_case_minutes_each: f64,
        /// "12.50 CNY" per currency.
        pub cost: Vec<String>,
        pub unpriced: Vec<String>,
        pub attempts: Vec<PlannedAttemptRow>,
    }

    pub struct PlannedAttemptRow {
        pub name: String,
        pub offering: String,
        pub image: String,
        pub start_after_s: f64,
        /// Its commands, placeholders filled ("launch: …").
        pub commands: Vec<String>,
    }

    pub struct CampaignStarted {
        #[ts(type = "number")]
        pub job: u64,
        pub name: String,
        pub instances: u32,
    }

    /// `campaign-progress` events: an attempt reached a stage, or ended.
    pub struct CampaignProgress {
        #[ts(type = "number")]
        pub job: u64,
        pub attempt: u32,
        /// launch | provision | ready | first-compute | teardown, or the
        /// ending: ok | failed | timeout | cancelled | not_started
        pub what: String,
        pub detail: Option<String>,
        /// The campaign is over (the last event of a job).
        pub done: bool,
        /// The run that records it, on the last event.
        #[ts(type = "number | null")]
        pub run_id: Option<i64>,
    }

    /// A past campaign, from its startup run.
    pub struct CampaignRow {
        #[ts(type = "number")]
        pub run_id: i64,
        pub platform: String,
        pub name: String,
        pub scenario: String,
        pub recipe: String,
        pub started_at: Option<String>,
        pub attempts: u32,
        pub ok: u32,
        pub p50_s: Option<f64>,
        pub p95_s: Option<f64>,
        pub failure_rate_pct: Option<f64>,
        /// Submit → provisioned → image ready → first compute of every
        /// attempt, as an SVG (shown as an image).
        pub stages_svg: Option<String>,
    }

    /// An instance the ledger says may still be running.
    pub struct OutstandingRow {
        pub name: String,
        pub id: Option<String>,
        pub since: String,
        pub teardown: Option<String>,
    }
}
