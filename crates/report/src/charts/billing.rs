//! The reference workload's bill on each platform: billed vs fair
//! (compute only, per second).

use super::canvas::{Align, Canvas, fit};
use super::{BLUE, GREY, INK, SKY};
use crate::text::{Lang, fill, t};

/// One platform's bill: name, billed amount, fair amount, currency.
pub struct BillBar {
    pub platform: String,
    pub billed: f64,
    pub fair: f64,
    pub currency: String,
}

pub fn billing_chart(
    title: &str,
    bills: &[BillBar],
    lang: Lang,
) -> Result<String, super::ChartError> {
    const ROW: i32 = 40;
    const LEFT: i32 = 210;
    let n = bills.len().max(1) as i32;
    let (w, h) = (900u32, (90 + n * ROW + 60) as u32);
    let max = bills
        .iter()
        .map(|b| b.billed.max(b.fair))
        .fold(0.0, f64::max)
        .max(1e-9);
    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, (w, h), "billing")?;
        c.title(title)?;
        c.rect(LEFT, 38, LEFT + 12, 50, BLUE)?;
        c.text(
            (LEFT + 16, 44),
            t(lang, "chart_billed"),
            12,
            INK,
            Align::Left,
        )?;
        c.rect(LEFT + 250, 38, LEFT + 262, 50, SKY)?;
        c.text(
            (LEFT + 266, 44),
            t(lang, "chart_fair"),
            12,
            INK,
            Align::Left,
        )?;
        let x_of = |v: f64| LEFT + (v / max * 520.0).round() as i32;
        let top = 70;
        for (i, b) in bills.iter().enumerate() {
            let y = top + i as i32 * ROW;
            c.text(
                (LEFT - 8, y + ROW / 2),
                &fit(&b.platform, 26),
                13,
                INK,
                Align::Right,
            )?;
            c.rect(LEFT, y + 4, x_of(b.billed), y + ROW / 2, BLUE)?;
            c.rect(LEFT, y + ROW / 2, x_of(b.fair), y + ROW - 4, SKY)?;
            c.text(
                (x_of(b.billed) + 6, y + ROW / 4 + 2),
                &format!("{:.2} {}", b.billed, b.currency),
                12,
                INK,
                Align::Left,
            )?;
            let over = if b.fair > 0.0 {
                format!(
                    "{:.2} ({:+.0} %)",
                    b.fair,
                    (b.billed / b.fair - 1.0) * 100.0
                )
            } else {
                format!("{:.2}", b.fair)
            };
            c.text(
                (x_of(b.fair) + 6, y + 3 * ROW / 4 - 2),
                &over,
                11,
                GREY,
                Align::Left,
            )?;
        }
        let axis_y = top + n * ROW + 6;
        c.line((LEFT, axis_y), (LEFT + 520, axis_y), INK, 1)?;
        let currency = bills.first().map_or(String::new(), |b| b.currency.clone());
        for k in 0..=4 {
            let v = max * f64::from(k) / 4.0;
            c.line((x_of(v), axis_y), (x_of(v), axis_y + 5), INK, 1)?;
            c.text(
                (x_of(v), axis_y + 15),
                &format!("{v:.0}"),
                12,
                INK,
                Align::Centre,
            )?;
        }
        c.text(
            (LEFT + 260, axis_y + 34),
            &fill(t(lang, "chart_cost_axis"), &[&currency]),
            13,
            INK,
            Align::Centre,
        )?;
        c.finish()?;
    }
    Ok(super::finish(svg))
}
