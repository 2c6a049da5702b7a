//! Argument definitions: what the command line accepts, nothing more. The
//! commands in `commands/` turn these into calls on the core.

// Parsed once per process: the size of a variant does not matter.
#![allow(clippy::large_enum_variant)]

use std::path::PathBuf;

use breakpoint_api::domain::{
    BillingMode, Breakpoint, FormFactor, Interconnect, PlatformKind, Rounding, RunKind, Vendor,
};
use breakpoint_api::importing::Format;
use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand};

mod accept;
mod bundle;
mod campaign;
mod fleet;
mod probe;

pub use accept::*;
pub use bundle::*;
pub use campaign::*;
pub use fleet::*;
pub use probe::*;

/// Breakpoint — choose a GPU cloud platform on evidence.
///
/// Exit codes: 0 success, 1 an error in the input or the data (nothing was
/// changed), 2 a usage error, 3 no GPU driver to probe (`probe`).
#[derive(Debug, Parser)]
#[command(name = "breakpoint", version, propagate_version = true)]
pub struct Cli {
    /// The database file [default: the OS data directory, e.g.
    /// ~/.local/share/breakpoint/breakpoint.db]
    #[arg(long, global = true, env = "BREAKPOINT_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Print machine-readable JSON instead of tables.
    #[arg(long, global = true)]
    pub json: bool,

    /// Print every table and line whole, however wide (by default output
    /// fits the terminal, or 100 columns where it is not one).
    #[arg(long, global = true)]
    pub wide: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Platforms: the providers being compared.
    #[command(subcommand)]
    Platform(PlatformCommand),
    /// Offerings: rentable configurations and their prices.
    #[command(subcommand)]
    Offering(OfferingCommand),
    /// Billing rules: how each platform turns time into a bill.
    #[command(subcommand)]
    Billing(BillingCommand),
    /// Claims: figures stated by others (SLAs, reviews), kept with their source.
    #[command(subcommand)]
    Claim(ClaimCommand),
    /// Exchange rates and the currency money is reported in.
    #[command(subcommand)]
    Rates(RatesCommand),
    /// The decision's history: each import that moved the answer.
    #[command(subcommand)]
    Decision(DecisionCommand),
    /// Import run logs (nvidia-smi, dmon, DCGM, Prometheus, probe logs, tables).
    Import(ImportArgs),
    /// Runs: the evidence gathered about platforms.
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Rank the platforms side by side, with how robust the ranking is.
    Rank(RankArgs),
    /// What finishing a job costs on each platform, in time and money, from
    /// what was measured there, with its spread.
    Cost(CostArgs),
    /// Each metric behind a platform's scores, with the runs it came from.
    Explain(ExplainArgs),
    /// What a workload would cost on every platform's billing rule.
    Bill(BillArgs),
    /// Delivered performance side by side: each accelerator model's
    /// platforms, every figure against the datasheet and its peers.
    Perf,
    /// Weight profiles: how much each breakpoint and metric matters.
    #[command(subcommand)]
    Weights(WeightsCommand),
    /// The GPUs of this machine over NVML: inventory, delivery check,
    /// sampling, wrapping a workload.
    #[command(subcommand)]
    Probe(ProbeCommand),
    /// The acceptance checks, run on a rented instance; each writes a log
    /// that imports.
    #[command(subcommand)]
    Accept(AcceptCommand),
    /// Startup campaigns: launch instances through a platform's own tools,
    /// time each stage, tear everything down.
    #[command(subcommand)]
    Campaign(CampaignCommand),
    /// Workspace bundles: evidence to hand to a colleague or a reviewer,
    /// and to merge theirs.
    #[command(subcommand)]
    Bundle(BundleCommand),
    /// Write the decision-matrix PDF.
    Report(ReportArgs),
    /// Build the demo workspace (the four-breakpoint review's platforms A–F) and rank it.
    Demo(DemoArgs),
    /// The database itself.
    #[command(subcommand)]
    Db(DbCommand),
}

#[derive(Debug, Args, Clone)]
pub struct RankArgs {
    /// Weight profile [default: balanced].
    #[arg(long)]
    pub profile: Option<String>,
    /// Override a breakpoint weight: startup=0.4 (repeatable; shares are renormalised).
    #[arg(long = "weight", value_name = "BREAKPOINT=W")]
    pub weights: Vec<String>,
    /// Weight draws for rank acceptability.
    #[arg(long, default_value_t = breakpoint_api::ranking::SAMPLES)]
    pub samples: usize,
    /// Seed of the weight draws (same seed, same result).
    #[arg(long, default_value_t = breakpoint_api::ranking::SEED)]
    pub seed: u64,
    /// Dirichlet concentration of the draws: larger stays closer to the profile.
    #[arg(long, default_value_t = breakpoint_api::ranking::CONCENTRATION)]
    pub concentration: f64,
    /// Also draw each metric within its run-to-run spread.
    #[arg(long)]
    pub spread: bool,
    #[command(flatten)]
    pub window: WindowArgs,
    #[command(flatten)]
    pub money: MoneyArgs,
}

impl Command {
    /// Whether the command stores anything. Commands that only read refuse a
    /// database that is not there (a mistyped `--db` must not silently become
    /// an empty one) and work on read-only files, folders and mounts.
    pub fn writes(&self) -> bool {
        match self {
            Command::Platform(c) => match c {
                PlatformCommand::List
                | PlatformCommand::Show { .. }
                | PlatformCommand::Templates => false,
                PlatformCommand::Energy { pue, reset, .. } => pue.is_some() || *reset,
                _ => true,
            },
            Command::Offering(c) => !matches!(c, OfferingCommand::List { .. }),
            Command::Billing(c) => !matches!(c, BillingCommand::Show { .. }),
            Command::Claim(c) => !matches!(c, ClaimCommand::List { .. }),
            Command::Decision(_) => false,
            Command::Rates(c) => match c {
                RatesCommand::List { .. } => false,
                RatesCommand::Currency { code } => code.is_some(),
                _ => true,
            },
            Command::Runs(c) => matches!(c, RunsCommand::Rm { .. }),
            Command::Weights(c) => !matches!(c, WeightsCommand::List | WeightsCommand::Show { .. }),
            Command::Rank(_)
            | Command::Cost(_)
            | Command::Explain(_)
            | Command::Bill(_)
            | Command::Perf
            | Command::Report(_)
            | Command::Db(DbCommand::Info) => false,
            Command::Db(DbCommand::Init) => true,
            Command::Bundle(c) => matches!(c, BundleCommand::Import { .. }),
            Command::Import(_) | Command::Probe(_) | Command::Demo(_) => true,
            Command::Campaign(c) => matches!(c, CampaignCommand::Run(_)),
            Command::Accept(AcceptCommand::Network(a)) => a.record.import,
            Command::Accept(AcceptCommand::Storage(a)) => a.record.import,
            Command::Accept(AcceptCommand::Stress(a)) => a.session.import,
            Command::Accept(AcceptCommand::BillingProbe(a)) => a.record.import,
            Command::Accept(AcceptCommand::Failover(a)) => a.record.import,
            Command::Accept(AcceptCommand::All(_)) => false,
            Command::Accept(AcceptCommand::Ready(a)) => a.record.import,
            Command::Accept(AcceptCommand::Drift(a)) => a.record.import,
            Command::Accept(AcceptCommand::Perf(a)) => a.record.import,
            Command::Accept(AcceptCommand::Operators(_) | AcceptCommand::Checklists(_)) => false,
        }
    }
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[arg(long)]
    pub profile: Option<String>,
    /// Where to write the PDF [default: decision-matrix.pdf; with
    /// --categories, only where given].
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Print the matrix in another rating's categories: `clustermax`
    /// (SemiAnalysis ClusterMAX 2.0's ten), with each category's expected
    /// checks as measured or not and a cmax audit's results.
    #[arg(long, value_name = "SCHEME")]
    pub categories: Option<CategoryScheme>,
    /// Replace what is at the path even if it is not a plain file (a link,
    /// a device, a pipe); the workspace itself never.
    #[arg(long)]
    pub force: bool,
    /// Language of the report: en or zh.
    #[arg(long, default_value = "en")]
    pub lang: breakpoint_report::Lang,
    #[arg(long)]
    pub title: Option<String>,
    /// The date printed on the report (YYYY-MM-DD) [default: today].
    #[arg(long)]
    pub date: Option<jiff::civil::Date>,
    /// Weight draws for the robustness page.
    #[arg(long, default_value_t = breakpoint_api::ranking::SAMPLES)]
    pub samples: usize,
    #[arg(long, default_value_t = breakpoint_api::ranking::SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub window: WindowArgs,
    #[command(flatten)]
    pub money: MoneyArgs,
    /// Also write the evidence behind it beside the PDF (a workspace
    /// bundle, FILE.bundle.tar); the PDF names the bundle's SHA-256.
    #[arg(long)]
    pub bundle: bool,
    /// Cost this job on every platform, on a page of its own ("gpus=8,work=2000h,…", as `cost --job`).
    #[arg(long, value_name = "SPEC")]
    pub job: Option<String>,
}

/// The categories `report --categories` places the evidence in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CategoryScheme {
    /// SemiAnalysis ClusterMAX 2.0's ten categories.
    Clustermax,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The platform (omit with --metrics).
    #[arg(required_unless_present = "metrics")]
    pub platform: Option<String>,
    /// Only this breakpoint: startup, sustain, switch or billing.
    pub breakpoint: Option<Breakpoint>,
    #[arg(long)]
    pub profile: Option<String>,
    /// Print every metric's definition and anchors instead.
    #[arg(long)]
    pub metrics: bool,
    /// Each metric run by run over time, and whether the latest runs are
    /// worse than the baseline (docs/history.md).
    #[arg(long)]
    pub history: bool,
    #[command(flatten)]
    pub window: WindowArgs,
    #[command(flatten)]
    pub money: MoneyArgs,
}

#[derive(Debug, Args)]
pub struct BillArgs {
    /// "compute=1h42m18s,io-wait=35m,queue=0[,sessions=N][,gpus=N]", a JSON
    /// file of sessions, or "reference" (the four-breakpoint review's job) [default: reference].
    #[arg(long, value_name = "SPEC|FILE")]
    pub workload: Option<String>,
    /// Derive the workload from a stored run: utilisation > 10 % is compute.
    #[arg(long, value_name = "RUN", conflicts_with = "workload")]
    pub from_run: Option<i64>,
    /// Instead: the imported bills against what was measured — each line
    /// the measurements do not bear out, priced (the dispute sheet).
    #[arg(long, conflicts_with_all = ["workload", "from_run"])]
    pub disputes: bool,
    /// With --disputes: only this platform's bills.
    #[arg(long, requires = "disputes")]
    pub platform: Option<String>,
    /// With --disputes: also write the sheet as CSV here.
    #[arg(short, long, requires = "disputes")]
    pub output: Option<std::path::PathBuf>,
    /// Replace what is at the path even if it is not a plain file (a link,
    /// a device, a pipe); the workspace itself never.
    #[arg(long, requires = "output")]
    pub force: bool,
    #[command(flatten)]
    pub money: MoneyArgs,
}

#[derive(Debug, Subcommand)]
pub enum WeightsCommand {
    /// List the profiles.
    List,
    /// Show a profile's weights, metric weights and curves.
    Show { name: String },
    /// Create a profile (starting from another with --from).
    #[command(allow_negative_numbers = true)]
    Add(WeightArgs),
    /// Change a profile you created.
    #[command(allow_negative_numbers = true)]
    Set(WeightArgs),
    /// Delete a profile you created.
    Rm { name: String },
}

#[derive(Debug, Args)]
pub struct WeightArgs {
    pub name: String,
    /// Start from this profile's settings [default: balanced].
    #[arg(long)]
    pub from: Option<String>,
    #[arg(long)]
    pub startup: Option<f64>,
    #[arg(long)]
    pub sustain: Option<f64>,
    #[arg(long)]
    pub switch: Option<f64>,
    #[arg(long)]
    pub billing: Option<f64>,
    /// A metric's weight inside its breakpoint: sustain.power_drop_pct=2 (repeatable).
    #[arg(long = "metric", value_name = "KEY=W")]
    pub metrics: Vec<String>,
    /// A metric's anchors: startup.peak_p50_s=5:1800:log (best:worst[:log]; repeatable).
    #[arg(long = "curve", value_name = "KEY=BEST:WORST[:log]")]
    pub curves: Vec<String>,
    /// Coverage under which a platform is "insufficient evidence" (0–1).
    #[arg(long)]
    pub threshold: Option<f64>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Seed of the simulator that generates the demo's logs.
    #[arg(long, default_value_t = 7)]
    pub demo_seed: u64,
    #[command(flatten)]
    pub rank: RankArgs,
}

#[derive(Debug, Subcommand)]
pub enum PlatformCommand {
    /// Add a platform, by hand or from a built-in template.
    #[command(allow_negative_numbers = true)]
    Add {
        /// Its name, in any script (阿里云). Optional with --template.
        #[arg(required_unless_present = "template")]
        name: Option<String>,
        /// Start from a built-in template (see `breakpoint platform templates`).
        #[arg(long)]
        template: Option<String>,
        /// hyperscaler, ai-native, chip-vendor, marketplace or other.
        #[arg(long, default_value = "other", conflicts_with = "template")]
        kind: PlatformKind,
        #[arg(long)]
        notes: Option<String>,
    },
    /// List platforms with what they hold.
    List,
    /// Show a platform with its offerings, billing rules and claims.
    Show { name: String },
    /// Change a platform's name, kind or notes.
    Edit {
        name: String,
        #[arg(long = "name", value_name = "NEW_NAME")]
        new_name: Option<String>,
        #[arg(long)]
        kind: Option<PlatformKind>,
        /// New notes (an empty string clears them).
        #[arg(long)]
        notes: Option<String>,
    },
    /// Delete a platform; with offerings or runs, only with --yes.
    Rm {
        name: String,
        /// Also delete its offerings, billing rules, claims and runs.
        #[arg(long)]
        yes: bool,
    },
    /// List the built-in templates.
    Templates,
    /// The PUE and grid carbon intensity that turn a platform's measured
    /// GPU energy into facility energy and CO₂ (estimates; docs/energy.md).
    /// Without values, shows what is in use.
    Energy {
        name: String,
        /// Facility energy / IT energy (at least 1).
        #[arg(long, requires = "grid")]
        pue: Option<f64>,
        /// Grams of CO₂ per kWh of the grid the platform draws from.
        #[arg(long, requires = "pue")]
        grid: Option<f64>,
        /// Back to the documented defaults.
        #[arg(long, conflicts_with_all = ["pue", "grid"])]
        reset: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum OfferingCommand {
    /// Add an offering to a platform.
    #[command(allow_negative_numbers = true)]
    Add(OfferingArgs),
    /// List offerings (of one platform with --platform).
    List {
        #[arg(long)]
        platform: Option<String>,
    },
    /// Delete an offering (runs keep their snapshot of it).
    Rm { id: i64 },
}

#[derive(Debug, Args)]
pub struct OfferingArgs {
    #[arg(long)]
    pub platform: String,
    /// Accelerator as the platform names it ("A100 80GB SXM", "Ascend 910B3").
    #[arg(long)]
    pub accelerator: String,
    /// Override the vendor guessed from the name.
    #[arg(long)]
    pub vendor: Option<Vendor>,
    /// Accelerators per node.
    #[arg(long, default_value_t = 1)]
    pub count: u32,
    #[arg(long)]
    pub vram_gib: Option<u32>,
    #[arg(long)]
    pub form_factor: Option<FormFactor>,
    #[arg(long)]
    pub interconnect: Option<Interconnect>,
    #[arg(long)]
    pub pcie_gen: Option<u32>,
    #[arg(long)]
    pub pcie_width: Option<u32>,
    #[arg(long)]
    pub cpu_cores: Option<u32>,
    #[arg(long)]
    pub ram_gib: Option<u32>,
    #[arg(long)]
    pub region: Option<String>,
    /// Minimum driver version promised ("535.104").
    #[arg(long)]
    pub min_driver: Option<String>,
    /// Minimum CUDA version promised ("12.2").
    #[arg(long)]
    pub min_cuda: Option<String>,
    /// Currency of the prices (three letters).
    #[arg(long, default_value = "CNY")]
    pub currency: String,
    /// Price per accelerator-hour, on demand.
    #[arg(long)]
    pub price_on_demand: Option<f64>,
    /// Price per accelerator-hour, spot/preemptible.
    #[arg(long)]
    pub price_spot: Option<f64>,
    /// Monthly subscription, per accelerator-hour.
    #[arg(long)]
    pub price_monthly: Option<f64>,
    /// Keeping data on the platform's disks, per GB-month (a job's dataset
    /// and checkpoints: `cost --job …,storage=2TB`).
    #[arg(long)]
    pub price_storage: Option<f64>,
    /// Moving data in or out, per GB, where the platform bills it
    /// (`cost --job …,data=500GB`).
    #[arg(long)]
    pub price_transfer: Option<f64>,
}

#[derive(Debug, Subcommand)]
pub enum BillingCommand {
    /// Set the billing rule of a platform (or one offering) for a mode.
    #[command(allow_negative_numbers = true)]
    Set(BillingArgs),
    /// Show a platform's billing rules.
    Show {
        #[arg(long)]
        platform: String,
    },
}

#[derive(Debug, Args)]
pub struct BillingArgs {
    #[arg(long)]
    pub platform: String,
    /// Only for this offering (default: the platform's rule).
    #[arg(long)]
    pub offering: Option<i64>,
    #[arg(long, default_value = "on-demand")]
    pub mode: BillingMode,
    /// Billing unit: seconds, or with a unit: 1s, 1m, 1h, 1d, 30d.
    #[arg(long, value_parser = parse_seconds)]
    pub granularity: u32,
    /// Shortest duration charged: seconds, or 1s, 1m, 1h, 1d.
    #[arg(long, value_parser = parse_seconds, default_value = "0")]
    pub minimum: u32,
    #[arg(long, default_value = "ceil")]
    pub rounding: Rounding,
    /// Is time waiting in a queue billed?
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
    pub bills_queue: bool,
    /// Is time waiting on IO billed?
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub bills_io_wait: bool,
    /// Is idle time of a running instance billed?
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub bills_idle: bool,
    /// Is storage of a stopped instance billed?
    #[arg(long, default_value_t = false, action = clap::ArgAction::Set)]
    pub bills_stopped_storage: bool,
    /// Price per accelerator-hour while idle, where it differs.
    #[arg(long)]
    pub idle_price: Option<f64>,
    #[arg(long)]
    pub notes: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum ClaimCommand {
    /// Record a figure someone states, with its source.
    #[command(allow_negative_numbers = true)]
    Add {
        #[arg(long)]
        platform: String,
        /// What it is about ("availability").
        #[arg(long)]
        subject: String,
        #[arg(long)]
        value: Option<f64>,
        #[arg(long)]
        unit: Option<String>,
        #[arg(long)]
        text: Option<String>,
        /// Where it comes from ("contract §4.2", "review 2024-06").
        #[arg(long)]
        source: String,
    },
    /// List claims (of one platform with --platform).
    List {
        #[arg(long)]
        platform: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files, or directories whose files are all imported (one run per file).
    #[arg(required_unless_present = "prometheus", value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub pull: PullArgs,
    /// The platform the logs are about.
    #[arg(long)]
    pub platform: String,
    /// The offering the logs are about (its price and billing rule are frozen into the run).
    #[arg(long)]
    pub offering: Option<i64>,
    /// The breakpoint the run informs [default: from the format].
    #[arg(long)]
    pub kind: Option<RunKind>,
    /// Force a format instead of detecting it from the content.
    #[arg(long, ignore_case = true, value_parser = format_parser())]
    pub format: Option<Format>,
    /// Time zone of timestamps written without one (IANA name, UTC or +08:00) [default: local].
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
    /// Sampling interval for logs whose rows carry no time (500ms, 1s, 30s).
    #[arg(long, value_parser = parse_interval_ms, value_name = "DURATION")]
    pub interval: Option<u32>,
    /// Field list of a header-less nvidia-smi CSV: the --query-gpu list, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "FIELDS")]
    pub fields: Option<Vec<String>>,
    /// When logs without dates began (2024-06-01 or 2024-06-01T08:00:00+08:00).
    #[arg(long, value_name = "TIME")]
    pub start: Option<String>,
    /// The day a price catalog's quotes held (YYYY-MM-DD), where the catalog
    /// does not say [default: the file's modification day].
    #[arg(long, value_name = "DATE")]
    pub as_of: Option<jiff::civil::Date>,
    /// Store what can be read and record each unreadable line as a warning.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Say where each file's import spent its time: the wall clock by stage, and each thread's processor time.
    #[arg(long)]
    pub timings: bool,
}

#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// List runs (of one platform with --platform).
    List {
        #[arg(long)]
        platform: Option<String>,
    },
    /// Show one run: provenance, inventory, snapshot, evidence counts.
    Show { id: i64 },
    /// Delete a run with its samples and evidence; a run that holds any,
    /// only with --yes.
    Rm {
        id: i64,
        /// Delete its samples and records too.
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Path, schema version, counts and sizes.
    Info,
    /// Create the database, empty, where it is not there yet (commands that
    /// only read never create one).
    Init,
}

/// Milliseconds from "500ms", "1s", "1.5s", "2m" or a bare number of seconds.
fn parse_interval_ms(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let (number, factor) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000.0)
    } else {
        (t, 1000.0)
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|v| v * factor)
        .filter(|ms| ms.is_finite() && *ms >= 1.0 && *ms <= f64::from(u32::MAX))
        .map(|ms| ms.round() as u32)
        .ok_or_else(|| format!("\"{t}\" is not an interval (e.g. 500ms, 1s, 30s)"))
}

/// A duration from "30s", "2m", "1.5h" or "250ms", for options that take
/// one: refused by clap, naming the option, before any command runs.
pub(crate) fn parse_duration_arg(text: &str) -> Result<std::time::Duration, String> {
    breakpoint_api::text::parse_duration(text)
        .ok_or_else(|| format!("\"{}\" is not a duration (e.g. 30s, 10m, 1h)", text.trim()))
}

/// A size ("4GB", "1.5TiB"), in bytes.
pub(crate) fn parse_size_arg(text: &str) -> Result<u64, String> {
    breakpoint_api::sizes::parse_bytes("size", text)
        .map(|b| b as u64)
        .map_err(|e| e.reason)
        .and_then(|b| {
            if b == 0 {
                Err("a size above zero".to_string())
            } else {
                Ok(b)
            }
        })
}

/// `--format`: one of the formats' labels, listed in `--help`.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    clap::builder::PossibleValuesParser::new(Format::ALL.iter().map(|f| f.as_str()))
        .try_map(|label| label.parse::<Format>())
}

/// Seconds from "90", "90s", "5m" or "1h".
#[derive(Debug, Subcommand)]
pub enum RatesCommand {
    /// Record a dated rate: how many TO one FROM is worth (USD CNY 7.10).
    Add {
        from: String,
        to: String,
        rate: String,
        /// The day the rate held (2026-12-01) [default: today].
        #[arg(long)]
        on: Option<String>,
        /// Where the rate comes from (a bank, the ECB, a contract).
        #[arg(long)]
        source: Option<String>,
    },
    /// Import rates: the ECB's reference-rate CSV as downloaded, or a table
    /// of date,from,to,rate[,source].
    Import { file: PathBuf },
    /// Every pair held, summed up; with FROM and TO, that pair's rates.
    List {
        #[arg(requires = "to")]
        from: Option<String>,
        to: Option<String>,
    },
    /// Remove a pair's rate of one day, or all its rates (the inverse pair
    /// stays).
    Rm {
        from: String,
        to: String,
        /// The day whose rate goes (2026-12-01) [default: every day].
        #[arg(long)]
        on: Option<String>,
    },
    /// Show the workspace's reporting currency, or set it (CNY, USD…).
    Currency { code: Option<String> },
}

#[derive(Debug, Subcommand)]
pub enum DecisionCommand {
    /// Each import that moved the lead, a platform's chance of being the
    /// best or the plan: when, what changed, and which evidence moved it.
    Log {
        /// The last N entries.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
}

#[derive(Debug, Args)]
pub struct CostArgs {
    /// The job: "gpus=8,work=2000h[,checkpoint=30m][,restart=5m][,data=500GB][,storage=2TB]
    /// [,deadline=14d][,hours-per-day=24]"; work is GPU-hours on GPUs delivering their
    /// datasheet's matrix throughput. A serving job: "requests=50M,per-gpu=120/s" for work.
    #[arg(long, value_name = "SPEC")]
    pub job: String,
    /// A steady workload over this stretch of calendar time ("3y", "18mo") in
    /// place of one job's work: the job's GPUs busy --utilisation of it.
    #[arg(long, value_name = "TIME")]
    pub horizon: Option<String>,
    /// Share of the horizon the GPUs are busy ("60%").
    #[arg(long, value_name = "PERCENT", requires = "horizon")]
    pub utilisation: Option<String>,
    /// Cost this price mode (on-demand, spot, monthly) [default: the cheapest
    /// of on-demand and monthly for each platform].
    #[arg(long)]
    pub mode: Option<breakpoint_api::domain::BillingMode>,
    /// Draws of the model (more: steadier bands).
    #[arg(long, default_value_t = breakpoint_api::job_cost::DRAWS)]
    pub draws: usize,
    /// Seed of the draws (same seed, same bands).
    #[arg(long, default_value_t = breakpoint_api::job_cost::SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub money: MoneyArgs,
}

/// What is compared like with like: the currency money is shown in, and
/// the accelerator each platform is judged on.
#[derive(Debug, Args, Clone, Default)]
pub struct MoneyArgs {
    /// Report money in this currency (CNY, USD…), converting at the rates
    /// `breakpoint rates` holds [default: the workspace's, else the one
    /// most platforms' prices are in].
    #[arg(long, value_name = "CODE")]
    pub currency: Option<String>,
    /// Compare each platform on this accelerator only ("A100", "H100
    /// 80GB"): the runs measured on it and its offering of it.
    #[arg(long, value_name = "MODEL")]
    pub accelerator: Option<String>,
}

fn parse_seconds(text: &str) -> Result<u32, String> {
    let text = text.trim();
    breakpoint_api::text::duration_seconds(text)
        .filter(|s| s.fract() == 0.0 && *s <= f64::from(u32::MAX))
        .map(|s| s as u32)
        .ok_or_else(|| format!("\"{text}\" is not a duration in seconds (e.g. 1, 60, 1m, 1h, 1d)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn intervals_accept_units() {
        assert_eq!(parse_interval_ms("500ms"), Ok(500));
        assert_eq!(parse_interval_ms("1s"), Ok(1000));
        assert_eq!(parse_interval_ms("1.5s"), Ok(1500));
        assert_eq!(parse_interval_ms("30"), Ok(30_000));
        assert!(parse_interval_ms("0ms").is_err());
        assert!(parse_interval_ms("fast").is_err());
    }

    #[test]
    fn durations_accept_units() {
        assert_eq!(parse_seconds("3600"), Ok(3600));
        assert_eq!(parse_seconds("1h"), Ok(3600));
        assert_eq!(parse_seconds("1m"), Ok(60));
        assert_eq!(parse_seconds("5s"), Ok(5));
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("h").is_err());
    }
}
