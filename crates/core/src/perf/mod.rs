//! Delivered performance: what a node's accelerators computed and moved in
//! the perf suite (`accept perf`, a perf log), judged three ways — against
//! the card's public nominal peaks ([`reference`]), against the best GPU of
//! the same node (stragglers), and against the same GPU earlier in the run
//! (throughput decay).
//!
//! How units combine: a straggler is a GPU (a synchronous job runs at its
//! slowest GPU's pace, so one slow GPU slows the node); the share of
//! stragglers pools GPUs over every node measured. A decay and a share of
//! nominal are a GPU's, and a node counts as its worst GPU.

pub mod reference;

pub use breakpoint_formats::parsers::perf_log::{
    COLLECTIVES, PerfLog, PerfResult, Planted, Timeline, TimelinePoint,
};
use serde::Serialize;

use crate::stats::percentile;

/// A GPU more than this share below its node's best on a test is a
/// straggler, unless told otherwise.
pub const DEFAULT_STRAGGLER_SHARE: f64 = 0.10;

/// The tests stragglers are looked for in: each GPU's own figures (a peer
/// copy and a collective are a pair's and the node's).
const PER_GPU_TESTS: &[&str] = &["gemm", "device_copy", "h2d", "d2h"];

/// The dtype whose matrix product stands for the card: the one training
/// uses, else what the card has.
pub const HEADLINE_DTYPES: &[&str] = &["bf16", "fp16", "tf32", "fp32"];

/// One GPU below its node's best on one test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Straggler {
    pub gpu: u32,
    /// "gemm bf16", "device_copy", "h2d" …
    pub test: String,
    pub value: f64,
    pub unit: String,
    pub best_gpu: u32,
    pub best: f64,
    /// How far below the best, in per cent of the best.
    pub deficit_pct: f64,
}

/// Every GPU more than `share` below the best GPU of the node on a test
/// its peers ran too, worst first.
pub fn stragglers(log: &PerfLog, share: f64) -> Vec<Straggler> {
    let mut out = Vec::new();
    for (label, figures) in per_gpu_tests(log) {
        if figures.len() < 2 {
            continue;
        }
        let Some(&(best_gpu, best, _)) = figures.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            continue;
        };
        if best <= 0.0 {
            continue;
        }
        for &(gpu, value, unit) in &figures {
            if value < best * (1.0 - share) {
                out.push(Straggler {
                    gpu,
                    test: label.clone(),
                    value,
                    unit: unit.to_string(),
                    best_gpu,
                    best,
                    deficit_pct: 100.0 * (1.0 - value / best),
                });
            }
        }
    }
    out.sort_by(|a, b| b.deficit_pct.total_cmp(&a.deficit_pct));
    out
}

/// How many GPUs have a figure of their own on a per-GPU test: the GPUs
/// the straggler rule compared (a collective alone compares none).
pub fn compared_gpus(log: &PerfLog) -> usize {
    let mut gpus: Vec<u32> = per_gpu_tests(log)
        .into_iter()
        .filter(|(_, figures)| figures.len() >= 2)
        .flat_map(|(_, figures)| figures.into_iter().map(|(g, _, _)| g))
        .collect();
    gpus.sort_unstable();
    gpus.dedup();
    gpus.len()
}

/// The GPUs named as stragglers on any test, in order.
pub fn straggler_gpus(stragglers: &[Straggler]) -> Vec<u32> {
    let mut gpus: Vec<u32> = stragglers.iter().map(|s| s.gpu).collect();
    gpus.sort_unstable();
    gpus.dedup();
    gpus
}

/// A GPU's figure on a test, in the test's unit.
type GpuFigure<'a> = (u32, f64, &'a str);

/// Each per-GPU test ("gemm bf16", "device_copy" …) with its GPUs' figures.
fn per_gpu_tests(log: &PerfLog) -> Vec<(String, Vec<GpuFigure<'_>>)> {
    let mut tests: Vec<(String, Vec<GpuFigure<'_>>)> = Vec::new();
    for r in log
        .results
        .iter()
        .filter(|r| PER_GPU_TESTS.contains(&r.test.as_str()) && r.peer.is_none())
    {
        let Some(gpu) = r.gpu else { continue };
        let label = r.label();
        match tests.iter_mut().find(|(l, _)| *l == label) {
            Some((_, figures)) => figures.push((gpu, r.median, r.unit.as_str())),
            None => tests.push((label, vec![(gpu, r.median, r.unit.as_str())])),
        }
    }
    tests
}

/// The matrix product that stands for each GPU: the first of
/// [`HEADLINE_DTYPES`] it ran.
pub fn headline_gemm(log: &PerfLog, gpu: u32) -> Option<&PerfResult> {
    HEADLINE_DTYPES.iter().find_map(|d| {
        log.results
            .iter()
            .find(|r| r.test == "gemm" && r.gpu == Some(gpu) && r.dtype.as_deref() == Some(d))
    })
}

/// One GPU's throughput over the run: where it settled, where it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decay {
    pub gpu: u32,
    /// Median throughput of the first settled stretch (TFLOP/s).
    pub early: f64,
    /// Median throughput of the last stretch.
    pub late: f64,
    /// How far it fell, in per cent of where it settled (negative: rose).
    pub decay_pct: f64,
    /// Seconds into the timeline from which it stayed below the midpoint
    /// of the two levels, where it fell by more than noise.
    pub onset_s: Option<f64>,
    /// Median power (W) of the same two stretches, where the log has it.
    pub power_early_w: Option<f64>,
    pub power_late_w: Option<f64>,
    pub points: usize,
}

/// Fewer points than this make no early and late stretch.
const MIN_POINTS: usize = 4;
/// Below this a fall is noise, and no onset is named.
const NOISE_PCT: f64 = 2.0;

/// Each GPU's throughput decay over the timeline: the median of its last
/// stretch against its first settled stretch (the first point, taken while
/// clocks ramp, left out), each stretch a fifth of the points or an hour,
/// whichever is shorter — the same reading as the sustained power drop.
pub fn decays(timeline: &Timeline) -> Vec<Decay> {
    let mut gpus: Vec<u32> = timeline.points.iter().map(|p| p.gpu).collect();
    gpus.sort_unstable();
    gpus.dedup();
    gpus.into_iter()
        .filter_map(|gpu| {
            let mut points: Vec<&TimelinePoint> =
                timeline.points.iter().filter(|p| p.gpu == gpu).collect();
            points.sort_by(|a, b| a.t_s.total_cmp(&b.t_s));
            decay_of(gpu, &points, timeline.interval_s)
        })
        .collect()
}

fn decay_of(gpu: u32, points: &[&TimelinePoint], interval_s: f64) -> Option<Decay> {
    if points.len() < MIN_POINTS {
        return None;
    }
    let settled = if points.len() > MIN_POINTS {
        &points[1..]
    } else {
        points
    };
    let per_hour = if interval_s > 0.0 {
        (3600.0 / interval_s).floor().max(1.0) as usize
    } else {
        usize::MAX
    };
    let k = (settled.len() / 5).clamp(1, per_hour);
    let median_of = |stretch: &[&TimelinePoint], f: &dyn Fn(&TimelinePoint) -> Option<f64>| {
        let mut v: Vec<f64> = stretch.iter().filter_map(|p| f(p)).collect();
        v.sort_by(f64::total_cmp);
        percentile(&v, 0.5)
    };
    let first = &settled[..k];
    let last = &settled[settled.len() - k..];
    let early = median_of(first, &|p| Some(p.tflops))?;
    let late = median_of(last, &|p| Some(p.tflops))?;
    if early <= 0.0 {
        return None;
    }
    let decay_pct = 100.0 * (early - late) / early;
    let onset_s = (decay_pct > NOISE_PCT)
        .then(|| {
            let mid = (early + late) / 2.0;
            let from = settled
                .iter()
                .rposition(|p| p.tflops >= mid)
                .map_or(0, |i| i + 1);
            settled.get(from).map(|p| p.t_s)
        })
        .flatten();
    Some(Decay {
        gpu,
        early,
        late,
        decay_pct,
        onset_s,
        power_early_w: median_of(first, &|p| p.power_w),
        power_late_w: median_of(last, &|p| p.power_w),
        points: points.len(),
    })
}

/// One figure of the log as a buyer reads it: beside the card's nominal
/// peak (a matrix product, a device copy) or its link's capacity (a
/// host↔device copy), where the table or the log tells them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub gpu: Option<u32>,
    /// "gemm bf16", "h2d", "p2p → GPU 1", "all_reduce".
    pub test: String,
    pub unit: String,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub repeats: u32,
    /// The nominal figure held against, cited ("989.5 TFLOP/s (NVIDIA H200
    /// Tensor Core GPU datasheet, 2024-11)").
    pub nominal: Option<String>,
    /// The median as a share of the nominal figure or the link's capacity.
    pub share_pct: Option<f64>,
    /// nvidia-smi topo's word for a peer pair (NV18, PIX, SYS).
    pub topology: Option<String>,
}

/// A perf log read as a whole: every figure against its reference, the
/// stragglers, each GPU's decay over time, and what could not run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reading {
    pub figures: Vec<Figure>,
    pub stragglers: Vec<Straggler>,
    pub decays: Vec<Decay>,
    pub skipped: Vec<String>,
}

/// Why a perf log measures no platform, if it does not: slowdowns were
/// planted in it to test the analysis, or its devices are the CPU split to
/// test the suite. Such a log is kept and shown, never scored or compared.
pub fn measures_nothing(log: &PerfLog) -> Option<String> {
    why_nothing(&log.planted, &log.backend)
}

/// The marks that say a perf log tests the analysis, read from a stored
/// log (`run.metadata.perf`) without its figures: listings and the
/// evidence ask this of every run.
#[derive(serde::Deserialize)]
pub struct Marks {
    #[serde(default)]
    planted: Vec<Planted>,
    #[serde(default)]
    backend: String,
}

impl Marks {
    /// The marks of a stored perf log, if `value` is one.
    pub fn of(value: &serde_json::Value) -> Option<Marks> {
        serde::Deserialize::deserialize(value).ok()
    }

    /// See [`measures_nothing`].
    pub fn measures_nothing(&self) -> Option<String> {
        why_nothing(&self.planted, &self.backend)
    }
}

fn why_nothing(planted: &[Planted], backend: &str) -> Option<String> {
    if !planted.is_empty() {
        let planted: Vec<String> = planted
            .iter()
            .map(|p| format!("GPU {} by {:.0} %", p.gpu, 100.0 * p.share))
            .collect();
        return Some(format!(
            "slowdowns were planted in this perf log to test the analysis ({})",
            planted.join(", ")
        ));
    }
    if backend == "numpy" || backend == "cpu" {
        return Some(format!(
            "this perf log's devices are the CPU ({backend}) split to test the suite"
        ));
    }
    None
}

pub fn read(log: &PerfLog, straggler_share: f64) -> Reading {
    let cards: Vec<(u32, crate::accelerator::Accelerator)> =
        if log.backend == "numpy" || log.backend == "cpu" {
            Vec::new()
        } else {
            log.gpus
                .iter()
                .map(|g| (g.index, crate::accelerator::normalise(&g.name)))
                .collect()
        };
    let figures = log
        .results
        .iter()
        .map(|r| {
            // A collective inside one node is held against its first
            // rank's card; one over the fabric has no datasheet figure.
            let one_node = r
                .settings
                .get("nodes")
                .and_then(|n| n.as_u64())
                .is_none_or(|n| n <= 1);
            let card_index = r
                .gpu
                .or_else(|| r.gpus.first().copied().filter(|_| one_node));
            let card = card_index
                .and_then(|g| cards.iter().find(|(i, _)| *i == g))
                .map(|(_, c)| c);
            let peak = card
                .zip(reference::figure_of(&r.test, r.dtype.as_deref()))
                .and_then(|(c, f)| reference::nominal(c, f));
            let link = r.link.and_then(|l| l.capacity_gbps());
            // An RDMA test's port rate (Gb/s), where an ibstat said it.
            let port = r
                .settings
                .get("link_gbps")
                .and_then(|v| v.as_f64())
                .filter(|_| r.unit == "GB/s");
            let (nominal, share_pct) = match (peak, link, port) {
                (Some(p), _, _) => (Some(p.cited()), Some(100.0 * r.median / p.value)),
                (None, Some(capacity), _) => (
                    Some(format!(
                        "{capacity:.1} GB/s (the card's PCIe link, one direction)"
                    )),
                    Some(100.0 * r.median / capacity),
                ),
                (None, None, Some(gbps)) => (
                    Some(format!("{gbps} Gb/s (the port's rate, ibstat)")),
                    Some(100.0 * r.median * 8.0 / gbps),
                ),
                _ => (None, None),
            };
            Figure {
                gpu: r.gpu,
                test: r.label(),
                unit: r.unit.clone(),
                median: r.median,
                min: r.min,
                max: r.max,
                repeats: r.repeats,
                nominal,
                share_pct,
                topology: r.topology.clone(),
            }
        })
        .collect();
    let skipped = log
        .skipped
        .iter()
        .map(|s| {
            let mut what = s.test.clone();
            if let Some(d) = &s.dtype {
                what.push_str(&format!(" {d}"));
            }
            if let Some(g) = s.gpu {
                what.push_str(&format!(" on GPU {g}"));
            }
            format!("{what}: {}", s.reason)
        })
        .collect();
    Reading {
        figures,
        stragglers: stragglers(log, straggler_share),
        decays: log.timeline.as_ref().map(decays).unwrap_or_default(),
        skipped,
    }
}

/// A measured figure to three significant digits ("771", "53.1", "0.118").
pub fn number(v: f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        a if a >= 1.0 => format!("{v:.2}"),
        _ => format!("{v:.3}"),
    }
}

/// A change in per cent, signed, with no "-0.0".
pub fn change(pct: f64) -> String {
    if pct.abs() < 0.05 {
        "±0.0 %".into()
    } else {
        format!("{pct:+.1} %").replace('-', "−")
    }
}

/// "after 36.0 h", "after 12 min", "after 40 s".
pub fn when(seconds: f64) -> String {
    if seconds >= 7200.0 {
        format!("after {:.1} h", seconds / 3600.0)
    } else if seconds >= 120.0 {
        format!("after {:.0} min", seconds / 60.0)
    } else {
        format!("after {seconds:.0} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_with(figures: &[(u32, f64)]) -> PerfLog {
        let results: Vec<String> = figures
            .iter()
            .map(|(g, v)| {
                format!(
                    r#"{{"test":"gemm","gpu":{g},"dtype":"bf16","unit":"TFLOP/s","median":{v},"min":{v},"max":{v},"repeats":3}}"#
                )
            })
            .collect();
        let gpus: Vec<String> = figures
            .iter()
            .map(|(g, _)| format!(r#"{{"index":{g},"name":"NVIDIA H100 80GB HBM3"}}"#))
            .collect();
        PerfLog::read(&format!(
            r#"{{"format":"breakpoint-perf","version":1,"started_at":"2026-12-04T16:00:00Z","framework":"torch","backend":"cuda","gpus":[{}],"results":[{}]}}"#,
            gpus.join(","),
            results.join(",")
        ))
        .unwrap()
    }

    #[test]
    fn a_gpu_below_its_node_best_by_more_than_the_share_is_a_straggler() {
        let log = log_with(&[(0, 700.0), (1, 690.0), (2, 560.0), (3, 640.0)]);
        let found = stragglers(&log, 0.10);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].gpu, found[0].best_gpu), (2, 0));
        assert!((found[0].deficit_pct - 20.0).abs() < 1e-9);
        // 640 is 8.6 % below: a straggler only at a tighter share.
        assert_eq!(straggler_gpus(&stragglers(&log, 0.05)), vec![2, 3]);
        // A lone GPU has no peer to be slower than.
        assert!(stragglers(&log_with(&[(0, 100.0)]), 0.10).is_empty());
    }

    fn timeline(points: &[(u32, f64, f64, Option<f64>)]) -> Timeline {
        Timeline {
            test: "gemm".into(),
            dtype: "bf16".into(),
            interval_s: 60.0,
            duration_s: 0.0,
            points: points
                .iter()
                .map(|&(gpu, t_s, tflops, power_w)| TimelinePoint {
                    t_s,
                    at: None,
                    gpu,
                    tflops,
                    power_w,
                    sm_clock_mhz: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_fall_is_measured_from_where_the_gpu_settled_with_its_onset_and_power() {
        // GPU 0 ramps at the first point, holds 100, falls to 83 at t = 600.
        let mut points = Vec::new();
        for i in 0..20 {
            let t = 60.0 * f64::from(i);
            let (v, w) = match i {
                0 => (60.0, 200.0),
                _ if t < 600.0 => (100.0, 250.0),
                _ => (83.0, 228.0),
            };
            points.push((0, t, v, Some(w)));
            points.push((1, t, 100.0, None));
        }
        let found = decays(&timeline(&points));
        let d0 = &found[0];
        assert!((d0.decay_pct - 17.0).abs() < 1e-9, "{d0:?}");
        assert_eq!(d0.onset_s, Some(600.0));
        assert_eq!(
            (d0.power_early_w, d0.power_late_w),
            (Some(250.0), Some(228.0))
        );
        assert_eq!(found[1].decay_pct, 0.0);
        assert_eq!(found[1].onset_s, None);
        // Three points make no stretches.
        assert!(decays(&timeline(&points[..6])).is_empty());
    }
}
