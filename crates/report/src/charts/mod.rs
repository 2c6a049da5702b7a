//! Charts, drawn with plotters as SVG: the same picture for the PDF (as
//! vectors) and the desktop app. Every chart has axis labels with units and
//! a legend, uses the Okabe–Ito colour-blind-safe palette, draws text in
//! `sans-serif` (the PDF maps it to a CJK-capable font, so 阿里云 renders)
//! and is deterministic for the same data.

mod billing;
mod canvas;
mod job_cost;
mod scores;
mod stages;
mod startup;
mod timeline;

use plotters::style::RGBColor;

pub use billing::{BillBar, billing_chart};
pub use job_cost::job_cost_chart;
pub use scores::{acceptability_chart, heatmap_chart, ranking_chart};
pub use stages::{AttemptStages, stages_chart};
pub use startup::{StartupRow, startup_chart};
pub use timeline::{COLUMNS as TIMELINE_COLUMNS, TimelineInput, timeline_chart};

/// Okabe & Ito's palette, distinguishable under the common colour-vision
/// deficiencies.
pub const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
pub const GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
pub const ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
pub const PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
pub const SKY: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
pub const VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
pub const YELLOW: RGBColor = RGBColor(0xF0, 0xE4, 0x42);
pub const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
pub const GREY: RGBColor = RGBColor(0x99, 0x99, 0x99);
pub const LIGHT: RGBColor = RGBColor(0xE6, 0xE6, 0xE6);

/// Startup, sustain, switch, billing.
pub const BREAKPOINT_COLOURS: [RGBColor; 4] = [BLUE, GREEN, ORANGE, PURPLE];

/// One colour per series (GPUs, scenarios), cycling after eight.
pub const SERIES: [RGBColor; 8] = [BLUE, VERMILLION, GREEN, ORANGE, SKY, PURPLE, INK, GREY];

pub const FONT: &str = "sans-serif";

#[derive(Debug, thiserror::Error)]
#[error("cannot draw the {chart} chart: {reason}")]
pub struct ChartError {
    pub chart: &'static str,
    pub reason: String,
}

/// The chart as it leaves: a name or file name with a control character
/// in it is shown escaped (XML forbids most of them, so one ESC in a file
/// name would make the chart, and the whole report, unreadable).
pub(crate) fn finish(svg: String) -> String {
    match breakpoint_core::text::printable_multiline(&svg) {
        std::borrow::Cow::Borrowed(_) => svg,
        std::borrow::Cow::Owned(clean) => clean,
    }
}

pub(crate) fn fail<E: std::fmt::Debug>(chart: &'static str) -> impl Fn(E) -> ChartError {
    move |e| ChartError {
        chart,
        reason: format!("{e:?}"),
    }
}

/// A score colour on a colour-blind-safe sequential scale (blue → yellow,
/// after cividis): dark for 0, light for 100.
pub fn score_colour(score: f64) -> RGBColor {
    let t = (score / 100.0).clamp(0.0, 1.0);
    let stops = [
        (0.0, (0x00, 0x22, 0x4E)),
        (0.5, (0x7C, 0x7B, 0x78)),
        (1.0, (0xFE, 0xE8, 0x38)),
    ];
    let (a, b) = if t <= 0.5 {
        (stops[0], stops[1])
    } else {
        (stops[1], stops[2])
    };
    let u = (t - a.0) / (b.0 - a.0);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * u).round() as u8;
    RGBColor(mix(a.1.0, b.1.0), mix(a.1.1, b.1.1), mix(a.1.2, b.1.2))
}

/// Text on a score colour: white on dark cells, ink on light ones.
pub fn text_on(score: f64) -> RGBColor {
    if score < 55.0 {
        RGBColor(0xFF, 0xFF, 0xFF)
    } else {
        INK
    }
}

#[cfg(test)]
pub(crate) mod tests;
