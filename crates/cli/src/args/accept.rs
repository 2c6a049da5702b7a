//! `breakpoint accept …`: the acceptance checks run on a rented instance.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{ProbeSourceArgs, SessionArgs, parse_interval_ms};

#[derive(Debug, Subcommand, Clone)]
pub enum AcceptCommand {
    /// TCP connect time, jitter and loss to the endpoints a workload
    /// depends on (storage, registry, …), every few seconds.
    Network(AcceptNetworkArgs),
    /// Run a full load (yours: gpu-burn, stress-ng --gpu, a training step
    /// loop) for a while under the probe, sampling every second, and judge
    /// SM utilisation: ≥ 95 % and a swing of at most 10 %.
    Stress(AcceptStressArgs),
    /// A job of an exact length (optionally with a wait inside) recorded to
    /// the millisecond as billing events; imported beside the platform's
    /// bill for the instance, it measures the billing unit.
    BillingProbe(AcceptBillingArgs),
    /// Kill a running training job as a fault would (SIGKILL) and measure
    /// whether and how fast it comes back, and the progress lost.
    Failover(AcceptFailoverArgs),
    /// Run the reference operator suite here (PyTorch on the GPU or NPU,
    /// else NumPy on the CPU) and save every operator's output: a
    /// reference for `accept drift` on other platforms.
    Operators(AcceptOperatorsArgs),
    /// Compare this platform's operator outputs with a reference
    /// platform's: relative L2 and largest error per operator, and the
    /// operators within a tolerance (numeric drift, operator coverage).
    Drift(AcceptDriftArgs),
    /// Measure what each GPU computes and moves (matrix products per dtype,
    /// device-memory, host↔device and peer bandwidth, an all-reduce) with
    /// the platform's PyTorch; name stragglers and, with --duration, a
    /// throughput decay over time.
    Perf(AcceptPerfArgs),
    /// The data path: write a checkpoint to each location and read it back
    /// (throughput, random-read latency, direct I/O where allowed), time an
    /// upload through the platform's own tool, and with --drill cut the
    /// data path under a checkpointing job: does it carry on from the
    /// local cache, stall, or fail?
    Storage(AcceptStorageArgs),
    /// Run at boot: the kernel's boot → the driver answering → a first
    /// computation, as a startup attempt.
    Ready(AcceptReadyArgs),
    /// Every check a plan names (docs/acceptance.md), then a one-page
    /// checklist and one bundle file that `breakpoint import` takes whole.
    All(AcceptAllArgs),
    /// On the workstation: the checklists of the acceptance bundles
    /// imported, per platform.
    Checklists(AcceptChecklistsArgs),
}

impl AcceptCommand {
    /// Reads the workstation's database (the checks themselves need none).
    pub fn reads_database(&self) -> bool {
        matches!(self, AcceptCommand::Checklists(_))
    }
}

#[derive(Debug, Args, Clone)]
pub struct AcceptChecklistsArgs {
    /// Only this platform's (default: every platform's).
    pub platform: Option<String>,
}

/// How the operator suite runs here.
#[derive(Debug, Args, Clone)]
pub struct SuiteArgs {
    /// The Python to run it with (one with PyTorch, or at least NumPy).
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// Where it runs: the best device here, or the one named.
    #[arg(long, default_value = "auto", value_parser = ["auto", "cuda", "npu", "cpu", "numpy"])]
    pub device: String,
    /// Give up after this long.
    #[arg(long, default_value = "10m", value_parser = super::parse_duration_arg)]
    pub suite_timeout: std::time::Duration,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptOperatorsArgs {
    /// The outputs document to write; %N host, %T start time
    /// [default: operators-%N-%T.json].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Seed of the suite's inputs (both sides of a comparison need the same).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the suite (a Python script) here instead of running it, to run
    /// it by hand: `python3 FILE -o outputs.json`.
    #[arg(long, conflicts_with = "output")]
    pub write_script: Option<PathBuf>,
    /// Replace what is at the path even if it is not a plain file (a link,
    /// a device, a pipe); the workspace itself never.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptDriftArgs {
    /// The reference platform's outputs (`accept operators` there).
    #[arg(long)]
    pub reference: PathBuf,
    /// This platform's outputs; by default the suite runs here now, with
    /// the reference's seed.
    #[arg(long)]
    pub outputs: Option<PathBuf>,
    /// An operator passes when its relative L2 error is at most this.
    #[arg(long, default_value_t = breakpoint_accept::drift::DEFAULT_TOLERANCE)]
    pub tolerance: f64,
    /// The drift log to write; %N host, %T start time.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub record: RecordArgs,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptPerfArgs {
    /// The perf log to write; %N host, %T start time
    /// [default: perf-%N-%T.json].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// After the suite, repeat the matrix product on every GPU for this
    /// long: throughput over time (e.g. 1h, 48h).
    #[arg(long, value_parser = super::parse_duration_arg)]
    pub duration: Option<std::time::Duration>,
    /// How often the timeline measures.
    #[arg(long, default_value = "1m", value_parser = super::parse_duration_arg)]
    pub interval: std::time::Duration,
    /// Smaller sizes and fewer repeats (a first look; the figures are less
    /// settled).
    #[arg(long)]
    pub quick: bool,
    /// A GPU this many per cent below its node's best is a straggler.
    #[arg(long, default_value_t = 10.0)]
    pub straggler_pct: f64,
    /// Write the suite (a Python script) here instead of running it:
    /// `python3 FILE -o perf.json`, then `breakpoint import perf.json`.
    #[arg(long, conflicts_with = "output")]
    pub write_script: Option<PathBuf>,
    /// Split the CPU into this many devices run at a fixed pace: a test of
    /// the analysis that measures nothing.
    #[arg(long, hide = true)]
    pub cpu_devices: Option<u32>,
    /// Slow a device by a share of its time, GPU:SHARE[@AFTER_S]: a test of
    /// the analysis, recorded as such in the log.
    #[arg(long, hide = true)]
    pub plant: Vec<String>,
    /// Replace what is at the path even if it is not a plain file (a link,
    /// a device, a pipe); the workspace itself never.
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub record: RecordArgs,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptReadyArgs {
    /// The first computation, e.g. "python3 -c 'import torch; torch.ones(1).cuda()'".
    #[arg(long)]
    pub first_compute: String,
    /// When the instance was requested (RFC 3339, from a campaign or you);
    /// default: the kernel's boot.
    #[arg(long)]
    pub submitted_at: Option<jiff::Timestamp>,
    /// Give up after this long.
    #[arg(long, default_value = "10m", value_parser = super::parse_duration_arg)]
    pub timeout: std::time::Duration,
    /// The startup-attempts table to write; %N host, %T start time.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub record: RecordArgs,
    #[command(flatten)]
    pub source: ProbeSourceArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptAllArgs {
    /// The plan (TOML).
    #[arg(long)]
    pub plan: PathBuf,
    /// The bundle to write; %N host, %T start time [default: acceptance-%N-%T.tar].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub source: ProbeSourceArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptFailoverArgs {
    /// The job's log, where its progress lines go.
    #[arg(long)]
    pub log: PathBuf,
    /// The job's program or script, as it appears among its arguments
    /// (train.py): every process running it is killed.
    #[arg(long)]
    pub job: String,
    /// How progress lines read; the first group is the step.
    #[arg(long, default_value = r"step (\d+)")]
    pub progress: String,
    /// Kill this long after the drill starts.
    #[arg(long, default_value = "30s", value_parser = super::parse_duration_arg)]
    pub after: std::time::Duration,
    /// How long the platform has to bring the job back.
    #[arg(long, default_value = "2m", value_parser = super::parse_duration_arg)]
    pub window: std::time::Duration,
    /// Run this if the job is not back within the window (your resume).
    #[arg(long)]
    pub resume: Option<String>,
    /// The fault-drills table to write; %N host, %T start time.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptBillingArgs {
    /// The instance id exactly as the platform's bill will name it.
    #[arg(long)]
    pub instance: String,
    /// The job's working time.
    #[arg(long, default_value = "90s", value_parser = super::parse_duration_arg)]
    pub seconds: std::time::Duration,
    /// A wait in the middle of the job (e.g. 300s), to learn whether
    /// waiting is billed.
    #[arg(long, value_parser = super::parse_duration_arg)]
    pub sleep: Option<std::time::Duration>,
    /// The billing-events table to write; %N host, %T start time.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptStressArgs {
    /// How long the load runs (then it is stopped: SIGTERM, SIGKILL after
    /// the grace period).
    #[arg(long, default_value = "5m", value_parser = parse_interval_ms)]
    pub duration: u32,
    /// Time between samples.
    #[arg(long, default_value = "1s", value_parser = parse_interval_ms)]
    pub interval: u32,
    #[command(flatten)]
    pub session: SessionArgs,
    /// The load and its arguments (after --).
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptStorageArgs {
    /// Where the job's data and checkpoints live: a data disk, a shared or
    /// network file system (repeatable).
    #[arg(long = "path", value_name = "DIR")]
    pub paths: Vec<PathBuf>,
    /// The instance's local SSD, the cache a job falls back on (repeatable).
    #[arg(long = "local", value_name = "DIR")]
    pub local: Vec<PathBuf>,
    /// The checkpoint written and read back at each location (4GB, 20GB).
    #[arg(long, default_value = "4GB", value_parser = super::parse_size_arg)]
    pub checkpoint: u64,
    /// Time an upload through this command, {file} standing for the file
    /// ("ossutil cp {file} oss://bucket/x", "scp {file} host:/data/").
    #[arg(long, value_name = "COMMAND")]
    pub upload: Option<String>,
    /// The size of the file uploaded.
    #[arg(long, default_value = "1GB", value_parser = super::parse_size_arg)]
    pub upload_size: u64,
    /// Cut the data path (the first --path) under a job writing a
    /// checkpoint every --every, with --cut, then bring it back with
    /// --restore; asks first.
    #[arg(long, requires_all = ["cut", "restore"])]
    pub drill: bool,
    /// The command that cuts the path ("umount -l /mnt/data", an iptables
    /// rule dropping the storage endpoint).
    #[arg(long, value_name = "COMMAND")]
    pub cut: Option<String>,
    /// The command that brings it back ("mount /mnt/data").
    #[arg(long, value_name = "COMMAND")]
    pub restore: Option<String>,
    /// How long the path stays cut.
    #[arg(long, default_value = "60s", value_parser = super::parse_duration_arg)]
    pub cut_for: std::time::Duration,
    /// The drill's job writes a checkpoint this often…
    #[arg(long, default_value = "10s", value_parser = super::parse_duration_arg)]
    pub every: std::time::Duration,
    /// …of this size.
    #[arg(long, default_value = "256MB", value_parser = super::parse_size_arg)]
    pub drill_checkpoint: u64,
    /// A checkpoint that holds the job longer stalls it.
    #[arg(long, default_value = "30s", value_parser = super::parse_duration_arg)]
    pub stall_after: std::time::Duration,
    /// Run the drill without asking.
    #[arg(long)]
    pub yes: bool,
    /// The host name to record.
    #[arg(long)]
    pub host: Option<String>,
    /// The storage log to write; %N becomes the host name, %T the start time.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Args, Clone)]
pub struct AcceptNetworkArgs {
    /// An endpoint as host:port (repeatable).
    #[arg(long = "target", required = true)]
    pub targets: Vec<String>,
    /// Time between rounds.
    #[arg(long, default_value = "5s", value_parser = super::parse_duration_arg)]
    pub every: std::time::Duration,
    /// Stop after this long; Ctrl-C stops sooner.
    #[arg(long, default_value = "10m", value_parser = super::parse_duration_arg)]
    pub duration: std::time::Duration,
    /// A connection that takes longer has failed.
    #[arg(long, default_value = "2s", value_parser = super::parse_duration_arg)]
    pub timeout: std::time::Duration,
    /// The host name to record.
    #[arg(long)]
    pub host: Option<String>,
    /// The network log to write; %N becomes the host name, %T the start time.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub record: RecordArgs,
}

/// Where a check's log goes once written: `--platform P --import` puts it
/// in the workspace as a run of P. Shared by every check that writes one.
#[derive(Debug, Args, Clone, Default)]
pub struct RecordArgs {
    /// The platform the log is about (where --import puts it).
    #[arg(long)]
    pub platform: Option<String>,
    /// Import the log into the database when the check ends (needs --platform).
    #[arg(long, requires = "platform")]
    pub import: bool,
}
