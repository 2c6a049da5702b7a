//! Delivered performance (`accept perf`): the perf suite (`perf.py`,
//! written out and run by the platform's Python with its PyTorch) measures
//! what each GPU of the node computes and moves — matrix products per
//! dtype, device-memory, host↔device and peer bandwidth, an all-reduce —
//! and, for a set duration, throughput over time. It writes a perf log
//! (`breakpoint-perf`) that imports as evidence; the analysis (stragglers,
//! decay, share of nominal) is the core's (`breakpoint_core::perf`).

use std::path::Path;
use std::time::Duration;

use breakpoint_destination::Destination;
use breakpoint_formats::parsers::perf_log::PerfLog;

/// The suite, as Breakpoint writes it out.
pub const SCRIPT: &str = include_str!("perf.py");

pub const DEVICES: &[&str] = &["auto", "cuda", "npu", "cpu", "numpy"];

/// How to run the suite here.
#[derive(Debug, Clone)]
pub struct SuiteRun {
    /// The interpreter with PyTorch (or NumPy, for the CPU).
    pub python: String,
    /// auto, cuda, npu, cpu or numpy.
    pub device: String,
    /// Smaller sizes and fewer repeats.
    pub quick: bool,
    /// Throughput over time after the suite: how long, and how often.
    pub timeline: Option<(Duration, Duration)>,
    /// The CPU split into this many devices (tests of the analysis).
    pub cpu_devices: Option<u32>,
    /// Slowdowns planted to test the analysis: `GPU:SHARE[@AFTER_S]`.
    pub plant: Vec<String>,
    pub timeout: Duration,
}

/// Write the suite out, run it, read the perf log it saved and write it to
/// `output` once it reads whole.
pub fn run_suite(run: &SuiteRun, output: &Destination) -> Result<PerfLog, String> {
    if !DEVICES.contains(&run.device.as_str()) {
        return Err(format!(
            "device {}: one of {}",
            run.device,
            DEVICES.join(", ")
        ));
    }
    let mut args: Vec<std::ffi::OsString> = vec!["--device".into(), run.device.clone().into()];
    if run.quick {
        args.push("--quick".into());
    }
    if let Some((duration, interval)) = run.timeline {
        if interval.is_zero() {
            return Err("the timeline's interval must be longer than zero".into());
        }
        args.extend([
            "--duration".into(),
            format!("{}", duration.as_secs_f64()).into(),
            "--interval".into(),
            format!("{}", interval.as_secs_f64()).into(),
        ]);
    }
    if let Some(n) = run.cpu_devices {
        args.extend(["--gpus".into(), n.to_string().into()]);
    }
    for p in &run.plant {
        args.extend(["--plant".into(), p.into()]);
    }
    let bytes = crate::script::run(&crate::script::Script {
        name: "perf.py",
        text: SCRIPT,
        title: "the perf suite",
        python: &run.python,
        args,
        timeout: run.timeout,
    })?;
    let shown = output.path().display();
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| format!("{shown}: the perf suite saved text that is not UTF-8: {e}"))?;
    let log = PerfLog::read(text).map_err(|e| format!("{shown}: {e}"))?;
    output.write(&bytes).map_err(|e| e.to_string())?;
    Ok(log)
}

/// A perf log read and checked as the importer checks it.
pub fn read_log(path: &Path) -> Result<PerfLog, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    PerfLog::read(&text).map_err(|e| format!("{shown}: {e}"))
}
