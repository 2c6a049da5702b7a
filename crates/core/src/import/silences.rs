//! Where a log falls silent: a GPU's samples stopping for longer than three
//! of its steps, half a minute and the logger's own recurring pause
//! (`samples::rhythm`: a gap, an interruption until they resume), and a GPU whose
//! samples stop for good while others in the same log go on (a lost GPU,
//! an interruption at its last sample). A silence the log already explains
//! (a loss it records, an XID 79 at the end) is that incident, not another.

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::plausibility;
use super::{ParseFailure, RunBuilder};
use crate::domain::{Event, EventKind};
use crate::samples::steps::StepTally;
use crate::store::Store;

/// What the silences of a run's samples come to.
#[derive(Default)]
pub(super) struct Silences {
    /// Gap and lost-GPU events to store with the run.
    pub events: Vec<Event>,
    /// How many of them are gaps.
    pub gaps: usize,
    /// The sampling step measured (the first GPU's).
    pub step_ms: Option<i64>,
    /// What the times' checks had to say.
    pub warnings: Vec<String>,
}

/// The silences of every GPU of run `run_id`, from each GPU's tally of
/// steps (`tallied`, read back from the store where the writer could not
/// keep one) at the log's own `interval` or its measured step; `events`
/// are those the log records itself.
pub(super) fn find(
    store: &Store,
    run_id: i64,
    interval: Option<u32>,
    mut tallied: BTreeMap<u32, StepTally>,
    events: &[Event],
) -> Result<Silences, ParseFailure> {
    let mut found = Silences::default();
    // Each GPU's last sample and step, to find those that stopped reporting.
    let mut ends: Vec<GpuEnd> = Vec::new();
    for gpu in store.sample_gpus(run_id)? {
        let mut times = None;
        let steps = match tallied.remove(&gpu) {
            Some(steps) => steps,
            None => StepTally::of(times.insert(read_times(store, run_id, gpu)?)),
        };
        let last = match steps.last() {
            Some(last) => Some(last),
            None => match &times {
                Some(t) => t.last().copied(),
                None => read_times(store, run_id, gpu)?.last().copied(),
            },
        };
        found
            .warnings
            .extend(plausibility::check_times(gpu, &steps)?);
        let step = interval.map(i64::from).or_else(|| steps.median_step());
        found.step_ms = found.step_ms.or(step);
        let Some(step) = step.filter(|s| *s > 0) else {
            continue;
        };
        if let Some(last) = last {
            ends.push(GpuEnd {
                gpu,
                last_ms: last,
                step_ms: step,
            });
        }
        let long_steps = match steps.steps_longer_than(3 * step) {
            Some(long_steps) => long_steps,
            None => {
                let t = match times {
                    Some(t) => t,
                    None => read_times(store, run_id, gpu)?,
                };
                t.windows(2)
                    .map(|w| (w[0], w[1] - w[0]))
                    .filter(|(_, delta)| *delta > 3 * step)
                    .collect()
            }
        };
        // Only those beyond the logger's own pauses are outages.
        for (from, delta) in crate::samples::rhythm::outages(step, &long_steps) {
            if !explained_by_a_loss(events, gpu, from, from + delta)
                && let Some(event) = RunBuilder::gap_event(gpu, from, delta)
            {
                found.events.push(event);
                found.gaps += 1;
            }
        }
    }
    found.events.extend(lost_gpus(&ends, events));
    Ok(found)
}

/// One GPU's sample times in the run, in time order.
fn read_times(store: &Store, run_id: i64, gpu: u32) -> Result<Vec<i64>, ParseFailure> {
    Ok(store.read_samples(run_id, gpu, None, Some(&[]))?.t_ms)
}

/// One GPU's last sample in a log, and its sampling step.
struct GpuEnd {
    gpu: u32,
    last_ms: i64,
    step_ms: i64,
}

/// An interruption of the GPU (or of all GPUs) the log records near its last
/// samples (an Xid 79, a loss the probe saw) is that incident already: one
/// interruption, not two. Near: within three steps or ten minutes, since a
/// Prometheus query repeats a stopped series' last value for five.
fn already_recorded(events: &[Event], end: &GpuEnd, log_end: i64) -> bool {
    let near = (3 * end.step_ms).max(10 * 60_000);
    events.iter().any(|e| {
        let at = e.at.as_millisecond();
        e.interrupts()
            && e.gpu.is_none_or(|g| g == end.gpu)
            && at >= end.last_ms - near
            && at <= log_end
    })
}

/// GPUs that stopped reporting while others in the same log went on (fell
/// off the bus, say): each is lost at its last sample until the log ends,
/// unless the log already records that loss.
fn lost_gpus(ends: &[GpuEnd], events: &[Event]) -> Vec<Event> {
    let Some(log_end) = ends.iter().map(|e| e.last_ms).max() else {
        return Vec::new();
    };
    let going_on = |gpu: u32| {
        ends.iter()
            .filter(|e| e.gpu != gpu && e.last_ms == log_end)
            .count()
    };
    ends.iter()
        .filter(|e| log_end - e.last_ms > 3 * e.step_ms)
        .filter(|e| !already_recorded(events, e, log_end))
        .filter_map(|e| {
            let at = Timestamp::from_millisecond(e.last_ms).ok()?;
            let silent = log_end - e.last_ms;
            Some(Event {
                gpu: Some(e.gpu),
                duration_ms: Some(silent),
                detail: Some(format!(
                    "stopped reporting while {} other GPUs went on for {:.1} min",
                    going_on(e.gpu),
                    silent as f64 / 60_000.0
                )),
                ..Event::new(at, EventKind::GpuLost)
            })
        })
        .collect()
}

/// Whether a silence of `gpu` from `from_ms` to `to_ms` is the same incident
/// as a recorded loss of that GPU (or of every GPU): one interruption, not two.
fn explained_by_a_loss(events: &[Event], gpu: u32, from_ms: i64, to_ms: i64) -> bool {
    events.iter().any(|e| {
        let at = e.at.as_millisecond();
        e.kind == EventKind::GpuLost
            && e.gpu.is_none_or(|g| g == gpu)
            && at <= to_ms
            && at + e.duration_ms.unwrap_or(0) >= from_ms
    })
}
