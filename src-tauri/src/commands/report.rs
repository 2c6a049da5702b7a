use breakpoint_core::scoring::{RobustnessOptions, presets};
use breakpoint_report::fonts::FontSet;
use breakpoint_report::{Lang, ReportOptions, compose, gather, render};
use tauri::State;

use crate::dto::{ReportRequest, ReportResult};
use crate::error::{AppError, AppResult};
use crate::state::AppState;

/// Write the decision-matrix PDF to the path the save dialog chose, off the
/// UI thread.
#[tauri::command]
pub async fn export_report(
    state: State<'_, AppState>,
    request: ReportRequest,
) -> AppResult<ReportResult> {
    let store = state.own_store()?;
    tauri::async_runtime::spawn_blocking(move || -> AppResult<ReportResult> {
        let lang: Lang = request
            .lang
            .parse()
            .map_err(|e: String| AppError::new("invalid", e))?;
        let date = match request.date.as_deref() {
            Some(d) => d.parse().map_err(|_| {
                AppError::new("invalid", format!("\"{d}\" is not a date (YYYY-MM-DD)"))
            })?,
            None => jiff::ZonedDateTime::now().date(),
        };
        let profile = store.weight_profile(presets::DEFAULT_PROFILE)?;
        let data = gather(&store, profile, &RobustnessOptions::default())?;
        let options = ReportOptions {
            title: request.title.clone(),
            date,
            lang,
        };
        let layout = compose(&data, &options)?;
        let pdf = render(&layout, &options, &FontSet::discover())?;
        let path = std::path::PathBuf::from(&request.path);
        let tmp = path.with_extension("pdf.partial");
        std::fs::write(&tmp, &pdf)?;
        std::fs::rename(&tmp, &path)?;
        Ok(ReportResult {
            path: request.path,
            pages: layout.pages.len() as u32,
            bytes: pdf.len() as u64,
        })
    })
    .await
    .map_err(|e| AppError::new("internal", e.to_string()))?
}
