//! Breakpoint's core: the domain model, the SQLite store and (as it grows)
//! import, metrics, scoring and reports.
//!
//! Everything that would still matter without a window lives here; the
//! `breakpoint` command line and the desktop shell are thin consumers. This
//! crate must never depend on tauri (CI checks it).

#[macro_use]
mod labelled;

pub mod accelerator;
pub mod billing_sim;
pub mod delivery;
pub mod demo;
pub mod domain;
pub mod error;
pub mod import;
pub mod metrics;
pub mod samples;
pub mod scoring;
pub mod store;
pub mod templates;
pub mod text;
pub mod usecases;

pub use error::{Error, Result};
