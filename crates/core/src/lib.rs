//! Breakpoint's engine: the SQLite store, the import pipeline, metrics,
//! scoring, and the analyses they rest on.
//!
//! The two faces never see this crate: they depend on `breakpoint-api`,
//! whose use cases are written over it (Cargo keeps the wall; nothing in
//! the command line or the desktop shell names `breakpoint_core`). The
//! crates that gather evidence and render it (campaign, fleet, accept,
//! report) build on the engine directly. This crate must never depend on
//! tauri (CI checks it).
//!
//! The validated types (`domain`, `accelerator`, `samples`, `text`,
//! `stats`) come from `breakpoint-model` and the parsers from
//! `breakpoint-formats`.
//!
//! Layers, lowest first; a module uses only modules of the layers below it
//! (`tests/layering.rs` checks this):
//!
//! 1. `text`, `stats`, `accelerator`, `domain`, `figures` — the model's
//! 2. `error`, then `archive` (manifest-first tars and their SHA-256)
//! 3. `samples`, `templates`, `perf` — the model's samples with the
//!    store's codec; the built-in platform catalogue; delivered performance
//!    against peers and nominal peaks
//! 4. `store` — SQLite
//! 5. `exchange` — rates between currencies, held and looked up
//! 6. `import`, `billing_sim`, `conformity`, `workspace_bundle` — logs in
//!    (the pipeline around the parsers); bills simulated; the order held
//!    against the hardware; workspaces out and in as tar bundles
//! 7. `metrics` — numbers derived from runs
//! 8. `scoring`, `rates` — ranking and robustness; currencies

pub use breakpoint_model::{accelerator, domain, figures, labelled_enum, sizes, stats, text};

pub mod archive;
pub mod billing_sim;
pub mod conformity;
pub mod error;
pub mod exchange;
pub mod import;
pub mod metrics;
pub mod perf;
pub mod rates;
pub mod samples;
pub mod scoring;
pub mod store;
pub mod templates;
pub mod workspace_bundle;

pub use error::{Error, Result};
