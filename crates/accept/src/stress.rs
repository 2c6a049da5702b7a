//! Stress stability (the four-breakpoint review, §6.2 item 1): the user's full load under the
//! probe for a set time, then judged from the log it wrote by the same
//! import and metrics the workstation uses.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use breakpoint_api::acceptance;
use breakpoint_core::metrics::stress::StressFigures;
use breakpoint_probe::{Clock, GpuSource, ProbeError, SessionOptions, Workload, WrapReport, wrap};

/// The load: the user's command, and how long it may run.
pub struct Load<'a> {
    pub command: &'a [String],
    pub duration: Duration,
}

/// Run the load under the probe until it exits or its time is up (then it
/// is stopped), writing the probe log at `log`; each GPU's figures.
pub fn run<S: GpuSource + ?Sized, C: Clock>(
    source: &mut S,
    clock: &C,
    log: &Path,
    options: &SessionOptions,
    load: &Load<'_>,
    stop: &Arc<AtomicBool>,
    progress: impl FnMut(&breakpoint_probe::TickInfo, &breakpoint_probe::Summary),
) -> Result<(WrapReport, Vec<(u32, StressFigures)>), String> {
    let done = Arc::new(AtomicBool::new(false));
    let timer = {
        let (stop, done, duration) = (stop.clone(), done.clone(), load.duration);
        std::thread::spawn(move || {
            let end = Instant::now() + duration;
            while Instant::now() < end && !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
            }
            stop.store(true, Ordering::Relaxed);
        })
    };
    let mut tags = serde_json::Map::new();
    tags.insert("acceptance".into(), "stress".into());
    let workload = Workload {
        command: load.command.to_vec(),
        own_group: true,
        tags,
        ..Workload::default()
    };
    let report = wrap(source, clock, log, options, &workload, stop, progress);
    done.store(true, Ordering::Relaxed);
    let _ = timer.join();
    let report = report.map_err(|e: ProbeError| e.to_string())?;
    let figures = acceptance::stress_of_log(log).map_err(|e| e.to_string())?;
    Ok((report, figures))
}
