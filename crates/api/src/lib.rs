//! Breakpoint's use cases: what the two faces do, each once.
//!
//! The command line and the desktop app depend on this crate and never on
//! the engine (`breakpoint-core`): Cargo keeps that wall. A face parses its
//! input into one of these requests, calls one function, and formats what
//! it returns. Nothing here prints or knows about windows.
//!
//! Besides the use cases, the crate hands the faces the vocabulary they
//! format with (the model's validated types), the errors, the workspace
//! handle, and the few read-only tables a face shows as they are (the
//! metric catalogue, the platform templates, the weight presets).

// The engine's modules under the names the use cases were written with;
// private, so a face cannot reach past the use cases through them.
use breakpoint_core::{
    billing_sim, error, import, metrics, perf, rates, samples, scoring, store, templates,
};

/// The model's validated types: what every face formats.
pub use breakpoint_model::{accelerator, domain, sizes, stats, text};

pub use breakpoint_core::error::{Error, Result, ValidationError};
pub use workspace::Store;

pub mod acceptance;
pub mod clustermax;
pub mod conformity;
pub mod decision;
pub mod decision_log;
pub mod demo;
pub mod disputes;
pub mod exchange_rates;
pub mod hardware;
pub mod importing;
pub mod job_cost;
pub mod performance;
pub mod platforms;
pub mod presentation;
pub mod pricing;
pub mod ranking;
pub mod runs;
pub mod timeline;
pub mod weights;

/// Platforms and their runs out of one workspace and into another, as a
/// tar bundle checked before anything is merged.
pub use breakpoint_core::workspace_bundle;

/// The workspace: one SQLite file, opened by a face and handed to each use
/// case.
pub mod workspace {
    pub use breakpoint_core::store::{PlatformSummary, Store, default_path, on_wait};
}

/// What each metric is: its name in both languages, unit, anchors, reason
/// and sources, and how many runs a verdict needs.
pub mod catalogue {
    pub use breakpoint_core::metrics::catalog::*;
    pub use breakpoint_core::metrics::history::RUNS_NEEDED;
}
