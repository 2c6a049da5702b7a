//! Delivery conformity: what was ordered against what is there, mismatch by
//! mismatch. Used by the startup metric (from a run's inventory and its
//! offering snapshot) and by `breakpoint probe check` (live).

use serde::Serialize;

use crate::accelerator::{self, Accelerator};
#[cfg(test)]
use crate::domain::MigInstance;
use crate::domain::{GpuInfo, Interconnect, Offering, Run};

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
    /// model, count, unreadable, vram, mig, pcie_gen, pcie_width, driver,
    /// cuda, nvlink; setup (a failed check of the machine's software and
    /// settings), pcie_link (narrower than the GPU's own width)
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
    if let Some(g) = inventory.iter().find(|g| g.unreadable.is_some()) {
        push(
            "unreadable",
            "every GPU answering".into(),
            format!(
                "GPU {} cannot be read ({})",
                g.index,
                g.unreadable.as_deref().unwrap_or("")
            ),
        );
    }
    // A GPU in MIG mode hands out slices: what a workload gets is the
    // smallest slice's memory, not the card's.
    let usable_mib = |g: &GpuInfo| match g.mig_enabled {
        Some(true) => g.mig_instances.iter().filter_map(|m| m.vram_mib).min(),
        _ => g.vram_mib,
    };
    if let Some(vram) = expected.vram_gib
        && let Some(m) = inventory.iter().filter_map(usable_mib).min()
        && (m as f64 / 1024.0) < f64::from(vram) * 0.95
    {
        push("vram", format!("{vram} GiB"), format!("{m} MiB"));
    }
    if let Some(g) = inventory.iter().find(|g| g.mig_enabled == Some(true)) {
        let slices = g.mig_instances.len();
        let names: Vec<&str> = g
            .mig_instances
            .iter()
            .filter_map(|m| m.name.as_deref())
            .collect();
        push(
            "mig",
            "whole GPUs".into(),
            format!(
                "GPU {} is partitioned (MIG on, {slices} instance{}{})",
                g.index,
                if slices == 1 { "" } else { "s" },
                if names.is_empty() {
                    String::new()
                } else {
                    format!(": {}", names.join(", "))
                }
            ),
        );
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

/// One `dcgmi diag` result, as an import keeps it in a run's metadata
/// (`dcgm_diag`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthCheck {
    pub category: Option<String>,
    pub test: String,
    /// `None`: every GPU the test ran on.
    pub gpu: Option<String>,
    /// Pass, Fail, Warn, Skip as DCGM wrote it.
    pub status: String,
    pub message: Option<String>,
}

impl HealthCheck {
    pub fn failed(&self) -> bool {
        self.status.eq_ignore_ascii_case("fail") || self.status.eq_ignore_ascii_case("failed")
    }

    /// Whether the test checks the machine's software and settings (its
    /// libraries, permissions, persistence mode, environment, other
    /// processes) rather than the GPU: such a failure is a setup the
    /// platform delivered, not a faulty GPU.
    pub fn checks_configuration(&self) -> bool {
        const SETUP: [&str; 8] = [
            "librar",
            "permission",
            "persistence",
            "environment",
            "graphics process",
            "denylist",
            "blacklist",
            "driver version",
        ];
        let test = self.test.to_ascii_lowercase();
        SETUP.iter().any(|s| test.contains(s))
    }

    /// The GPU the result names, by its number; `None` for every GPU the
    /// test ran on (or a name that is no number).
    pub fn gpu_index(&self) -> Option<u32> {
        let gpu = self.gpu.as_deref()?;
        gpu.trim_start_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .ok()
    }

    pub fn warned(&self) -> bool {
        self.status.eq_ignore_ascii_case("warn") || self.status.eq_ignore_ascii_case("warning")
    }
}

/// The health checks a run recorded.
pub fn health_checks(run: &Run) -> Vec<HealthCheck> {
    let Some(serde_json::Value::Array(results)) = run.metadata.get("dcgm_diag") else {
        return Vec::new();
    };
    let text =
        |v: &serde_json::Value, key: &str| v.get(key).and_then(|s| s.as_str()).map(str::to_string);
    results
        .iter()
        .filter_map(|r| {
            Some(HealthCheck {
                category: text(r, "category"),
                test: text(r, "test")?,
                gpu: text(r, "gpu"),
                status: text(r, "status")?,
                message: text(r, "message"),
            })
        })
        .collect()
}

/// GPUs whose PCIe link runs narrower than it can (x8 on an x16 card):
/// half the bandwidth to the host, the seed's own delivery trap. Speed is
/// not compared: GPUs lower it at idle to save power.
pub fn narrowed_links(inventory: &[GpuInfo]) -> Vec<&GpuInfo> {
    inventory
        .iter()
        .filter(|g| matches!((g.pcie_width_current, g.pcie_width_max), (Some(now), Some(max)) if now < max))
        .collect()
}

/// Everything wrong with what a run saw delivered: the differences from
/// the offering it was bought as, and links narrower than the GPU's own.
/// `None` when the run checked nothing (no offering to compare, no link
/// evidence). A GPU found faulty (a failed health check, a fault in a
/// kernel excerpt) is no difference from the order but a fault, counted
/// in the share of GPUs found faulty (`metrics::faulty_gpus`).
pub fn problems(run: &Run) -> Option<Vec<Mismatch>> {
    let mut found = Vec::new();
    let mut checked = false;
    if let (Some(offering), false) = (&run.offering_snapshot, run.inventory.is_empty()) {
        checked = true;
        let mut expected = Expectation::from(offering);
        if !lists_every_gpu(run) {
            expected.count = None;
        }
        found = mismatches(&expected, &run.inventory);
    }
    let mut failed_setup: Vec<(&str, Vec<String>)> = Vec::new();
    let checks = health_checks(run);
    for c in checks
        .iter()
        .filter(|c| c.failed() && c.checks_configuration())
    {
        let gpu = c.gpu.clone().unwrap_or_else(|| "every GPU".into());
        match failed_setup.iter_mut().find(|(t, _)| *t == c.test) {
            Some((_, gpus)) => gpus.push(gpu),
            None => failed_setup.push((&c.test, vec![gpu])),
        }
    }
    checked |= checks.iter().any(HealthCheck::checks_configuration);
    for (test, gpus) in failed_setup {
        found.push(Mismatch {
            what: "setup",
            expected: format!("{test} passing"),
            found: format!("{test} failed on GPU {}", gpus.join(", ")),
        });
    }
    let links_known = run
        .inventory
        .iter()
        .any(|g| g.pcie_width_current.is_some() && g.pcie_width_max.is_some());
    checked |= links_known && run.metadata.contains_key("lspci");
    let narrowed = narrowed_links(&run.inventory);
    if !narrowed.is_empty() && !found.iter().any(|m| m.what == "pcie_width") {
        let g = narrowed[0];
        found.push(Mismatch {
            what: "pcie_link",
            expected: format!(
                "PCIe x{} (the GPU's own width)",
                g.pcie_width_max.unwrap_or(0)
            ),
            found: format!(
                "PCIe x{} on {} GPU{} ({})",
                g.pcie_width_current.unwrap_or(0),
                narrowed.len(),
                if narrowed.len() == 1 { "" } else { "s" },
                narrowed
                    .iter()
                    .map(|g| g
                        .pci_bus_id
                        .clone()
                        .unwrap_or_else(|| format!("GPU {}", g.index)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
        checked = true;
    }
    checked.then_some(found)
}

/// Whether the run's inventory is the machine's whole list of GPUs: a
/// kernel log names only the GPUs the driver spoke of, so one Xid on one
/// GPU is no delivery of one GPU for eight.
fn lists_every_gpu(run: &Run) -> bool {
    !run.metadata.contains_key("kernel_log")
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
    fn a_mig_slice_does_not_pass_for_the_whole_card() {
        let e = Expectation {
            count: Some(1),
            nvlink: true,
            ..Expectation::default()
        }
        .with_gpu("A100 80GB SXM");
        let sliced = GpuInfo {
            mig_enabled: Some(true),
            mig_instances: vec![MigInstance {
                uuid: Some("MIG-1".into()),
                name: Some("NVIDIA A100-SXM4-80GB MIG 1g.10gb".into()),
                vram_mib: Some(9_728),
            }],
            nvlink_active: None,
            ..a100(16)
        };
        let m = mismatches(&e, &[sliced]);
        let kinds: Vec<&str> = m.iter().map(|m| m.what).collect();
        assert_eq!(kinds, ["vram", "mig"], "{m:?}");
        assert_eq!(m[0].found, "9728 MiB");
        assert!(
            m[1].found
                .contains("MIG on, 1 instance: NVIDIA A100-SXM4-80GB MIG 1g.10gb")
        );
        // Unknown NVLink state is not "no active NVLink".
        assert!(!kinds.contains(&"nvlink"));
    }

    #[test]
    fn a_gpu_that_cannot_be_read_is_named() {
        let e = Expectation {
            count: Some(2),
            ..Expectation::default()
        };
        let lost = GpuInfo {
            index: 1,
            unreadable: Some("GPU is lost".into()),
            ..GpuInfo::default()
        };
        let m = mismatches(&e, &[a100(16), lost]);
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].found, "GPU 1 cannot be read (GPU is lost)");
    }

    #[test]
    fn versions_compare_numerically() {
        assert!(version_below("535.54.03", "535.104"));
        assert!(!version_below("535.104.05", "535.104"));
        assert!(version_below("11.8", "12.2"));
        assert!(!version_below("12.10", "12.2"));
    }
}
