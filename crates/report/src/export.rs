//! The decision-matrix PDF as a file: gathered, composed, rendered and
//! written so that a partial file never takes the final name.

use std::path::{Path, PathBuf};

use breakpoint_api::ranking::RankRequest;
use breakpoint_core::store::Store;
use breakpoint_destination::{Destination, Protected};

use crate::error::ReportError;
use crate::fonts::FontSet;
use crate::pdf::{ReportOptions, compose, render};

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    pub file: PathBuf,
    pub pages: usize,
    pub bytes: usize,
}

/// Write the report of the store, ranked as `request` asks, to `path`:
/// never over the workspace itself, nor over what is not a plain file unless
/// `force` (see `breakpoint_destination`).
pub fn export(
    store: &Store,
    request: &RankRequest,
    options: &ReportOptions,
    path: &Path,
    force: bool,
) -> Result<Exported, ReportError> {
    let destination = Destination::check(path, &Protected::workspace(store.path()), force)
        .map_err(|e| ReportError::Store(e.into()))?;
    let data = crate::gather(store, request, options.lang, options.job.as_ref())?;
    let layout = compose(&data, options)?;
    let pdf = render(&layout, options, &FontSet::discover())?;
    destination.write(&pdf).map_err(|e| ReportError::Write {
        path: e.path,
        error: e.source,
    })?;
    Ok(Exported {
        file: path.to_path_buf(),
        pages: layout.pages.len(),
        bytes: pdf.len(),
    })
}
