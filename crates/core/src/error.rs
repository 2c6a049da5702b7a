//! One error type for the core, with a small stable set of kinds that the CLI
//! maps to exit codes and the desktop shell sends across IPC.

use std::path::PathBuf;

pub use breakpoint_model::ValidationError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Invalid(#[from] ValidationError),

    #[error("{what} {} not found", quoted(name))]
    NotFound { what: &'static str, name: String },

    #[error("{what} \"{name}\" already exists")]
    AlreadyExists { what: &'static str, name: String },

    /// A name that differs from an existing one only in case, composition
    /// or look-alike letters: two names a reader could not tell apart.
    #[error(
        "{what} \"{name}\" reads the same as the existing {what} \"{existing}\"; choose another name"
    )]
    LooksLike {
        what: &'static str,
        name: String,
        existing: String,
    },

    #[error("cannot open database \"{path}\": {reason}")]
    Open { path: PathBuf, reason: String },

    #[error(
        "database \"{path}\" was written by a newer Breakpoint (schema version {found}; this build knows up to {supported}); upgrade Breakpoint to open it"
    )]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("corrupt sample data in run {run_id}: {reason}")]
    CorruptSamples { run_id: i64, reason: String },

    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),

    #[error("{0}")]
    Io(#[from] std::io::Error),

    /// A file refused whole; the message names the file, line and column.
    #[error("{0}")]
    Refused(String),

    /// A workspace bundle that cannot be read or merged as it is.
    #[error("{file}: {reason}")]
    Bundle { file: String, reason: String },

    /// A bundle whose platforms or profiles differ from ours under the same
    /// name: nothing is merged until the user chooses.
    #[error(
        "{file}: {} conflict(s) with this workspace, nothing merged:\n{}\nchoose to keep ours (their runs join our platform) or to import theirs under a new name",
        conflicts.len(),
        conflicts.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n")
    )]
    BundleConflicts {
        file: String,
        conflicts: Vec<String>,
    },
}

impl Error {
    /// A stable, machine-readable kind: the desktop UI branches on it and the
    /// CLI picks its exit code from it. Never branch on the message text.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Invalid(_) => "invalid",
            Error::NotFound { .. } => "not_found",
            Error::AlreadyExists { .. } | Error::LooksLike { .. } => "conflict",
            Error::Open { .. } | Error::SchemaTooNew { .. } => "database",
            Error::CorruptSamples { .. } | Error::Sqlite(_) => "internal",
            Error::Io(_) => "io",
            Error::Bundle { .. } | Error::Refused(_) => "invalid",
            Error::BundleConflicts { .. } => "conflict",
        }
    }

    pub fn not_found(what: &'static str, name: impl ToString) -> Self {
        Error::NotFound {
            what,
            name: name.to_string(),
        }
    }
}

/// Names are quoted (`platform "Foo"`), numeric ids are not (`run 12`).
fn quoted(name: &str) -> String {
    if name.parse::<i64>().is_ok() {
        name.to_string()
    } else {
        format!("\"{name}\"")
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
