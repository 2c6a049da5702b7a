//! Runs screen: runs listed and in detail, a run's timeline, imports and their progress.

use super::*;

view! {
    pub struct RunRow {
        #[ts(type = "number")]
        pub id: i64,
        pub platform: String,
        pub kind: String,
        pub source: String,
        pub format: Option<String>,
        pub file: Option<String>,
        pub started_at: Option<String>,
        pub hours: Option<f64>,
        pub gpus: u32,
        #[ts(type = "number")]
        pub samples: u64,
        /// Events, startup and switch attempts, fault drills and bill lines
        /// (as the import report counts them): what a table-based run holds
        /// instead of samples.
        #[ts(type = "number")]
        pub records: u64,
        pub warnings: Vec<String>,
    }

    pub struct RunDetail {
        pub run: RunRow,
        pub sha256: Option<String>,
        pub host: Option<String>,
        pub inventory: Vec<String>,
        pub events: u32,
        /// The first events in time order (at most `EVENTS_SHOWN`): lost
        /// GPUs, XIDs, gaps — the interruptions behind the sustain score.
        pub event_list: Vec<EventRow>,
        /// `dcgmi diag` results, test by test and GPU by GPU.
        pub health: Vec<HealthRow>,
        /// What the run saw wrong with the delivery, one line each; empty
        /// when it saw nothing wrong or checked nothing.
        pub conformity_problems: Vec<String>,
        /// The GPUs the run's health evidence found faulty, one line each
        /// ("GPU 0: dcgmi diag GPU Memory failed").
        pub faulty_gpus: Vec<String>,
        /// What the GPUs drew, where the run sampled power ("0.500 kWh over
        /// 2.00 GPU-hours, mean 250 W per GPU").
        pub energy: Option<String>,
        /// The startup chart as an SVG document, shown as an image (never
        /// as markup).
        pub startup_svg: Option<String>,
        /// A summary run's windows and the stretches drilled into, one line
        /// each; empty for a run of samples.
        pub summary: Vec<String>,
    }

    /// A run's timeline reduced to the columns the app draws (one per
    /// pixel): per GPU and series the first, smallest, largest and last
    /// value of each column that has samples. It crosses IPC as bytes
    /// (`timeline_bytes`): this header as JSON, then the values as 32-bit
    /// integers, which the web view reads without parsing.
    pub struct TimelineView {
        #[ts(type = "number")]
        pub run_id: i64,
        /// The run's first and last sample, ms since the epoch: how far a
        /// zoom may go out.
        #[ts(type = "[number, number] | null")]
        pub span: Option<(i64, i64)>,
        /// The range shown, ms since the epoch (end excluded).
        #[ts(type = "number")]
        pub start_ms: i64,
        #[ts(type = "number")]
        pub end_ms: i64,
        pub columns: u32,
        pub panels: Vec<TimelinePanel>,
        /// Per column: 0 none, 1 thermal slowdown, 2 HW slowdown or power
        /// brake, 3 both (on any GPU).
        pub throttle: Vec<u8>,
        pub interruptions: Vec<TimelineMark>,
        #[ts(type = "number")]
        pub samples: u64,
    }

    pub struct TimelinePanel {
        /// power_mw | temp_gpu_c | sm_clock_mhz
        pub field: String,
        /// The unit values are shown in ("W"), and what a stored value is
        /// divided by to get there.
        pub unit: String,
        pub scale: f64,
        pub gpus: Vec<TimelineSeries>,
    }

    pub struct TimelineSeries {
        pub gpu: u32,
        /// The columns that have samples, in order.
        pub columns: Vec<u32>,
        /// Where its values start among the answer's values: four stored
        /// values per entry of `columns` (first, min, max, last).
        pub at: u32,
        /// Columns where the line starts afresh after an outage.
        pub breaks: Vec<u32>,
    }

    pub struct TimelineMark {
        #[ts(type = "number")]
        pub at_ms: i64,
        pub kind: String,
        /// When a lost GPU answered again.
        #[ts(type = "number | null")]
        pub lost_until_ms: Option<i64>,
    }

    pub struct EventRow {
        /// gap | gpu-lost | xid | reset-required | gpu-unreadable | instance-lost | fault |
        /// recovered | phase | note
        pub kind: String,
        /// `None`: every GPU, or the run as a whole.
        pub gpu: Option<u32>,
        /// "GPU 6 (00000000:B7:00.0)" where the run knows the GPU's address.
        pub gpu_label: Option<String>,
        /// UTC, to the second.
        pub at: String,
        pub duration_s: Option<f64>,
        #[ts(type = "number | null")]
        pub code: Option<i64>,
        pub detail: Option<String>,
        /// What an Xid means, from the catalogue.
        pub meaning: Option<String>,
        /// platform | application | either, for an Xid the catalogue knows.
        pub blame: Option<String>,
        /// Whether it counts against the platform's sustain score.
        pub counted: bool,
    }

    pub struct HealthRow {
        pub category: Option<String>,
        pub test: String,
        /// `None`: every GPU the test ran on.
        pub gpu: Option<String>,
        /// Pass | Fail | Warn | Skip, as DCGM wrote it.
        pub status: String,
        pub message: Option<String>,
    }

    pub struct ImportRow {
        pub file: String,
        /// imported | already_imported | failed | cancelled | skipped
        pub status: String,
        #[ts(type = "number | null")]
        pub run_id: Option<i64>,
        pub format: Option<String>,
        #[ts(type = "number")]
        pub samples: u64,
        #[ts(type = "number")]
        pub records: u64,
        pub gaps: u32,
        pub warnings: Vec<String>,
        pub error: Option<String>,
    }

    pub struct ImportProgress {
        #[ts(type = "number")]
        pub job: u64,
        pub file: String,
        pub index: u32,
        pub files: u32,
        #[ts(type = "number")]
        pub bytes: u64,
        #[ts(type = "number")]
        pub total: u64,
    }
}
