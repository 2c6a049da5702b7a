//! Probe screen: the GPUs found, the sampling and the workload it runs.

use super::*;

view! {
    pub struct GpuRow {
        pub index: u32,
        pub name: String,
        pub canonical: String,
        pub uuid: Option<String>,
        #[ts(type = "number | null")]
        pub vram_mib: Option<u64>,
        pub driver: Option<String>,
        pub cuda: Option<String>,
        pub pcie: String,
        pub power_limit_w: Option<f64>,
        /// Why the GPU could not be read, when it could not.
        pub unreadable: Option<String>,
        /// Its MIG instances (profile names), when it is partitioned.
        pub mig: Vec<String>,
    }

    pub struct ConformityView {
        pub gpus: u32,
        #[ts(type = "number")]
        pub run_id: i64,
        /// Empty when the machine matches the order.
        pub mismatches: Vec<String>,
    }

    pub struct ProbeStarted {
        #[ts(type = "number")]
        pub job: u64,
        pub log_path: String,
    }

    pub struct GpuPoint {
        pub gpu: u32,
        pub power_w: Option<f64>,
        #[ts(type = "number | null")]
        pub temp_c: Option<i64>,
        #[ts(type = "number | null")]
        pub util_pct: Option<i64>,
    }

    /// One sampling tick, for the live chart.
    pub struct ProbeTick {
        /// Milliseconds since sampling started.
        #[ts(type = "number")]
        pub t_ms: i64,
        #[ts(type = "number")]
        pub samples: u64,
        pub gpus: Vec<GpuPoint>,
    }

    pub struct ProbeFinished {
        #[ts(type = "number")]
        pub job: u64,
        pub log_path: String,
        #[ts(type = "number")]
        pub samples: u64,
        pub duration_s: f64,
        pub error: Option<String>,
        /// Set when the session wrapped a workload.
        pub workload: Option<WorkloadOutcome>,
    }

    /// How a wrapped workload went: the figures `breakpoint probe run` prints.
    pub struct WorkloadOutcome {
        pub command: String,
        /// `None` when a signal ended it.
        pub exit_code: Option<i32>,
        pub wall_s: f64,
        /// Seconds in which some GPU was above 10 % utilisation; `None`
        /// when no GPU reports utilisation (MIG).
        pub busy_s: Option<f64>,
        /// Launch → first GPU activity; `None` if it never used a GPU, or
        /// when `gpu_use_unknown`, if that could not be seen.
        pub first_activity_s: Option<f64>,
        /// Neither utilisation nor process lists could be read.
        pub gpu_use_unknown: bool,
        /// Whether it ended because Stop was pressed.
        pub stopped: bool,
        /// The file holding its stdout and stderr, and its last lines.
        pub output_path: String,
        pub output_tail: Vec<String>,
    }

    pub struct ProbeState {
        /// ready | no_gpu
        pub status: String,
        pub message: Option<String>,
        pub gpus: Vec<GpuRow>,
    }
}
