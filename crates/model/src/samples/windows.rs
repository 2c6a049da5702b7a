//! A GPU's samples over a window, summarised where they are kept: a fleet's
//! time-series database computes these figures itself (PromQL over range
//! vectors), so a workstation can judge thousands of GPUs over weeks
//! without pulling their samples. Each figure counts points as the samples
//! would (the same busy, working, hot and throttle rules), so the sustain
//! metrics read windows with the same aggregation model as samples.

use serde::{Deserialize, Serialize};

/// The clock-event reason bits a window counts (0x1 … 0x100).
pub const REASON_BITS: usize = 9;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuWindow {
    pub gpu: u32,
    /// The window, ms: from `start_ms` (exclusive) to `end_ms` (inclusive),
    /// as a range vector ending at `end_ms` covers it.
    pub start_ms: i64,
    pub end_ms: i64,
    /// Points in the window, and the first's and the last's time.
    pub points: u32,
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
    /// Points at or above the busy utilisation.
    pub busy: u32,
    /// The median power of the busy points, and the mean of all, mW.
    pub busy_power_mw: Option<i64>,
    pub mean_power_mw: Option<i64>,
    /// Points with a clock-event mask; those of them working (above the
    /// working utilisation); those with a counted throttle reason.
    pub masked: u32,
    pub working: u32,
    pub throttled: u32,
    /// Masked points with any reason bit set, and with each one.
    pub reasons_seen: u32,
    pub reasons: [u32; REASON_BITS],
    pub temp_points: u32,
    pub hot: u32,
    pub max_temp_c: Option<i64>,
    /// The largest XID the window saw, and how often the value changed.
    pub xid_max: Option<i64>,
    pub xid_changes: u32,
    /// Why the window's samples were fetched and looked at one by one,
    /// where they were.
    pub drilled: Option<String>,
}
