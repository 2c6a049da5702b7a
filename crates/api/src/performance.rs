//! Delivered performance side by side: every platform's perf runs grouped by
//! the accelerator model they measured, each figure against the model's
//! nominal peak (or the card's link) and as a percentile among the other
//! platforms measured on the same model — "is my number normal?".

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::Result;
use crate::perf::{self, PerfLog};
use crate::store::Store;

/// A perf log's reading, and its figures in words.
pub use breakpoint_core::perf::{Reading, change, number, read, when};

/// One model and the platforms measured on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelPeers {
    /// "NVIDIA H200 141GB".
    pub model: String,
    pub platforms: Vec<PlatformPerf>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformPerf {
    pub platform_id: i64,
    pub platform: String,
    pub runs: usize,
    pub gpus: usize,
    pub figures: Vec<PeerFigure>,
    /// Each GPU of the platform's latest perf run on this model.
    pub latest: Vec<GpuPerf>,
}

/// One GPU of a perf run, as a row: its figures and how they read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuPerf {
    pub run_id: i64,
    pub host: Option<String>,
    pub gpu: u32,
    /// "gemm bf16", its TFLOP/s and share of nominal.
    pub gemm: Option<(String, f64, Option<f64>)>,
    /// Device copy GB/s and share of nominal.
    pub copy: Option<(f64, Option<f64>)>,
    /// The slower host↔device direction, GB/s and share of the link.
    pub host_link: Option<(f64, Option<f64>)>,
    /// Its throughput decay over the run's timeline (%).
    pub decay_pct: Option<f64>,
    /// The worst test it trails its node's best on, by how much (%).
    pub straggler: Option<(String, f64)>,
}

/// One figure of a platform: the median over its GPUs and runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeerFigure {
    /// "gemm bf16", "device_copy", "host link".
    pub test: String,
    pub unit: String,
    pub value: f64,
    /// Of the model's nominal figure (the link's capacity for the host link).
    pub share_pct: Option<f64>,
    /// Where the value stands among the platforms measured on the same
    /// model and test (0: the lowest, 100: the highest); none alone.
    pub percentile: Option<f64>,
    /// Platforms measured on this model and test, this one included.
    pub peers: usize,
}

/// Each figure's values over a platform's GPUs and runs.
#[derive(Default)]
struct Gathered {
    runs: usize,
    gpus: usize,
    /// test → (unit, values, shares).
    figures: BTreeMap<String, (String, Vec<f64>, Vec<f64>)>,
    /// The latest run's GPUs, and when that run began.
    latest: Vec<GpuPerf>,
    latest_at: i64,
}

/// Every model measured in the workspace's perf runs (planted test logs
/// left out), its platforms, and their figures side by side.
pub fn compare(store: &Store) -> Result<Vec<ModelPeers>> {
    let mut by_model: BTreeMap<String, BTreeMap<i64, Gathered>> = BTreeMap::new();
    for run in store.runs(None)? {
        let Some(log) = run
            .metadata
            .get("perf")
            .and_then(|v| serde_json::from_value::<PerfLog>(v.clone()).ok())
        else {
            continue;
        };
        if crate::metrics::not_evidence(&run).is_some() {
            continue;
        }
        let at = run.started_at.map_or(0, |t| t.as_millisecond());
        gather(&log, (run.platform_id, run.id, at), &mut by_model);
    }
    let names: BTreeMap<i64, String> = store
        .platforms()?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    Ok(by_model
        .into_iter()
        .map(|(model, platforms)| peers_of(model, platforms, &names))
        .collect())
}

fn gather(
    log: &PerfLog,
    (platform_id, run_id, at): (i64, i64, i64),
    by_model: &mut BTreeMap<String, BTreeMap<i64, Gathered>>,
) {
    let reading = perf::read(log, perf::DEFAULT_STRAGGLER_SHARE);
    let mut counted: Vec<String> = Vec::new();
    for g in &log.gpus {
        let model = crate::accelerator::normalise(&g.name).canonical;
        let gathered = by_model
            .entry(model.clone())
            .or_default()
            .entry(platform_id)
            .or_default();
        if !counted.contains(&model) {
            counted.push(model);
            gathered.runs += 1;
            if at >= gathered.latest_at {
                gathered.latest.clear();
                gathered.latest_at = at;
            }
        }
        gathered.gpus += 1;
        let headline = perf::headline_gemm(log, g.index).map(|r| r.label());
        let mine = reading.figures.iter().filter(|f| f.gpu == Some(g.index));
        let mut link: Option<&perf::Figure> = None;
        for f in mine {
            if f.test == "h2d" || f.test == "d2h" {
                if link.is_none_or(|l| f.median < l.median) {
                    link = Some(f);
                }
                continue;
            }
            if Some(&f.test) != headline.as_ref() && f.test != "device_copy" {
                continue;
            }
            add(gathered, &f.test, f);
        }
        if let Some(f) = link {
            add(gathered, "host link", f);
        }
        if at == gathered.latest_at {
            let row = gpu_row(log, &reading, run_id, g.index, headline.as_deref(), link);
            gathered.latest.push(row);
        }
    }
}

fn gpu_row(
    log: &PerfLog,
    reading: &perf::Reading,
    run_id: i64,
    gpu: u32,
    headline: Option<&str>,
    link: Option<&perf::Figure>,
) -> GpuPerf {
    let find = |test: &str| {
        reading
            .figures
            .iter()
            .find(|f| f.gpu == Some(gpu) && f.test == test)
    };
    GpuPerf {
        run_id,
        host: log.host.clone(),
        gpu,
        gemm: headline
            .and_then(find)
            .map(|f| (f.test.clone(), f.median, f.share_pct)),
        copy: find("device_copy").map(|f| (f.median, f.share_pct)),
        host_link: link.map(|f| (f.median, f.share_pct)),
        decay_pct: reading
            .decays
            .iter()
            .find(|d| d.gpu == gpu)
            .map(|d| d.decay_pct),
        straggler: reading
            .stragglers
            .iter()
            .find(|s| s.gpu == gpu)
            .map(|s| (s.test.clone(), s.deficit_pct)),
    }
}

fn add(g: &mut Gathered, test: &str, f: &perf::Figure) {
    let entry = g
        .figures
        .entry(test.to_string())
        .or_insert_with(|| (f.unit.clone(), Vec::new(), Vec::new()));
    entry.1.push(f.median);
    if let Some(s) = f.share_pct {
        entry.2.push(s);
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    crate::stats::median(&mut v)
}

fn peers_of(
    model: String,
    platforms: BTreeMap<i64, Gathered>,
    names: &BTreeMap<i64, String>,
) -> ModelPeers {
    let mut rows: Vec<PlatformPerf> = platforms
        .into_iter()
        .map(|(id, g)| PlatformPerf {
            platform_id: id,
            platform: names.get(&id).cloned().unwrap_or_else(|| format!("#{id}")),
            runs: g.runs,
            gpus: g.gpus,
            latest: g.latest,
            figures: g
                .figures
                .into_iter()
                .filter_map(|(test, (unit, values, shares))| {
                    Some(PeerFigure {
                        test,
                        unit,
                        value: median(values)?,
                        share_pct: median(shares),
                        percentile: None,
                        peers: 0,
                    })
                })
                .collect(),
        })
        .collect();
    // Each figure placed among the platforms that measured the same test.
    let values: Vec<(String, f64)> = rows
        .iter()
        .flat_map(|r| r.figures.iter().map(|f| (f.test.clone(), f.value)))
        .collect();
    for row in &mut rows {
        for f in &mut row.figures {
            let others: Vec<f64> = values
                .iter()
                .filter(|(t, _)| *t == f.test)
                .map(|(_, v)| *v)
                .collect();
            f.peers = others.len();
            f.percentile = percentile_rank(f.value, &others);
        }
    }
    ModelPeers {
        model,
        platforms: rows,
    }
}

/// Where `value` stands among `all` (itself included): the share of the
/// others below it, ties counting half; none without another.
pub fn percentile_rank(value: f64, all: &[f64]) -> Option<f64> {
    let others = all.len().checked_sub(1).filter(|n| *n > 0)?;
    let below = all.iter().filter(|v| **v < value).count() as f64;
    // `all` holds the value itself once among its equals.
    let equal = all.iter().filter(|v| **v == value).count() as f64 - 1.0;
    Some(100.0 * (below + 0.5 * equal) / others as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_is_placed_among_its_peers() {
        let all = [500.0, 600.0, 700.0, 800.0, 700.0];
        assert_eq!(percentile_rank(500.0, &all), Some(0.0));
        assert_eq!(percentile_rank(800.0, &all), Some(100.0));
        // Two at 700: two below and one equal of four others.
        assert_eq!(percentile_rank(700.0, &all), Some(62.5));
        assert_eq!(percentile_rank(700.0, &[700.0]), None);
    }
}
