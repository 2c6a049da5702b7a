//! What a platform's logs say about its hardware, gathered across its
//! runs: Xid errors by code (with meaning, severity and who is at fault),
//! GPUs lost, failed health checks and PCIe links narrower than the card's
//! own. Shown by `explain`, the app and the report beside the scores.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::accelerator::xid::{self, Blame, Severity};
use crate::domain::{EventKind, Run};
use crate::error::Result;
use crate::store::Store;
use breakpoint_core::conformity;

use super::runs::gpu_label;

/// One Xid code seen on a platform.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct XidTally {
    pub code: i64,
    /// From the catalogue; `None` for a code it does not know.
    pub meaning: Option<&'static str>,
    pub severity: Option<Severity>,
    pub blame: Option<Blame>,
    pub counted: bool,
    pub count: u64,
    /// The runs it was seen in.
    pub runs: Vec<i64>,
}

/// A failed or warning health check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthFinding {
    pub run_id: i64,
    pub test: String,
    pub gpu: Option<String>,
    pub status: String,
    pub message: Option<String>,
}

/// A GPU whose PCIe link runs narrower than it can.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkFinding {
    pub run_id: i64,
    pub gpu: String,
    pub width: u32,
    pub max_width: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HardwareEvidence {
    pub xids: Vec<XidTally>,
    /// GPUs that fell off the bus or failed to start, outside an Xid.
    pub gpus_lost: u64,
    pub health: Vec<HealthFinding>,
    pub links: Vec<LinkFinding>,
}

impl HardwareEvidence {
    pub fn is_empty(&self) -> bool {
        self.xids.is_empty()
            && self.gpus_lost == 0
            && self.health.is_empty()
            && self.links.is_empty()
    }
}

pub fn of_platform(store: &Store, platform_id: i64) -> Result<HardwareEvidence> {
    of_runs(store, &store.runs(Some(platform_id))?)
}

/// `of_platform` for a platform whose runs are at hand.
pub fn of_runs(store: &Store, runs: &[Run]) -> Result<HardwareEvidence> {
    let mut xids: BTreeMap<i64, XidTally> = BTreeMap::new();
    let mut out = HardwareEvidence::default();
    for run in runs {
        for e in store.events(run.id)? {
            match e.kind {
                EventKind::Xid => {
                    let code = e.code.unwrap_or(-1);
                    let info = u32::try_from(code).ok().and_then(xid::lookup);
                    let tally = xids.entry(code).or_insert_with(|| XidTally {
                        code,
                        meaning: info.map(|i| i.meaning),
                        severity: info.map(|i| i.severity),
                        blame: info.map(|i| i.blame),
                        counted: e.counts_against_platform(),
                        count: 0,
                        runs: Vec::new(),
                    });
                    tally.count += 1;
                    if !tally.runs.contains(&run.id) {
                        tally.runs.push(run.id);
                    }
                }
                EventKind::GpuLost => out.gpus_lost += 1,
                _ => {}
            }
        }
        for c in conformity::health_checks(run) {
            if c.failed() || c.warned() {
                out.health.push(HealthFinding {
                    run_id: run.id,
                    test: c.test,
                    gpu: c.gpu,
                    status: c.status,
                    message: c.message,
                });
            }
        }
        for g in conformity::narrowed_links(&run.inventory) {
            out.links.push(LinkFinding {
                run_id: run.id,
                gpu: gpu_label(g.index, &run.inventory),
                width: g.pcie_width_current.unwrap_or(0),
                max_width: g.pcie_width_max.unwrap_or(0),
            });
        }
    }
    out.xids = xids.into_values().collect();
    Ok(out)
}
