//! A run's sustain timeline as the faces draw it: per GPU, power,
//! temperature and SM clock reduced to the columns of the drawing (first,
//! smallest, largest and last value per column, see
//! [`crate::samples::envelope`]), the columns in which any GPU throttled,
//! where each GPU's line breaks for an outage, and the interruptions. The
//! app asks again for the range a user zooms to, at its own width in
//! pixels; the report draws the whole run. Only the stored pieces of the
//! range are read, GPUs reduced side by side on the machine's cores, and
//! nothing holds more than a few pieces of a series: the cost is the
//! samples in range read once, the answer's size is the pixels.

use std::ops::Range;

use serde::Serialize;

use crate::domain::EventKind;
use crate::error::{Error, Result};
use crate::metrics::sustain::{HARDWARE_THROTTLE, THERMAL_THROTTLE};
use crate::samples::envelope::{Columns, Envelope};
use crate::samples::{Field, SeriesFrame};
use crate::store::Store;

/// The series a timeline draws, one panel each, in this order.
pub const TIMELINE_FIELDS: [Field; 3] = [Field::PowerMw, Field::TempGpuC, Field::SmClockMhz];

/// The most columns one answer may hold: wider than any screen, and a
/// bound on what a request can make the engine allocate.
pub const MAX_COLUMNS: usize = 8192;

/// A silence longer than this many sampling steps is an outage: the line
/// stops there instead of bridging it.
const OUTAGE_STEPS: i64 = 3;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineRequest {
    pub run_id: i64,
    /// Milliseconds since the epoch, start included, end not; the whole run
    /// when `None`.
    pub range: Option<Range<i64>>,
    /// Columns to reduce to: the drawing's width in pixels.
    pub columns: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunTimeline {
    pub run_id: i64,
    /// The run's first and last sample (ms since the epoch), over all
    /// GPUs: how far a zoom may go out. `None` when it has no samples.
    pub span: Option<(i64, i64)>,
    /// The range shown, cut into the columns asked for.
    pub columns: Columns,
    /// The series any GPU recorded in the range, in panel order.
    pub fields: Vec<Field>,
    pub gpus: Vec<GpuTimeline>,
    /// Per column, whether any GPU had a thermal slowdown (SW or HW).
    pub thermal: Vec<bool>,
    /// Per column, whether any GPU had a hardware slowdown or power brake.
    pub hardware: Vec<bool>,
    /// Interruptions in the range, in time order.
    pub interruptions: Vec<Interruption>,
    /// Samples in the range (all GPUs), each read once.
    pub samples: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuTimeline {
    pub gpu: u32,
    /// One envelope per entry of [`RunTimeline::fields`], values in the
    /// stored units (mW, °C, MHz).
    pub series: Vec<Envelope>,
    /// Columns where the line starts afresh: an outage ends in them.
    pub breaks: Vec<usize>,
}

/// Work stopped: a line on the timeline, and where a GPU was lost, its
/// time away shaded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interruption {
    pub at_ms: i64,
    pub kind: EventKind,
    /// When a lost GPU answered again.
    pub lost_until_ms: Option<i64>,
}

/// A run's timeline over the range and columns asked for.
pub fn timeline(store: &Store, request: &TimelineRequest) -> Result<RunTimeline> {
    let run = store.run(request.run_id)?;
    if !(1..=MAX_COLUMNS).contains(&request.columns) {
        return Err(invalid(
            "columns",
            format!(
                "{} columns asked; between 1 and {MAX_COLUMNS}",
                request.columns
            ),
        ));
    }
    let span = store.sample_span(run.id)?;
    let range = shown_range(request.range.clone(), span)?;
    let columns = Columns::new(range.clone(), request.columns);
    let step = run.interval_ms.map(i64::from).filter(|ms| *ms > 0);

    let mut wanted = TIMELINE_FIELDS.to_vec();
    wanted.push(Field::ThrottleMask);
    let folded = store.fold_samples(
        run.id,
        None,
        range.clone(),
        Some(&wanted),
        |_| Reduced::new(&columns, step),
        |reduced, piece| reduced.add(&piece, &columns),
    )?;
    let mut thermal = vec![false; columns.count];
    let mut hardware = vec![false; columns.count];
    let mut samples = 0u64;
    let mut gpus = Vec::new();
    for (gpu, reduced) in folded {
        for (all, one) in [
            (&mut thermal, &reduced.thermal),
            (&mut hardware, &reduced.hardware),
        ] {
            all.iter_mut().zip(one).for_each(|(a, b)| *a |= *b);
        }
        samples += reduced.samples;
        gpus.push(GpuTimeline {
            gpu,
            series: reduced.series,
            breaks: reduced.breaks.columns,
        });
    }

    // Panels only for what some GPU recorded in the range.
    let recorded: Vec<usize> = (0..TIMELINE_FIELDS.len())
        .filter(|k| gpus.iter().any(|g| g.series[*k].extent().is_some()))
        .collect();
    for g in &mut gpus {
        g.series = recorded.iter().map(|k| g.series[*k].clone()).collect();
    }
    let interruptions = store
        .events(run.id)?
        .into_iter()
        .filter(|e| e.interrupts())
        .map(|e| Interruption {
            at_ms: e.at.as_millisecond(),
            kind: e.kind,
            lost_until_ms: (e.kind == EventKind::GpuLost)
                .then_some(e.duration_ms)
                .flatten()
                .filter(|ms| *ms > 0)
                .map(|ms| e.at.as_millisecond() + ms),
        })
        .filter(|i| i.lost_until_ms.unwrap_or(i.at_ms) >= range.start && i.at_ms < range.end)
        .collect();
    Ok(RunTimeline {
        run_id: run.id,
        span,
        columns,
        fields: recorded.iter().map(|k| TIMELINE_FIELDS[*k]).collect(),
        gpus,
        thermal,
        hardware,
        interruptions,
        samples,
    })
}

fn invalid(field: &str, reason: String) -> Error {
    Error::Invalid(crate::error::ValidationError::new(field, reason))
}

/// The range asked for, within the run's samples; the whole run when none
/// was asked for.
fn shown_range(asked: Option<Range<i64>>, span: Option<(i64, i64)>) -> Result<Range<i64>> {
    let Some((first, last)) = span else {
        return Ok(asked.unwrap_or(0..1));
    };
    let whole = first..last.saturating_add(1);
    let Some(asked) = asked else {
        return Ok(whole);
    };
    if asked.start >= asked.end {
        return Err(invalid(
            "range",
            format!("ends ({}) before it starts ({})", asked.end, asked.start),
        ));
    }
    let shown = asked.start.max(whole.start)..asked.end.min(whole.end);
    if shown.start >= shown.end {
        return Err(invalid(
            "range",
            format!(
                "{}..{} holds none of the run's samples ({first}..={last})",
                asked.start, asked.end
            ),
        ));
    }
    Ok(shown)
}

/// One GPU's run as it is reduced, piece by piece.
struct Reduced {
    series: Vec<Envelope>,
    breaks: Breaks,
    /// Columns where this GPU had a thermal / hardware slowdown.
    thermal: Vec<bool>,
    hardware: Vec<bool>,
    samples: u64,
}

impl Reduced {
    fn new(columns: &Columns, step_ms: Option<i64>) -> Self {
        Self {
            series: vec![Envelope::new(columns); TIMELINE_FIELDS.len()],
            breaks: Breaks::new(step_ms),
            thermal: vec![false; columns.count],
            hardware: vec![false; columns.count],
            samples: 0,
        }
    }

    fn add(&mut self, piece: &SeriesFrame, columns: &Columns) {
        let t = &piece.t_ms;
        let within = t.partition_point(|x| *x < columns.start_ms)
            ..t.partition_point(|x| *x < columns.end_ms);
        self.samples += within.len() as u64;
        for (envelope, field) in self.series.iter_mut().zip(TIMELINE_FIELDS) {
            if let Some(column) = piece.column(field) {
                envelope.add_piece(columns, t, column.values(), column.presence());
            }
        }
        self.shade_throttling(piece, columns);
        self.breaks.add(piece, columns, within);
    }

    /// A column is shaded where the counted reasons were active in it.
    fn shade_throttling(&mut self, piece: &SeriesFrame, columns: &Columns) {
        let Some(mask) = piece.column(Field::ThrottleMask) else {
            return;
        };
        let (values, present) = (mask.values(), mask.presence());
        columns.split(&piece.t_ms, |c, at| {
            let active = at
                .filter(|i| present.is_none_or(|p| p[*i]))
                .fold(0, |m, i| m | values[i]);
            self.thermal[c] |= active & THERMAL_THROTTLE != 0;
            self.hardware[c] |= active & HARDWARE_THROTTLE != 0;
        });
    }
}

/// Where one GPU's line breaks: the column of the first sample after each
/// silence longer than [`OUTAGE_STEPS`] sampling steps (the run's
/// interval, or the first piece's typical step) and than the shortest
/// outage (`samples::rhythm::FLOOR_MS`), so that a logger's pause of a few
/// seconds breaks no line, as it counts as no gap. A silence within one
/// column breaks nothing: the column's stroke covers it.
struct Breaks {
    gap_ms: Option<i64>,
    previous: Option<i64>,
    columns: Vec<usize>,
}

/// The silence that breaks a line at sampling step `step_ms`.
fn outage_ms(step_ms: i64) -> i64 {
    (step_ms * OUTAGE_STEPS).max(crate::samples::rhythm::FLOOR_MS)
}

impl Breaks {
    fn new(step_ms: Option<i64>) -> Self {
        Self {
            gap_ms: step_ms.map(outage_ms),
            previous: None,
            columns: Vec::new(),
        }
    }

    fn add(&mut self, piece: &SeriesFrame, columns: &Columns, within: Range<usize>) {
        if self.gap_ms.is_none() {
            self.gap_ms = piece.median_step_ms().map(outage_ms);
        }
        let Some(gap) = self.gap_ms else { return };
        for &t in &piece.t_ms[within] {
            if let Some(before) = self.previous
                && t - before > gap
                && let Some(c) = columns.of(t)
                && columns.of(before) != Some(c)
                && self.columns.last() != Some(&c)
            {
                self.columns.push(c);
            }
            self.previous = Some(t);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::domain::{Event, NewRun, Platform, PlatformKind, RunKind, SourceKind};
    use crate::samples::Sample;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        (dir, store)
    }

    /// A 2-GPU run at 1 Hz for 1000 s: GPU 1 silent from 400 s to 600 s,
    /// a spike on GPU 0 at 777 s, thermal throttling on GPU 1 at 650–660 s.
    fn sampled(store: &Store) -> i64 {
        let platform = store
            .create_platform(&Platform::new("P", PlatformKind::Hyperscaler, None).unwrap())
            .unwrap();
        let run = store
            .create_run(NewRun {
                interval_ms: Some(1000),
                ..NewRun::new(platform.id, RunKind::Sustain, SourceKind::Import)
            })
            .unwrap()
            .id;
        let mut writer = store.sample_writer(run).unwrap();
        for s in 0..1000i64 {
            for gpu in 0..2u32 {
                if gpu == 1 && (400..600).contains(&s) {
                    continue;
                }
                let power = if gpu == 0 && s == 777 {
                    900_000
                } else {
                    300_000
                };
                let mask = if gpu == 1 && (650..660).contains(&s) {
                    0x20
                } else {
                    0
                };
                writer
                    .push(
                        &Sample::new(s * 1000, gpu)
                            .with(Field::PowerMw, power)
                            .with(Field::TempGpuC, 60 + s % 5)
                            .with(Field::ThrottleMask, mask),
                    )
                    .unwrap();
            }
        }
        writer.finish().unwrap();
        let lost = Event {
            duration_ms: Some(200_000),
            gpu: Some(1),
            ..Event::new(
                jiff::Timestamp::from_millisecond(400_000).unwrap(),
                EventKind::GpuLost,
            )
        };
        store.add_events(run, &[lost]).unwrap();
        run
    }

    #[test]
    fn the_whole_run_reduces_to_its_columns_with_spikes_outages_and_throttling() {
        let (_dir, store) = store();
        let run = sampled(&store);
        let request = TimelineRequest {
            run_id: run,
            range: None,
            columns: 100,
        };
        let timeline = timeline(&store, &request).unwrap();
        assert_eq!(timeline.span, Some((0, 999_000)));
        assert_eq!(timeline.samples, 1000 + 800);
        // No clock was recorded: two panels.
        assert_eq!(timeline.fields, [Field::PowerMw, Field::TempGpuC]);
        let power = &timeline.gpus[0].series[0];
        assert_eq!(power.extent(), Some((300_000, 900_000)));
        let spike = timeline.columns.of(777_000).unwrap();
        assert_eq!(power.cells[spike].unwrap().max, 900_000);
        // GPU 1's line stops at 400 s and starts again at 600 s.
        let gpu1 = &timeline.gpus[1];
        assert_eq!(gpu1.breaks, [timeline.columns.of(600_000).unwrap()]);
        assert!(gpu1.series[0].cells[timeline.columns.of(500_000).unwrap()].is_none());
        assert!(timeline.gpus[0].breaks.is_empty());
        // Throttling shaded where it was, nowhere else.
        let shaded: Vec<usize> = (0..100).filter(|c| timeline.thermal[*c]).collect();
        assert_eq!(shaded, [65]);
        assert!(!timeline.hardware.iter().any(|h| *h));
        assert_eq!(timeline.interruptions.len(), 1);
        assert_eq!(timeline.interruptions[0].lost_until_ms, Some(600_000));
    }

    #[test]
    fn a_zoom_reads_its_range_at_full_detail() {
        let (_dir, store) = store();
        let run = sampled(&store);
        let request = TimelineRequest {
            run_id: run,
            range: Some(770_000..790_000),
            columns: 20,
        };
        let zoomed = timeline(&store, &request).unwrap();
        assert_eq!(zoomed.samples, 40);
        // One sample per column: first, min, max and last coincide.
        let cell = zoomed.gpus[0].series[0].cells[7].unwrap();
        assert_eq!(
            (cell.first, cell.min, cell.max, cell.last),
            (900_000, 900_000, 900_000, 900_000)
        );
        assert!(zoomed.interruptions.is_empty());
        // Beyond the run it is cut to the samples; outside it, refused.
        let wide = TimelineRequest {
            range: Some(-5_000_000..5_000_000),
            ..request.clone()
        };
        assert_eq!(timeline(&store, &wide).unwrap().columns.range(), 0..999_001);
        for (range, columns, field) in [
            (Some(2_000_000..3_000_000), 20, "range"),
            (Some(5_000..5_000), 20, "range"),
            (None, 0, "columns"),
            (None, MAX_COLUMNS + 1, "columns"),
        ] {
            let bad = TimelineRequest {
                run_id: run,
                range,
                columns,
            };
            match timeline(&store, &bad) {
                Err(Error::Invalid(e)) => assert_eq!(e.field, field),
                other => panic!("{other:?}"),
            }
        }
    }
}
