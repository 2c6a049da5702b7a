//! Breakpoint's outputs for people: charts (SVG, drawn with plotters) and
//! the decision-matrix PDF (krilla, fonts and SVG embedded). Everything here
//! only presents what the core derived; nothing is computed twice.

pub mod charts;
mod error;
mod export;
pub mod fonts;
pub mod layout;
pub mod model;
pub mod pdf;
pub mod text;

pub use error::ReportError;
pub use export::{Exported, export};
pub use model::{ReportData, gather};
pub use pdf::{ReportOptions, compose, render};
pub use text::Lang;
