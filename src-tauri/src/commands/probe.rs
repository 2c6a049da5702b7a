use std::path::{Path, PathBuf};

use breakpoint_core::samples::Field;
use breakpoint_probe::{ProbeSource, SessionOptions, SystemClock};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::dto::{
    DeliveryView, GpuPoint, GpuRow, ProbeFinished, ProbeStarted, ProbeState, ProbeTick,
};
use crate::error::{AppError, AppResult};
use crate::state::AppState;

/// NVML, or the recorded trace the state names; the error is the line the
/// screen shows.
fn open_source(trace: Option<&Path>) -> Result<ProbeSource, String> {
    ProbeSource::open(trace).map_err(|e| e.to_string())
}

fn inventory(source: &mut ProbeSource) -> Result<Vec<breakpoint_core::domain::GpuInfo>, String> {
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

/// This machine's GPUs, or why there are none (an empty state that points
/// to importing logs instead).
#[tauri::command]
pub fn probe_inventory(state: State<'_, AppState>) -> ProbeState {
    let trace = state.probe_trace.as_deref();
    let inventory = open_source(trace).and_then(|mut s| inventory(&mut s));
    match inventory {
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
                    pcie: format!(
                        "{}{}",
                        g.pcie_gen_current
                            .map(|x| format!("Gen{x} "))
                            .unwrap_or_default(),
                        g.pcie_width_current
                            .map(|x| format!("x{x}"))
                            .unwrap_or_default()
                    ),
                    power_limit_w: g.power_limit_enforced_w,
                })
                .collect(),
        },
        Err(e) => ProbeState {
            status: "no_gpu".into(),
            message: Some(e),
            gpus: Vec::new(),
        },
    }
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
    if !(100..=60_000).contains(&interval_ms) {
        return Err(AppError {
            field: Some("interval_ms".into()),
            ..AppError::new("invalid", "interval_ms: from 100 ms to 60 s")
        });
    }
    let dir = state
        .db_path
        .parent()
        .map_or_else(|| PathBuf::from("probe-logs"), |d| d.join("probe-logs"));
    std::fs::create_dir_all(&dir)?;
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string();
    let path = dir.join(format!("probe-{stamp}.jsonl"));
    let (job, stop) = state.start_job();
    let log_path = path.display().to_string();
    let worker_app = app.clone();
    let trace = state.probe_trace.clone();
    std::thread::spawn(move || {
        let outcome =
            sample_until_stopped(&worker_app, trace.as_deref(), &path, interval_ms, &stop);
        let finished = match outcome {
            Ok(summary) => ProbeFinished {
                job,
                log_path: path.display().to_string(),
                samples: summary.samples,
                duration_s: summary.duration_s,
                error: None,
            },
            Err(message) => ProbeFinished {
                job,
                log_path: path.display().to_string(),
                samples: 0,
                duration_s: 0.0,
                error: Some(message),
            },
        };
        let _ = worker_app.emit("probe-finished", finished);
        if let Some(state) = tauri::Manager::try_state::<AppState>(&worker_app) {
            state.end_job(job);
        }
    });
    Ok(ProbeStarted { job, log_path })
}

fn sample_until_stopped<R: Runtime>(
    app: &AppHandle<R>,
    trace: Option<&Path>,
    path: &Path,
    interval_ms: u32,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<breakpoint_probe::Summary, String> {
    let mut source = open_source(trace)?;
    let options = SessionOptions {
        interval_ms,
        ..SessionOptions::default()
    };
    breakpoint_probe::sample(
        source.as_dyn(),
        &SystemClock::default(),
        path,
        &options,
        None,
        stop,
        |tick, summary| {
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
        },
    )
    .map_err(|e| e.to_string())
}

/// Check this machine's GPUs against what an offering promised, and store
/// the check as a delivery run of its platform.
#[tauri::command]
pub fn probe_check(state: State<'_, AppState>, offering_id: i64) -> AppResult<DeliveryView> {
    let gpus = open_source(state.probe_trace.as_deref())
        .and_then(|mut s| inventory(&mut s))
        .map_err(|e| AppError::new("no_gpu", e))?;
    let store = state.store()?;
    let offering = store.offering(offering_id)?;
    let expected = breakpoint_core::delivery::Expectation::from(&offering);
    let found = breakpoint_core::delivery::mismatches(&expected, &gpus);
    let run_id = breakpoint_core::delivery::record_check(
        &store,
        offering.platform_id,
        Some(offering_id),
        &gpus,
    )?;
    Ok(DeliveryView {
        gpus: gpus.len() as u32,
        run_id,
        mismatches: found
            .iter()
            .map(|m| format!("{}: ordered {}, found {}", m.what, m.expected, m.found))
            .collect(),
    })
}
