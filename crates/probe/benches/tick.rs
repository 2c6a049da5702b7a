//! Probe overhead: the cost of one sampling tick for 8 GPUs (every field
//! read, written to the log, flush policy applied), over the scripted
//! source so that only the probe's own work is measured. Goal: under 1 % of
//! one core at 1 Hz, i.e. a tick well under 10 ms.
//!
//! Run: `cargo bench -p breakpoint-probe --bench tick`

use std::time::Instant;

use breakpoint_model::domain::GpuInfo;
use breakpoint_model::samples::Field;
use breakpoint_probe::scripted::{ScriptedSource, Tick};
use breakpoint_probe::session::{Session, SessionOptions};
use breakpoint_probe::{ManualClock, Reading};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reading = Reading {
        values: vec![
            (Field::PowerMw, 250_123),
            (Field::EnergyMj, 123_456_789),
            (Field::TempGpuC, 71),
            (Field::SmClockMhz, 1410),
            (Field::MemClockMhz, 1593),
            (Field::UtilGpuPct, 98),
            (Field::UtilMemPct, 45),
            (Field::MemUsedMib, 61_227),
            (Field::MemTotalMib, 81_920),
            (Field::ThrottleMask, 0),
            (Field::PcieTxKbps, 1200),
            (Field::PcieRxKbps, 98_000),
            (Field::FanPct, 40),
            (Field::Pstate, 0),
            (Field::PowerLimitMw, 400_000),
        ],
    };
    let gpus: Vec<GpuInfo> = (0..8)
        .map(|index| GpuInfo {
            index,
            ..GpuInfo::default()
        })
        .collect();
    let mut source = ScriptedSource::new(
        gpus,
        vec![Tick {
            answers: vec![Ok(reading); 8],
            ..Tick::default()
        }],
    );
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir()?;
    let options = SessionOptions {
        interval_ms: 1000,
        ..SessionOptions::default()
    };
    let mut session = Session::start(
        &mut source,
        &clock,
        &dir.path().join("bench.jsonl"),
        &options,
    )?;
    let ticks = 20_000;
    let start = Instant::now();
    for _ in 0..ticks {
        session.tick()?;
    }
    let per_tick_us = start.elapsed().as_secs_f64() * 1e6 / f64::from(ticks);
    session.finish(serde_json::Map::new())?;
    println!(
        "probe tick, 8 GPUs × 15 fields, logged: {per_tick_us:.1} µs per tick → {:.4} % of one core at 1 Hz (goal < 1 %), {:.3} % at 10 Hz",
        per_tick_us / 1e6 * 100.0,
        per_tick_us / 1e5 * 100.0
    );
    Ok(())
}
