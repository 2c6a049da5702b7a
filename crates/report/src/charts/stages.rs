//! A campaign's attempts one per line, each start split into its stages —
//! provisioning, image, first compute — on a shared time axis from the
//! campaign's first submission, so that queueing at a peak and a slow image
//! are seen attempt by attempt. A failed or timed-out attempt ends with a
//! cross where it stopped.

use super::canvas::{Align, Canvas, fit};
use super::{ChartError, GREY, INK, LIGHT, ORANGE, PURPLE, SKY, VERMILLION};
use crate::text::{Lang, t};

/// One attempt: seconds from the campaign's first submission to its own
/// submission and to each stage it reached.
pub struct AttemptStages {
    pub label: String,
    pub submitted_s: f64,
    pub provisioned_s: Option<f64>,
    pub image_ready_s: Option<f64>,
    pub first_compute_s: Option<f64>,
    pub ok: bool,
}

impl AttemptStages {
    /// A run's startup attempts, timed from the first submission.
    pub fn of(attempts: &[breakpoint_core::domain::StartupAttempt]) -> Vec<AttemptStages> {
        let Some(first) = attempts.iter().map(|a| a.submitted_at).min() else {
            return Vec::new();
        };
        let since = |t: jiff::Timestamp| t.duration_since(first).as_secs_f64();
        attempts
            .iter()
            .enumerate()
            .map(|(i, a)| AttemptStages {
                label: format!("#{} {} {}", i + 1, a.scenario, a.image),
                submitted_s: since(a.submitted_at),
                provisioned_s: a.provisioned_at.map(since),
                image_ready_s: a.image_ready_at.map(since),
                first_compute_s: a.first_compute_at.map(since),
                ok: a.outcome == breakpoint_core::domain::StartupOutcome::Ok,
            })
            .collect()
    }
}

/// `of_what` names the campaign in the title ("#4 AutoDL").
pub fn stages_chart(
    attempts: &[AttemptStages],
    of_what: &str,
    lang: Lang,
) -> Result<String, ChartError> {
    const ROW: i32 = 16;
    const LEFT: i32 = 170;
    const WIDTH: f64 = 640.0;
    let end = attempts
        .iter()
        .flat_map(|a| {
            [
                Some(a.submitted_s),
                a.provisioned_s,
                a.image_ready_s,
                a.first_compute_s,
            ]
            .into_iter()
            .flatten()
        })
        .fold(1.0f64, f64::max);
    let x_of = |s: f64| LEFT + (s.max(0.0) / end * WIDTH).round() as i32;
    let n = attempts.len().max(1) as i32;
    let (w, h) = (900u32, (90 + n * ROW + 50) as u32);
    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, (w, h), "stages")?;
        let title = if of_what.is_empty() {
            t(lang, "chart_stages_title").to_string()
        } else {
            format!("{} — {of_what}", t(lang, "chart_stages_title"))
        };
        c.title(&title)?;
        let mut x = LEFT;
        for (key, colour) in [
            ("chart_stage_provision", SKY),
            ("chart_stage_image", ORANGE),
            ("chart_stage_compute", PURPLE),
        ] {
            c.rect(x, 38, x + 10, 48, colour)?;
            c.text((x + 14, 43), t(lang, key), 12, INK, Align::Left)?;
            x += 150;
        }
        c.text((x, 43), t(lang, "chart_stage_failed"), 12, INK, Align::Left)?;
        let top = 64;
        for (i, a) in attempts.iter().enumerate() {
            let y = top + i as i32 * ROW;
            if i % 2 == 1 {
                c.rect(LEFT, y, LEFT + WIDTH as i32, y + ROW, LIGHT)?;
            }
            c.text(
                (LEFT - 8, y + ROW / 2),
                &fit(&a.label, 22),
                11,
                INK,
                Align::Right,
            )?;
            let mut from = a.submitted_s;
            for (to, colour) in [
                (a.provisioned_s, SKY),
                (a.image_ready_s, ORANGE),
                (a.first_compute_s, PURPLE),
            ] {
                let Some(to) = to else { break };
                c.rect(
                    x_of(from),
                    y + 3,
                    x_of(to).max(x_of(from) + 1),
                    y + ROW - 3,
                    colour,
                )?;
                from = to;
            }
            if !a.ok {
                let xx = x_of(from) + 5;
                let yy = y + ROW / 2;
                c.line((xx - 3, yy - 3), (xx + 3, yy + 3), VERMILLION, 2)?;
                c.line((xx - 3, yy + 3), (xx + 3, yy - 3), VERMILLION, 2)?;
            } else if a.provisioned_s.is_none() {
                c.line((x_of(from), y + 3), (x_of(from), y + ROW - 3), GREY, 1)?;
            }
        }
        let axis_y = top + n * ROW + 6;
        c.line((LEFT, axis_y), (LEFT + WIDTH as i32, axis_y), INK, 1)?;
        for k in 0..=4 {
            let s = end * f64::from(k) / 4.0;
            let label = if end >= 120.0 {
                format!("{:.1} min", s / 60.0)
            } else {
                format!("{s:.1} s")
            };
            c.line((x_of(s), axis_y), (x_of(s), axis_y + 5), INK, 1)?;
            c.text((x_of(s), axis_y + 15), &label, 11, INK, Align::Centre)?;
        }
        c.text(
            (LEFT + WIDTH as i32 / 2, axis_y + 32),
            t(lang, "chart_stages_axis"),
            12,
            INK,
            Align::Centre,
        )?;
        c.finish()?;
    }
    Ok(super::finish(svg))
}
