//! One error type across IPC: `{ kind, message }`, with a small stable set
//! of kinds the UI branches on (never on the message).

use serde::Serialize;
use ts_rs::TS;

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/bindings/")]
pub struct AppError {
    /// invalid | not_found | conflict | database | io | internal | cancelled | no_gpu
    pub kind: String,
    pub message: String,
    /// For `invalid`: the field at fault, so the form can show the message
    /// next to it.
    pub field: Option<String>,
}

impl AppError {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            message: message.into(),
            field: None,
        }
    }
}

impl From<breakpoint_core::Error> for AppError {
    fn from(e: breakpoint_core::Error) -> Self {
        match e {
            breakpoint_core::Error::Invalid(v) => v.into(),
            other => AppError::new(other.kind(), other.to_string()),
        }
    }
}

impl From<breakpoint_core::error::ValidationError> for AppError {
    fn from(e: breakpoint_core::error::ValidationError) -> Self {
        AppError {
            field: Some(e.field.clone()),
            ..AppError::new("invalid", e.to_string())
        }
    }
}

impl From<breakpoint_core::import::ImportError> for AppError {
    fn from(e: breakpoint_core::import::ImportError) -> Self {
        match e {
            breakpoint_core::import::ImportError::Store(e) => e.into(),
            other => AppError::new("invalid", other.to_string()),
        }
    }
}

impl From<breakpoint_report::ReportError> for AppError {
    fn from(e: breakpoint_report::ReportError) -> Self {
        match e {
            breakpoint_report::ReportError::Store(inner) => inner.into(),
            other => AppError::new("io", other.to_string()),
        }
    }
}

impl From<breakpoint_report::charts::ChartError> for AppError {
    fn from(e: breakpoint_report::charts::ChartError) -> Self {
        AppError::new("internal", e.to_string())
    }
}

impl From<breakpoint_probe::SourceError> for AppError {
    fn from(e: breakpoint_probe::SourceError) -> Self {
        AppError::new("no_gpu", e.to_string())
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::new("io", e.to_string())
    }
}

pub type AppResult<T> = Result<T, AppError>;
