//! The sampling tick over NVML for 8 GPUs, with every NVML call taking the
//! time a driver call takes (busy, like the driver), so that what is
//! measured is what a real 8-GPU server would spend per tick: the probe's
//! own work plus its NVML calls. Goal: under 5 ms, never near the interval
//! (100 ms at the fastest).
//!
//! Same run, for comparison: the tick as it was, which also asked NVML for
//! PCIe throughput (`nvmlDeviceGetPcieThroughput`, which samples the link
//! for 20 ms) twice per GPU — modelled as the same tick plus those calls.
//!
//! Run: `cargo bench -p breakpoint-probe --bench nvml_tick`

use std::time::{Duration, Instant};

use breakpoint_probe::nvml::NvmlSource;
use breakpoint_probe::nvml::fake::{FakeGpu, FakeNvml, spend};
use breakpoint_probe::session::{Session, SessionOptions};
use breakpoint_probe::{GpuSource, ManualClock};

/// A driver call that reads state NVML keeps (power, clocks, counters).
const CALL: Duration = Duration::from_micros(20);
/// What `nvmlDeviceGetPcieThroughput` takes: it samples for 20 ms.
const PCIE_THROUGHPUT: Duration = Duration::from_millis(20);
const GPUS: u32 = 8;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nvml = FakeNvml::new((0..GPUS).map(FakeGpu::a100).collect());
    nvml.state.borrow_mut().latency = CALL;
    let mut source = NvmlSource::with_api(nvml.clone())?;
    source.inventory()?;
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir()?;
    let options = SessionOptions {
        interval_ms: 100,
        ..SessionOptions::default()
    };
    let mut session = Session::start(&mut source, &clock, &dir.path().join("b.jsonl"), &options)?;
    let ticks = 300;
    let calls_before = nvml.calls();
    let start = Instant::now();
    for _ in 0..ticks {
        session.tick()?;
    }
    let new_ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(ticks);
    let calls = (nvml.calls() - calls_before) as f64 / f64::from(ticks);
    // The old tick: the same work plus two 20 ms throughput samples per GPU.
    let old_ticks = 5;
    let start = Instant::now();
    for _ in 0..old_ticks {
        session.tick()?;
        for _ in 0..2 * GPUS {
            spend(PCIE_THROUGHPUT);
        }
    }
    let old_ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(old_ticks);
    session.finish(serde_json::Map::new())?;
    println!(
        "NVML tick, {GPUS} GPUs, {calls:.0} NVML calls of {} µs each: {new_ms:.2} ms per tick \
         (goal < 5 ms; {:.1} % of the 100 ms minimum interval)",
        CALL.as_micros(),
        new_ms / 100.0 * 100.0
    );
    println!(
        "same run, with PCIe throughput queried as before (2 × 20 ms per GPU): {old_ms:.1} ms \
         per tick → {:.0}× slower",
        old_ms / new_ms
    );
    Ok(())
}
