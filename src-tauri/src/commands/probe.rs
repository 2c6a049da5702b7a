use breakpoint_probe::GpuSource;
use breakpoint_probe::nvml::NvmlSource;

use crate::dto::{GpuRow, ProbeState};

/// This machine's GPUs, or why there are none (an empty state that points
/// to importing logs instead).
#[tauri::command]
pub fn probe_inventory() -> ProbeState {
    let inventory = NvmlSource::open().and_then(|mut s| s.inventory());
    match inventory {
        Ok(gpus) => ProbeState {
            status: "ready".into(),
            message: None,
            gpus: gpus
                .into_iter()
                .map(|g| GpuRow {
                    index: g.index,
                    name: g
                        .accelerator
                        .as_ref()
                        .map_or("unknown".into(), |a| a.raw.clone()),
                    canonical: g
                        .accelerator
                        .as_ref()
                        .map_or("unknown".into(), |a| a.canonical.clone()),
                    uuid: g.uuid,
                    vram_mib: g.vram_mib,
                    driver: g.driver_version,
                    cuda: g.cuda_version,
                    pcie: format!(
                        "{}{}",
                        g.pcie_gen_current
                            .map(|x| format!("Gen{x} "))
                            .unwrap_or_default(),
                        g.pcie_width_current
                            .map(|x| format!("x{x}"))
                            .unwrap_or_default()
                    ),
                    power_limit_w: g.power_limit_enforced_w,
                })
                .collect(),
        },
        Err(e) => ProbeState {
            status: "no_gpu".into(),
            message: Some(e.to_string()),
            gpus: Vec::new(),
        },
    }
}
