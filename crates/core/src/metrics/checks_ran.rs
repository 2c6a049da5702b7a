//! Which of the field's standard cluster checks a run's evidence holds:
//! the active tests a provider or buyer runs at hand-over (DCGM's
//! diagnostics, a burn-in, NCCL inside a node and over the fabric, RDMA
//! between hosts) and the passive watches a monitoring history allows
//! (PCIe replays, a stalled collective). The ClusterMAX view lists each as
//! measured or not, per platform, from this.

use serde::Serialize;

use crate::domain::{
    CHECKED_GPUS, PASSIVE_WATCH, Run, WATCHED_ECC, WATCHED_NVLINK, WATCHED_PCIE_REPLAYS,
    WATCHED_STALLS, audit::CMAX_AUDIT,
};
use crate::perf::{COLLECTIVES, PerfLog};

/// One standard check a run can hold the result of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckRan {
    /// `dcgmi diag`'s results.
    DcgmDiag,
    /// A burn-in: gpu-burn or gpu-fryer.
    BurnIn,
    /// Results compared for silent corruption: gpu-burn's checks, or
    /// nccl-tests with its validation on.
    ResultsCompared,
    /// A collective among the GPUs of one node.
    CollectiveInNode,
    /// A collective across nodes: over the fabric.
    CollectiveOverFabric,
    /// perftest between two hosts (`ib_write_bw`, `ib_write_lat`, …).
    Rdma,
    /// nvbandwidth's (or the perf suite's) host↔device copies.
    HostDeviceCopy,
    /// A history whose PCIe replay counters were watched.
    PcieReplays,
    /// A history with utilisation and power together: a stalled collective
    /// would show.
    StalledCollective,
    /// A history whose ECC error counters were watched.
    EccCounters,
    /// A history whose NVLink error counters were watched.
    NvlinkCounters,
    /// An audit by ClusterMAX's own tool.
    CmaxAudit,
}

/// The checks run `run` holds the results of.
pub fn ran_in(run: &Run) -> Vec<CheckRan> {
    let mut ran = Vec::new();
    let format = run.provenance.format.as_deref().unwrap_or("");
    if run.metadata.contains_key("dcgm_diag") {
        ran.push(CheckRan::DcgmDiag);
    }
    if matches!(format, "gpu-burn" | "gpu-fryer") {
        ran.push(CheckRan::BurnIn);
    }
    let judged = run
        .metadata
        .get(CHECKED_GPUS)
        .and_then(serde_json::Value::as_array)
        .is_some_and(|gpus| !gpus.is_empty());
    if judged && matches!(format, "gpu-burn" | "nccl-tests") {
        ran.push(CheckRan::ResultsCompared);
    }
    if let Some(log) = run
        .metadata
        .get("perf")
        .and_then(|v| serde_json::from_value::<PerfLog>(v.clone()).ok())
    {
        for r in &log.results {
            let test = r.test.as_str();
            if COLLECTIVES.contains(&test) {
                let nodes = r.settings.get("nodes").and_then(serde_json::Value::as_u64);
                ran.push(if nodes.is_some_and(|n| n > 1) {
                    CheckRan::CollectiveOverFabric
                } else {
                    CheckRan::CollectiveInNode
                });
            } else if test.starts_with("rdma_") {
                ran.push(CheckRan::Rdma);
            } else if matches!(test, "h2d" | "d2h") {
                ran.push(CheckRan::HostDeviceCopy);
            }
        }
    }
    if let Some(watched) = run
        .metadata
        .get(PASSIVE_WATCH)
        .and_then(serde_json::Value::as_array)
    {
        for w in watched.iter().filter_map(serde_json::Value::as_str) {
            match w {
                WATCHED_PCIE_REPLAYS => ran.push(CheckRan::PcieReplays),
                WATCHED_STALLS => ran.push(CheckRan::StalledCollective),
                WATCHED_ECC => ran.push(CheckRan::EccCounters),
                WATCHED_NVLINK => ran.push(CheckRan::NvlinkCounters),
                _ => {}
            }
        }
    }
    if run.metadata.contains_key(CMAX_AUDIT) {
        ran.push(CheckRan::CmaxAudit);
    }
    ran.sort();
    ran.dedup();
    ran
}
