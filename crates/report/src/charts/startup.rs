//! Startup latency distributions: every attempt as a dot on a log axis,
//! per platform and load scenario, with the median stages stacked below.

use super::canvas::{Align, Canvas, fit};
use super::{BLUE, ChartError, GREEN, GREY, INK, LIGHT, ORANGE, PURPLE, SKY, VERMILLION};
use crate::text::{Lang, t};

/// One platform's attempts: (scenario, cold image?, latency in s or None
/// for a failed start), and median stage durations (provision, image, first
/// compute) where the attempts record them.
pub struct StartupRow {
    pub platform: String,
    pub attempts: Vec<(String, bool, Option<f64>)>,
    pub stages: Option<[f64; 3]>,
}

impl StartupRow {
    /// A platform's row from its attempts: each one's scenario, whether its
    /// image was cold, and its latency (none for a start that failed); with
    /// `with_stages`, the stage medians of the successful starts, as
    /// `explain` states them. One reading for the report and the app.
    pub fn of(
        platform: &str,
        attempts: &[breakpoint_core::domain::StartupAttempt],
        with_stages: bool,
    ) -> Self {
        use breakpoint_core::domain::{ImageState, StartupOutcome};
        let ok = |a: &&breakpoint_core::domain::StartupAttempt| a.outcome == StartupOutcome::Ok;
        let succeeded: Vec<&breakpoint_core::domain::StartupAttempt> =
            attempts.iter().filter(ok).collect();
        Self {
            platform: platform.to_string(),
            attempts: attempts
                .iter()
                .map(|a| {
                    (
                        a.scenario.as_str().to_string(),
                        a.image == ImageState::Cold,
                        ok(&a).then(|| a.latency_s()).flatten(),
                    )
                })
                .collect(),
            stages: with_stages
                .then(|| breakpoint_core::metrics::stages::StageMedians::of(&succeeded).all())
                .flatten(),
        }
    }
}

const SCENARIOS: [(&str, plotters::style::RGBColor); 3] = [
    ("chart_baseline", BLUE),
    ("chart_peak", VERMILLION),
    ("chart_mixed", GREEN),
];

pub fn startup_chart(rows: &[StartupRow], lang: Lang) -> Result<String, ChartError> {
    const ROW: i32 = 44;
    const LEFT: i32 = 210;
    const WIDTH: f64 = 600.0;
    let (lo, hi) = (0.5f64.log10(), 7200f64.log10());
    let x_of = |s: f64| {
        LEFT + ((s.max(0.5).log10() - lo) / (hi - lo) * WIDTH)
            .round()
            .min(WIDTH) as i32
    };
    let n = rows.len().max(1) as i32;
    let (w, h) = (900u32, (100 + n * ROW + 60) as u32);
    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, (w, h), "startup")?;
        c.title(t(lang, "chart_startup_title"))?;
        let mut x = LEFT;
        for (key, colour) in SCENARIOS {
            c.rect(x, 38, x + 10, 48, colour)?;
            c.text((x + 14, 43), t(lang, key), 12, INK, Align::Left)?;
            x += 80;
        }
        c.text(
            (x, 43),
            "○ cold image   × failed   bar: median stages (provision, image, first compute)",
            12,
            INK,
            Align::Left,
        )?;
        let top = 70;
        for (i, row) in rows.iter().enumerate() {
            let y = top + i as i32 * ROW;
            c.text(
                (LEFT - 8, y + ROW / 2 - 6),
                &fit(&row.platform, 26),
                13,
                INK,
                Align::Right,
            )?;
            if i % 2 == 1 {
                c.rect(LEFT, y, LEFT + WIDTH as i32, y + ROW, LIGHT)?;
            }
            for (k, (scenario, cold, latency)) in row.attempts.iter().enumerate() {
                let lane = SCENARIOS
                    .iter()
                    .position(|(s, _)| s == scenario)
                    .unwrap_or(2) as i32;
                let colour = SCENARIOS.get(lane as usize).map_or(GREY, |s| s.1);
                let yy = y + 8 + lane * 9 + (k as i32 % 3) - 1;
                match latency {
                    Some(s) if *cold => {
                        c.outline(x_of(*s) - 3, yy - 3, x_of(*s) + 3, yy + 3, colour)?
                    }
                    Some(s) => c.rect(x_of(*s) - 2, yy - 2, x_of(*s) + 2, yy + 2, colour)?,
                    None => {
                        let xx = LEFT + WIDTH as i32 + 8;
                        c.line((xx - 3, yy - 3), (xx + 3, yy + 3), colour, 1)?;
                        c.line((xx - 3, yy + 3), (xx + 3, yy - 3), colour, 1)?;
                    }
                }
            }
            if let Some(stages) = row.stages {
                let mut from = 0.0;
                for (stage, colour) in stages.iter().zip([SKY, ORANGE, PURPLE]) {
                    let to = from + stage;
                    c.rect(
                        x_of(from.max(0.5)),
                        y + ROW - 9,
                        x_of(to),
                        y + ROW - 4,
                        colour,
                    )?;
                    from = to;
                }
            }
        }
        let axis_y = top + n * ROW + 6;
        c.line((LEFT, axis_y), (LEFT + WIDTH as i32, axis_y), INK, 1)?;
        for (s, label) in [
            (1.0, "1 s"),
            (10.0, "10 s"),
            (60.0, "1 min"),
            (600.0, "10 min"),
            (3600.0, "1 h"),
        ] {
            c.line((x_of(s), axis_y), (x_of(s), axis_y + 5), INK, 1)?;
            c.text((x_of(s), axis_y + 15), label, 12, INK, Align::Centre)?;
        }
        c.text(
            (LEFT + 300, axis_y + 34),
            t(lang, "chart_startup_axis"),
            13,
            INK,
            Align::Centre,
        )?;
        c.finish()?;
    }
    Ok(super::finish(svg))
}
