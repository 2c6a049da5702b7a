//! Breakpoint's core: the domain model, the SQLite store, import, metrics,
//! scoring, and the use cases the two faces call.
//!
//! Everything that would still matter without a window lives here; the
//! `breakpoint` command line and the desktop shell parse input, call one
//! use case from [`usecases`], and format what it returns. This crate must
//! never depend on tauri (CI checks it).
//!
//! The validated types (`domain`, `accelerator`, `samples`, `text`,
//! `stats`) come from `breakpoint-model` and the parsers from
//! `breakpoint-formats`; both are re-exported under their old paths.
//!
//! Layers, lowest first; a module uses only modules of the layers below it
//! (`tests/layering.rs` checks this, and that the faces call use cases
//! instead of assembling them from metrics and scoring):
//!
//! 1. `text`, `stats`, `accelerator`, `domain` — the model's, re-exported
//! 2. `error`, then `destination` (files the user names for Breakpoint to
//!    write) and `archive` (manifest-first tars and their SHA-256)
//! 3. `samples`, `templates` — the model's samples with the store's codec;
//!    the built-in platform catalogue
//! 4. `store` — SQLite
//! 5. `import`, `billing_sim`, `delivery`, `perf` — logs in (the pipeline
//!    around the parsers); bills simulated; the pure delivery comparison;
//!    delivered performance against peers and nominal peaks
//! 6. `metrics` — numbers derived from runs
//! 7. `scoring` — ranking and robustness
//! 8. `demo`, `usecases` — what the faces do

pub use breakpoint_model::{accelerator, domain, labelled_enum, sizes, stats, text};

pub mod archive;
pub mod billing_sim;
pub mod delivery;
pub mod demo;
pub mod error;
pub mod import;
pub mod metrics;
pub mod perf;
pub mod rates;
pub mod samples;
pub mod scoring;
pub mod store;
pub mod templates;
pub mod usecases;

pub use error::{Error, Result};
