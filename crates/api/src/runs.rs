//! One run in detail: what the faces show when a user opens a run — its
//! provenance and counts, its events with what each means and whether it
//! counts against the platform, its health checks and conformity problems.

use std::collections::HashMap;

use serde::Serialize;

use crate::accelerator::xid::{self, Blame};
use crate::domain::{Event, EventKind, GpuInfo, Run};
use crate::error::Result;
use crate::metrics::energy::{self, RunEnergy};
use crate::store::Store;
use breakpoint_core::conformity::{self, HealthCheck, Mismatch};

/// The sampled fields a run's samples carry.
pub use breakpoint_core::samples::Field;

/// An event as a user reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventView {
    #[serde(flatten)]
    pub event: Event,
    /// The GPU as the run's inventory names it: its PCI address where known.
    pub gpu_label: Option<String>,
    /// What an Xid means and who is at fault, where the catalogue knows
    /// the code.
    pub meaning: Option<&'static str>,
    /// The same in Chinese.
    pub meaning_zh: Option<&'static str>,
    pub blame: Option<Blame>,
    /// Whether work stopped.
    pub interrupts: bool,
    /// Whether it counts against the platform's sustain score.
    pub counted: bool,
}

impl EventView {
    pub fn of(event: Event, inventory: &[GpuInfo]) -> Self {
        let gpu_label = event.gpu.map(|g| gpu_label(g, inventory));
        let info = (event.kind == EventKind::Xid)
            .then(|| {
                event
                    .code
                    .and_then(|c| u32::try_from(c).ok())
                    .and_then(xid::lookup)
            })
            .flatten();
        Self {
            meaning: info.map(|i| i.meaning),
            meaning_zh: info.map(|i| i.meaning_zh),
            blame: info.map(|i| i.blame),
            interrupts: event.interrupts(),
            counted: event.counts_against_platform(),
            gpu_label,
            event,
        }
    }
}

/// "GPU 3 (00000000:3B:00.0)", or "GPU 3" where the bus is not known.
pub fn gpu_label(gpu: u32, inventory: &[GpuInfo]) -> String {
    match inventory
        .iter()
        .find(|g| g.index == gpu)
        .and_then(|g| g.pci_bus_id.as_deref())
    {
        Some(bus) => format!("GPU {gpu} ({bus})"),
        None => format!("GPU {gpu}"),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunDetail {
    /// The run's own fields come first, at the top level.
    #[serde(flatten)]
    pub run: Run,
    pub platform: String,
    pub sample_gpus: Vec<u32>,
    pub events: Vec<EventView>,
    pub startup_attempts: usize,
    pub switch_attempts: usize,
    pub fault_drills: usize,
    pub billing_lines: usize,
    /// Records the import kept in the run's metadata (operators compared,
    /// network probes, health-check results, PCIe links).
    pub kept_records: u64,
    /// `dcgmi diag` results, where the run holds them.
    pub health: Vec<HealthCheck>,
    /// The GPUs this run's health evidence found faulty ("GPU 0: dcgmi diag
    /// GPU Memory failed"), counted in the platform's share of GPUs found
    /// faulty.
    pub faulty_gpus: Vec<String>,
    /// What the run saw wrong with the delivery; `None` when it checked
    /// nothing.
    pub conformity_problems: Option<Vec<Mismatch>>,
    /// What its GPUs drew, where it sampled power.
    pub energy: Option<RunEnergy>,
    /// Why the run is not scored: its evidence measures no platform
    /// (slowdowns planted to test the analysis, devices simulated on the
    /// CPU).
    pub not_scored: Option<String>,
    /// A summary run's windows, and the stretches whose samples were
    /// fetched for a closer look.
    pub summary: Option<WindowSummary>,
}

/// What a summary run holds instead of samples.
pub use crate::samples::windows::{DrilledStretch, WindowSummary};

/// A run as the runs list shows it: with its platform's name and how many
/// records (events, attempts, drills, bill lines, kept records) it holds.
#[derive(Debug, Clone)]
pub struct ListedRun {
    pub run: Run,
    pub platform: String,
    pub records: u64,
    /// Its evidence measures no platform (see [`RunDetail::not_scored`]).
    pub not_scored: bool,
}

/// Every run, or one platform's, newest last, as the runs list shows them.
pub fn list(store: &Store, platform_id: Option<i64>) -> Result<Vec<ListedRun>> {
    let names: HashMap<i64, String> = store
        .platforms()?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    let records = store.record_counts()?;
    Ok(store
        .runs(platform_id)?
        .into_iter()
        .map(|run| ListedRun {
            platform: names.get(&run.platform_id).cloned().unwrap_or_default(),
            records: records.get(&run.id).copied().unwrap_or(0),
            not_scored: crate::metrics::not_evidence(&run).is_some(),
            run,
        })
        .collect())
}

pub fn detail(store: &Store, id: i64) -> Result<RunDetail> {
    let run = store.run(id)?;
    let stored = store.events(id)?;
    let faulty_gpus = crate::metrics::faulty_gpus::health_findings(&run, &stored)
        .into_iter()
        .map(|(gpu, what)| match gpu {
            Some(g) => format!("GPU {g}: {what}"),
            None => format!("a GPU: {what}"),
        })
        .collect();
    let events = stored
        .into_iter()
        .map(|e| EventView::of(e, &run.inventory))
        .collect();
    let not_scored = crate::metrics::not_evidence(&run);
    Ok(RunDetail {
        not_scored,
        platform: store.platform_by_id(run.platform_id)?.name,
        sample_gpus: store.sample_gpus(id)?,
        events,
        startup_attempts: store.startup_attempts(id)?.len(),
        switch_attempts: store.switch_attempts(id)?.len(),
        fault_drills: store.fault_drills(id)?.len(),
        billing_lines: store.billing_lines(id)?.len(),
        kept_records: run.kept_records(),
        health: conformity::health_checks(&run),
        faulty_gpus,
        conformity_problems: conformity::problems(&run),
        energy: energy::run_energy(store, &run)?,
        summary: WindowSummary::of(&run),
        run,
    })
}
