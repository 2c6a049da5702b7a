//! The sustain timeline of a run: power, temperature and SM clock against
//! time for each GPU, throttle periods shaded by reason, interruptions
//! marked (and, where a GPU was lost, the time until it came back shaded).
//! Each GPU's series is drawn as its min/max envelope per pixel column, so
//! spikes and dips survive any amount of downsampling; the line breaks
//! where the samples stop, instead of bridging an outage. Panels for a
//! field the run never recorded are left out.

use breakpoint_api::timeline::RunTimeline;
use breakpoint_core::samples::Field;
use breakpoint_core::samples::envelope::{Cell, Columns};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::{ChartError, FONT, INK, LIGHT, PURPLE, SERIES, VERMILLION, fail};
use crate::text::{Lang, t};

pub struct TimelineInput<'a> {
    pub title: String,
    /// The run reduced to [`COLUMNS`] columns (the app asks for its own).
    pub timeline: &'a RunTimeline,
    /// The language of the axes and legend.
    pub lang: Lang,
}

/// The plot's width in pixels, so the columns to ask the reduction for.
pub const COLUMNS: usize = 900;
/// Where a GPU was lost: a neutral grey, apart from the throttle colours.
const LOST: RGBAColor = RGBAColor(90, 90, 90, 0.14);
const CHART: &str = "sustain timeline";

/// A panel's axis label; values are drawn in the field's display unit.
fn label(field: Field) -> &'static str {
    match field {
        Field::TempGpuC => "chart_temperature",
        Field::SmClockMhz => "chart_sm_clock",
        _ => "chart_power",
    }
}

/// What every panel of one timeline shares: the columns' time span.
struct Span<'a> {
    input: &'a TimelineInput<'a>,
    columns: Columns,
}

impl Span<'_> {
    fn hours(&self, t: i64) -> f64 {
        (t - self.columns.start_ms) as f64 / 3.6e6
    }

    fn end(&self) -> f64 {
        self.hours(self.columns.end_ms)
    }

    /// The middle of column `c`, in hours.
    fn centre(&self, c: usize) -> f64 {
        (self.hours(self.columns.start_of(c)) + self.hours(self.columns.start_of(c + 1))) / 2.0
    }
}

type Panel2d<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

pub fn timeline_chart(input: &TimelineInput<'_>) -> Result<String, ChartError> {
    let timeline = input.timeline;
    let span = Span {
        input,
        columns: timeline.columns,
    };
    // With nothing recorded at all, an empty power panel says so.
    let panels: Vec<Option<usize>> = if timeline.fields.is_empty() {
        vec![None]
    } else {
        (0..timeline.fields.len()).map(Some).collect()
    };
    let height = 64 + 232 * panels.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, height)).into_drawing_area();
        root.fill(&WHITE).map_err(fail(CHART))?;
        let root = root
            .titled(&input.title, (FONT, 17).into_font().color(&INK))
            .map_err(fail(CHART))?;
        let (legend, body) = root.split_vertically(26);
        let shows_loss = timeline
            .interruptions
            .iter()
            .any(|i| i.lost_until_ms.is_some());
        legend_row(&legend, timeline, shows_loss, input.lang)?;
        let areas = body.split_evenly((panels.len(), 1));
        for (area, panel) in areas.iter().zip(panels) {
            draw_panel(area, panel, &span)?;
        }
        root.present().map_err(fail(CHART))?;
    }
    Ok(super::finish(svg))
}

/// One field's panel (the `k`th of the timeline's fields; `None`: an empty
/// power panel): every GPU's envelope over the throttle shading, with
/// interruptions marked.
fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    k: Option<usize>,
    span: &Span<'_>,
) -> Result<(), ChartError> {
    let timeline = span.input.timeline;
    let field = k.map_or(Field::PowerMw, |k| timeline.fields[k]);
    let scale = field.display_unit().1;
    let (lo, hi) = value_range(timeline, k, scale);
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
        .y_desc(t(span.input.lang, label(field)))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .draw()
        .map_err(fail(CHART))?;
    // Throttle shading first, under the series.
    shade_throttling(&mut chart, span, lo, hi)?;
    mark_interruptions(&mut chart, span, lo, hi)?;
    if let Some(k) = k {
        draw_envelopes(&mut chart, k, scale, span)?;
    }
    Ok(())
}

/// The value axis: the envelopes' range with a margin, from 0 at least.
fn value_range(timeline: &RunTimeline, k: Option<usize>, scale: f64) -> (f64, f64) {
    let extent = k.and_then(|k| {
        timeline
            .gpus
            .iter()
            .filter_map(|g| g.series[k].extent())
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    });
    match extent {
        Some((lo, hi)) => {
            let (lo, hi) = (lo as f64 / scale, hi as f64 / scale);
            let pad = ((hi - lo) * 0.08).max(1.0);
            ((lo - pad).max(0.0), hi + pad)
        }
        None => (0.0, 1.0),
    }
}

fn shade_throttling(
    chart: &mut Panel2d<'_, '_>,
    span: &Span<'_>,
    lo: f64,
    hi: f64,
) -> Result<(), ChartError> {
    let timeline = span.input.timeline;
    for (shade, colour) in [
        (&timeline.thermal, VERMILLION),
        (&timeline.hardware, PURPLE),
    ] {
        // One band per stretch of throttled columns: each translucent shape
        // becomes a group of its own in the PDF, and a throttled hour was
        // thousands of them.
        let bands = stretches(shade).map(|(from, to)| {
            Rectangle::new(
                [
                    (span.hours(span.columns.start_of(from)), lo),
                    (span.hours(span.columns.start_of(to)), hi),
                ],
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
    let within = |h: f64| h.clamp(0.0, span.end());
    for i in &span.input.timeline.interruptions {
        let x = span.hours(i.at_ms);
        if let Some(until) = i.lost_until_ms {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(within(x), lo), (within(span.hours(until)), hi)],
                    LOST.filled(),
                )))
                .map_err(fail(CHART))?;
        }
        if (0.0..=span.end()).contains(&x) {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, lo), (x, hi)],
                    VERMILLION.stroke_width(2),
                )))
                .map_err(fail(CHART))?;
        }
    }
    Ok(())
}

/// Each GPU's envelope as one path per stretch without an outage: per
/// column its first, smallest, largest and last value, so the stroke
/// covers every sample's pixel; a column without samples is bridged
/// unless an outage ended in the next one.
fn draw_envelopes(
    chart: &mut Panel2d<'_, '_>,
    k: usize,
    scale: f64,
    span: &Span<'_>,
) -> Result<(), ChartError> {
    for (n, gpu) in span.input.timeline.gpus.iter().enumerate() {
        let colour = SERIES[n % SERIES.len()];
        let mut stretch: Vec<(f64, f64)> = Vec::new();
        let mut breaks = gpu.breaks.iter().peekable();
        for (c, cell) in gpu.series[k].cells.iter().enumerate() {
            let Some(Cell {
                first,
                min,
                max,
                last,
            }) = *cell
            else {
                continue;
            };
            while breaks.next_if(|b| **b < c).is_some() {}
            if breaks.next_if(|b| **b == c).is_some() && !stretch.is_empty() {
                draw_path(chart, std::mem::take(&mut stretch), colour)?;
            }
            let x = span.centre(c);
            stretch.extend(
                [first, min, max, last]
                    .into_iter()
                    .map(|v| (x, v as f64 / scale)),
            );
        }
        if !stretch.is_empty() {
            draw_path(chart, stretch, colour)?;
        }
    }
    Ok(())
}

fn draw_path(
    chart: &mut Panel2d<'_, '_>,
    points: Vec<(f64, f64)>,
    colour: RGBColor,
) -> Result<(), ChartError> {
    chart
        .draw_series(std::iter::once(PathElement::new(
            points,
            colour.stroke_width(1),
        )))
        .map_err(fail(CHART))?;
    Ok(())
}

fn legend_row(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    timeline: &RunTimeline,
    shows_loss: bool,
    lang: Lang,
) -> Result<(), ChartError> {
    let style = (FONT, 12).into_font().color(&INK);
    let mut x = 80;
    for (k, g) in timeline.gpus.iter().enumerate().take(16) {
        let colour = SERIES[k % SERIES.len()];
        area.draw(&Rectangle::new([(x, 8), (x + 14, 18)], colour.filled()))
            .map_err(fail(CHART))?;
        area.draw_text(&format!("GPU {}", g.gpu), &style, (x + 18, 7))
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
