//! The checks buyers and providers already run when a cluster is handed
//! over, read from the outputs the tools print: nccl-tests, perftest
//! (`ib_write_bw`, `ib_write_lat`), nvbandwidth, gpu-burn and gpu-fryer.
//!
//! Each output becomes the figures Breakpoint's own perf suite writes (a
//! perf log in the run's metadata, so the delivered-performance metrics and
//! the straggler rule read them alike), the GPUs the check passed judgement
//! on (`CHECKED_GPUS`: each counts as observed in the share of faulty GPUs,
//! healthy or not), and what it found wrong with a GPU (`UNTIMED_HEALTH`:
//! a GPU gpu-burn calls FAULTY, a collective that returned wrong data).
//! These tools print no date (gpu-burn's summaries aside): the run is
//! dated by `--start` or left without a period, as a `dcgmi diag` is.

mod gpu_burn;
mod gpu_fryer;
mod nccl;
mod nvbandwidth;
mod perftest;

use std::io::BufRead;

pub(crate) use gpu_burn::parse as parse_gpu_burn;
pub(crate) use gpu_fryer::parse as parse_gpu_fryer;
pub(crate) use nccl::parse as parse_nccl;
pub(crate) use nvbandwidth::parse as parse_nvbandwidth;
pub(crate) use perftest::parse as parse_perftest;

use super::super::builder::{GpuKey, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::read_document;
use super::super::{Format, ParseContext, accelerator};
use super::perf_log::{PERF_FORMAT, PERF_VERSION, PerfGpu, PerfLog, PerfResult};
use crate::domain::{CHECKED_GPUS, UNTIMED_HEALTH};

/// These outputs are kilobytes; a long gpu-burn log with a progress update
/// a second is a few MiB.
const LIMIT: u64 = 32 << 20;

/// The format of a health check's output, from its first lines.
pub(crate) fn detect(lines: &[&str]) -> Option<Format> {
    let any = |f: &dyn Fn(&str) -> bool| lines.iter().any(|l| f(without_tags(l).trim()));
    if any(&|l| l.starts_with("# nThread") || l.starts_with("# Collective test starting"))
        || any(&|l| l.starts_with('#') && nccl::is_column_header(l))
    {
        return Some(Format::NcclTests);
    }
    if any(&perftest::is_title) || any(&|l| perftest::is_table_header(l)) {
        return Some(Format::Perftest);
    }
    if any(&|l| l.starts_with("nvbandwidth Version")) || any(&nvbandwidth::is_matrix_title) {
        return Some(Format::Nvbandwidth);
    }
    if any(&|l| l.contains("proc'd:") && l.contains("Gflop/s"))
        || any(&|l| l.starts_with("Initialized device") && l.contains("using"))
        || any(&|l| l.starts_with("Burning for"))
    {
        return Some(Format::GpuBurn);
    }
    if any(&|l| l.starts_with("Detected GPU #"))
        || any(&|l| l.starts_with("GPU #") && l.contains("Gflops/s (min:"))
        || any(&|l| l.starts_with("Using precision(s):"))
    {
        return Some(Format::GpuFryer);
    }
    None
}

/// The whole output, its lines split on newlines and on the carriage
/// returns progress lines overwrite themselves with, escapes and blank
/// pieces dropped.
fn read_lines<R: BufRead>(input: R, what: &str) -> ParseResult<Vec<String>> {
    let text = read_document(input, LIMIT, what)?;
    Ok(text
        .split(['\n', '\r'])
        .map(|l| {
            without_tags(&crate::transcript::strip_terminal_escapes(l))
                .trim_end()
                .to_string()
        })
        .filter(|l| !l.trim().is_empty())
        .collect())
}

/// What one check's output says, gathered before it becomes a run.
struct Checked {
    tool: &'static str,
    version: Option<String>,
    host: Option<String>,
    gpus: Vec<PerfGpu>,
    /// A GPU's host where the check spans nodes (nccl-tests' ranks).
    gpu_hosts: Vec<(u32, String)>,
    results: Vec<PerfResult>,
    /// The GPUs the check passed judgement on, found faulty or not.
    judged: Vec<u32>,
    /// What it found wrong: a GPU (none: one it cannot name) and the fault.
    findings: Vec<(Option<u32>, String)>,
    /// The times the output gives (UTC ms), where it gives any.
    times: Vec<i64>,
}

impl Checked {
    fn new(tool: &'static str) -> Self {
        Self {
            tool,
            version: None,
            host: None,
            gpus: Vec::new(),
            gpu_hosts: Vec::new(),
            results: Vec::new(),
            judged: Vec::new(),
            findings: Vec::new(),
            times: Vec::new(),
        }
    }

    /// A GPU the output names, once.
    fn gpu(&mut self, index: u32, name: &str) -> &mut PerfGpu {
        let at = match self.gpus.iter().position(|g| g.index == index) {
            Some(at) => at,
            None => {
                self.gpus.push(PerfGpu {
                    index,
                    name: name.trim().to_string(),
                    uuid: None,
                    pci_bus_id: None,
                    memory_mib: None,
                    compute_capability: None,
                });
                self.gpus.len() - 1
            }
        };
        let gpu = &mut self.gpus[at];
        if gpu.name.is_empty() {
            gpu.name = name.trim().to_string();
        }
        gpu
    }

    /// One figure: `values` are the readings it stands for (their median
    /// is the figure, their extremes its spread).
    fn figure(&mut self, test: &str, unit: &str, values: &[f64]) -> Option<&mut PerfResult> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        self.results.push(PerfResult {
            test: test.into(),
            gpu: None,
            dtype: None,
            peer: None,
            gpus: Vec::new(),
            unit: unit.into(),
            median,
            min,
            max,
            repeats: u32::try_from(n).unwrap_or(u32::MAX),
            link: None,
            topology: None,
            peer_access: None,
            settings: serde_json::Map::new(),
        });
        self.results.last_mut()
    }

    fn judged(&mut self, gpu: u32) {
        if !self.judged.contains(&gpu) {
            self.judged.push(gpu);
        }
    }

    /// The check as a run: the figures as a perf log (checked as one), the
    /// GPUs in the inventory, the judged GPUs and the findings.
    fn finish(mut self, ctx: &ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
        if self.results.is_empty() && self.judged.is_empty() && self.findings.is_empty() {
            return Err(ParseFailure::Whole(format!(
                "no {} result found: the output stops before its first figure or verdict",
                self.tool
            )));
        }
        if self.times.is_empty()
            && let Some(start) = ctx.start
        {
            self.times.push(start.as_millisecond());
        }
        for &t in &self.times {
            b.saw_time(t);
        }
        let started = self
            .times
            .iter()
            .min()
            .and_then(|&t| jiff::Timestamp::from_millisecond(t).ok());
        if started.is_none() {
            b.warn(format!(
                "{} prints no date: the results are kept undated (give --start to date them)",
                self.tool
            ));
        }
        self.gpus.sort_by_key(|g| g.index);
        b.host = self.host.clone();
        for g in &self.gpus {
            let index = b.gpu(GpuKey::Index(g.index));
            if let Some(uuid) = &g.uuid {
                b.alias(GpuKey::Uuid(uuid), index);
            }
            if let Some(bus) = &g.pci_bus_id {
                b.alias(GpuKey::BusId(bus), index);
            }
            let host = self
                .gpu_hosts
                .iter()
                .find(|(i, _)| *i == g.index)
                .map(|(_, h)| h.clone())
                .or_else(|| self.host.clone());
            let info = b.inventory(index);
            info.host = host;
            if !g.name.is_empty() {
                info.accelerator = Some(accelerator::normalise(&g.name));
            }
        }
        let framework = match &self.version {
            Some(v) => format!("{} {v}", self.tool),
            None => self.tool.to_string(),
        };
        if !self.results.is_empty() {
            let mut settings = serde_json::Map::new();
            settings.insert("tool".into(), self.tool.into());
            let log = PerfLog {
                format: PERF_FORMAT.into(),
                version: PERF_VERSION,
                started_at: started.unwrap_or(jiff::Timestamp::UNIX_EPOCH),
                finished_at: None,
                host: self.host.clone(),
                framework,
                backend: "cuda".into(),
                settings,
                gpus: self.gpus.clone(),
                planted: Vec::new(),
                results: self.results,
                skipped: Vec::new(),
                timeline: None,
            };
            log.check()
                .map_err(|e| ParseFailure::Whole(format!("{}: {e}", self.tool)))?;
            b.metadata_records += log.results.len() as u64;
            let value =
                serde_json::to_value(&log).map_err(|e| ParseFailure::Whole(e.to_string()))?;
            b.metadata.insert("perf".into(), value);
        }
        if !self.judged.is_empty() {
            self.judged.sort_unstable();
            b.metadata
                .insert(CHECKED_GPUS.into(), serde_json::json!(self.judged));
        }
        if !self.findings.is_empty() {
            b.metadata_records += self.findings.len() as u64;
            for (gpu, what) in &self.findings {
                b.warn(match gpu {
                    Some(g) => format!("GPU {g}: {what}"),
                    None => what.clone(),
                });
            }
            let kept = b
                .metadata
                .entry(UNTIMED_HEALTH)
                .or_insert_with(|| serde_json::Value::Array(Vec::new()));
            if let serde_json::Value::Array(list) = kept {
                list.extend(
                    self.findings
                        .into_iter()
                        .map(|(gpu, what)| serde_json::json!({"gpu": gpu, "what": what})),
                );
            }
        }
        Ok(())
    }
}

/// A line with every rank tag taken out: `--tag-output` tags each piece
/// a rank wrote, in the middle of a line too.
fn without_tags(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let tail = &rest[open..];
        // "[1,0]<stdout>:": digits and commas in the brackets.
        let tag_end = tail.find(']').filter(|&close| {
            close > 1
                && tail[1..close]
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ',')
        });
        let after = tag_end.and_then(|close| {
            let rest = &tail[close + 1..];
            ["<stdout>:", "<stderr>:"]
                .iter()
                .find(|t| rest.starts_with(**t))
                .map(|t| close + 1 + t.len())
        });
        match after {
            Some(end) => {
                out.push_str(&rest[..open]);
                rest = &tail[end..];
            }
            None => {
                out.push_str(&rest[..=open]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first number in `text` ("18234" of "(18234 Gflop/s)").
fn number_in(text: &str) -> Option<f64> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let rest = &text[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}
