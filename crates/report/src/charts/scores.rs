//! The ranking as pictures: bars split by each breakpoint's contribution,
//! the platforms × breakpoints heatmap, and rank acceptability.

use breakpoint_core::domain::Breakpoint;
use breakpoint_core::scoring::{PlatformScore, Ranking, Robustness};

use super::canvas::{Align, Canvas, fit};
use super::{BREAKPOINT_COLOURS, ChartError, GREY, INK, LIGHT, score_colour, text_on};
use crate::text::{Lang, fill, t};

const ROW: i32 = 30;
const LEFT: i32 = 210;

fn legend_breakpoints(c: &Canvas<'_>, x: i32, y: i32, lang: Lang) -> Result<(), ChartError> {
    let mut x = x;
    for (b, colour) in Breakpoint::ALL.iter().zip(BREAKPOINT_COLOURS) {
        c.rect(x, y - 6, x + 12, y + 6, colour)?;
        let name = t(lang, &format!("chart_{}", b.as_str())).to_string();
        c.text((x + 16, y), &name, 13, INK, Align::Left)?;
        x += 90;
    }
    Ok(())
}

/// Horizontal bars, one per platform, split into each breakpoint's weighted
/// contribution to the overall score; coverage at the end of each bar.
pub fn ranking_chart(ranking: &Ranking, lang: Lang) -> Result<String, ChartError> {
    let n = ranking.platforms.len().max(1) as i32;
    let (w, h) = (900u32, (90 + n * ROW + 60) as u32);
    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, (w, h), "ranking")?;
        c.title(&fill(t(lang, "chart_ranking_title"), &[&ranking.profile]))?;
        legend_breakpoints(&c, LEFT, 44, lang)?;
        let x_of = |score: f64| LEFT + (score / 100.0 * 560.0).round() as i32;
        let top = 70;
        for (i, p) in ranking.platforms.iter().enumerate() {
            let y = top + i as i32 * ROW;
            let label = format!(
                "{} {}",
                p.rank.map_or("–".into(), |r| format!("{r}.")),
                fit(&p.platform.name, 24)
            );
            c.text(
                (LEFT - 8, y + ROW / 2),
                &label,
                13,
                if p.rank.is_some() { INK } else { GREY },
                Align::Right,
            )?;
            let measured: f64 = (0..4)
                .filter(|b| p.breakpoints[*b].score.is_some())
                .map(|b| ranking.weights[b])
                .sum();
            let mut x = LEFT;
            for (b, colour) in BREAKPOINT_COLOURS.iter().enumerate() {
                let Some(s) = p.breakpoints[b].score else {
                    continue;
                };
                let part = if measured > 0.0 {
                    ranking.weights[b] * s / measured
                } else {
                    0.0
                };
                let x1 = x + (part / 100.0 * 560.0).round() as i32;
                c.rect(
                    x,
                    y + 5,
                    x1,
                    y + ROW - 5,
                    if p.rank.is_some() { *colour } else { GREY },
                )?;
                x = x1;
            }
            let end = p.overall.map_or(LEFT, x_of);
            let note = match p.overall {
                Some(o) => fill(
                    t(lang, "chart_score_coverage"),
                    &[&format!("{o:.1}"), &format!("{:.0}", 100.0 * p.coverage)],
                ),
                None => t(lang, "not_measured").into(),
            };
            c.text((end + 6, y + ROW / 2), &note, 12, INK, Align::Left)?;
        }
        // The axis: 0–100 with ticks every 20.
        let axis_y = top + n * ROW + 6;
        c.line((LEFT, axis_y), (x_of(100.0), axis_y), INK, 1)?;
        for k in 0..=5 {
            let x = x_of(f64::from(k) * 20.0);
            c.line((x, axis_y), (x, axis_y + 5), INK, 1)?;
            c.text(
                (x, axis_y + 15),
                &(k * 20).to_string(),
                12,
                INK,
                Align::Centre,
            )?;
        }
        c.text(
            (x_of(50.0), axis_y + 34),
            t(lang, "chart_ranking_axis"),
            13,
            INK,
            Align::Centre,
        )?;
        c.finish()?;
    }
    Ok(super::finish(svg))
}

/// Platforms × breakpoints (and overall), the score in each cell; "not
/// measured" is hatched grey, never a colour that could read as 0.
pub fn heatmap_chart(ranking: &Ranking, lang: Lang) -> Result<String, ChartError> {
    let n = ranking.platforms.len().max(1) as i32;
    let cell_w = 120;
    let (w, h) = ((LEFT + 5 * cell_w + 40) as u32, (100 + n * ROW + 50) as u32);
    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, (w, h), "heatmap")?;
        c.title(t(lang, "chart_heatmap_title"))?;
        let top = 70;
        let headers = [
            "chart_startup",
            "chart_sustain",
            "chart_switch",
            "chart_billing",
            "chart_overall",
        ]
        .map(|k| t(lang, k));
        for (k, head) in headers.iter().enumerate() {
            c.text(
                (LEFT + k as i32 * cell_w + cell_w / 2, top - 12),
                head,
                13,
                INK,
                Align::Centre,
            )?;
        }
        let cell = |p: &PlatformScore, k: usize| {
            if k < 4 {
                p.breakpoints[k].score
            } else {
                p.overall
            }
        };
        for (i, p) in ranking.platforms.iter().enumerate() {
            let y = top + i as i32 * ROW;
            c.text(
                (LEFT - 8, y + ROW / 2),
                &fit(&p.platform.name, 26),
                13,
                INK,
                Align::Right,
            )?;
            for k in 0..5 {
                let x = LEFT + k as i32 * cell_w;
                match cell(p, k) {
                    Some(s) => {
                        c.rect(x + 1, y + 1, x + cell_w - 1, y + ROW - 1, score_colour(s))?;
                        c.text(
                            (x + cell_w / 2, y + ROW / 2),
                            &format!("{s:.1}"),
                            13,
                            text_on(s),
                            Align::Centre,
                        )?;
                    }
                    None => {
                        c.rect(x + 1, y + 1, x + cell_w - 1, y + ROW - 1, LIGHT)?;
                        for d in (0..cell_w + ROW).step_by(10) {
                            let (x0, y0) = (x + d.min(cell_w), y + (d - cell_w).max(0));
                            let (x1, y1) = (x + (d - ROW).max(0), y + d.min(ROW));
                            c.line((x0, y0), (x1, y1), GREY, 1)?;
                        }
                        c.text(
                            (x + cell_w / 2, y + ROW / 2),
                            t(lang, "not_measured"),
                            11,
                            INK,
                            Align::Centre,
                        )?;
                    }
                }
            }
        }
        // The colour scale.
        let y = top + n * ROW + 18;
        for k in 0..=20 {
            let x = LEFT + k * 12;
            c.rect(x, y, x + 12, y + 12, score_colour(f64::from(k) * 5.0))?;
        }
        c.text((LEFT - 6, y + 6), "0", 12, INK, Align::Right)?;
        c.text((LEFT + 21 * 12 + 6, y + 6), "100", 12, INK, Align::Left)?;
        c.finish()?;
    }
    Ok(super::finish(svg))
}

/// Stacked bars of P(rank r) per platform, from the SMAA weight draws.
pub fn acceptability_chart(robustness: &Robustness, lang: Lang) -> Result<String, ChartError> {
    let n = robustness.acceptability.len().max(1) as i32;
    let (w, h) = (900u32, (100 + n * ROW + 70) as u32);
    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, (w, h), "rank acceptability")?;
        c.title(&fill(
            t(lang, "chart_acceptability_title"),
            &[
                &robustness.samples,
                &robustness.concentration,
                &robustness.seed,
            ],
        ))?;
        let ranks = robustness
            .acceptability
            .first()
            .map_or(0, |a| a.ranks.len());
        // Rank 1 darkest; a sequential scale reads as an order.
        let colour = |r: usize| {
            score_colour(100.0 - 100.0 * r as f64 / ranks.max(2).saturating_sub(1) as f64)
        };
        let mut x = LEFT;
        for r in 0..ranks.min(8) {
            c.rect(x, 38, x + 12, 50, colour(r))?;
            c.text(
                (x + 16, 44),
                &fill(t(lang, "chart_rank_n"), &[&(r + 1)]),
                12,
                INK,
                Align::Left,
            )?;
            x += 76;
        }
        let top = 70;
        for (i, a) in robustness.acceptability.iter().enumerate() {
            let y = top + i as i32 * ROW;
            c.text(
                (LEFT - 8, y + ROW / 2),
                &fit(&a.platform, 26),
                13,
                INK,
                Align::Right,
            )?;
            let mut x = LEFT;
            for (r, p) in a.ranks.iter().enumerate() {
                let x1 = x + (p * 560.0).round() as i32;
                if x1 > x {
                    c.rect(x, y + 5, x1, y + ROW - 5, colour(r))?;
                }
                x = x1;
            }
            let first = a.ranks.first().copied().unwrap_or(0.0);
            c.text(
                (LEFT + 566, y + ROW / 2),
                &fill(
                    t(lang, "chart_p_first"),
                    &[&format!("{:.0}", 100.0 * first)],
                ),
                12,
                INK,
                Align::Left,
            )?;
        }
        let axis_y = top + n * ROW + 6;
        c.line((LEFT, axis_y), (LEFT + 560, axis_y), INK, 1)?;
        for k in 0..=4 {
            let x = LEFT + k * 140;
            c.line((x, axis_y), (x, axis_y + 5), INK, 1)?;
            c.text(
                (x, axis_y + 15),
                &format!("{} %", k * 25),
                12,
                INK,
                Align::Centre,
            )?;
        }
        c.text(
            (LEFT + 280, axis_y + 34),
            t(lang, "chart_acceptability_axis"),
            13,
            INK,
            Align::Centre,
        )?;
        c.finish()?;
    }
    Ok(super::finish(svg))
}
