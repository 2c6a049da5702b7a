//! The probe: Breakpoint's eyes on the GPUs of the machine it runs on —
//! inventory, delivery check, sampling to a probe log, and wrapping a
//! workload — the same binary on a workstation or a rented headless
//! instance. The GPU sits behind [`GpuSource`], so everything above it is
//! tested on recorded traces.

pub mod clock;
pub mod log;
pub mod nvml;
pub mod open;
pub mod rules;
pub mod run;
pub mod scripted;
pub mod session;
pub mod source;
pub mod tools;
pub mod workload;

pub use clock::{Clock, ManualClock, SystemClock};
pub use open::{OpenError, ProbeSource};
pub use run::sample;
pub use session::{ProbeError, SessionOptions, Summary, TickInfo};
pub use source::{GpuEvent, GpuSource, ReadError, Reading, SourceError};
pub use workload::{STOP_GRACE_MS, Workload, WrapReport, wrap};

#[cfg(test)]
mod tests;
