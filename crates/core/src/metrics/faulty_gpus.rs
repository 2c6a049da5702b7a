//! The share of a platform's GPUs found faulty where no rate counts the
//! fault: a health check that failed on the GPU (`dcgmi diag`'s hardware
//! tests), retired pages or row remaps waiting for a reset, a failed remap,
//! and a platform fault (an Xid the catalogue blames on the platform, a
//! GPU lost or needing a reset) in a log with no exposure of its own — a
//! kernel excerpt of seconds, an excerpt without times — that no sampled
//! run of its node covers.
//!
//! Such evidence has no GPU-hours to divide by, and a rate made from an
//! excerpt would be absurd (one Xid over ten seconds is thousands per 100
//! GPU-hours). What it does show is which GPUs were bad, so it counts as
//! the share of the GPUs observed on the platform — each GPU once across
//! every run, by UUID, else host and PCI address. A fault an interruption
//! rate already holds is not counted here again.

use std::collections::BTreeMap;

use super::RunValue;
use super::aggregate::{RunFigures, gpu_identity};
use super::faults::{Placed, describe};
use crate::conformity::health_checks;
use crate::domain::{Event, EventKind, Run};
use crate::metrics::catalog::keys;

pub(super) const KEY: &str = keys::SUSTAIN_FAULTY_GPUS_PCT;
const INTERRUPTIONS: &str = keys::SUSTAIN_INTERRUPTIONS_PER_100H;

/// A GPU as the platform knows it, and the run that first observed it.
struct Observed {
    /// The figures' index of the run it counts with.
    run: usize,
    label: String,
    faults: Vec<String>,
    /// Whether it adds to the GPUs observed: a fault no GPU is named for,
    /// in a run that observed its GPUs, is one of them (a collective's
    /// wrong result on a node whose ranks it judged), not one more.
    counted: bool,
}

/// Give each run that observed GPUs its part of the platform's share: the
/// GPUs it was first to observe, and those of them found faulty.
pub(super) fn add(figures: &mut [RunFigures], events: &[Vec<Event>], placed: &Placed) {
    let mut gpus: BTreeMap<String, Observed> = BTreeMap::new();
    for (index, f) in figures.iter().enumerate() {
        let run = f.run;
        let seen = observed(f);
        for &gpu in &seen {
            gpus.entry(identity(run, gpu)).or_insert_with(|| Observed {
                run: index,
                label: label(run, Some(gpu)),
                faults: Vec::new(),
                counted: true,
            });
        }
        for (gpu, fault) in findings(f, &events[index], placed) {
            let key = match gpu {
                Some(g) => identity(run, g),
                None => format!("run #{} an unnamed GPU", run.id),
            };
            gpus.entry(key)
                .or_insert_with(|| Observed {
                    run: index,
                    label: label(run, gpu),
                    faults: Vec::new(),
                    counted: gpu.is_some() || seen.is_empty(),
                })
                .faults
                .push(fault);
        }
    }
    let mut parts: BTreeMap<usize, (usize, Vec<String>)> = BTreeMap::new();
    for g in gpus.into_values() {
        let part = parts.entry(g.run).or_default();
        part.0 += usize::from(g.counted);
        if !g.faults.is_empty() {
            let mut faults = g.faults;
            faults.dedup();
            part.1.push(format!("{}: {}", g.label, faults.join(", ")));
        }
    }
    for (index, (observed, faulty)) in parts {
        let detail = if faulty.is_empty() {
            format!("{observed} GPU(s) observed, none found faulty")
        } else {
            format!(
                "{} of {observed} GPU(s) found faulty: {}",
                faulty.len(),
                faulty.join("; ")
            )
        };
        figures[index].values.push(RunValue::pooled(
            KEY,
            faulty.len() as f64,
            observed as f64,
            Some(detail),
        ));
    }
}

/// The GPUs a run watched: a sampled run's inventory and the GPUs its
/// figures name, and the GPUs a health check passed judgement on (gpu-burn,
/// gpu-fryer, a validated collective). A run of results alone (a perf log,
/// a delivery check) watched no GPU's health; the GPUs a finding names
/// count where it is found.
fn observed(f: &RunFigures) -> Vec<u32> {
    let mut gpus: Vec<u32> = f
        .run
        .metadata
        .get(crate::domain::CHECKED_GPUS)
        .and_then(|v| v.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|g| g.as_u64().and_then(|g| u32::try_from(g).ok()))
                .collect()
        })
        .unwrap_or_default();
    if !f.run.watched() {
        gpus.sort_unstable();
        gpus.dedup();
        return gpus;
    }
    gpus.extend(f.run.inventory.iter().map(|g| g.index));
    gpus.extend(f.values.iter().flat_map(|v| v.gpus.iter().map(|g| g.gpu)));
    gpus.sort_unstable();
    gpus.dedup();
    gpus
}

/// What a run found wrong with its GPUs that no rate counts: its health
/// findings, and its platform faults where neither its own rate nor a
/// sampled run's holds them. By GPU number (`None`: the evidence names no
/// GPU).
fn findings(f: &RunFigures, events: &[Event], placed: &Placed) -> Vec<(Option<u32>, String)> {
    let run = f.run;
    let mut found = health_findings(run, events);
    // A run whose interruptions hold its faults (it was sampled, or its log
    // is long enough to be a rate) has none left over here.
    let has_rate = f
        .values
        .iter()
        .any(|v| v.key == INTERRUPTIONS && v.pooled.is_some_and(|p| p.exposure > 0.0));
    for (position, e) in events.iter().enumerate() {
        if e.counts_against_platform() && !has_rate && !placed.contains(&(run.id, position)) {
            found.push((e.gpu, describe(e)));
        }
    }
    found
}

/// What a run's health evidence found wrong with its GPUs, whatever else
/// the platform holds: failed hardware tests, health-fault events, faults
/// of a kernel excerpt without times.
pub fn health_findings(run: &Run, events: &[Event]) -> Vec<(Option<u32>, String)> {
    let mut found: Vec<(Option<u32>, String)> = Vec::new();
    for c in health_checks(run)
        .into_iter()
        .filter(|c| c.failed() && !c.checks_configuration())
    {
        let what = format!("dcgmi diag {} failed", c.test);
        match c.gpu_index() {
            Some(g) => found.push((Some(g), what)),
            // Every GPU the test ran on: those the run lists, else one.
            None if run.inventory.is_empty() => found.push((None, what)),
            None => found.extend(run.inventory.iter().map(|g| (Some(g.index), what.clone()))),
        }
    }
    found.extend(untimed_faults(run));
    if let Some(serde_json::Value::Array(untimed)) = run.metadata.get(crate::domain::UNTIMED_HEALTH)
    {
        found.extend(untimed.iter().filter_map(|u| {
            let gpu = u["gpu"].as_u64().and_then(|g| u32::try_from(g).ok());
            Some((
                gpu,
                format!("{} (output without a time)", u["what"].as_str()?),
            ))
        }));
    }
    for e in events.iter().filter(|e| e.kind == EventKind::HealthFault) {
        let what = e.detail.clone().unwrap_or_else(|| "health fault".into());
        found.push((e.gpu, what));
    }
    found
}

/// The faults a kernel log holds without times — an excerpt, or dmesg that
/// does not give its boot time — kept in its metadata since no time places
/// them: each GPU that fell off or failed to start, each platform-fault Xid.
fn untimed_faults(run: &Run) -> Vec<(Option<u32>, String)> {
    let Some(untimed) = run
        .metadata
        .get("kernel_log")
        .and_then(|k| k.get("untimed"))
        .and_then(|u| u.as_array())
    else {
        return Vec::new();
    };
    untimed
        .iter()
        .filter_map(|u| {
            let gpu = u["gpu"].as_u64().and_then(|g| u32::try_from(g).ok());
            let kind: EventKind = u["kind"].as_str()?.parse().ok()?;
            let what = match (kind, u["code"].as_i64()) {
                (EventKind::GpuLost, _) => "lost (the log gives no time)".to_string(),
                (EventKind::Xid, Some(code))
                    if crate::accelerator::xid::counts_against_platform(Some(code)) =>
                {
                    format!(
                        "{} (the log gives no time)",
                        crate::accelerator::xid::describe(code)
                    )
                }
                _ => return None,
            };
            Some((gpu, what))
        })
        .collect()
}

/// A GPU's identity across runs; one the run cannot tell apart from other
/// machines' is its own.
fn identity(run: &Run, gpu: u32) -> String {
    gpu_identity(run, gpu).unwrap_or_else(|| format!("run #{} GPU {gpu}", run.id))
}

/// "node-3 GPU 5 (00000000:38:00.0)", "run #12 GPU 0", "run #12 a GPU".
fn label(run: &Run, gpu: Option<u32>) -> String {
    let node = run
        .provenance
        .host
        .clone()
        .unwrap_or_else(|| format!("run #{}", run.id));
    let Some(gpu) = gpu else {
        return format!("{node} a GPU");
    };
    let info = run.inventory.iter().find(|g| g.index == gpu);
    let node = info.and_then(|g| g.host.clone()).unwrap_or(node);
    match info.and_then(|g| g.pci_bus_id.as_deref()) {
        Some(pci) => format!("{node} GPU {gpu} ({pci})"),
        None => format!("{node} GPU {gpu}"),
    }
}
