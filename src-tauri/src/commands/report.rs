//! The report: the decision-matrix PDF exported where the user chose,
//! and opened in the desktop's viewer.

use breakpoint_api::ranking::RankRequest;
use breakpoint_report::{Lang, ReportOptions, export};
use tauri::State;

use crate::dto::{ReportRequest, ReportResult};
use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

/// Write the decision-matrix PDF to the path the save dialog chose, off the
/// UI thread, on a connection of its own.
#[tauri::command]
pub async fn export_report(
    state: State<'_, AppState>,
    request: ReportRequest,
) -> AppResult<ReportResult> {
    let lang: Lang = request
        .lang
        .parse()
        .map_err(|e: String| AppError::new(ErrorKind::Invalid, e))?;
    let date = match request.date.as_deref() {
        Some(d) => d.parse().map_err(|_| {
            AppError::new(
                ErrorKind::Invalid,
                format!("\"{d}\" is not a date (YYYY-MM-DD)"),
            )
        })?,
        None => jiff::ZonedDateTime::now().date(),
    };
    let store = state.own_store()?;
    let options = ReportOptions {
        title: request.title.clone(),
        date,
        lang,
        evidence: None,
        job: None,
    };
    let path = std::path::PathBuf::from(&request.path);
    let written = tauri::async_runtime::spawn_blocking(move || {
        export(&store, &RankRequest::default(), &options, &path, false)
    })
    .await
    .map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()))??;
    state.set_last_report(written.file.clone());
    Ok(ReportResult {
        path: request.path,
        pages: written.pages as u32,
        bytes: written.bytes as u64,
    })
}

/// Open the report this session exported last in the desktop's PDF viewer.
/// Only that file: the web view cannot name a path to open.
#[tauri::command]
pub fn open_report(state: State<'_, AppState>) -> AppResult<()> {
    let path = state.last_report().ok_or_else(|| {
        AppError::new(
            ErrorKind::NotFound,
            "no report has been exported in this session",
        )
    })?;
    open::that_detached(&path).map_err(|e| {
        AppError::new(
            ErrorKind::Io,
            format!(
                "cannot open \"{}\" with the desktop's viewer: {e}",
                path.display()
            ),
        )
    })
}
