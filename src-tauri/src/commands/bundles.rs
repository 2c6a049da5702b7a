//! Workspace bundles from the Platforms screen: export the workspace, merge
//! a colleague's, with the merge's conflicts shown for a choice.

use breakpoint_api::workspace_bundle::{self, ExportRequest, Resolution};
use tauri::State;

use crate::dto::{BundleExported, BundleMerged};
use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

/// Write the whole workspace's bundle to `path`, off the UI thread.
#[tauri::command]
pub async fn bundle_export(state: State<'_, AppState>, path: String) -> AppResult<BundleExported> {
    let store = state.own_store()?;
    let path = std::path::PathBuf::from(path);
    let exported = tauri::async_runtime::spawn_blocking(move || {
        workspace_bundle::export(&store, &ExportRequest::default(), &path)
    })
    .await
    .map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()))??;
    Ok(BundleExported {
        path: exported.path.display().to_string(),
        sha256: exported.sha256,
        platforms: exported.manifest.platforms,
        runs: exported.manifest.runs as u32,
        samples: exported.manifest.samples,
    })
}

/// Merge the bundle at `path`. Without a resolution a conflict comes back
/// as an error of kind `conflict` listing them; the screen then asks and
/// calls again with `keep-ours` or `rename-theirs`.
#[tauri::command]
pub async fn bundle_import(
    state: State<'_, AppState>,
    path: String,
    resolution: Option<String>,
) -> AppResult<BundleMerged> {
    let resolution = match resolution.as_deref() {
        None => None,
        Some("keep-ours") => Some(Resolution::KeepOurs),
        Some("rename-theirs") => Some(Resolution::RenameTheirs),
        Some(other) => {
            return Err(AppError::new(
                ErrorKind::Invalid,
                format!("resolution \"{other}\": keep-ours or rename-theirs"),
            ));
        }
    };
    let store = state.own_store()?;
    let path = std::path::PathBuf::from(path);
    let (manifest, report) = tauri::async_runtime::spawn_blocking(move || {
        workspace_bundle::import(&store, &path, resolution)
    })
    .await
    .map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()))??;
    Ok(BundleMerged {
        created_by: manifest.created_by,
        runs_added: report.runs_added.len() as u32,
        runs_already_here: report.runs_already_here as u32,
        platforms_added: report.platforms_added,
        platforms_matched: report
            .platforms_matched
            .into_iter()
            .map(|(theirs, ours)| format!("{theirs} → {ours}"))
            .collect(),
        conflicts: report.conflicts,
        filed_elsewhere: report.runs_filed_elsewhere,
    })
}
