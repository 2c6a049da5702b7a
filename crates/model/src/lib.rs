//! Breakpoint's model: the validated types every other crate speaks —
//! platforms, offerings, runs and their evidence, weights, accelerator
//! names, samples — and the text rules for anything from outside.
//!
//! It knows nothing of storage or of log formats: the parsers
//! (`breakpoint-formats`) build these types, the core stores and judges
//! them. With the `sqlite` feature, the labelled enums read and write
//! themselves as SQLite text.
//!
//! Layers, lowest first; a module uses only those below it:
//!
//! 1. `text`, `stats` — excerpts and escapes for text from outside; order
//!    statistics
//! 2. `error` — the validation error, then `labelled` (enums with stable
//!    labels)
//! 3. `accelerator` — names, vendors and form factors of accelerators
//! 4. `domain` — validated types: platforms, offerings, runs, evidence,
//!    weights and anchors
//! 5. `samples` — one GPU at one instant, and series of them

#[macro_use]
mod labelled;

pub mod accelerator;
pub mod domain;
pub mod error;
pub mod figures;
pub mod samples;
pub mod sizes;
pub mod stats;
pub mod text;

pub use error::ValidationError;
