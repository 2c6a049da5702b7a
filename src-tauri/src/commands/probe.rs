//! The Probe screen: this machine's GPUs, a conformity check against an
//! offering, sampling to a probe log, and a workload run under the probe.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use breakpoint_api::runs::Field;
use breakpoint_probe::{
    ProbeSource, SessionOptions, Summary, SystemClock, TickInfo, Workload, rules,
};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::consent::{WorkloadConsent, WorkloadRequest};
use crate::dto::{
    ConformityView, GpuPoint, GpuRow, ProbeFinished, ProbeStarted, ProbeState, ProbeTick,
    WorkloadOutcome,
};
use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

/// NVML, or the recorded trace the state names; the error is the line the
/// screen shows.
fn open_source(trace: Option<&Path>) -> Result<ProbeSource, String> {
    ProbeSource::open(trace).map_err(|e| e.to_string())
}

fn inventory(source: &mut ProbeSource) -> Result<Vec<breakpoint_api::domain::GpuInfo>, String> {
    source.as_dyn().inventory().map_err(|e| e.to_string())
}

fn replay_note(trace: Option<&Path>) -> Option<String> {
    trace.map(|p| {
        format!(
            "Replaying the recorded trace {} (BREAKPOINT_PROBE_TRACE); no GPU is being read.",
            p.display()
        )
    })
}

/// The inventory, taken off the UI thread: NVML can take seconds on a
/// machine with many GPUs or one that is failing.
async fn inventory_off_thread(
    trace: Option<PathBuf>,
) -> Result<Vec<breakpoint_api::domain::GpuInfo>, String> {
    tauri::async_runtime::spawn_blocking(move || {
        open_source(trace.as_deref()).and_then(|mut s| inventory(&mut s))
    })
    .await
    .map_err(|e| e.to_string())?
}

/// This machine's GPUs, or why there are none (an empty state that points
/// to importing logs instead).
#[tauri::command]
pub async fn probe_inventory(state: State<'_, AppState>) -> AppResult<ProbeState> {
    let trace = state.probe_trace.clone();
    let inventory = inventory_off_thread(trace.clone()).await;
    let trace = trace.as_deref();
    Ok(match inventory {
        Ok(gpus) => ProbeState {
            status: "ready".into(),
            message: replay_note(trace),
            gpus: gpus
                .into_iter()
                .map(|g| GpuRow {
                    index: g.index,
                    name: g
                        .accelerator
                        .as_ref()
                        .map_or("unknown".into(), |a| a.raw.clone()),
                    canonical: g
                        .accelerator
                        .as_ref()
                        .map_or("unknown".into(), |a| a.canonical.clone()),
                    uuid: g.uuid,
                    vram_mib: g.vram_mib,
                    driver: g.driver_version,
                    cuda: g.cuda_version,
                    pcie: breakpoint_api::domain::pcie_link(
                        g.pcie_gen_current,
                        g.pcie_width_current,
                    ),
                    power_limit_w: g.power_limit_enforced_w,
                    unreadable: g.unreadable,
                    mig: g
                        .mig_instances
                        .iter()
                        .map(|m| m.name.clone().unwrap_or_else(|| "MIG instance".into()))
                        .collect(),
                })
                .collect(),
        },
        Err(e) => ProbeState {
            status: "no_gpu".into(),
            message: Some(e),
            gpus: Vec::new(),
        },
    })
}

fn check_interval(interval_ms: u32) -> AppResult<()> {
    rules::check_interval(interval_ms)
        .map(|_| ())
        .map_err(|e| AppError {
            field: Some("interval_ms".into()),
            ..AppError::new(ErrorKind::Invalid, format!("interval_ms: {e}"))
        })
}

/// `probe-logs/` beside the database.
fn log_dir(state: &AppState) -> AppResult<PathBuf> {
    let dir = state
        .db_path
        .parent()
        .map_or_else(|| PathBuf::from("probe-logs"), |d| d.join("probe-logs"));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Each tick, as the live chart wants it.
fn emit_tick<R: Runtime>(app: &AppHandle<R>, tick: &TickInfo, summary: &Summary) {
    let gpus = tick
        .readings
        .iter()
        .map(|(gpu, r)| GpuPoint {
            gpu: *gpu,
            power_w: r.get(Field::PowerMw).map(|mw| mw as f64 / 1000.0),
            temp_c: r.get(Field::TempGpuC),
            util_pct: r.get(Field::UtilGpuPct),
        })
        .collect();
    let _ = app.emit(
        "probe-tick",
        ProbeTick {
            t_ms: (summary.duration_s * 1000.0).round() as i64,
            samples: summary.samples,
            gpus,
        },
    );
}

/// Run `work` on a thread of its own and announce its end as
/// `probe-finished`, freeing the probe for the next job.
fn spawn_probe_job<R: Runtime>(
    app: &AppHandle<R>,
    job: u64,
    log: PathBuf,
    work: impl FnOnce(&AppHandle<R>) -> Result<(Summary, Option<WorkloadOutcome>), String>
    + Send
    + 'static,
) {
    let app = app.clone();
    std::thread::spawn(move || {
        let finished = match work(&app) {
            Ok((summary, workload)) => ProbeFinished {
                job,
                log_path: log.display().to_string(),
                samples: summary.samples,
                duration_s: summary.duration_s,
                error: None,
                workload,
            },
            Err(message) => ProbeFinished {
                job,
                log_path: log.display().to_string(),
                samples: 0,
                duration_s: 0.0,
                error: Some(message),
                workload: None,
            },
        };
        // Free the probe first: whoever hears "finished" may start the next.
        if let Some(state) = tauri::Manager::try_state::<AppState>(&app) {
            state.end_job(job);
        }
        let _ = app.emit("probe-finished", finished);
    });
}

/// Start sampling every GPU into a probe log beside the database, off the
/// UI thread. Each tick goes out as a `probe-tick` event; the end (stopped
/// with `cancel_job`, or failed) as `probe-finished`. The log imports like
/// any other (Runs → import).
#[tauri::command]
pub fn probe_start<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    interval_ms: u32,
) -> AppResult<ProbeStarted> {
    check_interval(interval_ms)?;
    let path = rules::log_path(
        None,
        &log_dir(&state)?,
        "probe",
        None,
        jiff::Timestamp::now(),
    );
    let (job, stop) = state.start_probe_job()?;
    let trace = state.probe_trace.clone();
    let log = path.clone();
    spawn_probe_job(&app, job, path.clone(), move |app| {
        let mut source = open_source(trace.as_deref())?;
        let options = SessionOptions {
            interval_ms,
            ..SessionOptions::default()
        };
        breakpoint_probe::sample(
            source.as_dyn(),
            &SystemClock::default(),
            &log,
            &options,
            None,
            &stop,
            |tick, summary| emit_tick(app, tick, summary),
        )
        .map(|summary| (summary, None))
        .map_err(|e| e.to_string())
    });
    Ok(ProbeStarted {
        job,
        log_path: path.display().to_string(),
    })
}

/// Run a workload under the probe: the command line typed in the Probe
/// screen (split like a shell would, but run without one), in `dir`. It
/// starts only after the person at the machine says yes in a native dialog
/// (see `consent`); then it behaves like `probe_start`, and `cancel_job`
/// stops the workload (SIGTERM, SIGKILL after 10 s). Its output goes to a
/// file beside the log; `probe-finished` carries its exit and last lines.
#[tauri::command]
pub async fn probe_run<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    consent: State<'_, WorkloadConsent>,
    command_line: String,
    dir: Option<String>,
    interval_ms: u32,
) -> AppResult<ProbeStarted> {
    check_interval(interval_ms)?;
    let invalid = |field: &str, message: String| AppError {
        field: Some(field.into()),
        ..AppError::new(ErrorKind::Invalid, message)
    };
    let command = shlex::split(&command_line).ok_or_else(|| {
        invalid(
            "command_line",
            "command_line: a quote is not closed".to_string(),
        )
    })?;
    if command.is_empty() {
        return Err(invalid(
            "command_line",
            "command_line: type the command to run, e.g. python3 train.py".into(),
        ));
    }
    let dir = dir
        .filter(|d| !d.trim().is_empty())
        .map(|d| PathBuf::from(d.trim()));
    let mut workload = Workload {
        command,
        dir,
        output: None,
        own_group: true,
        ..Workload::default()
    };
    workload.validate().map_err(|e| {
        let field = if workload.dir.as_ref().is_some_and(|d| !d.is_dir()) {
            "dir"
        } else {
            "command_line"
        };
        invalid(field, format!("{field}: {e}"))
    })?;
    let request = WorkloadRequest {
        command: workload.command.clone(),
        dir: workload.dir.clone(),
        language: state.language(),
    };
    // Claim the probe before asking, so nobody is asked for a run that
    // could not start.
    let (job, stop) = state.start_probe_job()?;
    let asker = consent.inner().clone();
    let allowed = tauri::async_runtime::spawn_blocking(move || asker.ask(&request))
        .await
        .unwrap_or(false);
    let dir = log_dir(&state);
    let log_dir = match (allowed, dir) {
        (true, Ok(dir)) => dir,
        (false, _) => {
            state.end_job(job);
            return Err(AppError::new(
                ErrorKind::Cancelled,
                "the workload was not run",
            ));
        }
        (true, Err(e)) => {
            state.end_job(job);
            return Err(e);
        }
    };
    let path = rules::log_path(None, &log_dir, "workload", None, jiff::Timestamp::now());
    // The workload's own output beside its log, under the same name.
    let output = path.with_extension("out");
    workload.output = Some(output);
    let trace = state.probe_trace.clone();
    let log = path.clone();
    spawn_probe_job(&app, job, path.clone(), move |app| {
        run_workload(app, trace.as_deref(), &log, interval_ms, &workload, &stop)
    });
    Ok(ProbeStarted {
        job,
        log_path: path.display().to_string(),
    })
}

fn run_workload<R: Runtime>(
    app: &AppHandle<R>,
    trace: Option<&Path>,
    log: &Path,
    interval_ms: u32,
    workload: &Workload,
    stop: &AtomicBool,
) -> Result<(Summary, Option<WorkloadOutcome>), String> {
    let mut source = open_source(trace)?;
    let options = SessionOptions {
        interval_ms,
        ..SessionOptions::default()
    };
    let report = breakpoint_probe::wrap(
        source.as_dyn(),
        &SystemClock::default(),
        log,
        &options,
        workload,
        stop,
        |tick, summary| emit_tick(app, tick, summary),
    )
    .map_err(|e| e.to_string())?;
    let output = workload.output.clone().unwrap_or_default();
    let outcome = WorkloadOutcome {
        command: workload.shown(),
        exit_code: report.exit_code,
        wall_s: report.wall_s,
        busy_s: report.busy_s,
        first_activity_s: report.first_activity_s,
        gpu_use_unknown: report.gpu_use_unknown,
        stopped: report.stopped,
        output_tail: last_lines(&output, 20),
        output_path: output.display().to_string(),
    };
    Ok((report.summary, Some(outcome)))
}

/// The last `n` lines of a file, reading at most its last 16 KiB (a
/// training log can be large), lossily decoded.
fn last_lines(path: &Path, n: usize) -> Vec<String> {
    use std::io::{Read, Seek, SeekFrom};
    const TAIL_BYTES: u64 = 16 * 1024;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let from = len.saturating_sub(TAIL_BYTES);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if from > 0 && !lines.is_empty() {
        // The first line was cut by the window.
        lines.remove(0);
    }
    let keep = lines.len().saturating_sub(n);
    lines[keep..].iter().map(|l| l.to_string()).collect()
}

/// Check this machine's GPUs against what an offering promised, and store
/// the check as a conformity run of its platform.
#[tauri::command]
pub async fn probe_check(
    state: State<'_, AppState>,
    offering_id: i64,
) -> AppResult<ConformityView> {
    // NVML first, holding nothing; then a connection of its own, so the
    // shared one is never held while the GPUs are asked.
    let gpus = inventory_off_thread(state.probe_trace.clone())
        .await
        .map_err(|e| AppError::new(ErrorKind::NoGpu, e))?;
    let store = state.own_store()?;
    let (_, outcome) = breakpoint_api::conformity::check(
        &store,
        &breakpoint_api::conformity::Order::Offering(offering_id),
        &gpus,
    )?;
    let found = outcome.mismatches;
    let run_id = outcome.run_id.unwrap_or_default();
    Ok(ConformityView {
        gpus: gpus.len() as u32,
        run_id,
        mismatches: found
            .iter()
            .map(|m| format!("{}: ordered {}, found {}", m.what, m.expected, m.found))
            .collect(),
    })
}
