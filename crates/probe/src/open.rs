//! Where readings come from: the NVIDIA driver, or a recorded trace
//! replayed in its place (machines without a GPU: tests, demos). The CLI's
//! `--replay-trace` and the app's `BREAKPOINT_PROBE_TRACE` both land here.

use std::path::{Path, PathBuf};

use crate::nvml::NvmlSource;
use crate::scripted::{self, ScriptedSource};
use crate::source::{GpuSource, SourceError};
use crate::tools::{SystemRunner, ToolSource};

pub enum ProbeSource {
    Nvml(NvmlSource),
    /// Ascend, AMD or Cambricon accelerators, through their vendor's tool.
    Tool(ToolSource),
    Replay(ScriptedSource),
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// No driver or no GPU: the caller explains how to import logs instead.
    #[error(transparent)]
    NoGpu(#[from] SourceError),
    #[error("cannot read trace \"{}\": {error}", path.display())]
    TraceUnreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: {reason}", path.display())]
    TraceInvalid { path: PathBuf, reason: String },
}

impl ProbeSource {
    /// The trace when one is named, else NVML, else the first vendor tool
    /// that lists accelerators here.
    pub fn open(trace: Option<&Path>) -> Result<ProbeSource, OpenError> {
        let Some(path) = trace else {
            return match NvmlSource::open() {
                Ok(nvml) => Ok(ProbeSource::Nvml(nvml)),
                Err(no_nvidia) => ToolSource::detect(Box::new(SystemRunner::default()))
                    .map(ProbeSource::Tool)
                    .ok_or(OpenError::NoGpu(no_nvidia)),
            };
        };
        let text = std::fs::read_to_string(path).map_err(|error| OpenError::TraceUnreadable {
            path: path.to_path_buf(),
            error,
        })?;
        scripted::from_json(&text)
            .map(ProbeSource::Replay)
            .map_err(|reason| OpenError::TraceInvalid {
                path: path.to_path_buf(),
                reason,
            })
    }

    pub fn as_dyn(&mut self) -> &mut dyn GpuSource {
        match self {
            ProbeSource::Nvml(s) => s,
            ProbeSource::Tool(s) => s,
            ProbeSource::Replay(s) => s,
        }
    }
}
