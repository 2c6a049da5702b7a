//! Breakpoint's core: the domain model, the SQLite store, import, metrics,
//! scoring, and the use cases the two faces call.
//!
//! Everything that would still matter without a window lives here; the
//! `breakpoint` command line and the desktop shell parse input, call one
//! use case from [`usecases`], and format what it returns. This crate must
//! never depend on tauri (CI checks it).
//!
//! Layers, lowest first; a module uses only modules of the layers below it
//! (`tests/layering.rs` checks this, and that the faces call use cases
//! instead of assembling them from metrics and scoring):
//!
//! 1. `text` — excerpts and escapes for text from outside
//! 2. `error`, then `labelled` (enums with stable labels) and `destination`
//!    (files the user names for Breakpoint to write)
//! 3. `accelerator` — names, vendors and form factors of accelerators
//! 4. `domain` — validated types: platforms, offerings, runs, evidence,
//!    weights and anchors
//! 5. `samples`, `templates` — sample columns and codec; the built-in
//!    platform catalogue
//! 6. `store` — SQLite
//! 7. `import`, `billing_sim`, `delivery` — logs in; bills simulated; the
//!    pure delivery comparison
//! 8. `metrics` — numbers derived from runs
//! 9. `scoring` — ranking and robustness
//! 10. `demo`, `usecases` — what the faces do

#[macro_use]
mod labelled;

pub mod accelerator;
pub mod billing_sim;
pub mod delivery;
pub mod demo;
pub mod destination;
pub mod domain;
pub mod error;
pub mod import;
pub mod metrics;
pub mod samples;
pub mod scoring;
pub mod stats;
pub mod store;
pub mod templates;
pub mod text;
pub mod usecases;

pub use error::{Error, Result};
