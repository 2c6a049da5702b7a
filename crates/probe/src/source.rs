//! The seam between the probe and the hardware: a source of GPUs. NVML is
//! the real one; tests replay recorded traces through the same trait, so
//! the sampling loop, the log and the wrapper are tested without a GPU.

use breakpoint_model::domain::GpuInfo;
use breakpoint_model::samples::Field;

/// Why a source cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error(
        "no NVIDIA driver found ({0}), nor npu-smi, amd-smi, rocm-smi or cnmon listing an accelerator; run this on a machine with one, or import a log with 'breakpoint import'"
    )]
    NoDriver(String),
    #[error(
        "the NVIDIA driver reports no GPU, and no npu-smi, amd-smi, rocm-smi or cnmon lists an accelerator; run this on a machine with one, or import a log with 'breakpoint import'"
    )]
    NoGpus,
    #[error("NVML failed: {0}")]
    Failed(String),
}

/// Why one reading of one GPU failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The GPU fell off the bus or stopped answering.
    Lost(String),
    /// The GPU must be reset before it answers again (after an
    /// uncorrectable ECC error, say).
    ResetRequired(String),
    /// The GPU is there, but every query failed.
    Unreadable(String),
    /// A passing failure: this reading is missing (a gap), not zero.
    Other(String),
}

/// One reading: the sample fields this GPU reported. A field it cannot
/// report is absent, never 0.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub values: Vec<(Field, i64)>,
}

impl Reading {
    pub fn get(&self, field: Field) -> Option<i64> {
        self.values
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, v)| *v)
    }
}

/// Something a GPU reported between readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuEvent {
    Xid { gpu: u32, code: i64 },
}

pub trait GpuSource {
    /// The GPUs and what they are (inventory).
    fn inventory(&mut self) -> Result<Vec<GpuInfo>, SourceError>;
    /// Read one GPU now.
    fn read(&mut self, gpu: u32) -> Result<Reading, ReadError>;
    /// Events since the last call, waiting at most `timeout_ms`.
    fn events(&mut self, timeout_ms: u32) -> Vec<GpuEvent>;
    /// Process ids using a GPU for compute; `None` when the GPU cannot tell
    /// (a GPU in MIG mode lists no processes although work runs on it).
    fn compute_pids(&mut self, gpu: u32) -> Option<Vec<u32>>;
    /// What the source has to say once (a GPU whose XIDs are not watched, a
    /// query the driver lacks), by GPU where it is about one. Drained.
    fn notes(&mut self) -> Vec<(Option<u32>, String)> {
        Vec::new()
    }
}
