//! Import from Prometheus on the Runs screen: the fleet's DCGM history, one
//! run per node (every sample, or the server's summaries with the windows
//! they flag), with progress per node and a cancel.

use std::sync::atomic::AtomicBool;

use breakpoint_fleet::api::{Credentials, HttpApi};
use breakpoint_fleet::pull::{self, Progress, PullRequest};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::dto::{PullForm, PullNodeRow, PullProgressView, PullResultView};
use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

fn field<T>(name: &str, value: Result<T, String>) -> AppResult<T> {
    value.map_err(|message| AppError {
        field: Some(name.into()),
        ..AppError::new(ErrorKind::Invalid, message)
    })
}

/// Pull the range off the UI thread; `pull-started` carries the job id for
/// `cancel_job`, `pull-progress` each chunk and each node stored.
#[tauri::command]
pub async fn pull_prometheus<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    form: PullForm,
) -> AppResult<PullResultView> {
    let parse_time = |name: &str, text: &str| {
        field(
            name,
            text.trim()
                .parse::<jiff::Timestamp>()
                .map_err(|_| format!("{name}: \"{text}\" is not a time (2026-06-01T00:00:00Z)")),
        )
    };
    let from = parse_time("from", &form.from)?;
    let to = parse_time("to", &form.to)?;
    // A secret comes from the environment of the app, never from the form.
    let credentials = field(
        "token_env",
        Credentials::from_sources(
            form.token_env
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty()),
            None,
            None,
        ),
    )?;
    let api = field(
        "url",
        HttpApi::new(
            form.url.trim(),
            &credentials,
            None,
            std::time::Duration::from_secs(60),
        ),
    )?;
    let request = PullRequest {
        from,
        to,
        step_s: form.step_s.unwrap_or(15).max(1),
        selector: form.selector.clone().filter(|s| !s.trim().is_empty()),
        concurrency: 4,
        url: api.url().to_string(),
        platform_id: form.platform_id,
    };
    let store = state.own_store()?;
    let (job, cancelled) = state.start_job();
    let _ = app.emit("pull-started", job);
    let emitter = app.clone();
    let summaries = form.summaries;
    let window_s = form.window_s.unwrap_or(3600);
    let result = tauri::async_runtime::spawn_blocking(move || {
        let cancel: &AtomicBool = &cancelled;
        let progress = |p: Progress| {
            let view = match p {
                Progress::Nodes(n) => PullProgressView {
                    job,
                    node: None,
                    nodes: Some(n as u32),
                    done: 0,
                    of: 0,
                    stored_samples: None,
                },
                Progress::Chunk { node, done, of } => PullProgressView {
                    job,
                    node: Some(node),
                    nodes: None,
                    done: done as u32,
                    of: of as u32,
                    stored_samples: None,
                },
                Progress::Stored { node, samples } => PullProgressView {
                    job,
                    node: Some(node),
                    nodes: None,
                    done: 0,
                    of: 0,
                    stored_samples: Some(samples),
                },
                Progress::Summarised { node, windows, .. } => PullProgressView {
                    job,
                    node: Some(node),
                    nodes: None,
                    done: windows as u32,
                    of: windows as u32,
                    stored_samples: Some(0),
                },
            };
            let _ = emitter.emit("pull-progress", view);
        };
        if summaries {
            pull::summary::pull_summaries(&store, &api, &request, window_s, cancel, &progress)
                .map(Pulled::Summaries)
        } else {
            pull::pull(&store, &api, &request, cancel, &progress).map(Pulled::Samples)
        }
    })
    .await
    .map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()));
    state.end_job(job);
    let report = match result? {
        Ok(r) => r,
        // Said with what was kept: the nodes a summary pull stored before.
        Err(e) if e.is_cancelled() => {
            return Err(AppError::new(ErrorKind::Cancelled, e.to_string()));
        }
        Err(pull::PullError::Import(e)) => return Err(e.into()),
        // Named by the form's field, shown next to it.
        Err(pull::PullError::Invalid(v)) => return Err(v.into()),
        Err(e) => return Err(AppError::new(ErrorKind::Invalid, e.to_string())),
    };
    Ok(match report {
        Pulled::Samples(report) => PullResultView {
            nodes: report
                .nodes
                .into_iter()
                .map(|n| PullNodeRow {
                    node: n.node,
                    runs: n.runs,
                    gpus: n.gpus as u32,
                    samples: n.samples,
                    already: n.already,
                    drilled: Vec::new(),
                })
                .collect(),
            requests: report.requests,
            retries: report.retries,
        },
        Pulled::Summaries(report) => PullResultView {
            nodes: report
                .nodes
                .into_iter()
                .map(|n| PullNodeRow {
                    runs: n
                        .run
                        .into_iter()
                        .chain(n.drilled.iter().filter_map(|d| d.run))
                        .collect(),
                    gpus: n.gpus as u32,
                    samples: n.drilled.iter().map(|d| d.samples).sum(),
                    already: n.already,
                    drilled: n.drilled.iter().map(|d| d.why.join(", ")).collect(),
                    node: n.node,
                })
                .collect(),
            requests: report.requests,
            retries: report.retries,
        },
    })
}

/// What either kind of pull reported.
enum Pulled {
    Samples(pull::PullReport),
    Summaries(pull::summary::SummaryReport),
}
