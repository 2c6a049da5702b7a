//! The Runs screen: runs listed and shown in detail (events, timeline,
//! startup distribution), deleted, and imported from files and folders.

use std::path::{Path, PathBuf};

use breakpoint_api::domain::Run;
use breakpoint_api::importing::{self, FileResult, ImportObserver};
use breakpoint_api::importing::{ImportOptions, ImportOutcome};
use breakpoint_api::runs;
use breakpoint_api::timeline::{self, RunTimeline, TimelineRequest};
use breakpoint_report::Lang;
use breakpoint_report::charts::{StartupRow, startup_chart};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::dto::{
    EventRow, HealthRow, ImportProgress, ImportRow, RunDetail, RunRow, TimelineMark, TimelinePanel,
    TimelineSeries, TimelineView,
};
use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

fn run_row(run: &Run, platform: &str, records: u64) -> RunRow {
    RunRow {
        id: run.id,
        platform: platform.into(),
        kind: run.kind.to_string(),
        source: run.source.to_string(),
        format: run.provenance.format.clone(),
        file: run.provenance.file_name.clone(),
        started_at: run.started_at.map(breakpoint_api::text::minute_words),
        hours: run
            .started_at
            .zip(run.ended_at)
            .map(|(a, b)| b.duration_since(a).as_secs_f64() / 3600.0),
        gpus: run.inventory.len() as u32,
        samples: run.sample_count,
        records,
        warnings: run.warnings.clone(),
    }
}

#[tauri::command]
pub async fn list_runs(state: State<'_, AppState>) -> AppResult<Vec<RunRow>> {
    let store = state.store()?;
    Ok(breakpoint_api::runs::list(&store, None)?
        .iter()
        .map(|r| run_row(&r.run, &r.platform, r.records))
        .collect())
}

/// Events listed in a run's detail; the count says how many there are.
const EVENTS_SHOWN: usize = 100;

/// A run in detail, with its startup chart drawn: off the UI thread, on a
/// connection of its own. The timeline is asked for on its own.
#[tauri::command]
pub async fn run_detail(state: State<'_, AppState>, id: i64) -> AppResult<RunDetail> {
    // The charts speak the app's language.
    let lang = state.lang();
    super::off_thread(&state, move |store| detail_of(store, id, lang)).await
}

fn detail_of(store: &breakpoint_api::Store, id: i64, lang: Lang) -> AppResult<RunDetail> {
    // What the run holds, by meaning: one use case for both faces.
    let detail = runs::detail(store, id)?;
    let run = &detail.run;
    let platform = detail.platform.clone();
    let attempts = store.startup_attempts(id)?;
    let startup_svg = if attempts.is_empty() {
        None
    } else {
        let row = StartupRow::of(&platform, &attempts, false);
        Some(startup_chart(&[row], lang)?)
    };
    let inventory = run
        .inventory
        .iter()
        .map(|g| {
            format!(
                "GPU {}: {}{}{}",
                g.index,
                g.accelerator
                    .as_ref()
                    .map_or("unknown".into(), |a| a.canonical.clone()),
                g.pci_bus_id
                    .as_deref()
                    .map(|b| format!(" at {b}"))
                    .unwrap_or_default(),
                match (g.pcie_width_current, g.pcie_width_max) {
                    (Some(w), Some(max)) if w < max => format!(", PCIe x{w} of x{max}"),
                    (Some(w), _) => format!(", PCIe x{w}"),
                    _ => String::new(),
                }
            )
        })
        .collect();
    Ok(RunDetail {
        sha256: run.provenance.sha256.clone(),
        host: run.provenance.host.clone(),
        inventory,
        events: detail.events.len() as u32,
        event_list: detail
            .events
            .iter()
            .take(EVENTS_SHOWN)
            .map(|v| EventRow {
                kind: v.event.kind.to_string(),
                gpu: v.event.gpu,
                gpu_label: v.gpu_label.clone(),
                at: breakpoint_api::text::time_words(v.event.at),
                duration_s: v.event.duration_ms.map(|ms| ms as f64 / 1000.0),
                code: v.event.code,
                detail: v.event.detail.clone(),
                meaning: if lang.is_zh() {
                    v.meaning_zh
                } else {
                    v.meaning
                }
                .map(String::from),
                blame: v.blame.map(|b| b.to_string()),
                counted: v.counted,
            })
            .collect(),
        health: detail
            .health
            .iter()
            .map(|c| HealthRow {
                category: c.category.clone(),
                test: c.test.clone(),
                gpu: c.gpu.clone(),
                status: c.status.clone(),
                message: c.message.clone(),
            })
            .collect(),
        conformity_problems: detail
            .conformity_problems
            .iter()
            .flatten()
            .map(ToString::to_string)
            .collect(),
        faulty_gpus: detail.faulty_gpus.clone(),
        energy: detail.energy.as_ref().map(|e| e.summary()),
        summary: detail
            .summary
            .as_ref()
            .map(breakpoint_api::runs::WindowSummary::lines)
            .unwrap_or_default(),
        startup_svg,
        run: run_row(
            run,
            &platform,
            store.record_counts()?.get(&id).copied().unwrap_or(0),
        ),
    })
}

/// A run's timeline over `range` (ms since the epoch; the whole run when
/// absent) at `columns` columns, the width the app draws it at. Zooming in
/// asks again: only the samples in range are read. The answer is bytes
/// (see [`timeline_bytes`]): a million numbers as JSON took longer to
/// write and parse than the engine took to reduce 1.4 M samples.
#[tauri::command]
pub async fn run_timeline(
    state: State<'_, AppState>,
    id: i64,
    range: Option<(i64, i64)>,
    columns: u32,
) -> AppResult<tauri::ipc::Response> {
    super::off_thread(&state, move |store| {
        let request = TimelineRequest {
            run_id: id,
            range: range.map(|(from, to)| from..to),
            columns: columns as usize,
        };
        let (view, values) = timeline_view(&timeline::timeline(store, &request)?);
        Ok(tauri::ipc::Response::new(timeline_bytes(&view, &values)?))
    })
    .await
}

/// The header's length as a little-endian u32, the header as JSON, spaces
/// up to a multiple of four bytes, then the values as little-endian i32.
fn timeline_bytes(view: &TimelineView, values: &[i32]) -> AppResult<Vec<u8>> {
    let header =
        serde_json::to_vec(view).map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()))?;
    let padded = header.len().next_multiple_of(4);
    let mut out = Vec::with_capacity(4 + padded + 4 * values.len());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.resize(4 + padded, b' ');
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    Ok(out)
}

/// The view and its values; a stored value beyond 32 bits (no timeline
/// field comes near: milliwatts up to 2 GW) is clamped.
fn timeline_view(t: &RunTimeline) -> (TimelineView, Vec<i32>) {
    let clamp = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    let mut values = Vec::new();
    let panels = t
        .fields
        .iter()
        .enumerate()
        .map(|(k, field)| {
            let (unit, scale) = field.display_unit();
            TimelinePanel {
                field: field.key().to_string(),
                unit: unit.to_string(),
                scale,
                gpus: t
                    .gpus
                    .iter()
                    .map(|g| {
                        let at = values.len() as u32;
                        let mut columns = Vec::new();
                        for (c, cell) in g.series[k].cells.iter().enumerate() {
                            if let Some(cell) = cell {
                                columns.push(c as u32);
                                values
                                    .extend([cell.first, cell.min, cell.max, cell.last].map(clamp));
                            }
                        }
                        TimelineSeries {
                            gpu: g.gpu,
                            columns,
                            at,
                            breaks: g.breaks.iter().map(|c| *c as u32).collect(),
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    let view = TimelineView {
        run_id: t.run_id,
        span: t.span,
        start_ms: t.columns.start_ms,
        end_ms: t.columns.end_ms,
        columns: t.columns.count as u32,
        panels,
        throttle: t
            .thermal
            .iter()
            .zip(&t.hardware)
            .map(|(thermal, hardware)| u8::from(*thermal) | (u8::from(*hardware) << 1))
            .collect(),
        interruptions: t
            .interruptions
            .iter()
            .map(|i| TimelineMark {
                at_ms: i.at_ms,
                kind: i.kind.to_string(),
                lost_until_ms: i.lost_until_ms,
            })
            .collect(),
        samples: t.samples,
    };
    (view, values)
}

#[tauri::command]
pub async fn delete_run(state: State<'_, AppState>, id: i64) -> AppResult<()> {
    Ok(state.store()?.delete_run(id)?)
}

/// Tells the window how an import goes, as `import-progress` events.
struct Progress<R: Runtime> {
    app: AppHandle<R>,
    job: u64,
    file: String,
    index: u32,
    files: u32,
    total: u64,
}

impl<R: Runtime> Progress<R> {
    fn emit(&self, bytes: u64) {
        let _ = self.app.emit(
            "import-progress",
            ImportProgress {
                job: self.job,
                file: self.file.clone(),
                index: self.index,
                files: self.files,
                bytes,
                total: self.total,
            },
        );
    }
}

impl<R: Runtime> ImportObserver for Progress<R> {
    fn started(&mut self, index: usize, total: usize, path: &Path, bytes: u64) {
        self.file = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.index = index as u32;
        self.files = total as u32;
        self.total = bytes;
        self.emit(0);
    }

    fn progress(&mut self, bytes: u64) {
        self.emit(bytes);
    }

    fn finished(&mut self, _: usize, _: &FileResult) {
        self.emit(self.total);
    }
}

/// A row that names a file and what became of it, and nothing more.
fn bare_row(file: String, status: &str) -> ImportRow {
    ImportRow {
        file,
        status: status.into(),
        run_id: None,
        format: None,
        samples: 0,
        records: 0,
        gaps: 0,
        warnings: Vec::new(),
        error: None,
    }
}

/// A file's result as the Runs screen lists it.
fn import_row(result: FileResult) -> ImportRow {
    let empty = bare_row;
    let name = |path: &str| {
        Path::new(path)
            .file_name()
            .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
    };
    match result {
        FileResult::Done(ImportOutcome::Imported(r)) => ImportRow {
            status: "imported".into(),
            run_id: Some(r.run_id),
            format: Some(r.format.to_string()),
            samples: r.samples,
            records: r.records,
            gaps: r.gaps as u32,
            warnings: r.warnings,
            ..empty(name(&r.file), "")
        },
        FileResult::Done(ImportOutcome::AlreadyImported {
            file,
            run_id,
            platform,
            ..
        }) => ImportRow {
            run_id: Some(run_id),
            warnings: vec![format!(
                "already imported as run {run_id} on {platform}; nothing stored"
            )],
            ..empty(name(&file), "already_imported")
        },
        FileResult::NotImported {
            status,
            file,
            error,
        } => ImportRow {
            error: Some(error),
            ..empty(name(&file), status)
        },
    }
}

/// Import files and folders, one run each, off the UI thread; progress
/// goes out as `import-progress` events and the job can be cancelled with
/// its id (sent first as `import-started`).
#[tauri::command]
pub async fn import_files<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    platform_id: i64,
    paths: Vec<String>,
) -> AppResult<Vec<ImportRow>> {
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let store = state.own_store()?;
    let (job, cancelled) = state.start_job();
    let _ = app.emit("import-started", job);
    let mut progress = Progress {
        app: app.clone(),
        job,
        file: String::new(),
        index: 0,
        files: 0,
        total: 0,
    };
    let result = tauri::async_runtime::spawn_blocking(move || -> AppResult<Vec<ImportRow>> {
        let platform = store.platform_by_id(platform_id)?;
        let options = ImportOptions {
            cancel: Some(cancelled),
            ..ImportOptions::for_platform(&platform, None)
        };
        let batch = importing::import_paths(&store, &paths, &options, &mut progress)?;
        let mut rows: Vec<ImportRow> = batch.files.into_iter().map(import_row).collect();
        // What the folders held that is not a log (a link looping back, a
        // pipe) is listed, not silently dropped.
        rows.extend(
            batch
                .skipped
                .into_iter()
                .map(|note| bare_row(note, "skipped")),
        );
        Ok(rows)
    })
    .await
    .map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()));
    state.end_job(job);
    result?
}

#[tauri::command]
pub fn cancel_job(state: State<'_, AppState>, job: u64) -> bool {
    state.cancel(job)
}
