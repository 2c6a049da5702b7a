//! What a run saw of the machine: one entry per GPU. Every field is optional
//! because every source reports a different subset (dmon reports none of
//! them, `nvidia-smi -q` nearly all).

use serde::{Deserialize, Serialize};

use crate::accelerator::Accelerator;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuInfo {
    /// The index the source used for this GPU (nvidia-smi's `index`).
    pub index: u32,
    pub host: Option<String>,
    /// Name as reported, normalised.
    pub accelerator: Option<Accelerator>,
    pub uuid: Option<String>,
    pub serial: Option<String>,
    pub pci_bus_id: Option<String>,
    pub vram_mib: Option<u64>,
    pub driver_version: Option<String>,
    pub cuda_version: Option<String>,
    pub vbios_version: Option<String>,
    pub pcie_gen_current: Option<u32>,
    pub pcie_gen_max: Option<u32>,
    pub pcie_width_current: Option<u32>,
    pub pcie_width_max: Option<u32>,
    pub power_limit_default_w: Option<f64>,
    pub power_limit_enforced_w: Option<f64>,
    pub power_limit_min_w: Option<f64>,
    pub power_limit_max_w: Option<f64>,
    pub max_sm_clock_mhz: Option<u32>,
    pub max_mem_clock_mhz: Option<u32>,
    pub nvlink_active: Option<u32>,
    pub ecc_enabled: Option<bool>,
    pub mig_enabled: Option<bool>,
    pub persistence_enabled: Option<bool>,
    /// Why the GPU could not be read when the inventory was taken: it is
    /// listed all the same, so that it counts and its loss is on record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// The MIG instances of a GPU in MIG mode: what a workload gets is one
    /// of these, not the whole card.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mig_instances: Vec<MigInstance>,
}

/// One MIG instance (a slice of a GPU with its own memory).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MigInstance {
    pub uuid: Option<String>,
    /// NVML's name, with the profile ("NVIDIA A100-SXM4-80GB MIG 1g.10gb").
    pub name: Option<String>,
    pub vram_mib: Option<u64>,
}
