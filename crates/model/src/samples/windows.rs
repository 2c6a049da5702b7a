//! A GPU's samples over a window, summarised where they are kept: a fleet's
//! time-series database computes these figures itself (PromQL over range
//! vectors), so a workstation can judge thousands of GPUs over weeks
//! without pulling their samples. Each figure counts points as the samples
//! would (the same busy, working, hot and throttle rules), so the sustain
//! metrics read windows with the same aggregation model as samples.

use serde::{Deserialize, Serialize};

use crate::domain::{Run, SUMMARISED};

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

/// A stretch of a summary run whose samples were fetched for a closer
/// look, and why; its samples are a run of their own, kept as detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrilledStretch {
    pub from_s: i64,
    pub to_s: i64,
    pub why: Vec<String>,
    /// Its run, where the server had samples for it.
    pub run: Option<i64>,
    pub samples: u64,
}

/// What a summary run holds instead of samples, as its pull recorded it in
/// the run's metadata: the one reading of it for `runs show`, the app and
/// the metrics' notes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowSummary {
    /// Windows, over all GPUs, and each one's length.
    pub windows: u64,
    pub window_s: i64,
    pub drilled: Vec<DrilledStretch>,
}

impl DrilledStretch {
    /// "2026-06-01 10:00 UTC – 2026-06-01 10:59 UTC: a level change (GPU 0)".
    pub fn words(&self) -> String {
        let at = |s: i64| {
            jiff::Timestamp::from_second(s)
                .map(crate::text::minute_words)
                .unwrap_or_default()
        };
        format!(
            "{} – {}: {}",
            at(self.from_s),
            at(self.to_s),
            self.why.join(", ")
        )
    }
}

impl WindowSummary {
    /// Where the pull keeps the window length and the stretches drilled
    /// into (`metadata.prometheus`).
    pub const PULL_KEY: &'static str = "prometheus";

    /// `None` for a run of samples.
    pub fn of(run: &Run) -> Option<WindowSummary> {
        let windows = run.metadata.get(SUMMARISED)?.as_u64()?;
        let field = |k: &str| run.metadata.get(Self::PULL_KEY).and_then(|p| p.get(k));
        Some(WindowSummary {
            windows,
            window_s: field("window_s").and_then(|v| v.as_i64()).unwrap_or(0),
            drilled: field("drilled")
                .and_then(|d| serde_json::from_value(d.clone()).ok())
                .unwrap_or_default(),
        })
    }

    /// One line for the windows, then one a stretch drilled into.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "{} window(s) of {}, summarised by the server; {} stretch(es) drilled into",
            self.windows,
            crate::text::duration_words(self.window_s as f64),
            self.drilled.len()
        )];
        out.extend(self.drilled.iter().map(|d| {
            format!(
                "{} ({})",
                d.words(),
                d.run.map_or("the node said nothing".into(), |r| {
                    format!("run #{r}, {} samples", d.samples)
                })
            )
        }));
        out
    }

    /// Where a figure of the run comes from, in one clause: "from 48
    /// windows summarised by the server; drilled into 1: …".
    pub fn note(&self) -> String {
        if self.drilled.is_empty() {
            return format!(
                "from {} windows summarised by the server; none drilled into",
                self.windows
            );
        }
        let stretches: Vec<String> = self.drilled.iter().map(DrilledStretch::words).collect();
        format!(
            "from {} windows summarised by the server; drilled into {}: {}",
            self.windows,
            stretches.len(),
            stretches.join("; ")
        )
    }
}
