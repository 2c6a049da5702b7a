//! GPU numbers for logs that name GPUs only by PCI address (kernel logs):
//! where another run of the same platform — and the same host, where both
//! name one — lists those addresses with nvidia-smi's numbers (a `-q` or
//! CSV log, the probe), the log takes its numbers and what it knows of the
//! GPUs (name, UUID, memory).

use super::{BuiltRun, normalise_bus_id};
use crate::domain::GpuInfo;
use crate::error::Result;
use crate::store::Store;

/// Renumber `built` after the newest matching run; the id of that run.
pub(super) fn adopt(store: &Store, run_id: i64, built: &mut BuiltRun) -> Result<Option<i64>> {
    let buses: Vec<String> = built
        .inventory
        .iter()
        .filter_map(|g| g.pci_bus_id.as_deref().map(normalise_bus_id))
        .collect();
    if buses.is_empty() || buses.len() != built.inventory.len() {
        return Ok(None);
    }
    let platform_id = store.run(run_id)?.platform_id;
    let mut runs = store.runs(Some(platform_id))?;
    runs.sort_by_key(|r| std::cmp::Reverse(r.id));
    let candidates: Vec<_> = runs
        .into_iter()
        .filter(|r| {
            r.id != run_id
                && match (&built.host, &r.provenance.host) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
                && buses
                    .iter()
                    .all(|bus| index_of(&r.inventory, bus).is_some())
        })
        .collect();
    // A log that names no host may take numbers only where one machine of
    // the platform has GPUs at its addresses: every node of a fleet has a
    // GPU at 0000:17:00.0, and borrowing one's UUID would make another
    // machine's fault that GPU's.
    if built.host.is_none() {
        let mut hosts: Vec<&String> = candidates
            .iter()
            .filter_map(|r| r.provenance.host.as_ref())
            .collect();
        hosts.sort();
        hosts.dedup();
        if hosts.len() > 1 {
            built.warnings.push(format!(
                "the log names no host and {} machines of the platform have GPUs at its PCI addresses: its GPUs keep their own numbers and are matched to no other run's",
                hosts.len()
            ));
            return Ok(None);
        }
    }
    let Some(reference) = candidates.into_iter().next() else {
        return Ok(None);
    };
    // Old number → the reference's number for the same address.
    let map: Vec<(u32, u32, &GpuInfo)> = built
        .inventory
        .iter()
        .filter_map(|g| {
            let bus = normalise_bus_id(g.pci_bus_id.as_deref()?);
            let at = index_of(&reference.inventory, &bus)?;
            Some((
                g.index,
                reference.inventory[at].index,
                &reference.inventory[at],
            ))
        })
        .collect();
    let inventory: Vec<GpuInfo> = map
        .iter()
        .zip(&built.inventory)
        .map(|((_, new, known), own)| GpuInfo {
            index: *new,
            uuid: own.uuid.clone().or_else(|| known.uuid.clone()),
            accelerator: own
                .accelerator
                .clone()
                .or_else(|| known.accelerator.clone()),
            vram_mib: own.vram_mib.or(known.vram_mib),
            serial: own.serial.clone().or_else(|| known.serial.clone()),
            ..own.clone()
        })
        .collect();
    for e in &mut built.events {
        if let Some(g) = e.gpu {
            e.gpu = map
                .iter()
                .find(|(old, _, _)| *old == g)
                .map(|(_, new, _)| *new);
        }
    }
    built.inventory = inventory;
    built.inventory.sort_by_key(|g| g.index);
    built
        .warnings
        .retain(|w| !w.contains("GPU numbers follow the PCI order"));
    built.warnings.push(format!(
        "GPU numbers taken from run {} of the same {} (matched by PCI address)",
        reference.id,
        if built.host.is_some() {
            "host"
        } else {
            "platform"
        }
    ));
    Ok(Some(reference.id))
}

fn index_of(inventory: &[GpuInfo], bus: &str) -> Option<usize> {
    inventory
        .iter()
        .position(|g| g.pci_bus_id.as_deref().map(normalise_bus_id).as_deref() == Some(bus))
}
