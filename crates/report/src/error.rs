//! Why a report could not be made: fonts, charts, the PDF writer, the
//! destination, or the workspace it is drawn from. Its own module, so that
//! gathering (`model`) and typesetting (`pdf`) both use it without using
//! each other.

use crate::charts::ChartError;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(
        "the report holds Chinese text (e.g. \"{sample}\") but no CJK font was found; install one: sudo apt-get install fonts-wqy-microhei (or fonts-noto-cjk)"
    )]
    NoCjkFont { sample: String },
    #[error(
        "no usable font was found for the report; install one: sudo apt-get install fonts-dejavu-core"
    )]
    NoFont,
    #[error("cannot read font {path}: {reason}")]
    Font { path: String, reason: String },
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error("cannot write the PDF: {0}")]
    Pdf(String),
    #[error("cannot write \"{}\": {error}", path.display())]
    Write {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    /// What the report is made of could not be read.
    #[error(transparent)]
    Store(#[from] breakpoint_core::Error),
}
