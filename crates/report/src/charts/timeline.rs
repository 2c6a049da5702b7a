//! The sustain timeline of a run: power, temperature and SM clock against
//! time for each GPU, throttle periods shaded by reason, interruptions
//! marked (and, where a GPU was lost, the time until it came back shaded).
//! Each GPU's series is drawn as its min/max envelope per pixel column, so
//! spikes and dips survive any amount of downsampling; the line breaks
//! where the samples stop, instead of bridging an outage. Panels for a
//! field the run never recorded are left out.

use breakpoint_core::domain::{Event, EventKind};
use breakpoint_core::samples::{Field, SeriesFrame};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::downsample::min_max;
use super::{ChartError, FONT, INK, LIGHT, PURPLE, SERIES, VERMILLION, fail};
use crate::text::{Lang, t};

pub struct TimelineInput<'a> {
    pub title: String,
    pub frames: &'a [SeriesFrame],
    pub events: &'a [Event],
    /// The language of the axes and legend.
    pub lang: Lang,
}

const COLUMNS: usize = 900;
/// Where a GPU was lost: a neutral grey, apart from the throttle colours.
const LOST: RGBAColor = RGBAColor(90, 90, 90, 0.14);
const CHART: &str = "sustain timeline";

struct Panel {
    field: Field,
    label: &'static str,
    scale: f64,
}

const PANELS: [Panel; 3] = [
    Panel {
        field: Field::PowerMw,
        label: "chart_power",
        scale: 1000.0,
    },
    Panel {
        field: Field::TempGpuC,
        label: "chart_temperature",
        scale: 1.0,
    },
    Panel {
        field: Field::SmClockMhz,
        label: "chart_sm_clock",
        scale: 1.0,
    },
];

/// Columns in which any GPU had a counted throttle reason: thermal (SW or
/// HW thermal slowdown) or power/hardware (HW slowdown, power brake).
fn throttle_columns(frames: &[SeriesFrame], t0: i64, t1: i64) -> (Vec<bool>, Vec<bool>) {
    let mut thermal = vec![false; COLUMNS];
    let mut hardware = vec![false; COLUMNS];
    let span = (t1 - t0).max(1) as f64;
    for f in frames {
        let Some(mask) = f.column(Field::ThrottleMask) else {
            continue;
        };
        for (i, t) in f.t_ms.iter().enumerate() {
            let Some(m) = mask.get(i) else { continue };
            let c = ((((t - t0) as f64) / span * COLUMNS as f64) as usize).min(COLUMNS - 1);
            thermal[c] |= m & (0x20 | 0x40) != 0;
            hardware[c] |= m & (0x8 | 0x80) != 0;
        }
    }
    (thermal, hardware)
}

/// What every panel of one timeline shares: the time span, the throttle
/// shading and where each GPU's line breaks.
struct Span<'a> {
    input: &'a TimelineInput<'a>,
    t0: i64,
    t1: i64,
    thermal: Vec<bool>,
    hardware: Vec<bool>,
    /// Per GPU, the silence that counts as an outage (the line stops).
    breaks: Vec<i64>,
}

impl Span<'_> {
    fn hours(&self, t: i64) -> f64 {
        (t - self.t0) as f64 / 3.6e6
    }

    fn end(&self) -> f64 {
        self.hours(self.t1)
    }
}

type Panel2d<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

pub fn timeline_chart(input: &TimelineInput<'_>) -> Result<String, ChartError> {
    let t0 = input
        .frames
        .iter()
        .filter_map(|f| f.t_ms.first())
        .min()
        .copied()
        .unwrap_or(0);
    let t1 = input
        .frames
        .iter()
        .filter_map(|f| f.t_ms.last())
        .max()
        .copied()
        .unwrap_or(t0 + 1)
        .max(t0 + 1);
    let (thermal, hardware) = throttle_columns(input.frames, t0, t1);
    // A silence longer than three sampling steps is an outage: the line
    // stops there — if it spans more than a pixel column or two, that is,
    // since the envelope has one point per column.
    let column_ms = (t1 - t0) / COLUMNS as i64;
    let breaks = input
        .frames
        .iter()
        .map(|f| (3 * f.median_step_ms().unwrap_or(0)).max(2 * column_ms))
        .collect();
    let span = Span {
        input,
        t0,
        t1,
        thermal,
        hardware,
        breaks,
    };
    let recorded: Vec<&Panel> = PANELS
        .iter()
        .filter(|p| input.frames.iter().any(|f| f.column(p.field).is_some()))
        .collect();
    // With nothing recorded at all, an empty power panel says so.
    let shown = if recorded.is_empty() {
        vec![&PANELS[0]]
    } else {
        recorded
    };
    let height = 64 + 232 * shown.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, height)).into_drawing_area();
        root.fill(&WHITE).map_err(fail(CHART))?;
        let root = root
            .titled(&input.title, (FONT, 17).into_font().color(&INK))
            .map_err(fail(CHART))?;
        let (legend, body) = root.split_vertically(26);
        let shows_loss = input
            .events
            .iter()
            .any(|e| e.kind == EventKind::GpuLost && e.duration_ms.is_some_and(|ms| ms > 0));
        legend_row(&legend, input.frames, shows_loss, input.lang)?;
        let panels = body.split_evenly((shown.len(), 1));
        for (area, panel) in panels.iter().zip(shown) {
            draw_panel(area, panel, &span)?;
        }
        root.present().map_err(fail(CHART))?;
    }
    Ok(super::finish(svg))
}

/// One field's panel: every GPU's min–max envelope per pixel column over
/// the throttle shading, with interruptions marked.
fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    panel: &Panel,
    span: &Span<'_>,
) -> Result<(), ChartError> {
    let buckets: Vec<Vec<super::downsample::Bucket>> = span
        .input
        .frames
        .iter()
        .map(|f| {
            let column = f.column(panel.field);
            min_max(
                &f.t_ms,
                |i| {
                    column
                        .and_then(|c| c.get(i))
                        .map(|v| v as f64 / panel.scale)
                },
                span.t0,
                span.t1,
                COLUMNS,
            )
        })
        .collect();
    let (lo, hi) = value_range(&buckets);
    let mut chart = ChartBuilder::on(area)
        .margin_left(10)
        .margin_right(20)
        .margin_top(6)
        .x_label_area_size(30)
        .y_label_area_size(62)
        .build_cartesian_2d(0f64..span.end().max(1e-6), lo..hi)
        .map_err(fail(CHART))?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .bold_line_style(LIGHT)
        .x_labels(12)
        .y_labels(6)
        .x_desc(t(span.input.lang, "chart_hours"))
        .y_desc(t(span.input.lang, panel.label))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .draw()
        .map_err(fail(CHART))?;
    // Throttle shading first, under the series.
    shade_throttling(&mut chart, span, lo, hi)?;
    mark_interruptions(&mut chart, span, lo, hi)?;
    draw_envelopes(&mut chart, &buckets, span)
}

/// The value axis: the envelopes' range with a margin, from 0 at least.
fn value_range(buckets: &[Vec<super::downsample::Bucket>]) -> (f64, f64) {
    let lo = buckets
        .iter()
        .flatten()
        .map(|b| b.min)
        .fold(f64::INFINITY, f64::min);
    let hi = buckets
        .iter()
        .flatten()
        .map(|b| b.max)
        .fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && hi.is_finite() {
        let pad = ((hi - lo) * 0.08).max(1.0);
        ((lo - pad).max(0.0), hi + pad)
    } else {
        (0.0, 1.0)
    }
}

fn shade_throttling(
    chart: &mut Panel2d<'_, '_>,
    span: &Span<'_>,
    lo: f64,
    hi: f64,
) -> Result<(), ChartError> {
    let col_w = span.end() / COLUMNS as f64;
    for (shade, colour) in [(&span.thermal, VERMILLION), (&span.hardware, PURPLE)] {
        // One band per stretch of throttled columns: each translucent shape
        // becomes a group of its own in the PDF, and a throttled hour was
        // thousands of them.
        let bands = stretches(shade).map(|(from, to)| {
            Rectangle::new(
                [(from as f64 * col_w, lo), (to as f64 * col_w, hi)],
                colour.mix(0.18).filled(),
            )
        });
        chart.draw_series(bands).map_err(fail(CHART))?;
    }
    Ok(())
}

/// The stretches of consecutive set columns, as [from, to) column ranges.
fn stretches(on: &[bool]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut c = 0;
    std::iter::from_fn(move || {
        let from = c + on.get(c..)?.iter().position(|x| *x)?;
        let to = from + on[from..].iter().take_while(|x| **x).count();
        c = to;
        Some((from, to))
    })
}

/// A line at each interruption; a lost GPU's time shaded grey until it
/// answered again.
fn mark_interruptions(
    chart: &mut Panel2d<'_, '_>,
    span: &Span<'_>,
    lo: f64,
    hi: f64,
) -> Result<(), ChartError> {
    for e in span.input.events.iter().filter(|e| e.interrupts()) {
        let x = span.hours(e.at.as_millisecond());
        if e.kind == EventKind::GpuLost
            && let Some(ms) = e.duration_ms.filter(|ms| *ms > 0)
        {
            let until = span.hours(e.at.as_millisecond() + ms).min(span.end());
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x, lo), (until, hi)],
                    LOST.filled(),
                )))
                .map_err(fail(CHART))?;
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                VERMILLION.stroke_width(2),
            )))
            .map_err(fail(CHART))?;
    }
    Ok(())
}

/// Each GPU's envelope as zig-zag paths (min then max per column), one
/// per stretch without an outage.
fn draw_envelopes(
    chart: &mut Panel2d<'_, '_>,
    buckets: &[Vec<super::downsample::Bucket>],
    span: &Span<'_>,
) -> Result<(), ChartError> {
    for (k, b) in buckets.iter().enumerate() {
        let colour = SERIES[k % SERIES.len()];
        let gap = span.breaks[k];
        let mut start = 0;
        for end_at in 1..=b.len() {
            let broken =
                end_at == b.len() || (gap > 0 && b[end_at].t_ms - b[end_at - 1].t_ms > gap);
            if !broken {
                continue;
            }
            let points: Vec<(f64, f64)> = b[start..end_at]
                .iter()
                .flat_map(|b| [(span.hours(b.t_ms), b.min), (span.hours(b.t_ms), b.max)])
                .collect();
            chart
                .draw_series(std::iter::once(PathElement::new(
                    points,
                    colour.stroke_width(1),
                )))
                .map_err(fail(CHART))?;
            start = end_at;
        }
    }
    Ok(())
}

fn legend_row(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    frames: &[SeriesFrame],
    shows_loss: bool,
    lang: Lang,
) -> Result<(), ChartError> {
    let style = (FONT, 12).into_font().color(&INK);
    let mut x = 80;
    for (k, f) in frames.iter().enumerate().take(16) {
        let colour = SERIES[k % SERIES.len()];
        area.draw(&Rectangle::new([(x, 8), (x + 14, 18)], colour.filled()))
            .map_err(fail(CHART))?;
        area.draw_text(&format!("GPU {}", f.gpu), &style, (x + 18, 7))
            .map_err(fail(CHART))?;
        x += 62;
    }
    for (label, colour) in [
        (t(lang, "chart_thermal"), VERMILLION),
        (t(lang, "chart_hw_slowdown"), PURPLE),
    ] {
        area.draw(&Rectangle::new(
            [(x, 8), (x + 14, 18)],
            colour.mix(0.35).filled(),
        ))
        .map_err(fail(CHART))?;
        area.draw_text(label, &style, (x + 18, 7))
            .map_err(fail(CHART))?;
        x += 24 + 7 * label.len() as i32;
    }
    area.draw(&PathElement::new(
        vec![(x, 6), (x, 20)],
        VERMILLION.stroke_width(2),
    ))
    .map_err(fail(CHART))?;
    area.draw_text(t(lang, "chart_interruption"), &style, (x + 6, 7))
        .map_err(fail(CHART))?;
    if shows_loss {
        let x = x + 100;
        area.draw(&Rectangle::new([(x, 8), (x + 14, 18)], LOST.filled()))
            .map_err(fail(CHART))?;
        area.draw_text(t(lang, "chart_gpu_lost"), &style, (x + 18, 7))
            .map_err(fail(CHART))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::stretches;

    #[test]
    fn set_columns_are_told_as_stretches() {
        let on = [true, true, false, true, false, false, true, true, true];
        assert_eq!(stretches(&on).collect::<Vec<_>>(), [(0, 2), (3, 4), (6, 9)]);
        assert_eq!(stretches(&[false, false]).count(), 0);
        assert_eq!(stretches(&[]).count(), 0);
        assert_eq!(stretches(&[true]).collect::<Vec<_>>(), [(0, 1)]);
    }
}
