//! What finishing the job costs: each platform's cost band (p10–p90, the
//! median marked) and its median hours split into the model's terms.

use breakpoint_api::job_cost::{PlatformCost, TermKey};
use plotters::style::RGBColor;

use super::canvas::{Align, Canvas, fit};
use super::{BLUE, GREY, INK, LIGHT, ORANGE, SKY, VERMILLION};
use crate::text::{Lang, fill, t};

/// The parts of the hours, in the order they are stacked, with their
/// colours and legend keys.
const PARTS: [(TermKey, RGBColor, &str); 4] = [
    (TermKey::Data, SKY, "chart_job_data"),
    (TermKey::Start, ORANGE, "chart_job_start"),
    (TermKey::Compute, BLUE, "chart_job_compute"),
    (TermKey::Lost, VERMILLION, "chart_job_lost"),
];

const ROW: i32 = 38;
const LEFT: i32 = 210;
const WIDTH: i32 = 520;

/// The bands of the platforms priced in the first priced platform's
/// currency (others cannot share an axis) and every platform's hours.
pub fn job_cost_chart(costs: &[PlatformCost], lang: Lang) -> Result<String, super::ChartError> {
    let currency = costs
        .iter()
        .find_map(|c| c.cost.as_ref().map(|m| m.currency.clone()))
        .unwrap_or_default();
    let priced: Vec<(&str, [f64; 3])> = costs
        .iter()
        .filter_map(|c| {
            let m = c.cost.as_ref().filter(|m| m.currency == currency)?;
            let f = |d: breakpoint_core::domain::money::Decimal| {
                breakpoint_core::domain::money::to_f64(d)
            };
            Some((c.platform.as_str(), [f(m.p10), f(m.p50), f(m.p90)]))
        })
        .collect();
    let n_cost = priced.len().max(1) as i32;
    let n_hours = costs.len().max(1) as i32;
    let hours_top = 70 + n_cost * ROW + 90;
    let (w, h) = (900u32, (hours_top + 40 + n_hours * ROW + 60) as u32);
    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, (w, h), "job cost")?;
        c.title(t(lang, "chart_job_cost_title"))?;
        // The cost bands.
        let max = priced
            .iter()
            .map(|(_, b)| b[2])
            .fold(0.0, f64::max)
            .max(1e-9);
        let x_of = |v: f64| LEFT + (v / max * f64::from(WIDTH)).round() as i32;
        let top = 50;
        if priced.is_empty() {
            c.text(
                (LEFT, top + ROW / 2),
                t(lang, "chart_job_no_price"),
                13,
                GREY,
                Align::Left,
            )?;
        }
        for (i, (platform, band)) in priced.iter().enumerate() {
            let y = top + i as i32 * ROW;
            c.text(
                (LEFT - 8, y + ROW / 2),
                &fit(platform, 26),
                13,
                INK,
                Align::Right,
            )?;
            c.rect(LEFT, y + ROW / 2 - 1, x_of(band[2]), y + ROW / 2 + 1, LIGHT)?;
            c.rect(
                x_of(band[0]),
                y + 8,
                x_of(band[2]).max(x_of(band[0]) + 2),
                y + ROW - 8,
                SKY,
            )?;
            c.rect(
                x_of(band[1]) - 2,
                y + 4,
                x_of(band[1]) + 2,
                y + ROW - 4,
                INK,
            )?;
            c.text(
                (x_of(band[2]) + 6, y + ROW / 2),
                &format!("{:.0} ({:.0}–{:.0})", band[1], band[0], band[2]),
                12,
                INK,
                Align::Left,
            )?;
        }
        let axis_y = top + n_cost * ROW + 6;
        axis(
            &c,
            axis_y,
            max,
            &fill(t(lang, "chart_job_cost_axis"), &[&currency]),
        )?;

        // The median hours, term by term.
        let parts = |cost: &PlatformCost| -> Vec<(usize, f64)> {
            PARTS
                .iter()
                .enumerate()
                .filter_map(|(i, (key, _, _))| {
                    let term = cost.terms.iter().find(|term| term.key == *key)?;
                    Some((i, key.hours(term.value)?.max(0.0)))
                })
                .collect()
        };
        let max_h = costs
            .iter()
            .map(|cost| parts(cost).iter().map(|(_, h)| h).sum::<f64>())
            .fold(0.0, f64::max)
            .max(1e-9);
        let xh = |v: f64| LEFT + (v / max_h * f64::from(WIDTH)).round() as i32;
        c.text(
            (16, hours_top - 22),
            t(lang, "chart_job_hours_title"),
            15,
            INK,
            Align::Left,
        )?;
        let mut x = LEFT;
        for (_, colour, key) in PARTS {
            c.rect(x, hours_top - 6, x + 12, hours_top + 6, colour)?;
            c.text((x + 16, hours_top), t(lang, key), 12, INK, Align::Left)?;
            x += 150;
        }
        let top = hours_top + 20;
        for (i, cost) in costs.iter().enumerate() {
            let y = top + i as i32 * ROW;
            c.text(
                (LEFT - 8, y + ROW / 2),
                &fit(&cost.platform, 26),
                13,
                INK,
                Align::Right,
            )?;
            let mut at = 0.0;
            for (part, hours) in parts(cost) {
                c.rect(xh(at), y + 6, xh(at + hours), y + ROW - 6, PARTS[part].1)?;
                at += hours;
            }
            c.text(
                (xh(at) + 6, y + ROW / 2),
                &format!("{at:.0} h"),
                12,
                INK,
                Align::Left,
            )?;
        }
        axis(
            &c,
            top + n_hours * ROW + 6,
            max_h,
            t(lang, "chart_job_hours_axis"),
        )?;
        c.finish()?;
    }
    Ok(super::finish(svg))
}

/// A horizontal axis from 0 to `max` under the bars, with its label.
fn axis(c: &Canvas<'_>, y: i32, max: f64, label: &str) -> Result<(), super::ChartError> {
    let x_of = |v: f64| LEFT + (v / max * f64::from(WIDTH)).round() as i32;
    c.line((LEFT, y), (LEFT + WIDTH, y), INK, 1)?;
    for k in 0..=4 {
        let v = max * f64::from(k) / 4.0;
        c.line((x_of(v), y), (x_of(v), y + 5), INK, 1)?;
        c.text(
            (x_of(v), y + 15),
            &format!("{v:.0}"),
            12,
            INK,
            Align::Centre,
        )?;
    }
    c.text((LEFT + WIDTH / 2, y + 34), label, 13, INK, Align::Centre)
}
