//! Breakpoint's perf log (one JSON document): the delivered-performance
//! suite's figures for each GPU of one node, as `breakpoint accept perf`
//! writes it (the suite is `perf.py`, run by the platform's Python).
//!
//! ```text
//! {"format":"breakpoint-perf","version":1,"started_at":"2026-12-04T16:00:00.000Z",
//!  "finished_at":"…","host":"node-3","framework":"torch 2.11.0+cu130","backend":"cuda",
//!  "settings":{"gemm_size":8192,"repeats":10,"warmup":3,…},
//!  "gpus":[{"index":0,"name":"NVIDIA H200","pci_bus_id":"…","memory_mib":143771}],
//!  "results":[{"test":"gemm","gpu":0,"dtype":"bf16","unit":"TFLOP/s","median":771.2,"min":765.0,"max":774.9,"repeats":10},
//!             {"test":"h2d","gpu":0,"unit":"GB/s","median":53.1,…,"link":{"gen":5,"width":16,"gen_max":5,"width_max":16}},
//!             {"test":"p2p","gpu":0,"peer":1,"unit":"GB/s","median":…,"topology":"NV18"},
//!             {"test":"all_reduce","gpus":[0,1],"unit":"GB/s","median":…}],
//!  "skipped":[{"test":"p2p","reason":"one GPU: no peer"}],
//!  "timeline":{"test":"gemm","dtype":"bf16","interval_s":60,"duration_s":3600,
//!              "points":[{"t_s":0.0,"at":"…","gpu":0,"tflops":770.4,"power_w":690.1,"sm_clock_mhz":1980}]}}
//! ```
//!
//! Every figure is the median of timed repeats after warm-ups, with its
//! minimum, maximum and repeat count. The import checks every figure and
//! every reference to a GPU, names the GPUs in the run's inventory (so the
//! delivery checks see them), and keeps the figures in the run's metadata
//! (`perf`); the metrics read them from there.

use std::io::BufRead;

use serde::{Deserialize, Serialize};

use super::super::builder::{GpuKey, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::read_document;
use super::super::{ParseContext, accelerator};

pub const PERF_FORMAT: &str = "breakpoint-perf";
pub const PERF_VERSION: u32 = 1;

/// A node's GPU as the suite saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfGpu {
    pub index: u32,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
}

/// A PCIe link as nvidia-smi reported it during the suite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Link {
    #[serde(default, rename = "gen")]
    pub generation: Option<u32>,
    #[serde(default)]
    pub width: Option<u32>,
    #[serde(default, rename = "gen_max")]
    pub generation_max: Option<u32>,
    #[serde(default)]
    pub width_max: Option<u32>,
}

impl Link {
    /// GB/s one direction of the card's own link can carry at its best
    /// (generation and width the card supports): the figure a host↔device
    /// copy is held against, so that a card seated in a narrower slot shows.
    pub fn capacity_gbps(&self) -> Option<f64> {
        let generation = self.generation_max.or(self.generation)?;
        let width = self.width_max.or(self.width)?;
        // Per lane, one direction, after line coding (8b/10b to Gen 2,
        // 128b/130b from Gen 3).
        let lane = match generation {
            1 => 0.25,
            2 => 0.5,
            3 => 0.985,
            4 => 1.969,
            5 => 3.938,
            6 => 7.563,
            _ => return None,
        };
        Some(lane * f64::from(width))
    }
}

/// What a test measures, and the unit its figures are in.
pub const TESTS: &[(&str, &str, &str)] = &[
    ("gemm", "TFLOP/s", "dense matrix product"),
    ("device_copy", "GB/s", "device-memory copy (read + write)"),
    ("h2d", "GB/s", "host → device, pinned"),
    ("d2h", "GB/s", "device → host, pinned"),
    ("p2p", "GB/s", "peer to peer"),
    ("all_reduce", "GB/s", "all-reduce bus bandwidth"),
    // The collectives nccl-tests runs, at their largest message.
    (
        "all_gather",
        "GB/s",
        "all-gather bus bandwidth (nccl-tests)",
    ),
    (
        "reduce_scatter",
        "GB/s",
        "reduce-scatter bus bandwidth (nccl-tests)",
    ),
    ("alltoall", "GB/s", "all-to-all bus bandwidth (nccl-tests)"),
    ("broadcast", "GB/s", "broadcast bus bandwidth (nccl-tests)"),
    ("reduce", "GB/s", "reduce bus bandwidth (nccl-tests)"),
    (
        "sendrecv",
        "GB/s",
        "send/receive bus bandwidth (nccl-tests)",
    ),
    ("gather", "GB/s", "gather bus bandwidth (nccl-tests)"),
    ("scatter", "GB/s", "scatter bus bandwidth (nccl-tests)"),
    ("hypercube", "GB/s", "hypercube bus bandwidth (nccl-tests)"),
    // Between hosts over the fabric (perftest), a NIC's and not a GPU's.
    (
        "rdma_write",
        "GB/s",
        "RDMA write bandwidth to a peer host (ib_write_bw)",
    ),
    (
        "rdma_read",
        "GB/s",
        "RDMA read bandwidth from a peer host (ib_read_bw)",
    ),
    (
        "rdma_send",
        "GB/s",
        "send bandwidth to a peer host (ib_send_bw)",
    ),
    (
        "rdma_write_lat",
        "µs",
        "RDMA write latency, typical (ib_write_lat)",
    ),
    (
        "rdma_read_lat",
        "µs",
        "RDMA read latency, typical (ib_read_lat)",
    ),
    ("rdma_send_lat", "µs", "send latency, typical (ib_send_lat)"),
];

/// The collectives nccl-tests runs (by its binaries' names less `_perf`):
/// each a test of many GPUs at once (`gpus`), in GB/s of bus bandwidth —
/// a figure nccl-tests scales to compare with one GPU's link.
pub const COLLECTIVES: &[&str] = &[
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "alltoall",
    "broadcast",
    "reduce",
    "sendrecv",
    "gather",
    "scatter",
    "hypercube",
];

/// Whether a test measures many GPUs at once (a collective) or a host's
/// NIC (perftest's `rdma_*`), rather than one GPU.
pub fn is_group_test(test: &str) -> bool {
    COLLECTIVES.contains(&test) || test.starts_with("rdma_")
}

pub const DTYPES: &[&str] = &["fp64", "fp32", "tf32", "bf16", "fp16", "fp8"];

/// Figures no device of any vendor reaches, per test: about four times the
/// fastest parts announced (a dense FP8 product near 10 PFLOP/s, HBM near
/// 16 TB/s, a host link near 450 GB/s one way, NVLink near 1.8 TB/s). A log
/// beyond them measured nothing; the import holds each figure against its
/// own card's datasheet as well, where the card is known.
pub const CEILINGS: &[(&str, f64)] = &[
    ("gemm", 40_000.0),
    ("device_copy", 60_000.0),
    ("h2d", 2_000.0),
    ("d2h", 2_000.0),
    ("p2p", 8_000.0),
    ("all_reduce", 8_000.0),
];

/// A device draws less than this (a whole 8-GPU board is ~10 kW).
const MAX_POWER_W: f64 = 5_000.0;
/// No accelerator clocks its cores this fast.
const MAX_CLOCK_MHZ: f64 = 10_000.0;

fn ceiling(test: &str) -> f64 {
    match CEILINGS.iter().find(|(t, _)| *t == test) {
        Some((_, c)) => *c,
        // A collective moves what an all-reduce can; eight 800 Gb/s ports
        // bonded are 800 GB/s; a latency is under a minute.
        None if COLLECTIVES.contains(&test) => ceiling("all_reduce"),
        None if test.ends_with("_lat") => 60_000_000.0,
        None if test.starts_with("rdma_") => 2_000.0,
        None => f64::INFINITY,
    }
}

/// One figure: the median of the timed repeats, with their spread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfResult {
    pub test: String,
    /// The GPU measured (the source of a peer copy); absent for a
    /// collective, which names its `gpus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<u32>,
    pub unit: String,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub repeats: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
    /// nvidia-smi topo's word for the pair (NV18, PIX, SYS, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_access: Option<bool>,
    /// Sizes and other settings of this figure (m, n, k, bytes, pinned …).
    #[serde(flatten)]
    pub settings: serde_json::Map<String, serde_json::Value>,
}

impl PerfResult {
    /// "gemm bf16", "h2d", "p2p 0→1": the test as a table names it.
    pub fn label(&self) -> String {
        match (&self.dtype, self.peer) {
            (Some(d), _) => format!("{} {d}", self.test),
            (None, Some(p)) => format!("{} → GPU {p}", self.test),
            _ => self.test.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub test: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<u32>,
    pub reason: String,
}

/// A slowdown planted to test the analysis (`perf.py --plant`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Planted {
    pub gpu: u32,
    pub share: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_s: Option<f64>,
}

/// One GPU's matrix-product throughput at one moment of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelinePoint {
    pub t_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<jiff::Timestamp>,
    pub gpu: u32,
    pub tflops: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub test: String,
    pub dtype: String,
    pub interval_s: f64,
    pub duration_s: f64,
    pub points: Vec<TimelinePoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfLog {
    pub format: String,
    pub version: u32,
    pub started_at: jiff::Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<jiff::Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub framework: String,
    pub backend: String,
    #[serde(default)]
    pub settings: serde_json::Map<String, serde_json::Value>,
    pub gpus: Vec<PerfGpu>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub planted: Vec<Planted>,
    pub results: Vec<PerfResult>,
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
}

/// A perf log of a long timeline on a large node is a few megabytes.
const PERF_LIMIT: u64 = 64 << 20;

impl PerfLog {
    /// The document read and checked: every figure a finite non-negative
    /// number in its test's unit, min ≤ median ≤ max, every GPU it names
    /// among its GPUs. The first fault is the error, by where it is.
    pub fn read(text: &str) -> Result<PerfLog, String> {
        let log: PerfLog = serde_json::from_str(text).map_err(|e| {
            format!(
                "line {}, column {}: not a perf log: {e}",
                e.line(),
                e.column()
            )
        })?;
        if log.format != PERF_FORMAT || log.version != PERF_VERSION {
            return Err(format!(
                "{} version {} is not a perf log this version reads ({PERF_FORMAT} {PERF_VERSION})",
                log.format, log.version
            ));
        }
        log.check()?;
        Ok(log)
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        let about_gpus = self
            .results
            .iter()
            .any(|r| !is_group_test(&r.test) || !r.gpus.is_empty());
        if self.gpus.is_empty() && (about_gpus || self.timeline.is_some()) {
            return Err("gpus: the perf log names no device".into());
        }
        let known = |gpu: u32, what: &str| -> Result<(), String> {
            if self.gpus.iter().any(|g| g.index == gpu) {
                Ok(())
            } else {
                Err(format!("{what}: GPU {gpu} is not among the log's gpus"))
            }
        };
        for (i, r) in self.results.iter().enumerate() {
            let at = format!("results[{i}] ({})", r.label());
            let Some((_, unit, _)) = TESTS.iter().find(|(t, _, _)| *t == r.test) else {
                return Err(format!(
                    "{at}: test {:?} is not one this version reads",
                    r.test
                ));
            };
            if r.unit != *unit {
                return Err(format!(
                    "{at}: unit {:?}, where {} is in {unit}",
                    r.unit, r.test
                ));
            }
            // A test that ran measured something: a rate of zero or less
            // is a failed test written as a figure.
            for (what, v) in [("median", r.median), ("min", r.min), ("max", r.max)] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(format!("{at}: {what} must be a rate above zero ({v})"));
                }
                if v > ceiling(&r.test) {
                    return Err(format!(
                        "{at}: {what} {v:.3e} {unit} is beyond what any device delivers (at most {} {unit}): the log measured nothing",
                        ceiling(&r.test)
                    ));
                }
            }
            if !(r.min <= r.median && r.median <= r.max) || r.repeats == 0 {
                return Err(format!(
                    "{at}: min {} ≤ median {} ≤ max {} over at least one repeat ({}) does not hold",
                    r.min, r.median, r.max, r.repeats
                ));
            }
            if r.test == "gemm" && !r.dtype.as_deref().is_some_and(|d| DTYPES.contains(&d)) {
                return Err(format!(
                    "{at}: a matrix product names its dtype ({})",
                    DTYPES.join(", ")
                ));
            }
            match (r.gpu, r.test.as_str()) {
                (None, t) if is_group_test(t) => {
                    for g in &r.gpus {
                        known(*g, &at)?;
                    }
                }
                (Some(g), _) => known(g, &at)?,
                (None, _) => return Err(format!("{at}: names no GPU")),
            }
            if let Some(p) = r.peer {
                known(p, &at)?;
            }
        }
        if let Some(t) = &self.timeline {
            for (what, v) in [("interval_s", t.interval_s), ("duration_s", t.duration_s)] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(format!(
                        "timeline: {what} must be a duration above zero ({v})"
                    ));
                }
            }
            if !DTYPES.contains(&t.dtype.as_str()) {
                return Err(format!(
                    "timeline: dtype {:?} is not one of {}",
                    t.dtype,
                    DTYPES.join(", ")
                ));
            }
            for (i, p) in t.points.iter().enumerate() {
                let at = format!("timeline.points[{i}]");
                known(p.gpu, &at)?;
                // Zero throughput at a point is a stall: evidence, kept.
                if !(p.t_s.is_finite() && p.t_s >= 0.0 && p.tflops.is_finite() && p.tflops >= 0.0) {
                    return Err(format!("{at}: t_s and tflops must be non-negative numbers"));
                }
                if p.tflops > ceiling("gemm") {
                    return Err(format!(
                        "{at}: tflops {:.3e} is beyond what any device delivers (at most {}): the log measured nothing",
                        p.tflops,
                        ceiling("gemm")
                    ));
                }
                for (what, v, most) in [
                    ("power_w", p.power_w, MAX_POWER_W),
                    ("sm_clock_mhz", p.sm_clock_mhz, MAX_CLOCK_MHZ),
                ] {
                    if v.is_some_and(|v| !(v.is_finite() && (0.0..=most).contains(&v))) {
                        return Err(format!("{at}: {what} must be a number from 0 to {most}"));
                    }
                }
            }
        }
        for p in &self.planted {
            known(p.gpu, "planted")?;
            if !(p.share > 0.0 && p.share < 1.0) {
                return Err(format!(
                    "planted: GPU {}: share {} is not between 0 and 1",
                    p.gpu, p.share
                ));
            }
        }
        Ok(())
    }

    /// The figures of one test (and dtype) per GPU, in GPU order.
    pub fn figures(&self, test: &str, dtype: Option<&str>) -> Vec<(u32, f64)> {
        let mut out: Vec<(u32, f64)> = self
            .results
            .iter()
            .filter(|r| r.test == test && r.dtype.as_deref() == dtype && r.peer.is_none())
            .filter_map(|r| Some((r.gpu?, r.median)))
            .collect();
        out.sort_by_key(|(g, _)| *g);
        out
    }

    /// The GPU's name as the suite read it.
    pub fn gpu_name(&self, gpu: u32) -> Option<&str> {
        self.gpus
            .iter()
            .find(|g| g.index == gpu)
            .map(|g| g.name.as_str())
    }
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let text = read_document(input, PERF_LIMIT, "the perf log")?;
    let log = PerfLog::read(&text).map_err(ParseFailure::Whole)?;
    b.saw_time(log.started_at.as_millisecond());
    if let Some(end) = log.finished_at {
        b.saw_time(end.as_millisecond());
    }
    b.host = log.host.clone();
    for g in &log.gpus {
        let index = b.gpu(GpuKey::Index(g.index));
        if let Some(uuid) = &g.uuid {
            b.alias(GpuKey::Uuid(uuid), index);
        }
        if let Some(bus) = &g.pci_bus_id {
            b.alias(GpuKey::BusId(bus), index);
        }
        let info = b.inventory(index);
        info.host = log.host.clone();
        // A CPU split into devices to test the suite is not an accelerator.
        if log.backend != "numpy" && log.backend != "cpu" {
            info.accelerator = Some(accelerator::normalise(&g.name));
            info.vram_mib = g.memory_mib;
        }
        if let Some(link) = log
            .results
            .iter()
            .find(|r| r.gpu == Some(g.index) && r.link.is_some())
            .and_then(|r| r.link)
        {
            info.pcie_gen_current = link.generation;
            info.pcie_gen_max = link.generation_max;
            info.pcie_width_current = link.width;
            info.pcie_width_max = link.width_max;
        }
    }
    if log.results.is_empty() && log.timeline.is_none() {
        return Err(ParseFailure::Whole("the perf log holds no figure".into()));
    }
    b.metadata_records +=
        (log.results.len() + log.timeline.as_ref().map_or(0, |t| t.points.len())) as u64;
    let value = serde_json::to_value(&log).map_err(|e| ParseFailure::Whole(e.to_string()))?;
    b.metadata.insert("perf".into(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> String {
        r#"{"format":"breakpoint-perf","version":1,"started_at":"2026-12-04T16:00:00Z",
            "framework":"torch 2.11.0","backend":"cuda",
            "gpus":[{"index":0,"name":"NVIDIA H200"},{"index":1,"name":"NVIDIA H200"}],
            "results":[{"test":"gemm","gpu":0,"dtype":"bf16","unit":"TFLOP/s","median":700,"min":690,"max":710,"repeats":10,"m":8192},
                       {"test":"gemm","gpu":1,"dtype":"bf16","unit":"TFLOP/s","median":600,"min":590,"max":610,"repeats":10}]}"#
            .to_string()
    }

    #[test]
    fn a_log_reads_with_its_figures_and_settings() {
        let log = PerfLog::read(&log()).unwrap();
        assert_eq!(
            log.figures("gemm", Some("bf16")),
            vec![(0, 700.0), (1, 600.0)]
        );
        assert_eq!(log.results[0].settings["m"], 8192);
        assert_eq!(log.gpu_name(1), Some("NVIDIA H200"));
    }

    #[test]
    fn each_fault_is_named_where_it_is() {
        for (from, to, expected) in [
            (
                r#""median":600"#,
                r#""median":-1"#,
                "results[1] (gemm bf16): median must be",
            ),
            (r#""median":600"#, r#""median":900"#, "min 590 ≤ median 900"),
            (
                r#""gpu":1,"dtype""#,
                r#""gpu":7,"dtype""#,
                "GPU 7 is not among",
            ),
            (
                r#""unit":"TFLOP/s","median":700"#,
                r#""unit":"GB/s","median":700"#,
                "unit \"GB/s\"",
            ),
            (
                r#""dtype":"bf16","unit":"TFLOP/s","median":700"#,
                r#""dtype":"int4","unit":"TFLOP/s","median":700"#,
                "names its dtype",
            ),
            (
                r#""test":"gemm","gpu":0"#,
                r#""test":"fft","gpu":0"#,
                "test \"fft\"",
            ),
            (r#""version":1"#, r#""version":2"#, "version 2 is not"),
            // Beyond physics, and rates of nothing.
            (
                r#""median":700,"min":690,"max":710"#,
                r#""median":1e300,"min":1e300,"max":1e300"#,
                "results[0] (gemm bf16): median 1.000e300 TFLOP/s is beyond what any device delivers",
            ),
            (
                r#""median":600,"min":590"#,
                r#""median":600,"min":0"#,
                "results[1] (gemm bf16): min must be a rate above zero (0)",
            ),
        ] {
            let text = log().replacen(from, to, 1);
            let e = PerfLog::read(&text).unwrap_err();
            assert!(e.contains(expected), "{e} (wanted {expected})");
        }
    }

    #[test]
    fn a_link_carries_what_its_generation_and_width_allow() {
        let x16 = Link {
            generation: Some(4),
            width: Some(16),
            generation_max: Some(4),
            width_max: Some(16),
        };
        assert!((x16.capacity_gbps().unwrap() - 31.5).abs() < 0.01);
        // Seated at x8, held against what the card can do (x16).
        let x8 = Link {
            width: Some(8),
            ..x16
        };
        assert_eq!(x8.capacity_gbps(), x16.capacity_gbps());
        assert_eq!(Link::default().capacity_gbps(), None);
    }
}
