//! How one metric's figures from many runs, GPUs and nodes become the
//! platform's (`catalog::Aggregation`): a typical value takes the median over
//! runs, a rate pools every run's counts and exposure, and a fault is judged
//! per unit as a buyer meets it — per GPU history, then per node, each node
//! weighed by its share of the fleet's GPU-hours — so that a fault in any
//! share of the fleet moves the score in proportion to that share.

use std::collections::BTreeMap;

use super::catalog::{Aggregation, MetricDef};
use super::sustain::{self, GpuSustain};
use serde::{Deserialize, Serialize};

use super::{Evidence, Pooled, RunSource, RunValue};
use crate::domain::Run;
use crate::error::Result;
use crate::samples::{Sample, SeriesFrame};
use crate::store::Store;

/// A share of the exposure and the figure it had.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Share {
    pub share: f64,
    pub value: f64,
}

/// One unit behind a platform's figure: a node (or a run) and, where its
/// figure is a GPU's, that GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitFigure {
    /// The node's host, or "run #12" where the run names none.
    pub node: String,
    /// "GPU 5" (with its PCI address where known), for a GPU's figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    pub value: f64,
    /// The unit's share of the platform's exposure (0–1).
    pub share: f64,
}

impl UnitFigure {
    /// "node-3 GPU 5 (00000000:38:00.0)" or "run #12".
    pub fn label(&self) -> String {
        match &self.gpu {
            Some(gpu) => format!("{} {gpu}", self.node),
            None => self.node.clone(),
        }
    }

    /// The label without the GPU's PCI address, for a narrow cell.
    pub fn short_label(&self) -> String {
        match &self.gpu {
            Some(gpu) => format!(
                "{} {}",
                self.node,
                gpu.split_once(" (").map_or(gpu.as_str(), |(g, _)| g)
            ),
            None => self.node.clone(),
        }
    }
}

/// At most this many bins of neighbouring values keep a metric's spread
/// over its units (a fleet of a thousand nodes scores from 32 numbers).
pub const SPREAD_BINS: usize = 32;
/// The worst units named beside a figure.
const WORST_NAMED: usize = 5;
/// Runs of one GPU this close in time (or closer) are one history, whatever
/// their sampling interval: a second pull or a log rotated at the hour.
const TOUCH_MIN_MS: i64 = 60_000;

/// A run and the values it gave.
pub(super) struct RunFigures<'a> {
    pub run: &'a Run,
    pub values: Vec<RunValue>,
}

/// A unit's figure before combining: a node (its worst GPU history) or a
/// run, with what it was exposed for (GPU-milliseconds, or 1 for a run).
#[derive(Debug, Clone, PartialEq)]
struct Unit {
    node: String,
    gpu: Option<String>,
    exposure: f64,
    value: f64,
}

/// The platform's evidence for one metric from its runs' values.
pub(super) fn combine(
    def: &MetricDef,
    values: &[(&Run, &RunValue)],
    histories: &GpuHistories,
    sources: Vec<RunSource>,
    mut details: Vec<String>,
) -> Evidence {
    let run_values: Vec<f64> = values.iter().map(|(_, v)| v.value).collect();
    let mut min = run_values.iter().copied().fold(f64::INFINITY, f64::min);
    let mut max = run_values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let median = super::median(&mut run_values.clone());
    let (value, spread, worst) = match def.aggregation {
        Aggregation::Median => (median, Vec::new(), Vec::new()),
        Aggregation::Pooled => (
            pooled(values).map_or(median, |p| 100.0 * p.count / p.exposure),
            Vec::new(),
            Vec::new(),
        ),
        Aggregation::PerUnit | Aggregation::PerUnitPeak => {
            let mut units = histories.units(def).unwrap_or_else(|| run_units(values));
            // Snapshots (one `-q` dump per node) cover no sampled time: with
            // nothing to weigh by, each node counts the same — said, not a
            // 0/0 that reaches the reader as NaN.
            if !units.is_empty() && units.iter().all(|u| u.exposure <= 0.0) {
                for u in &mut units {
                    u.exposure = 1.0;
                }
                details.push(format!(
                    "snapshots only ({} node(s), no sampled time): each node counts the same",
                    units.len()
                ));
            }
            for u in &units {
                min = min.min(u.value);
                max = max.max(u.value);
            }
            let (mean, spread, worst) = judge(def, units);
            let value = match (def.aggregation, worst.first()) {
                (Aggregation::PerUnitPeak, Some(hottest)) => hottest.value,
                _ => mean,
            };
            // Named only where the units differ: a line of equal figures
            // says nothing.
            let differ = spread
                .first()
                .zip(spread.last())
                .is_some_and(|(a, b)| a.value != b.value);
            if differ && let Some(line) = worst_line(def, &worst) {
                details.insert(0, line);
            }
            (value, spread, worst)
        }
    };
    Evidence {
        key: def.key.to_string(),
        value,
        min,
        max,
        runs: sources,
        details,
        spread,
        worst,
        pooled: match def.aggregation {
            Aggregation::Pooled => pooled(values),
            _ => None,
        },
    }
}

/// Every run's count and exposure, summed (the value is 100 × count ÷
/// exposure); none unless every run gave its parts.
fn pooled(values: &[(&Run, &RunValue)]) -> Option<Pooled> {
    let (mut count, mut exposure) = (0.0, 0.0);
    for (_, v) in values {
        let p = v.pooled?;
        count += p.count;
        exposure += p.exposure;
    }
    (exposure > 0.0).then_some(Pooled { count, exposure })
}

/// A run as a unit is named: "run #12 (node-3.csv)".
fn run_label(run: &Run) -> String {
    match &run.provenance.file_name {
        Some(file) => format!("run #{} ({file})", run.id),
        None => format!("run #{}", run.id),
    }
}

/// Each run a unit of equal weight (a delivery check, a measuring day, a
/// node's perf run). A run whose value is its worst GPU's names that GPU,
/// and its host where it has one.
fn run_units(values: &[(&Run, &RunValue)]) -> Vec<Unit> {
    values
        .iter()
        .map(|(run, v)| {
            let gpu = v
                .gpus
                .iter()
                .find(|g| g.value == v.value)
                .map(|g| format!("GPU {}", g.gpu));
            let node = match (&run.provenance.host, &gpu) {
                (Some(host), Some(_)) => format!("{host}, run #{}", run.id),
                _ => run_label(run),
            };
            Unit {
                node,
                gpu,
                exposure: 1.0,
                value: v.value,
            }
        })
        .collect()
}

/// The share-weighted mean over the units, the spread the score is taken
/// over, and the worst units named.
fn judge(def: &MetricDef, mut units: Vec<Unit>) -> (f64, Vec<Share>, Vec<UnitFigure>) {
    let total: f64 = units.iter().map(|u| u.exposure).sum();
    if units.is_empty() || total <= 0.0 {
        return (f64::NAN, Vec::new(), Vec::new());
    }
    // Worst first.
    units.sort_by(|a, b| {
        let order = a.value.total_cmp(&b.value);
        if def.higher_is_better {
            order
        } else {
            order.reverse()
        }
        .then_with(|| a.node.cmp(&b.node))
    });
    let shares: Vec<Share> = units
        .iter()
        .map(|u| Share {
            share: u.exposure / total,
            value: u.value,
        })
        .collect();
    let mean = shares.iter().map(|s| s.share * s.value).sum();
    let worst = units
        .iter()
        .zip(&shares)
        .take(WORST_NAMED)
        .map(|(u, s)| UnitFigure {
            node: u.node.clone(),
            gpu: u.gpu.clone(),
            value: u.value,
            share: s.share,
        })
        .collect();
    (mean, bins(&shares), worst)
}

/// At most [`SPREAD_BINS`] bins of neighbouring values (the shares come in
/// value order): each bin's share is its units' and its value their
/// share-weighted mean.
fn bins(shares: &[Share]) -> Vec<Share> {
    let per_bin = shares.len().div_ceil(SPREAD_BINS).max(1);
    shares
        .chunks(per_bin)
        .map(|chunk| {
            let share: f64 = chunk.iter().map(|s| s.share).sum();
            let value = if share > 0.0 {
                chunk.iter().map(|s| s.share * s.value).sum::<f64>() / share
            } else {
                chunk[0].value
            };
            Share { share, value }
        })
        .collect()
}

/// "worst: node-3 GPU 5 12.0 (25 % of the exposure); node-1 GPU 2 0.3 (25 %)".
fn worst_line(def: &MetricDef, worst: &[UnitFigure]) -> Option<String> {
    if worst.len() < 2 {
        return None;
    }
    let unit = if def.unit == "%" { "%" } else { "" };
    let named: Vec<String> = worst
        .iter()
        .take(3)
        .map(|u| {
            format!(
                "{} {} ({} of the fleet)",
                u.label(),
                crate::figures::figure(u.value, unit, false),
                crate::figures::share(u.share)
            )
        })
        .collect();
    Some(format!("worst units: {}", named.join("; ")))
}

/// Where a GPU's runs are read as one history, and the per-node figures of
/// every metric judged per GPU.
#[derive(Default)]
pub(super) struct GpuHistories {
    /// Per metric key: each node's figure (its worst GPU history's).
    units: BTreeMap<&'static str, Vec<Unit>>,
}

impl GpuHistories {
    fn units(&self, def: &MetricDef) -> Option<Vec<Unit>> {
        self.units.get(def.key).filter(|u| !u.is_empty()).cloned()
    }

    /// The GPU histories of a platform's runs: each GPU's runs that touch or
    /// overlap in time read as one series (samples read again only where a
    /// history spans runs), then each node judged by its worst GPU.
    pub(super) fn of(store: &Store, runs: &[RunFigures]) -> Result<GpuHistories> {
        let mut segments: Vec<Segment> = Vec::new();
        for (index, r) in runs.iter().enumerate() {
            let mut seen: Vec<u32> = Vec::new();
            for v in r
                .values
                .iter()
                .filter(|v| sustain::GPU_FIGURES.contains(&v.key.as_str()))
            {
                for g in &v.gpus {
                    if !seen.contains(&g.gpu) {
                        seen.push(g.gpu);
                        segments.push(Segment::new(index, r.run, g.gpu, g.from_ms, g.to_ms));
                    }
                }
            }
        }
        let mut per_node: BTreeMap<&'static str, BTreeMap<String, Unit>> = BTreeMap::new();
        for chain in chains(segments) {
            let figures = chain_figures(store, runs, &chain)?;
            let first = &chain[0];
            let exposure: f64 = chain.iter().map(|s| s.exposure_ms() as f64).sum();
            for (key, value) in figures {
                let def = super::catalog::metric(key);
                let higher_is_better = def.is_some_and(|d| d.higher_is_better);
                let node = per_node
                    .entry(key)
                    .or_default()
                    .entry(first.node.clone())
                    .or_insert_with(|| Unit {
                        node: first.node.clone(),
                        gpu: None,
                        exposure: 0.0,
                        value,
                    });
                let worse = node.gpu.is_none()
                    || if higher_is_better {
                        value < node.value
                    } else {
                        value > node.value
                    };
                if worse {
                    node.value = value;
                    node.gpu = Some(first.label.clone());
                }
                node.exposure += exposure;
            }
        }
        Ok(GpuHistories {
            units: per_node
                .into_iter()
                .map(|(key, nodes)| (key, nodes.into_values().collect()))
                .collect(),
        })
    }
}

/// The host a run's GPU is on: its own entry's, else the run's.
fn gpu_host(r: &Run, gpu: u32) -> Option<String> {
    r.inventory
        .iter()
        .find(|g| g.index == gpu)
        .and_then(|g| g.host.clone())
        .or_else(|| r.provenance.host.clone())
        .filter(|h| !h.trim().is_empty())
}

/// Who a run's GPU is across runs: its UUID, else its host and PCI
/// address, else its host and index; none where the run says too little
/// to tell (a host-less log's GPU 0 is no other machine's GPU 0).
pub(super) fn gpu_identity(r: &Run, gpu: u32) -> Option<String> {
    let info = r.inventory.iter().find(|g| g.index == gpu);
    let host = gpu_host(r, gpu);
    let pci = info.and_then(|g| g.pci_bus_id.as_deref());
    match (info.and_then(|g| g.uuid.as_deref()), &host, pci) {
        (Some(uuid), _, _) => Some(format!("uuid {uuid}")),
        (None, Some(host), Some(pci)) => Some(format!("{host} pci {pci}")),
        (None, Some(host), None) => Some(format!("{host} index {gpu}")),
        (None, None, _) => None,
    }
}

/// One GPU's stretch in one run.
#[derive(Debug, Clone)]
struct Segment {
    /// The run's place in the platform's list.
    run: usize,
    run_id: i64,
    gpu: u32,
    from_ms: i64,
    to_ms: i64,
    step_ms: i64,
    /// Who the GPU is across runs (its UUID, else host and PCI address,
    /// else host and index); none where the run says too little to tell.
    identity: Option<String>,
    node: String,
    label: String,
}

impl Segment {
    fn new(run: usize, r: &Run, gpu: u32, from_ms: i64, to_ms: i64) -> Segment {
        let info = r.inventory.iter().find(|g| g.index == gpu);
        let host = gpu_host(r, gpu);
        let pci = info.and_then(|g| g.pci_bus_id.clone());
        let identity = gpu_identity(r, gpu);
        Segment {
            run,
            run_id: r.id,
            gpu,
            from_ms,
            to_ms,
            step_ms: r.interval_ms.map_or(0, i64::from),
            identity,
            node: host.unwrap_or_else(|| run_label(r)),
            label: match pci {
                Some(pci) => format!("GPU {gpu} ({pci})"),
                None => format!("GPU {gpu}"),
            },
        }
    }

    fn exposure_ms(&self) -> i64 {
        self.to_ms - self.from_ms + self.step_ms
    }
}

/// Segments grouped into histories: the same GPU's segments, in time order,
/// each starting no later than a few steps (at least a minute) after the one
/// before ended.
fn chains(mut segments: Vec<Segment>) -> Vec<Vec<Segment>> {
    segments.sort_by(|a, b| {
        (&a.identity, a.from_ms, a.run_id, a.gpu).cmp(&(&b.identity, b.from_ms, b.run_id, b.gpu))
    });
    let mut out: Vec<Vec<Segment>> = Vec::new();
    for s in segments {
        if let Some(chain) = out.last_mut()
            && let Some(last) = chain.last()
            && s.identity.is_some()
            && s.identity == last.identity
            && s.from_ms <= chain_end(chain) + (3 * last.step_ms.max(s.step_ms)).max(TOUCH_MIN_MS)
        {
            chain.push(s);
            continue;
        }
        out.push(vec![s]);
    }
    out
}

fn chain_end(chain: &[Segment]) -> i64 {
    chain.iter().map(|s| s.to_ms).max().unwrap_or(i64::MIN)
}

/// A history's figure for each metric judged per GPU: its run's own where it
/// is one segment, else from its samples read again as one series.
fn chain_figures(
    store: &Store,
    runs: &[RunFigures],
    chain: &[Segment],
) -> Result<Vec<(&'static str, f64)>> {
    if let [one] = chain {
        let values = &runs[one.run].values;
        return Ok(sustain::GPU_FIGURES
            .iter()
            .filter_map(|key| {
                let v = values.iter().find(|v| v.key == *key)?;
                let g = v.gpus.iter().find(|g| g.gpu == one.gpu)?;
                Some((*key, g.value))
            })
            .collect());
    }
    let g = merged_history(store, chain)?;
    Ok(sustain::GPU_FIGURES
        .iter()
        .filter_map(|key| Some((*key, sustain::gpu_figure(&g, key)?)))
        .collect())
}

/// One GPU's samples over several runs as one series (a time two runs both
/// sampled is kept once), analysed.
fn merged_history(store: &Store, chain: &[Segment]) -> Result<GpuSustain> {
    let mut samples: Vec<Sample> = Vec::new();
    for s in chain {
        let frame = store.read_samples(s.run_id, s.gpu, None, Some(&sustain::FIELDS))?;
        samples.extend(frame.samples());
    }
    samples.sort_by_key(|s| s.t_ms);
    samples.dedup_by_key(|s| s.t_ms);
    let gpu = chain[0].gpu;
    for s in &mut samples {
        s.gpu = gpu;
    }
    Ok(sustain::analyse(&SeriesFrame::from_samples(gpu, &samples)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(share: f64, value: f64) -> Share {
        Share { share, value }
    }

    #[test]
    fn bins_keep_every_share_and_the_mean() {
        let shares: Vec<Share> = (0..100).map(|i| share(0.01, f64::from(i))).collect();
        let binned = bins(&shares);
        assert!(binned.len() <= SPREAD_BINS);
        let total: f64 = binned.iter().map(|s| s.share).sum();
        assert!((total - 1.0).abs() < 1e-9);
        let mean: f64 = binned.iter().map(|s| s.share * s.value).sum();
        assert!((mean - 49.5).abs() < 1e-9);
        // Few units: one bin each.
        assert_eq!(bins(&shares[..3]), shares[..3].to_vec());
    }
}
