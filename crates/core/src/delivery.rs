//! Delivery conformity: what was ordered against what is there, mismatch by
//! mismatch. Used by the startup metric (from a run's inventory and its
//! offering snapshot) and by `breakpoint probe check` (live).

use serde::Serialize;

use crate::accelerator::{self, Accelerator};
use crate::domain::{GpuInfo, Interconnect, NewRun, Offering, Provenance, RunKind, SourceKind};
use crate::store::{RunCompletion, Store};

/// What a delivery should look like. Every part is optional: only what is
/// stated is checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Expectation {
    pub accelerator: Option<Accelerator>,
    pub count: Option<u32>,
    pub vram_gib: Option<u32>,
    pub pcie_gen: Option<u32>,
    pub pcie_width: Option<u32>,
    pub min_driver: Option<String>,
    pub min_cuda: Option<String>,
    pub nvlink: bool,
}

impl From<&Offering> for Expectation {
    fn from(o: &Offering) -> Self {
        Expectation {
            accelerator: Some(o.accelerator.clone()),
            count: Some(o.count),
            vram_gib: o.vram_gib,
            pcie_gen: o.pcie_gen,
            pcie_width: o.pcie_width,
            min_driver: o.min_driver.clone(),
            min_cuda: o.min_cuda.clone(),
            nvlink: matches!(
                o.interconnect,
                Some(Interconnect::Nvlink | Interconnect::Nvswitch)
            ),
        }
    }
}

impl Expectation {
    pub fn with_gpu(mut self, name: &str) -> Self {
        let a = accelerator::normalise(name);
        self.vram_gib = self.vram_gib.or(a.memory_gb);
        self.accelerator = Some(a);
        self
    }
}

/// One difference between order and delivery.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// model, count, vram, pcie_gen, pcie_width, driver, cuda, nvlink
    pub what: &'static str,
    pub expected: String,
    pub found: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} delivered for {}",
            self.what, self.found, self.expected
        )
    }
}

/// Compare dotted versions numerically: "535.104.05" ≥ "535.54".
pub fn version_below(found: &str, wanted: &str) -> bool {
    let parse = |v: &str| -> Vec<u64> {
        v.split(['.', '-'])
            .map(|p| p.trim().parse().unwrap_or(0))
            .collect()
    };
    parse(found) < parse(wanted)
}

/// Every kind of mismatch, at most once each (eight GPUs at x8 are one
/// mismatch: the width).
pub fn mismatches(expected: &Expectation, inventory: &[GpuInfo]) -> Vec<Mismatch> {
    let mut found = Vec::new();
    let mut push = |what, expected: String, got: String| {
        found.push(Mismatch {
            what,
            expected,
            found: got,
        })
    };
    if let Some(count) = expected.count
        && (inventory.len() as u32) < count
    {
        push(
            "count",
            format!("{count} GPUs"),
            format!("{} GPUs", inventory.len()),
        );
    }
    if let Some(want) = &expected.accelerator
        && let Some(a) = inventory
            .iter()
            .filter_map(|g| g.accelerator.as_ref())
            .find(|a| !a.same_product(want))
    {
        push("model", want.canonical.clone(), a.raw.clone());
    }
    if let Some(vram) = expected.vram_gib
        && let Some(m) = inventory.iter().filter_map(|g| g.vram_mib).min()
        && (m as f64 / 1024.0) < f64::from(vram) * 0.95
    {
        push("vram", format!("{vram} GiB"), format!("{m} MiB"));
    }
    if let Some(gen_) = expected.pcie_gen
        && let Some(g) = inventory
            .iter()
            .filter_map(|g| g.pcie_gen_max.or(g.pcie_gen_current))
            .min()
        && g < gen_
    {
        push(
            "pcie_gen",
            format!("PCIe Gen{gen_}"),
            format!("PCIe Gen{g}"),
        );
    }
    if let Some(width) = expected.pcie_width
        && let Some(w) = inventory
            .iter()
            .filter_map(|g| g.pcie_width_current.or(g.pcie_width_max))
            .min()
        && w < width
    {
        push("pcie_width", format!("PCIe x{width}"), format!("PCIe x{w}"));
    }
    if let Some(min) = &expected.min_driver
        && let Some(d) = inventory
            .iter()
            .filter_map(|g| g.driver_version.as_deref())
            .find(|d| version_below(d, min))
    {
        push("driver", format!("driver ≥ {min}"), format!("driver {d}"));
    }
    if let Some(min) = &expected.min_cuda
        && let Some(c) = inventory
            .iter()
            .filter_map(|g| g.cuda_version.as_deref())
            .find(|c| version_below(c, min))
    {
        push("cuda", format!("CUDA ≥ {min}"), format!("CUDA {c}"));
    }
    if expected.nvlink && inventory.iter().any(|g| g.nvlink_active == Some(0)) {
        push("nvlink", "NVLink".into(), "no active NVLink".into());
    }
    found
}

/// Store a live delivery check as a delivery run of the platform: the
/// inventory seen now (the startup metric compares it with the offering's
/// snapshot). Returns the run id.
pub fn record_check(
    store: &Store,
    platform_id: i64,
    offering_id: Option<i64>,
    gpus: &[GpuInfo],
) -> crate::Result<i64> {
    let host = gpus.iter().find_map(|g| g.host.clone());
    let mut run = NewRun::new(platform_id, RunKind::Delivery, SourceKind::Probe);
    run.offering_id = offering_id;
    run.provenance = Provenance {
        format: Some("probe-check".into()),
        host: host.clone(),
        ..Provenance::default()
    };
    store.atomically(|s| -> crate::Result<i64> {
        let created = s.create_run(run)?;
        let now = jiff::Timestamp::now();
        s.complete_run(
            created.id,
            &RunCompletion {
                started_at: Some(now),
                ended_at: Some(now),
                host,
                inventory: gpus.to_vec(),
                ..RunCompletion::default()
            },
        )?;
        Ok(created.id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a100(width: u32) -> GpuInfo {
        GpuInfo {
            accelerator: Some(accelerator::normalise("NVIDIA A100-SXM4-80GB")),
            vram_mib: Some(81_920),
            pcie_gen_max: Some(4),
            pcie_width_current: Some(width),
            driver_version: Some("535.104.05".into()),
            cuda_version: Some("12.2".into()),
            nvlink_active: Some(12),
            ..GpuInfo::default()
        }
    }

    #[test]
    fn a_conforming_delivery_has_no_mismatch() {
        let e = Expectation {
            count: Some(2),
            pcie_width: Some(16),
            pcie_gen: Some(4),
            nvlink: true,
            min_driver: Some("535.54".into()),
            ..Expectation::default()
        }
        .with_gpu("A100 80GB SXM");
        assert!(mismatches(&e, &[a100(16), a100(16)]).is_empty());
    }

    #[test]
    fn each_kind_of_difference_is_named_once() {
        let e = Expectation {
            count: Some(8),
            pcie_width: Some(16),
            min_cuda: Some("12.4".into()),
            ..Expectation::default()
        }
        .with_gpu("H100 80GB SXM");
        let m = mismatches(&e, &[a100(8), a100(8)]);
        let kinds: Vec<&str> = m.iter().map(|m| m.what).collect();
        assert_eq!(kinds, vec!["count", "model", "pcie_width", "cuda"]);
        assert_eq!(
            m[2].to_string(),
            "pcie_width: PCIe x8 delivered for PCIe x16"
        );
    }

    #[test]
    fn versions_compare_numerically() {
        assert!(version_below("535.54.03", "535.104"));
        assert!(!version_below("535.104.05", "535.104"));
        assert!(version_below("11.8", "12.2"));
        assert!(!version_below("12.10", "12.2"));
    }
}
