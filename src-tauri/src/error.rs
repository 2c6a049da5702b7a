//! One error type across IPC: `{ kind, message }`, with a small stable set
//! of kinds the UI branches on (never on the message).

use serde::Serialize;
use ts_rs::TS;

/// What went wrong, as the UI branches on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export, export_to = "../../ui/src/bindings/")]
pub enum ErrorKind {
    /// The input is wrong; `field` names it where it can.
    Invalid,
    NotFound,
    /// It exists already, or clashes with what is there.
    Conflict,
    /// The workspace cannot be opened (newer, not Breakpoint's).
    Database,
    Io,
    Internal,
    /// The user stopped it.
    Cancelled,
    /// No GPU (or no driver) on this machine.
    NoGpu,
    /// The campaign ledger could not be read or written.
    Ledger,
}

#[derive(Debug, Clone, Serialize, TS)]
#[ts(export, export_to = "../../ui/src/bindings/")]
pub struct AppError {
    pub kind: ErrorKind,
    pub message: String,
    /// For `invalid`: the field at fault, so the form can show the message
    /// next to it.
    pub field: Option<String>,
}

impl AppError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            field: None,
        }
    }
}

impl From<breakpoint_api::Error> for AppError {
    fn from(e: breakpoint_api::Error) -> Self {
        match e {
            breakpoint_api::Error::Invalid(v) => v.into(),
            other => {
                let kind = match other.kind() {
                    "not_found" => ErrorKind::NotFound,
                    "conflict" => ErrorKind::Conflict,
                    "database" => ErrorKind::Database,
                    "io" => ErrorKind::Io,
                    "invalid" => ErrorKind::Invalid,
                    _ => ErrorKind::Internal,
                };
                AppError::new(kind, other.to_string())
            }
        }
    }
}

impl From<breakpoint_api::ValidationError> for AppError {
    fn from(e: breakpoint_api::ValidationError) -> Self {
        AppError {
            field: Some(e.field.clone()),
            ..AppError::new(ErrorKind::Invalid, e.to_string())
        }
    }
}

impl From<breakpoint_api::importing::ImportError> for AppError {
    fn from(e: breakpoint_api::importing::ImportError) -> Self {
        match e {
            breakpoint_api::importing::ImportError::Store(e) => e.into(),
            other => AppError::new(ErrorKind::Invalid, other.to_string()),
        }
    }
}

impl From<breakpoint_report::ReportError> for AppError {
    fn from(e: breakpoint_report::ReportError) -> Self {
        match e {
            breakpoint_report::ReportError::Store(inner) => inner.into(),
            other => AppError::new(ErrorKind::Io, other.to_string()),
        }
    }
}

impl From<breakpoint_report::charts::ChartError> for AppError {
    fn from(e: breakpoint_report::charts::ChartError) -> Self {
        AppError::new(ErrorKind::Internal, e.to_string())
    }
}

impl From<breakpoint_probe::SourceError> for AppError {
    fn from(e: breakpoint_probe::SourceError) -> Self {
        AppError::new(ErrorKind::NoGpu, e.to_string())
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::new(ErrorKind::Io, e.to_string())
    }
}

pub type AppResult<T> = Result<T, AppError>;
