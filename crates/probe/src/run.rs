//! The probe's two long-running jobs: sampling for a while (`probe
//! sample`), and wrapping a workload (`probe run`): launch → first GPU
//! activity (a startup attempt), samples while it runs, busy seconds
//! against wall time (the billing cross-check) and its exit status.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

use breakpoint_core::domain::{ImageState, LoadScenario, StartupAttempt, StartupOutcome};
use breakpoint_core::import::formats::ProbeRecord;
use serde::Serialize;

use crate::clock::Clock;
use crate::session::{ProbeError, Session, SessionOptions, Summary, TickInfo};
use crate::source::GpuSource;

/// Sample until `duration_ms` has passed or `stop` is set (Ctrl-C).
/// `progress` is called after every tick with what it read and the running
/// figures (for a live status line or chart).
pub fn sample<S: GpuSource + ?Sized, C: Clock>(
    source: &mut S,
    clock: &C,
    path: &Path,
    options: &SessionOptions,
    duration_ms: Option<i64>,
    stop: &AtomicBool,
    mut progress: impl FnMut(&TickInfo, &Summary),
) -> Result<Summary, ProbeError> {
    let mut session = Session::start(source, clock, path, options)?;
    let end = duration_ms.map(|d| session.start_ms() + d);
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let tick = session.tick()?;
        progress(&tick, &session.summary());
        if end.is_some_and(|e| tick.now_ms >= e) {
            break;
        }
    }
    session.finish(serde_json::Map::new())
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WrapReport {
    pub summary: Summary,
    /// The workload's exit code (`None` when a signal ended it).
    pub exit_code: Option<i32>,
    pub wall_s: f64,
    /// Seconds in which some GPU was above 10 % utilisation.
    pub busy_s: f64,
    /// Launch → first GPU activity; `None` if the workload never used a GPU.
    pub first_activity_s: Option<f64>,
}

/// Every process descended from `root` (Linux /proc), root included.
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // "pid (comm) state ppid …" — comm may hold spaces and parentheses.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse().ok());
            if let Some(ppid) = ppid {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found
}

/// Run `command` under the probe and sample until it exits.
pub fn wrap<S: GpuSource + ?Sized, C: Clock>(
    source: &mut S,
    clock: &C,
    path: &Path,
    options: &SessionOptions,
    command: &[String],
    mut progress: impl FnMut(&Summary),
) -> Result<WrapReport, ProbeError> {
    let shown = command.join(" ");
    let (program, args) = command.split_first().ok_or_else(|| ProbeError::Spawn {
        command: shown.clone(),
        error: std::io::Error::other("no command given after --"),
    })?;
    let mut session = Session::start(source, clock, path, options)?;
    let launch = clock.now_ms();
    let mut child =
        Command::new(program)
            .args(args)
            .spawn()
            .map_err(|error| ProbeError::Spawn {
                command: shown.clone(),
                error,
            })?;
    let interval_s = f64::from(options.interval_ms) / 1000.0;
    let mut busy_s = 0.0;
    let mut first_activity: Option<i64> = None;
    let status = loop {
        let exited = child.try_wait().map_err(|error| ProbeError::Spawn {
            command: shown.clone(),
            error,
        })?;
        let tick = session.tick()?;
        if tick.busy {
            busy_s += interval_s;
        }
        if first_activity.is_none() {
            let ours = descendants(child.id());
            if tick.busy || session.compute_pids().iter().any(|p| ours.contains(p)) {
                first_activity = Some(tick.now_ms);
            }
        }
        progress(&session.summary());
        if let Some(status) = exited {
            break status;
        }
    };
    let end = clock.now_ms();
    if let Some(at) = first_activity {
        let ts =
            |ms: i64| jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let attempt = StartupAttempt {
            scenario: LoadScenario::Baseline,
            image: ImageState::Warm,
            submitted_at: ts(launch),
            provisioned_at: None,
            image_ready_at: None,
            first_compute_at: Some(ts(at)),
            outcome: StartupOutcome::Ok,
        };
        session.write(&ProbeRecord::Startup {
            t: launch,
            startup: attempt,
        })?;
    }
    let wall_s = (end - launch) as f64 / 1000.0;
    let first_activity_s = first_activity.map(|at| (at - launch) as f64 / 1000.0);
    let mut extra = serde_json::Map::new();
    extra.insert("wrapped_command".into(), serde_json::json!(shown));
    extra.insert("exit_code".into(), serde_json::json!(status.code()));
    extra.insert("wall_s".into(), serde_json::json!(wall_s));
    extra.insert("busy_s".into(), serde_json::json!(busy_s));
    extra.insert(
        "first_activity_s".into(),
        serde_json::json!(first_activity_s),
    );
    if first_activity.is_none() {
        extra.insert("never_used_gpu".into(), serde_json::json!(true));
    }
    let summary = session.finish(extra)?;
    Ok(WrapReport {
        summary,
        exit_code: status.code(),
        wall_s,
        busy_s,
        first_activity_s,
    })
}
