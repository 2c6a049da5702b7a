//! The commands the UI calls, one file per area. Each takes its arguments
//! and the state, calls the core, and converts the result: no SQL and no
//! business logic here. Every command that touches the database or the
//! GPUs is async (never on the UI thread); the long ones run on a
//! connection of their own, so the shared one is never held while they
//! compute.

use breakpoint_api::Store;

use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

pub mod app;
pub mod billing;
pub mod bundles;
pub mod campaigns;
pub mod decision;
pub mod fleet;
pub mod platforms;
pub mod probe;
pub mod ranking;
pub mod report;
pub mod runs;

/// Run `work` on a connection of its own, off the UI thread: a long
/// ranking never holds the shared connection nor blocks a short command.
pub(crate) async fn off_thread<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&Store) -> AppResult<T> + Send + 'static,
) -> AppResult<T> {
    let store = state.own_store()?;
    tauri::async_runtime::spawn_blocking(move || work(&store))
        .await
        .map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()))?
}
