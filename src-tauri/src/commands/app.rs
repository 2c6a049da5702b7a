//! The app itself: what it is, which database it uses, its language.

use tauri::State;

use crate::dto::AppInfo;
use crate::error::AppResult;
use crate::state::AppState;

#[tauri::command]
pub async fn app_info(state: State<'_, AppState>) -> AppResult<AppInfo> {
    let store = state.store()?;
    let info = store.info()?;
    let demo = store.platforms()?.iter().any(|p| {
        p.notes
            .as_deref()
            .is_some_and(|n| n.starts_with(breakpoint_api::demo::DEMO_LABEL))
    });
    Ok(AppInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        db_path: state.db_path.display().to_string(),
        language: state.language(),
        platforms: info.platforms as u32,
        runs: info.runs as u32,
        demo,
    })
}

#[tauri::command]
pub async fn set_language(state: State<'_, AppState>, language: String) -> AppResult<()> {
    if let Ok(mut l) = state.language.lock() {
        *l = if language == "zh" {
            "zh".into()
        } else {
            "en".into()
        };
    }
    Ok(())
}

/// Build the demo workspace into the open database (refused when it holds
/// other platforms, so demo data never mixes with evidence).
#[tauri::command]
pub async fn load_demo(state: State<'_, AppState>) -> AppResult<u32> {
    let store = state.own_store()?;
    let summary =
        tauri::async_runtime::spawn_blocking(move || breakpoint_api::demo::build(&store, 7))
            .await
            .map_err(|e| {
                crate::error::AppError::new(crate::error::ErrorKind::Internal, e.to_string())
            })??;
    Ok(summary.platforms as u32)
}
