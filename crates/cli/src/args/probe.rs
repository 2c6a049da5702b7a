//! `breakpoint probe …`: the GPUs of this machine.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{ServeArgs, parse_interval_ms};

#[derive(Debug, Subcommand)]
pub enum ProbeCommand {
    /// Every GPU: name, UUID, VRAM, driver/CUDA, PCIe, power limits, clocks, NVLink, ECC, MIG.
    Inventory(ProbeSourceArgs),
    /// Compare what was ordered with what is there; exit 0 only when all match.
    Check(CheckArgs),
    /// Sample every GPU to a probe log until the duration ends or Ctrl-C.
    Sample(SampleArgs),
    /// Run a workload under the probe: start latency, samples, busy vs wall time.
    Run(WrapArgs),
    /// Serve the readings as Prometheus metrics under the DCGM exporter's
    /// names (/metrics), for a fleet without DCGM; until Ctrl-C.
    Serve(ServeArgs),
}

impl ProbeCommand {
    /// Whether the command reads or writes the database: a probe on a
    /// rented instance should leave no database behind unless asked to.
    pub fn needs_database(&self) -> bool {
        match self {
            ProbeCommand::Inventory(_) => false,
            ProbeCommand::Check(a) => a.offering.is_some() || a.platform.is_some(),
            ProbeCommand::Sample(a) => a.session.import,
            ProbeCommand::Run(a) => a.session.import,
            ProbeCommand::Serve(_) => false,
        }
    }
}

#[derive(Debug, Args, Clone)]
pub struct ProbeSourceArgs {
    /// Replay a recorded trace instead of reading NVML (for tests and demos).
    #[arg(long, hide = true, value_name = "TRACE")]
    pub replay_trace: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The offering ordered (its platform gets a delivery-check run).
    #[arg(long, conflicts_with = "expect_gpu")]
    pub offering: Option<i64>,
    /// The GPU ordered, e.g. "A100 80GB SXM".
    #[arg(long)]
    pub expect_gpu: Option<String>,
    #[arg(long)]
    pub expect_count: Option<u32>,
    #[arg(long)]
    pub expect_vram_gib: Option<u32>,
    #[arg(long)]
    pub expect_pcie_gen: Option<u32>,
    #[arg(long)]
    pub expect_pcie_width: Option<u32>,
    #[arg(long)]
    pub expect_driver: Option<String>,
    #[arg(long)]
    pub expect_cuda: Option<String>,
    #[arg(long)]
    pub expect_nvlink: bool,
    /// Store the check as a delivery run of this platform.
    #[arg(long)]
    pub platform: Option<String>,
    #[command(flatten)]
    pub source: ProbeSourceArgs,
}

/// What `probe sample` and `probe run` share: where the log goes, what it
/// is about, and whether it is imported at the end.
#[derive(Debug, Args, Clone)]
pub struct SessionArgs {
    /// The host name to record (in containers the pod name is not the node's).
    #[arg(long)]
    pub host: Option<String>,
    /// The platform the log is about (written in it; where --import puts it).
    #[arg(long)]
    pub platform: Option<String>,
    /// The offering (id) the machine was ordered as.
    #[arg(long)]
    pub offering: Option<i64>,
    /// The probe log to write; %N becomes the host name, %T the start time
    /// [default: probe-%N-%T.jsonl].
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Import the log into the database when the session ends (needs --platform).
    #[arg(long, requires = "platform")]
    pub import: bool,
    #[command(flatten)]
    pub source: ProbeSourceArgs,
}

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// Time between samples (down to 100ms).
    #[arg(long, default_value = "1s", value_parser = parse_interval_ms)]
    pub interval: u32,
    /// Stop after this long (e.g. 48h, 30m); default: until Ctrl-C.
    #[arg(long, value_parser = parse_interval_ms)]
    pub duration: Option<u32>,
    #[command(flatten)]
    pub session: SessionArgs,
}

#[derive(Debug, Args)]
pub struct WrapArgs {
    /// Time between samples (down to 100ms).
    #[arg(long, default_value = "500ms", value_parser = parse_interval_ms)]
    pub interval: u32,
    #[command(flatten)]
    pub session: SessionArgs,
    /// The workload: `-- python train.py …`
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}
